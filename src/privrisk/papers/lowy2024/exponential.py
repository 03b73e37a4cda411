"""lowy2024 Figures 1–3: the exponential mechanism (geometric-median loss over m unit
candidates), ε̃(X) exact by Proposition 9 over all C(12, 6) = 924 halves of a 12-point
population; plus the numbers the paper quotes outside its figures (intro, Proposition 5).
"""

from __future__ import annotations

import logging

import numpy as np

from ...bounds import pmp
from ...data import synthetic
from ...estimators.summary import trend
from ...figure import FigureResult
from ...mechanisms import exponential as em
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


def exp_sweep(params, figure: str) -> tuple[list, list[dict[str, np.ndarray]]]:
    """(ε, ε(X), ε̃(X)) for every trial at every grid point of an exponential-mechanism figure."""
    name, values = swept(params, figure)
    n, m, t = params["n"], params["m"], params["trials"]
    d_max = max_dim(params, name, values, figure)
    gen = rng(params, figure)
    w_raw = gen.standard_normal((t, m, d_max))
    z, outliers = synthetic.gaussian_draws(gen, t, 2 * n, d_max, params["n_outliers"])
    membership = pmp.subsets(2 * n, n)
    out = []
    for v in values:
        cfg = point(params, name, v, ("sigma", "clip", "d"), figure, d_max)
        d = cfg["d"]
        w = em.unit_rows(w_raw[..., :d])
        x = synthetic.population(w[:, 0], z[..., :d], cfg["sigma"], cfg["clip"], outliers,
                                 params["outlier_scale"])
        out.append(em.eps_triple(w, x, n=n, clip=cfg["clip"], eps_x=params["eps_x"],
                                 membership=membership))
        log.info("%s: %s = %g done (%d trials)", figure, name, v, t)
    return values, out


def _extra(values, trips):
    return {
        "per_point": [
            {"x": v, "mean_eps": float(np.mean(tr["eps"])), "mean_eps_tilde": float(np.mean(tr["eps_tilde"])),
             "mean_success_bound": float(np.mean(pmp.success_bound(tr["eps_tilde"]))),
             "max_two_sided_minus_one_sided": float(np.max(tr["eps_tilde"] - tr["eps_tilde_one_sided"]))}
            for v, tr in zip(values, trips, strict=True)
        ],
        "conventions": ("β = ε(X)/(2Δ_ℓ(X)) with the X-restricted sensitivity; ε = 2βΔ_ℓ with "
                        "Δ_ℓ = (C+1)/n (C >= 1) or 2C/n; ε̃(X) two-sided Proposition 9 (spec §3.1.3)"),
    }


def _caption(fig_no, what, params, fixed_text):
    return (f"Figure {fig_no}. Exponential mechanism (geometric-median loss ℓ(w, D) = mean ‖w − x‖ "
            f"over m = {params['m']} unit-norm candidates), population X of 2n = {2 * params['n']} "
            f"points drawn N(w₁, σ²I) and clipped to norm C{fixed_text}; D is a uniformly random half "
            f"of X. Left: {what}, averaged over T = {params['trials']} data draws (bands ±1 s.e.): "
            "ε̃(X)/ε (practical-attacker PMP parameter over the worst-case DP parameter) and "
            "ε̃(X)/ε(X) (over the DP parameter restricted to X, isolating the attacker's uncertainty). "
            "ε̃(X) is exact (Proposition 9, all 924 halves enumerated). Right: the mean parameters. "
            "The mechanism is calibrated so that its nominal guarantee with the X-restricted "
            f"sensitivity is ε(X) = {params['eps_x']:g}; ε uses the global sensitivity (C+1)/n.")


def text_claims() -> list:
    """Numbers quoted outside the figures: the intro's success rates and Proposition 5."""
    lp3, mem3 = pmp.sum_mod_mechanism(3)
    lp6, mem6 = pmp.sum_mod_mechanism(6)
    prop5 = float(pmp.pmp_epsilon(lp3, mem3))
    prop5_dp = float(pmp.dp_epsilon_restricted(lp3, mem3))
    n6 = float(pmp.pmp_epsilon(lp6, mem6))
    return [
        LEDGER.numeric(figure="intro", claim_id="success_eps0.1",
                       claim="ε-DP bounds MIA success by 1/(1+e^-ε): ≈ 52.5 % at ε = 0.1",
                       paper_value=0.525, ours=pmp.success_bound(0.1), tolerance=5e-4),
        LEDGER.numeric(figure="intro", claim_id="success_eps7",
                       claim="ε >= 7 allows MIA success >= 0.999 (1/(1+e^-7))",
                       paper_value=0.999, ours=pmp.success_bound(7.0), tolerance=1e-3),
        LEDGER.numeric(figure="prop5", claim_id="prop5_ln2",
                       claim="Prop. 5(b): A(D) = ΣD mod 6 on X = {0..5}, n = 3, is ln 2-PMP",
                       paper_value=float(np.log(2)), ours=prop5, tolerance=1e-8,  # ours is stored to 8 digits
                       note=f"exact enumeration; its DP parameter within X is {prop5_dp:g} (not DP)"),
        LEDGER.qualitative(
            figure="prop5", claim_id="prop5_n6",
            claim="For n = 6 the construction extends to ε <= ln(40/37) ≈ 0.078",
            holds=bool(n6 <= np.log(40 / 37) + 1e-12),
            ours=f"ΣD mod 12 on X = {{0..11}}: ε̃ = ln(38/37) = {n6:.4f}",
            note="the paper's exact n = 6 construction is not given; the obvious extension is tighter"),
    ]


