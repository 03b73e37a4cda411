"""The one plotting style of every figure.

Colour-blind-safe Okabe–Ito palette, line styles that also separate series in greyscale,
labelled axes, and a footnote naming stand-in data on the figure itself (design.md §3).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # no display on the build machines

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

# Okabe & Ito (2008), "Color Universal Design"; black last for baselines.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
BASELINE = {"color": "0.35", "linestyle": ":", "linewidth": 1.4}

RC = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "legend.fontsize": 8.5,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.8,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "pdf.fonttype": 42,
}


# Every figure process uses this style, so set it globally (rc_context would only cover the
# calls made inside it, not legends or texts added later).
matplotlib.rcParams.update(RC)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def linestyle(i: int):
    return LINESTYLES[i % len(LINESTYLES)]


def marker(i: int) -> str:
    return MARKERS[i % len(MARKERS)]


def subplots(nrows: int = 1, ncols: int = 1, *, width: float = 4.8, height: float = 3.4, **kw):
    """``plt.subplots`` in the project style; the size is per panel (inches)."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), **kw)
    fig.set_layout_engine("constrained")
    return fig, axes


def footnote(fig: Figure, text: str) -> None:
    """A small note under the axes, e.g. naming stand-in data or a chosen reading of the paper."""
    fig.text(0.01, 0.003, text, fontsize=7, color="0.3", ha="left", va="bottom", wrap=True)
    engine = fig.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        engine.set(rect=(0, 0.05, 1, 0.95))


def data_source_note(sources: dict[str, str]) -> str | None:
    """Footnote text for non-real data sources, or None when every dataset is real/analytic."""
    parts = [f"{name}: {src}" for name, src in sources.items() if src in ("standin", "bundled-real")]
    if not parts:
        return None
    standin = any(src == "standin" for src in sources.values())
    head = "Stand-in data (not the paper's dataset)" if standin else "Bundled real sample"
    return f"{head} — " + "; ".join(parts)


def save(fig: Figure, prefix: str, *, rc=RC) -> None:
    """Write ``prefix.pdf`` and ``prefix.png`` (200 dpi)."""
    with plt.rc_context(rc):
        fig.savefig(f"{prefix}.pdf")
        fig.savefig(f"{prefix}.png", dpi=rc["savefig.dpi"])
    plt.close(fig)
