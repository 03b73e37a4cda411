"""What Figures 1–6 of lowy2024 share: the swept parameter, the common random numbers, the
tidy table of the two ratios and three parameters, the two-panel plot and the claims ledger.

Every figure plots, against one swept parameter, the trial-averaged ratios ε̃(X)/ε and
ε̃(X)/ε(X), where ε is the DP parameter, ε(X) the DP parameter restricted to neighbouring
subsets of the population X, and ε̃(X) the practical-membership-privacy (PMP) parameter
The only randomness is the synthetic data (as in the
paper); every grid point of a figure reuses the same draws (common random numbers), so the
curves are smooth in the swept value.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ...bounds import pmp
from ...contract import plotting
from ...contract.figure import FigureResult
from ...core import seeds
from ...core.grids import grid
from ...data import synthetic
from ...estimators.summary import safe_ratio, summarise
from ...mechanisms import exponential as em
from .claims import LEDGER

RATIO = "ε̃(X)/ε"
RATIO_X = "ε̃(X)/ε(X)"
PARAM_SERIES = {"eps": "ε (DP, global)", "eps_x": "ε(X) (DP within X)", "eps_tilde": "ε̃(X) (PMP)"}
AXIS = {
    "sigma": "data standard deviation σ",
    "clip": "clip threshold C (ℓ2 norm)",
    "d": "data dimension d",
}
DATA_SOURCES = {"synthetic Gaussian population (drawn as in the paper)": "simulated"}

#: config key of a sweep's grid -> the parameter it sweeps (exactly one per figure)
SWEEPS = {"sigmas": "sigma", "clips": "clip", "dims": "d", "epsilons": "epsilon"}


def rng(params, figure: str) -> np.random.Generator:
    """One generator per figure: the global seed and the figure name (stable across runs)."""
    return seeds.rng(int(params["seed"]), figure)


def need(params, key: str, figure: str):
    if params.get(key) is None:
        raise ValueError(
            f"{LEDGER.paper}.{figure}.{key} is required unless it is the swept parameter"
        )
    return params[key]


def swept(params, figure: str) -> tuple[str, list]:
    """(the swept parameter, its grid) from the one plural key given (sigmas, clips, dims, epsilons)."""
    given = [k for k in SWEEPS if k in params]
    if len(given) != 1:
        raise ValueError(
            f"{LEDGER.paper}.{figure} needs exactly one of {', '.join(SWEEPS)}; got {given}"
        )
    key = given[0]
    values = grid(params[key]).tolist() if key == "epsilons" else list(params[key])
    return SWEEPS[key], values


def max_dim(params, name: str, values, figure: str) -> int:
    """The largest dimension drawn (smaller ones use the first coordinates of the same draws)."""
    return int(max(values)) if name == "d" else int(need(params, "d", figure))


def point(params, name: str, v, keys: tuple[str, ...], figure: str, d_max: int) -> dict:
    """The data parameters ``keys`` at one grid point (the swept one set to ``v``) and its d."""
    cfg = {k: params.get(k) for k in keys} | {name: v}
    for k in keys:
        if cfg[k] is None:
            need(params, k, figure)
    cfg["d"] = int(v) if name == "d" else d_max
    return cfg


def tidy(xs, per_point: list[dict[str, np.ndarray]]) -> pd.DataFrame:
    """Tidy table: the two ratios (panel 'ratios') and ε, ε(X), ε̃(X) (panel 'parameters')."""
    rows = []
    for x, trip in zip(xs, per_point, strict=True):
        series = {
            RATIO: ("ratios", safe_ratio(trip["eps_tilde"], trip["eps"])),
            RATIO_X: ("ratios", safe_ratio(trip["eps_tilde"], trip["eps_x"])),
            **{label: ("parameters", trip[k]) for k, label in PARAM_SERIES.items()},
        }
        for name, (panel, vals) in series.items():
            mean, std, se, count = summarise(vals)
            rows.append(
                {
                    "panel": panel,
                    "series": name,
                    "x": x,
                    "y": mean,
                    "lo": mean - se,
                    "hi": mean + se,
                    "se": se,
                    "std": std,
                    "n_trials": count,
                }
            )
    return pd.DataFrame(rows)


def _row(data: pd.DataFrame, series: str, x):
    sel = data[(data.series == series) & np.isclose(data.x.astype(float), float(x))]
    if sel.empty:
        raise KeyError(f"no {series!r} point at x = {x}; the claim needs it in the grid")
    return sel.iloc[0]


def value(data: pd.DataFrame, series: str, x) -> float:
    return float(_row(data, series, x).y)


def value_se(data: pd.DataFrame, series: str, x) -> tuple[float, float]:
    """(mean, standard error over trials) of one plotted point."""
    r = _row(data, series, x)
    return float(r.y), float(r.se)


def curve(data: pd.DataFrame, series: str) -> np.ndarray:
    return data[data.series == series].sort_values("x").y.to_numpy()


def curve_se(data: pd.DataFrame, series: str) -> tuple[np.ndarray, np.ndarray]:
    """(means, standard errors) of one series in x order."""
    d = data[data.series == series].sort_values("x")
    return d.y.to_numpy(float), d.se.to_numpy(float)


def mark(ax, x, y, text: str, *, above: bool = True) -> None:
    """A paper-quoted value drawn on the figure (black ×, labelled), so a discrepancy is visible."""
    first = "value quoted by the paper" not in ax.get_legend_handles_labels()[1]
    ax.plot(
        [x],
        [y],
        marker="X",
        color="black",
        markersize=8,
        linestyle="none",
        zorder=5,
        label="value quoted by the paper" if first else "_nolegend_",
    )
    ax.annotate(
        text,
        (x, y),
        xytext=(7, 2 if above else -2),
        textcoords="offset points",
        ha="left",
        va="bottom" if above else "top",
        fontsize=7.5,
    )


def plot(
    data: pd.DataFrame,
    *,
    xlabel: str,
    title: str,
    logx: bool,
    marks=(),
    param_marks=(),
    logy_ratios: bool = False,
) -> plotting.Figure:
    """The two panels; ``marks``/``param_marks`` are (x, y, text) of values quoted by the paper,
    drawn on the ratios / parameters panel."""
    fig, (ax, bx) = plotting.subplots(1, 2, width=4.4, height=3.4)
    for i, name in enumerate((RATIO, RATIO_X)):
        d = data[data.series == name].sort_values("x")
        ax.plot(
            d.x,
            d.y,
            color=plotting.color(i),
            linestyle=plotting.linestyle(i),
            marker=plotting.marker(i),
            markersize=4,
            label=name,
        )
        ax.fill_between(
            d.x.astype(float), d.lo, d.hi, color=plotting.color(i), alpha=0.2, linewidth=0
        )
    for x, y, text in marks:
        mark(ax, x, y, text)
    ax.set(xlabel=xlabel, ylabel="ratio (mean over trials, ±1 s.e.)", title=title)
    if logy_ratios:
        ax.set_yscale("log")
        plotting.plain_log_ticks(ax, "y")
    else:
        ax.set_ylim(bottom=0)
    for i, name in enumerate(PARAM_SERIES.values()):
        d = data[data.series == name].sort_values("x")
        y = np.where(np.isfinite(d.y) & (d.y > 0), d.y, np.nan)
        bx.plot(
            d.x,
            y,
            color=plotting.color(i + 2),
            linestyle=plotting.linestyle(i),
            marker=plotting.marker(i + 2),
            markersize=4,
            label=name,
        )
    for x, y, text in param_marks:
        mark(bx, x, y, text)
    bx.set(
        xlabel=xlabel,
        ylabel="privacy parameter (mean over trials)",
        yscale="log",
        title="The three parameters",
    )
    if logx:
        ax.set_xscale("log")
        bx.set_xscale("log")
    plotting.plain_log_ticks(bx, "y")
    for a in (ax, bx):
        plotting.headroom(a)
        plotting.legend_outside(a)
    return fig


def result(
    params, *, data: pd.DataFrame, fig, claims: list, caption: str, extra: dict
) -> FigureResult:
    return FigureResult(
        data=data,
        fig=fig,
        claims=claims,
        data_sources=DATA_SOURCES,
        seeds={"seed": int(params["seed"])},
        caption=caption,
        extra=extra,
    )


def exp_sweep(
    params, figure: str, *, only: list | None = None, stream: str | None = None
) -> tuple[list, list[dict[str, np.ndarray]]]:
    """(ε, ε(X), ε̃(X)) for every trial at every grid point of an exponential-mechanism figure
    (or at the points ``only``; ``stream`` names the random stream, default the figure)."""
    name, values = swept(params, figure)
    values = values if only is None else list(only)
    n, m, t = params["n"], params["m"], params["trials"]
    d_max = max_dim(params, name, values, figure)
    gen = rng(params, stream or figure)
    w_raw = gen.standard_normal((t, m, d_max))
    z, outliers = synthetic.gaussian_draws(gen, t, 2 * n, d_max, params["n_outliers"])
    membership = pmp.subsets(2 * n, n)
    out = []
    for v in values:
        cfg = point(params, name, v, ("sigma", "clip", "d"), figure, d_max)
        d = cfg["d"]
        w = em.unit_rows(w_raw[..., :d])
        x = synthetic.population(
            w[:, 0], z[..., :d], cfg["sigma"], cfg["clip"], outliers, params["outlier_scale"]
        )
        out.append(
            em.eps_triple(w, x, n=n, clip=cfg["clip"], eps_x=params["eps_x"], membership=membership)
        )
        logging.getLogger(__name__).info("%s: %s = %g done (%d trials)", figure, name, v, t)
    return values, out
