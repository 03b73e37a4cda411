"""lowy2024 Figures 4–6: the Gaussian mechanism for the mean of n = 100 points (|X| = 200),
Balle–Wang calibration and Proposition 12's bound.

The paper does not say which DP parameter it holds fixed, so each figure exists in both
readings (spec §3.2.4): ``fig4`` fixes ε(X) (the literal axis label) and ``fig4_global`` the
global ε (the reading consistent with the text); ``fig5``/``fig6`` fix the global ε = 5 (the
spec's default) and ``fig5_epsX``/``fig6_epsX`` fix ε(X) = 5. Both readings of a figure share
their data draws.
"""

from __future__ import annotations

import logging

import numpy as np

from ...bounds import pmp
from ...data import synthetic
from ...estimators.summary import trend
from ...figure import FigureResult
from ...mechanisms import gaussian as gm
from .common import (
    AXIS,
    LEDGER,
    PARAM_SERIES,
    RATIO,
    RATIO_X,
    curve,
    max_dim,
    plot,
    point,
    result,
    rng,
    swept,
    tidy,
    value,
)

log = logging.getLogger(__name__)

READING = {
    "restricted": "ε(X) held fixed (s calibrated with the X-restricted sensitivity Δ(X))",
    "global": "global ε held fixed (s calibrated with the global sensitivity 2C/n)",
}
COMPANION = {  # figure -> why this reading, and where the other one is
    "fig4": "the literal reading of the paper's x-axis label ε(X); the reading consistent with the "
            "paper's text (global ε fixed) is fig4_global",
    "fig4_global": "consistent with every statement in the paper's text, although its axis is "
                   "labelled ε(X); the literal reading (ε(X) fixed) is fig4",
    "fig5": "the default, as the text speaks of 'a DP parameter of ε = 5'; the ε(X)-fixed reading "
            "is fig5_epsX",
    "fig5_epsX": "the alternative reading; the default (global ε = 5 fixed) is fig5",
    "fig6": "the default (the caption lost the fixed value; ε = 5 assumed); the ε(X)-fixed reading "
            "is fig6_epsX",
    "fig6_epsX": "the alternative reading; the default (global ε = 5 fixed) is fig6",
}


def gauss_sweep(params, figure: str, *, fixed: str | None = None,
                only: list | None = None) -> tuple[list, list[dict[str, np.ndarray]]]:
    """(ε, ε(X), ε̃(X)) per trial at every grid point of a Gaussian-mechanism figure."""
    name, grid = swept(params, figure)
    values = grid if only is None else list(only)
    fixed = params["fixed"] if fixed is None else fixed
    n, t = params["n"], params["trials"]
    d_max = max_dim(params, name, grid, figure)
    gen = rng(params, figure.split("_")[0])  # both readings of a figure share their data
    z, outliers = synthetic.gaussian_draws(gen, t, 2 * n, d_max, params["n_outliers"])
    zero = np.zeros((t, d_max))
    out = []
    for v in values:
        cfg = point(params, name, v, ("sigma", "clip", "epsilon"), figure, d_max)
        d = cfg["d"]
        x = synthetic.population(zero[:, :d], z[..., :d], cfg["sigma"], cfg["clip"], outliers,
                                 params["outlier_scale"])
        out.append(gm.eps_triple(x, n=n, clip=cfg["clip"], delta=params["delta"], fixed=fixed,
                                 value=cfg["epsilon"]))
        log.info("%s: %s = %g done (%d trials, %s)", figure, name, v, t, fixed)
    return values, out


def _caption(fig_no, what, params, reading, setting, figure):
    return (f"Figure {fig_no}. Gaussian mechanism for the mean of n = {params['n']} points "
            f"(A(D) = mean(D) + N(0, s²I), δ = {params['delta']:g}); the population X has "
            f"2n = {2 * params['n']} points drawn N(0, σ²I) and clipped to norm C ({setting}); "
            f"D is a uniformly random half. Reading of the paper: {READING[reading]} "
            f"({COMPANION[figure]}). Left: {what}, "
            f"averaged over T = {params['trials']} data draws (bands ±1 s.e.). ε and ε(X) are exact "
            "(Balle–Wang); ε̃(X) is Proposition 12's upper bound on the PMP parameter (the paper's "
            "3-step approach). Right: the mean parameters (log scale).")