def fig1(params) -> FigureResult:
    """Exponential mechanism: ratios vs the data standard deviation σ (d = 1)."""
    values, trips = exp_sweep(params, "fig1")
    data = tidy(values, trips)
    fig = plot(data, xlabel=AXIS["sigma"], logx=True,
               title=f"Exp. mechanism, d = {params['d']}, ε(X) = {params['eps_x']:g}")
    r, rx = curve(data, RATIO), curve(data, RATIO_X)
    xs = np.asarray(values, float)
    s1 = float(params["claim_sigma"])
    et1 = value(data, PARAM_SERIES["eps_tilde"], s1)
    plateau = float(rx[0] * params["eps_x"])
    why = ("unresolved (spec §3.1.3): our curve passes 0.075 / ε ≈ 28.5 near σ ≈ 0.6–0.7, not at σ = 1; "
           "candidate causes are the paper's unstated T, σ grid or global sensitivity")
    up, up_strict = trend(xs[xs <= 1], r[xs <= 1], +1)
    claims = [
        *text_claims(),
        LEDGER.numeric(figure="fig1", claim_id="fig1_ratio_sigma1", claim="At σ = 1, ε̃(X)/ε ≈ 0.075",
                       paper_value=0.075, ours=value(data, RATIO, s1), tolerance=0.0075,
                       note_if_differs=why),
        LEDGER.numeric(figure="fig1", claim_id="fig1_eps_sigma1", claim="At σ = 1 (ε(X) = 5), ε ≈ 28.5",
                       paper_value=28.5, ours=value(data, PARAM_SERIES["eps"], s1), tolerance=1.5,
                       note_if_differs=why),
        LEDGER.numeric(figure="fig1", claim_id="fig1_eps_tilde_sigma1", claim="At σ = 1, ε̃(X) ≈ 2.14",
                       paper_value=2.14, ours=et1, tolerance=0.1,
                       note_if_differs=(f"ours {et1:.3f} at σ = 1; the small-σ plateau is ε̃ = {plateau:.3f} "
                                        "(spec §8.5 expects 2.05–2.11 there)")),
        LEDGER.qualitative(
            figure="fig1", claim_id="fig1_small_sigma",
            claim="For σ < 0.1 the PMP parameter approaches 0 (at fixed ε: ε̃(X)/ε -> 0)",
            holds=bool(np.all(r[xs < 0.1] < 0.1 * value(data, RATIO, s1)) and np.all(np.diff(r[xs <= 0.1]) > 0)),
            ours="; ".join(f"σ={x:g}: {y:.4f}" for x, y in zip(xs[xs <= 0.1], r[xs <= 0.1], strict=True))),
        LEDGER.qualitative(
            figure="fig1", claim_id="fig1_ratio_increases",
            claim="ε̃(X)/ε increases with σ (grid up to σ = 1)",
            holds=up,
            ours=(f"{r[0]:.4f} at σ = {xs[0]:g} -> {r[xs <= 1][-1]:.4f} at σ = 1 (strictly monotone: "
                  f"{up_strict}); {r[-1]:.4f} at σ = {xs[-1]:g}")),
        LEDGER.qualitative(
            figure="fig1", claim_id="fig1_ratioX_flat",
            claim="ε̃(X)/ε(X) does not depend significantly on σ (σ <= 1, relative range < 10 %)",
            holds=bool(np.ptp(rx[xs <= 1]) / np.mean(rx[xs <= 1]) < 0.1),
            ours=f"range {rx[xs <= 1].min():.3f}–{rx[xs <= 1].max():.3f} for σ <= 1; {rx[-1]:.3f} at σ = {xs[-1]:g}"),
    ]
    return result(params, data=data, fig=fig, claims=claims, extra=_extra(values, trips),
                  caption=_caption(1, "the ratios against the data standard deviation σ", params,
                                   f" (d = {params['d']}, C = {params['clip']:g})"))


