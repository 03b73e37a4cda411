"""lowy2024: every figure is cheap (exact enumeration or a vectorised bound), one rule each,
no steps. Figures 1-3 average T = 1,000 data draws, Figures 4-6 T = 100 (measured times in
docs/benchmarks.md). Figure 5 also recomputes Figure 2's curves (config ``fig2``) for the statement that
its gap is larger than Figure 2's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...core.declarations import Figure, Paper, Resources
from ...core.grids import grid

PAPER = Paper(
    title="Why does differential privacy with large ε defend against practical membership inference attacks?",
    authors="Lowy, Li, Liu, Koike-Akino, Parsons & Wang",
    venue="arXiv 2402.09540",
    summary="exponential and Gaussian mechanisms on synthetic data, ε̃ and ε̃(X)",
    order=3,
)


_PKG = "privrisk.papers.lowy2024"
_EXP = {"quick": Resources(mem_mb=1500, runtime=3)}
_GAUSS = {"quick": Resources(mem_mb=1500, runtime=3)}

FIGURES = [
    *(
        Figure(name=f, func=f"{_PKG}.figures_exponential:{f}", resources=_EXP)
        for f in ("fig1", "fig2", "fig3")
    ),
    Figure(name="fig4", func=f"{_PKG}.figures_gaussian:fig4", resources=_GAUSS),
    Figure(name="fig4_epsX", func=f"{_PKG}.figures_gaussian:fig4_epsX", resources=_GAUSS),
    Figure(
        name="fig5", func=f"{_PKG}.figures_gaussian:fig5", resources=_GAUSS, config={"fig2": "fig2"}
    ),
    *(
        Figure(name=f, func=f"{_PKG}.figures_gaussian:{f}", resources=_GAUSS)
        for f in ("fig5_epsX", "fig6", "fig6_epsX")
    ),
]


# --- config checks beyond the schema (called by privrisk.pipeline.config.validate) ---

# lowy2024: the grid each figure plots against (its code labels that axis), the claim values it
# reads (each must be a point of the grid of the same parameter) and the data parameters each
# mechanism needs unless they are the swept one.
SWEEP = {
    "fig1": "sigmas",
    "fig2": "clips",
    "fig3": "dims",
    "fig4": "epsilons",
    "fig4_epsX": "epsilons",
    "fig5": "clips",
    "fig5_epsX": "clips",
    "fig6": "dims",
    "fig6_epsX": "dims",
}
CLAIM_KEYS = {
    "fig1": ("claim_sigma",),
    "fig2": ("claim_clip", "claim_larger_n"),
    "fig4": ("claim_epsilon",),
    "fig4_epsX": ("claim_epsilon",),
    "fig5": ("claim_clip",),
    "fig5_epsX": ("claim_clip",),
}
_CLAIM_GRID = {"claim_sigma": "sigmas", "claim_clip": "clips", "claim_epsilon": "epsilons"}
_SWEPT = {"sigmas": "sigma", "clips": "clip", "dims": "d", "epsilons": "epsilon"}


def check_config(sec: Mapping[str, Any]) -> list[str]:
    """Keys of the lowy2024 section that are each valid but do not fit together."""

    out = []
    common = sec.get("common") or {}
    for fig, s in sec.items():
        if fig not in SWEEP or not isinstance(s, Mapping):
            continue
        where = f"config key lowy2024.{fig}"
        want = SWEEP[fig]
        given = [k for k in _SWEPT if k in s]
        if given and given != [want]:
            out.append(
                f"{where}: this figure plots against {_SWEPT[want]}; give its grid {want} "
                f"(not {', '.join(given)})"
            )
            continue
        gaussian = fig[3] in "456"  # Figures 4-6 also need the fixed DP parameter
        data = ("sigma", "clip", "d") + (("epsilon",) if gaussian else ())
        out += [
            f"{where}.{k}: required (it is not the swept parameter)"
            for k in data
            if k != _SWEPT[want] and s.get(k) is None
        ]
        if "trials" not in s and "trials" not in common:
            out.append(f"{where}.trials: required here or in lowy2024.common")
        out += [
            f"{where}.{k}: required (the paper's quoted number is checked there)"
            for k in CLAIM_KEYS.get(fig, ())
            if k not in s
        ]
        n = s.get("n")
        if _is_int(n) and _is_int(s.get("n_outliers")) and s["n_outliers"] > 2 * n:
            out.append(
                f"{where}.n_outliers: {s['n_outliers']} outliers in a population of 2n = {2 * n}"
            )
        if _is_int(n) and _is_int(s.get("claim_larger_n")) and s["claim_larger_n"] <= n:
            out.append(
                f"{where}.claim_larger_n: {s['claim_larger_n']} is not larger than n = {n} "
                "(the claim compares the ratios at a larger n)"
            )
        for key, grid_key in _CLAIM_GRID.items():
            if key in s and grid_key in s:
                values = grid(s[grid_key])
                if not np.isclose(values, float(s[key])).any():
                    out.append(
                        f"{where}.{key}: {s[key]} is not a point of {grid_key} "
                        f"{[float(f'{v:.6g}') for v in values]}; the claim is read at that point"
                    )
    return out


def _is_int(v) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


# --- privrisk plan (privrisk.pipeline.plan): the key that holds what a claim's plan counts ---

#: figure -> the key of this section that holds the units an uninformative claim's plan counts
#: (``unit``), the key it falls back to when the figure has none (``fallback``) and the jobs
#: whose cost grows with it (their benchmark names). T data draws set every estimate's s.e., so
#: a plan of "k× the current samples" is k× T. Figure 5 recomputes Figure 2's curves (its
#: ``fig2`` config), so its cost grows with ``fig2.trials`` too.
PLAN_KEYS = {
    fig: {
        "unit": "samples",
        "key": f"{fig}.trials",
        "fallback": "common.trials",
        "jobs": (fig, "fig5") if fig == "fig2" else (fig,),
    }
    for fig in SWEEP
}