def _extra(values, trips, reading):
    return {
        "reading": READING[reading],
        "per_point": [
            {"x": v, "mean_s": float(np.mean(tr["s"])), "mean_eps": float(np.mean(tr["eps"])),
             "mean_eps_x": float(np.mean(tr["eps_x"])), "mean_eps_tilde": float(np.mean(tr["eps_tilde"])),
             "mean_success_bound": float(np.mean(pmp.success_bound(tr["eps_tilde"])))}
            for v, tr in zip(values, trips, strict=True)
        ],
    }


def _other(reading: str) -> str:
    return "global" if reading == "restricted" else "restricted"


def _fixed_name(reading: str) -> str:
    return "ε" if reading == "global" else "ε(X)"


def _fig4(params, figure: str) -> FigureResult:
    reading = params["fixed"]
    values, trips = gauss_sweep(params, figure)
    data = tidy(values, trips)
    xlabel = "restricted DP parameter ε(X) (fixed)" if reading == "restricted" else "DP parameter ε (fixed)"
    fig = plot(data, xlabel=xlabel, logx=False,
               title=f"Gaussian mechanism, {'ε(X)' if reading == 'restricted' else 'global ε'} fixed")
    x10 = float(params["claim_epsilon"])
    et10 = value(data, PARAM_SERIES["eps_tilde"], x10)
    _, alt = gauss_sweep(params, figure, fixed=_other(reading), only=[x10])
    alt_et = float(np.mean(alt[0]["eps_tilde"]))
    rc, rxc = curve(data, RATIO), curve(data, RATIO_X)
    gap = rxc - rc  # the vertical distance between the two plotted curves
    (ok_r, mono_r), (ok_rx, mono_rx) = trend(values, rc, +1), trend(values, rxc, +1)
    other = "fig4_global" if reading == "restricted" else "fig4"
    claims = [
        LEDGER.qualitative(
            figure=figure, claim_id=f"{figure}_eps_tilde_at_10",
            claim=f"At ε(X) = {x10:g}, ε̃(X) < 0.9", holds=bool(et10 < 0.9),
            ours=f"ε̃(X) = {et10:.3f} ({READING[reading]})",
            note=(f"with the other reading ({other}) ε̃(X) = {alt_et:.3f}; the paper does not say "
                  "which parameter is fixed (spec §3.2.4)") if et10 >= 0.9 else
                 f"the other reading ({other}) gives ε̃(X) = {alt_et:.3f}"),
        LEDGER.qualitative(
            figure=figure, claim_id=f"{figure}_ratios_increase",
            claim="The ratios increase with the DP parameter on the x-axis",
            holds=ok_r and ok_rx,
            ours=(f"ε̃/ε {rc[0]:.4f} -> {rc[-1]:.4f} (strictly monotone: {mono_r}); "
                  f"ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.3f} (strictly monotone: {mono_rx})"),
            note="" if ok_r and ok_rx else f"not both increasing under this reading ({READING[reading]})"),
        LEDGER.qualitative(
            figure=figure, claim_id=f"{figure}_gap",
            claim="There is a large gap between the two curves, especially when the DP parameter is large",
            holds=bool(gap[-1] > gap[0] and gap[-1] > 5 * rc[-1]),
            ours=(f"ε̃/ε(X) − ε̃/ε = {gap[0]:.3f} at x = {values[0]:g}, {gap[-1]:.3f} at x = {values[-1]:g} "
                  f"(ε̃/ε = {rc[-1]:.4f} there)")),
    ]
    setting = f"d = {params['d']}, σ = {params['sigma']:g}, C = {params['clip']:g}, no outliers"
    caption = _caption("4" if reading == "restricted" else "4 (global-ε reading)",
                       f"the ratios against the fixed {'ε(X)' if reading == 'restricted' else 'ε'}",
                       params, reading, setting, figure)
    return result(params, data=data, fig=fig, claims=claims, caption=caption,
                  extra=_extra(values, trips, reading) | {"other_reading_eps_tilde_at_claim": alt_et})


def fig4(params) -> FigureResult:
    """Gaussian mechanism: ratios vs ε(X) (literal caption reading: ε(X) fixed)."""
    return _fig4(params, "fig4")


def fig4_global(params) -> FigureResult:
    """Gaussian mechanism: ratios vs the global ε (the reading consistent with the text)."""
    return _fig4(params, "fig4_global")


