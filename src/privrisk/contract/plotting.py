"""The one plotting style of every figure.

Colour-blind-safe Okabe–Ito palette, line styles that also separate series in greyscale,
labelled axes, and a footnote naming stand-in data on the figure itself (design.md §3).

Importing this module changes no global matplotlib setting (neither rcParams nor the backend):
the style is applied by :func:`style`, a context manager that ``figure.run_figure`` holds around
the whole figure function and the writing of its files, so a notebook that imports privrisk keeps
its own settings.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker
from matplotlib.figure import Figure

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


@contextmanager
def style(rc: dict | None = None) -> Iterator[None]:
    """The project style for everything made inside the block; the caller's rcParams come back
    afterwards. Most settings are read when an artist is created (line widths, font sizes, the
    colour cycle of new axes), so the block must span the whole figure function, legends and
    footnotes included, not only the saving."""
    with matplotlib.rc_context(RC if rc is None else rc):
        yield


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


def data_source_note(sources: dict[str, str], reasons: dict[str, str] | None = None) -> str | None:
    """Footnote text for data that is not verified real data, or None when every dataset is
    ``real``, ``simulated`` or ``analytic``.

    Stand-ins and bundled samples are named with their source; real data whose checksum nothing
    verified (``real-unverified``) in a sentence of its own, each dataset with the short reason
    (the part of ``reasons[name]`` before ``": "``, e.g. ``placed by hand``) when ``reasons``
    (a figure's ``data_fallbacks``) has one under the same name:
    ``"Real data, checksum not verified: mnist (placed by hand)"``.
    """
    reasons = reasons or {}
    parts = [
        f"{name}: {src}" for name, src in sources.items() if src in ("standin", "bundled-real")
    ]
    notes = []
    if parts:
        standin = any(src == "standin" for src in sources.values())
        head = "Stand-in data (not the paper's dataset)" if standin else "Bundled real sample"
        notes.append(f"{head} — " + "; ".join(parts))
    unverified = [
        name + (f" ({reasons[name].split(':', 1)[0].strip()})" if reasons.get(name) else "")
        for name, src in sources.items()
        if src == "real-unverified"
    ]
    if unverified:
        notes.append("Real data, checksum not verified: " + ", ".join(unverified))
    return ". ".join(notes) or None


class _PlainLogFormatter(ticker.LogFormatterSciNotation):
    """Log-axis labels as plain numbers ("4", "0.6", "100") instead of "4×10⁰"; which ticks
    get a label is still matplotlib's decision (minor ticks only over few decades)."""

    def __call__(self, x, pos=None):
        label = super().__call__(x, pos)
        return f"{x:g}" if label else ""


def plain_log_ticks(ax, axis: str = "y") -> None:
    """Plain-number tick labels on a log axis (major and minor)."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(_PlainLogFormatter(labelOnlyBase=False))
    target.set_minor_formatter(_PlainLogFormatter(labelOnlyBase=False, minor_thresholds=(1.5, 0.6)))


def headroom(ax, frac: float = 0.08) -> None:
    """Extend the top of the y-range by ``frac`` of its span (in log space on a log axis), so no
    curve runs along the top edge of the axes."""
    lo, hi = ax.get_ylim()
    if ax.get_yscale() == "log" and lo > 0:
        ax.set_ylim(lo, hi * (hi / lo) ** frac)
    else:
        ax.set_ylim(lo, hi + frac * (hi - lo))


def _data_points(ax) -> np.ndarray:
    """Display coordinates of every drawn line (densified) and band vertex of ``ax``."""
    pts = []
    for line in ax.get_lines():
        xy = np.column_stack(line.get_data()).astype(float)
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy) == 0:
            continue
        disp = ax.transData.transform(xy)
        if len(disp) > 1:  # points along each segment, so a legend over a segment counts
            t = np.linspace(0, 1, 25)[:, None, None]
            disp = (disp[:-1] * (1 - t) + disp[1:] * t).reshape(-1, 2)
        pts.append(disp)
    for coll in ax.collections:
        for path in coll.get_paths():
            pts.append(coll.get_transform().transform(path.vertices))
    return np.vstack(pts) if pts else np.empty((0, 2))


def legend_covers_data(ax) -> bool:
    """Whether the legend of ``ax`` lies over any drawn line point, segment or band vertex."""
    leg = ax.get_legend()
    if leg is None:
        return False
    fig = ax.figure
    fig.canvas.draw()
    box = leg.get_window_extent().padded(-1)
    pts = _data_points(ax)
    inside = (
        (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
    )
    return bool(inside.any())


def legend(ax, **kw):
    """A legend that never covers data: matplotlib's best place inside the axes if it is free,
    else outside to the right of the axes."""
    leg = ax.legend(**kw)
    if leg is not None and legend_covers_data(ax):
        kw = {k: v for k, v in kw.items() if k not in ("loc", "bbox_to_anchor")}
        leg = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), **kw)
    return leg


def legend_outside(ax, **kw):
    """Alias of :func:`legend` (kept for the lowy2024 plot)."""
    return legend(ax, **kw)


def clipped_texts(fig: Figure, *, tolerance_px: float = 1.0) -> list[str]:
    """Visible, non-empty text artists whose extent leaves the figure canvas.

    The laid-out figure must fit its own canvas (stricter than the tight bounding box that
    :func:`save` also applies, which would hide the problem by growing the canvas); the test of
    the no-clipped-text rule calls this on every figure of a paper.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox.padded(tolerance_px)
    # Tick labels of ticks outside the view limits keep stale positions but are never drawn.
    all_ticks, drawn = set(), set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                all_ticks |= {id(tick.label1), id(tick.label2)}
            for tick in axis._update_ticks():  # the ticks matplotlib draws
                drawn |= {id(tick.label1), id(tick.label2)}
    out = []
    for t in fig.findobj(lambda a: hasattr(a, "get_text") and hasattr(a, "get_window_extent")):
        if not t.get_visible() or not str(t.get_text()).strip():
            continue
        if id(t) in all_ticks and id(t) not in drawn:
            continue
        box = t.get_window_extent(renderer)
        if box.x0 < canvas.x0 or box.y0 < canvas.y0 or box.x1 > canvas.x1 or box.y1 > canvas.y1:
            out.append(str(t.get_text()))
    return out


def save(fig: Figure, prefix: str, *, rc=RC) -> None:
    """Write ``prefix.pdf`` and ``prefix.png`` (200 dpi) with a tight bounding box, so no label,
    title or legend outside the axes is cut off at the canvas edge."""
    with style(rc):
        fig.savefig(f"{prefix}.pdf", bbox_inches="tight", pad_inches=0.05)
        fig.savefig(f"{prefix}.png", dpi=rc["savefig.dpi"], bbox_inches="tight", pad_inches=0.05)
    plt.close(fig)
