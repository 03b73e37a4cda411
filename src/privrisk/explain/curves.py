"""Curves of each bound against ε, for the HTML page, with a marker at the card's values.

Each curve is the card's own row function evaluated at an ε-DP (or (ε, δ)-DP, at the card's δ)
guarantee of the same adjacency, so a curve and the card can never disagree about a formula.
For μ-GDP, Gaussian and DP-SGD guarantees the f-DP rows on the card come from the whole privacy
profile and sit below the (ε, δ) curves; the markers show that.
"""

from __future__ import annotations

import math

import numpy as np

from privrisk import plotting

from .attacker import Attacker
from .card import RiskCard
from .guarantee import Guarantee, parse
from .rows import ROWS

PANELS = (
    ("membership", "membership inference"),
    ("attribute", "attribute inference (advantage)"),
    ("reconstruction", "reconstruction, one target"),
    ("quantiles", "targets reconstructed in one run"),
)
SKIP = {"reconstruction.epsilon_protect", "reconstruction.quantiles"} | {
    k for k in ROWS if k.startswith("membership.tpr_at_fpr")
}
LEGEND = {
    "membership.positive_accuracy": "positive accuracy (Thudi)",
    "membership.advantage_eps_delta": "advantage from (ε, δ) (Erlingsson)",
    "membership.advantage_fdp": "advantage, trade-off curve",
    "membership.mace": "Adv_p (Mace)",
    "attribute.simplified": "simplified (Pankova–Laud)",
    "attribute.precise": "precise (Pankova–Laud)",
    "reconstruction.beta": "β (Swanberg)",
    "reconstruction.advantage": "advantage (Swanberg)",
    "reconstruction.mmc": "MMC",
    "reconstruction.rero": "ReRo",
    "reconstruction.baseline_fdp": "1 − f(κ) (Kulynych)",
}


def grid(card_epsilon: float, n: int = 50) -> np.ndarray:
    top = 10.0 if not math.isfinite(card_epsilon) else max(6.0, 2.0 * card_epsilon)
    return np.linspace(0.0, top, n)


def series(g: Guarantee, a: Attacker, epsilons: np.ndarray) -> dict[str, np.ndarray]:
    """Every row's value over the ε grid (NaN where the row does not apply)."""
    delta = g.as_stated.delta
    out: dict[str, list[float]] = {k: [] for k in ROWS if k != "reconstruction.epsilon_protect"}
    for e in epsilons:
        ge = parse(epsilon=float(e), delta=delta or None, adjacency=g.adjacency)
        for k in out:
            row = ROWS[k](ge, a)
            if k == "reconstruction.quantiles":
                out[k].append(row.values if row.values else (np.nan,) * 3)
            else:
                out[k].append(np.nan if row.value is None else row.value)
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def figure(card: RiskCard, g: Guarantee, a: Attacker):
    """A 2 × 2 figure in the project style; returns the matplotlib Figure."""
    eps_card = g.as_stated.epsilon
    xs = grid(eps_card)
    ys = series(g, a, xs)
    fig, axes = plotting.subplots(2, 2, width=5.0, height=3.3)
    axes = axes.ravel()
    marker_x = eps_card if math.isfinite(eps_card) else xs[-1]
    for ax, (group, title) in zip(axes, PANELS, strict=True):
        i = 0
        if group == "quantiles":
            q = ys["reconstruction.quantiles"]
            row = card.row("reconstruction.quantiles")
            for j, level in enumerate(("5 %", "50 %", "95 %")):
                ax.plot(xs, q[:, j], color=plotting.color(j), linestyle=plotting.linestyle(j),
                        label=f"{level} bound")  # fmt: skip
                if row.values:
                    ax.plot([marker_x], [row.values[j]], marker=plotting.marker(j),
                            color=plotting.color(j), linestyle="none")  # fmt: skip
            ax.set_ylabel(f"targets right, of {a.targets:,}")
        else:
            for key in ROWS:
                if not key.startswith(group + ".") or key in SKIP:
                    continue
                y = ys[key]
                if np.all(np.isnan(y)):
                    continue
                row = card.row(key)
                label = LEGEND[key]
                ax.plot(xs, y, color=plotting.color(i), linestyle=plotting.linestyle(i),
                        label=label)  # fmt: skip
                if row.value is not None:
                    ax.plot([marker_x], [row.value], marker=plotting.marker(i),
                            color=plotting.color(i), linestyle="none")  # fmt: skip
                i += 1
            ax.set_ylabel("bound")
            ax.set_ylim(-0.02, 1.02)
            ax.set_xlim(xs[0], xs[-1])
            if i == 0:
                ax.text(0.5, 0.5, "n/a: these bounds need pure ε-DP", ha="center",
                        va="center", transform=ax.transAxes, color="0.35")  # fmt: skip
        ax.axvline(marker_x, **plotting.BASELINE)
        ax.set_title(title)
        ax.set_xlabel(
            f"ε ({g.adjacency})" + (f", δ = {g.as_stated.delta:.2g}" if g.as_stated.delta else "")
        )
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="lower right")
    return fig