def _fig5(params, figure: str) -> FigureResult:
    reading = params["fixed"]
    values, trips = gauss_sweep(params, figure)
    data = tidy(values, trips)
    fixed_name = _fixed_name(reading)
    fig = plot(data, xlabel=AXIS["clip"], logx=True,
               title=f"Gaussian mechanism, {params['n_outliers']} outliers, {fixed_name} = {params['epsilon']:g}")
    c = float(params["claim_clip"])
    et = value(data, PARAM_SERIES["eps_tilde"], c)
    rc, rxc = curve(data, RATIO), curve(data, RATIO_X)
    claims = []
    if reading == "global":
        claims.append(LEDGER.numeric(
            figure=figure, claim_id=f"{figure}_eps_tilde_C100",
            claim=f"At C = {c:g} a DP parameter ε = {params['epsilon']:g} translates into ε̃(X) = 1",
            paper_value=1.0, ours=et, tolerance=0.1,
            note_if_differs=("unresolved (spec §3.2.4): Proposition 12's bound with Balle–Wang "
                             "calibration gives about twice the quoted value; 2δ, clipping before "
                             "scaling outliers and averaging over targets were tried in the spec and "
                             "do not give 1 either")))
    shrink_rx = trend(values, rxc, -1)[0]
    claims.append(LEDGER.qualitative(
        figure=figure, claim_id=f"{figure}_ratios_shrink",
        claim="The ratios shrink as the clip threshold C increases",
        holds=trend(values, rc, -1)[0] and shrink_rx,
        ours=(f"ε̃/ε {rc[0]:.3f} -> {rc[-1]:.3f}; ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.3f} "
              f"over C = {values[0]:g}..{values[-1]:g}"),
        note=("" if shrink_rx else
              "only ε̃/ε shrinks (ε grows with C); ε̃/ε(X) does not, because the worst-case target "
              "is an outlier whose distance to the others also grows with C")))
    setting = (f"d = {params['d']}, σ = {params['sigma']:g}; {params['n_outliers']} random points "
               f"multiplied by {params['outlier_scale']:g} before clipping")
    caption = _caption("5" if reading == "global" else "5 (ε(X)-fixed reading)",
                       f"the ratios against C at {fixed_name} = {params['epsilon']:g}",
                       params, reading, setting, figure)
    return result(params, data=data, fig=fig, claims=claims, caption=caption,
                  extra=_extra(values, trips, reading))


def fig5(params) -> FigureResult:
    """Gaussian mechanism: ratios vs C with outliers, global ε = 5 fixed (spec's default)."""
    return _fig5(params, "fig5")


def fig5_epsX(params) -> FigureResult:  # noqa: N802 (figure names follow the output files)
    """Gaussian mechanism: ratios vs C with outliers, ε(X) = 5 fixed."""
    return _fig5(params, "fig5_epsX")


def _fig6(params, figure: str) -> FigureResult:
    reading = params["fixed"]
    values, trips = gauss_sweep(params, figure)
    data = tidy(values, trips)
    fixed_name = _fixed_name(reading)
    fig = plot(data, xlabel=AXIS["d"], logx=True,
               title=f"Gaussian mechanism, {fixed_name} = {params['epsilon']:g}")
    rc, rxc = curve(data, RATIO), curve(data, RATIO_X)
    ok = trend(values, rc, +1)[0] and trend(values, rxc, +1)[0]
    claims = [LEDGER.qualitative(
        figure=figure, claim_id=f"{figure}_ratios_increase_d",
        claim="The ratios increase with the dimension d (the opposite of Figure 3)", holds=ok,
        ours=f"ε̃/ε {rc[0]:.4f} -> {rc[-1]:.4f}; ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.3f} over d = {values[0]}..{values[-1]}",
        note="" if ok else "not increasing on our grid")]
    setting = f"σ = {params['sigma']:g}, C = {params['clip']:g}, no outliers"
    caption = _caption("6" if reading == "global" else "6 (ε(X)-fixed reading)",
                       f"the ratios against d at {fixed_name} = {params['epsilon']:g} (the "
                       "paper's caption lost the value; 5 is assumed)", params, reading, setting,
                       figure)
    return result(params, data=data, fig=fig, claims=claims, caption=caption,
                  extra=_extra(values, trips, reading))


def fig6(params) -> FigureResult:
    """Gaussian mechanism: ratios vs d, global ε = 5 fixed (spec's default)."""
    return _fig6(params, "fig6")


def fig6_epsX(params) -> FigureResult:  # noqa: N802
    """Gaussian mechanism: ratios vs d, ε(X) = 5 fixed."""
    return _fig6(params, "fig6_epsX")