def fig2(params) -> FigureResult:
    """Exponential mechanism: ratios vs the clip threshold C, with 2 outliers (×100)."""
    values, trips = exp_sweep(params, "fig2")
    data = tidy(values, trips)
    fig = plot(data, xlabel=AXIS["clip"], logx=True,
               title=f"Exp. mechanism, {params['n_outliers']} outliers, ε(X) = {params['eps_x']:g}")
    c = float(params["claim_clip"])
    r, rx = value(data, RATIO, c), value(data, RATIO_X, c)
    et = value(data, PARAM_SERIES["eps_tilde"], c)
    eps = value(data, PARAM_SERIES["eps"], c)
    rc, rxc = curve(data, RATIO), curve(data, RATIO_X)
    (down_r, strict_r), (down_rx, strict_rx) = trend(values, rc, -1), trend(values, rxc, -1)
    claims = [
        LEDGER.qualitative(
            figure="fig2", claim_id="fig2_ratios_C50", claim="At C = 50 both ratios are less than 0.0123",
            holds=bool(max(r, rx) < 0.0123), ours=f"ε̃/ε = {r:.5f}, ε̃/ε(X) = {rx:.5f}"),
        LEDGER.numeric(figure="fig2", claim_id="fig2_eps_tilde_C50",
                       claim="At C = 50 a 10-DP (ε(X) = 10) mechanism is 0.123-PMP",
                       paper_value=0.123, ours=et, tolerance=0.006),
        LEDGER.numeric(figure="fig2", claim_id="fig2_success_C50",
                       claim="… so practical MIAs succeed with probability <= 1/(1+e^-0.123) ≈ 0.53",
                       paper_value=0.53, ours=pmp.success_bound(et), tolerance=0.005),
        LEDGER.numeric(figure="fig2", claim_id="fig2_eps_C50",
                       claim="With extreme outliers ε ≈ ε(X) (= 10) at C = 50",
                       paper_value=10.0, ours=eps, tolerance=0.5),
        LEDGER.qualitative(
            figure="fig2", claim_id="fig2_ratios_shrink",
            claim="Both ratios shrink as the clip threshold C increases",
            holds=down_r and down_rx,
            ours=(f"ε̃/ε {rc[0]:.3f} -> {rc[-1]:.4f}, ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.4f} over "
                  f"C = {values[0]:g}..{values[-1]:g} (strictly monotone: {strict_r and strict_rx})")),
        LEDGER.qualitative(
            figure="contrib", claim_id="eps_over_75",
            claim="For certain subpopulations the ε-DP exponential mechanism is ε/75-PMP "
                  "(e.g. 7.5-DP -> 0.1-PMP -> success <= 52.5 %)",
            holds=bool(np.nanmin(rc) <= 1 / 75),
            ours=f"smallest ε̃/ε on the Figure 2 grid: {np.nanmin(rc):.4f} (1/75 = {1 / 75:.4f})"),
    ]
    return result(params, data=data, fig=fig, claims=claims, extra=_extra(values, trips),
                  caption=_caption(2, "the ratios against the clip threshold C", params,
                                   f" (d = {params['d']}, σ = {params['sigma']:g}; {params['n_outliers']} "
                                   f"random points multiplied by {params['outlier_scale']:g} before clipping)"))


def fig3(params) -> FigureResult:
    """Exponential mechanism: ratios vs the data dimension d."""
    values, trips = exp_sweep(params, "fig3")
    data = tidy(values, trips)
    fig = plot(data, xlabel=AXIS["d"], logx=True,
               title=f"Exp. mechanism, σ = {params['sigma']:g}, ε(X) = {params['eps_x']:g}")
    rc, rxc = curve(data, RATIO), curve(data, RATIO_X)
    dd = np.asarray(values, float)
    (ok_r, mono_r), (ok_rx, mono_rx) = trend(dd, rc, -1), trend(dd, rxc, -1)
    claims = [LEDGER.qualitative(
        figure="fig3", claim_id="fig3_ratios_decrease_d",
        claim="The ratios become smaller as the dimension d increases",
        holds=ok_r and ok_rx,
        ours=(f"ε̃/ε {rc[0]:.3f} -> {rc[-1]:.4f} (strictly monotone: {mono_r}); ε̃/ε(X) {rxc[0]:.3f} -> "
              f"{rxc[-1]:.4f} (strictly monotone: {mono_rx}) over d = {values[0]}..{values[-1]}"),
        note=("" if mono_r and mono_rx else
              "overall decreasing; not strictly monotone on our grid (clipping binds once √d ≈ C)"))]
    return result(params, data=data, fig=fig, claims=claims, extra=_extra(values, trips),
                  caption=_caption(3, "the ratios against the data dimension d", params,
                                   f" (σ = {params['sigma']:g}, C = {params['clip']:g}: the paper does not "
                                   "state C for this figure, we assume Figure 1's)"))
