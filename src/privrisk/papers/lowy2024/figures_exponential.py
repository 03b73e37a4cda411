"""lowy2024 Figures 1–3: the exponential mechanism (geometric-median loss over m unit
candidates), ε̃(X) exact by Proposition 9 over all C(12, 6) = 924 halves of a 12-point
population; plus the numbers the paper quotes outside its figures (intro, Proposition 5).
"""

from __future__ import annotations

import logging

import numpy as np

from ...bounds import pmp
from ...contract.figure import FigureResult
from ...estimators.summary import summarise
from . import claims as paper_claims
from .common import (
    AXIS,
    PARAM_SERIES,
    RATIO,
    RATIO_X,
    curve_se,
    exp_sweep,
    plot,
    result,
    tidy,
    value_se,
)

log = logging.getLogger(__name__)


def _extra(values, trips):
    return {
        "per_point": [
            {
                "x": v,
                "mean_eps": float(np.mean(tr["eps"])),
                "mean_eps_tilde": float(np.mean(tr["eps_tilde"])),
                "mean_success_bound": float(np.mean(pmp.success_bound(eps_tilde=tr["eps_tilde"]))),
                "max_two_sided_minus_one_sided": float(
                    np.max(tr["eps_tilde"] - tr["eps_tilde_one_sided"])
                ),
            }
            for v, tr in zip(values, trips, strict=True)
        ],
        "conventions": (
            "β = ε(X)/(2Δ_ℓ(X)) with the X-restricted sensitivity; ε = 2βΔ_ℓ with "
            "Δ_ℓ = (C+1)/n (C >= 1) or 2C/n; ε̃(X) two-sided Proposition 9 (spec §3.1.3)"
        ),
    }


def _caption(fig_no, what, params, fixed_text):
    return (
        f"Figure {fig_no}. Exponential mechanism (geometric-median loss ℓ(w, D) = mean ‖w − x‖ "
        f"over m = {params['m']} unit-norm candidates), population X of 2n = {2 * params['n']} "
        f"points drawn N(w₁, σ²I) and clipped to norm C{fixed_text}; D is a uniformly random half "
        f"of X. Left: {what}, averaged over T = {params['trials']} data draws (bands ±1 s.e.): "
        "ε̃(X)/ε (practical-attacker PMP parameter over the worst-case DP parameter) and "
        "ε̃(X)/ε(X) (over the DP parameter restricted to X, isolating the attacker's uncertainty). "
        "ε̃(X) is exact (Proposition 9, all 924 halves enumerated). Right: the mean parameters. "
        "Black × (where drawn): the values the paper quotes. "
        "The mechanism is calibrated so that its nominal guarantee with the X-restricted "
        f"sensitivity is ε(X) = {params['eps_x']:g}; ε uses the global sensitivity (C+1)/n."
    )


def fig1(params) -> FigureResult:
    """Exponential mechanism: ratios vs the data standard deviation σ (d = 1)."""
    values, trips = exp_sweep(params, "fig1")
    data = tidy(values, trips)
    xs = np.asarray(values, float)
    s1 = float(params["claim_sigma"])
    # the paper's numbers are drawn only at the setting it quotes them at (quoted.yaml)
    quoted = paper_claims.at_paper_setting("fig1_ratio_sigma1", params)
    fig = plot(
        data,
        xlabel=AXIS["sigma"],
        logx=True,
        title=f"Exp. mechanism, d = {params['d']}, ε(X) = {params['eps_x']:g}",
        marks=[(s1, 0.075, "paper: 0.075")] if quoted else (),
        param_marks=[(s1, 28.5, "paper: ε ≈ 28.5"), (s1, 2.14, "paper: ε̃ ≈ 2.14")]
        if quoted
        else (),
    )
    r, rx = curve_se(data, RATIO), curve_se(data, RATIO_X)
    r1, e1, et1 = (
        value_se(data, k, s1) for k in (RATIO, PARAM_SERIES["eps"], PARAM_SERIES["eps_tilde"])
    )
    plateau = float(rx[0][0] * params["eps_x"])
    why = (
        "unresolved (spec §3.1.3): our curve passes 0.075 / ε ≈ 28.5 near σ ≈ 0.6–0.7, not at σ = 1; "
        "candidate causes are the paper's unstated T, σ grid or global sensitivity"
    )
    claims = [
        *paper_claims.text_claims(),
        *paper_claims.fig1_quoted(
            params, ratio=r1, eps=e1, eps_tilde=et1, why=why, plateau=plateau
        ),
        paper_claims.approaches_zero_claim(
            figure="fig1",
            claim_id="fig1_small_sigma",
            claim="For σ < 0.1 the PMP parameter approaches 0 (at fixed ε: ε̃(X)/ε -> 0)",
            x=xs,
            y=r,
            below=0.1,
            reference=s1,
        ),
        paper_claims.trend_claim(
            figure="fig1",
            claim_id="fig1_ratio_increases",
            claim="ε̃(X)/ε increases with σ",
            x=xs,
            curves={RATIO: r},
            sign=+1,
            note=(
                f"tested on the whole grid σ = {xs[0]:g}..{xs[-1]:g} (the paper's σ range is not stated; "
                f"for σ <= 1 alone: {paper_claims.verdict_word(paper_claims.monotone(r[0][xs <= 1], r[1][xs <= 1], +1)[0])})"
            ),
        ),
        paper_claims.flat_claim(
            figure="fig1",
            claim_id="fig1_ratioX_flat",
            claim="ε̃(X)/ε(X) does not depend significantly on σ (relative range < 10 %)",
            x=xs,
            y=rx[0],
            note=(
                f"tested on the whole grid σ = {xs[0]:g}..{xs[-1]:g}; for σ <= 1 alone the relative "
                f"range is {np.ptp(rx[0][xs <= 1]) / np.mean(rx[0][xs <= 1]):.1%}"
            ),
        ),
    ]
    return result(
        params,
        data=data,
        fig=fig,
        claims=claims,
        extra=_extra(values, trips),
        caption=_caption(
            1,
            "the ratios against the data standard deviation σ",
            params,
            f" (d = {params['d']}, C = {params['clip']:g})",
        ),
    )


def _larger_n(params, c: float) -> dict:
    """The two ratios at C = c for the population half n and for ``claim_larger_n`` (own draws)."""
    big = int(params["claim_larger_n"])
    _, (trip,) = exp_sweep(params | {"n": big}, "fig2", only=[c], stream=f"fig2_n{big}")
    out = {}
    for key, den in ((RATIO, "eps"), (RATIO_X, "eps_x")):
        mean, _, se, _ = summarise(trip["eps_tilde"] / trip[den])
        out[key] = (mean, se)
    return out


def fig2(params) -> FigureResult:
    """Exponential mechanism: ratios vs the clip threshold C, with 2 outliers (×100)."""
    values, trips = exp_sweep(params, "fig2")
    data = tidy(values, trips)
    c = float(params["claim_clip"])
    quoted = paper_claims.at_paper_setting("fig2_eps_tilde_C50", params)
    fig = plot(
        data,
        xlabel=AXIS["clip"],
        logx=True,
        logy_ratios=True,
        title=f"Exp. mechanism, {params['n_outliers']} outliers, ε(X) = {params['eps_x']:g}",
        marks=[(c, 0.0123, "paper: both < 0.0123")] if quoted else (),
        param_marks=[(c, 0.123, "paper: ε̃ = 0.123"), (c, 10.0, "paper: ε ≈ 10")] if quoted else (),
    )
    r, rx = value_se(data, RATIO, c), value_se(data, RATIO_X, c)
    et = value_se(data, PARAM_SERIES["eps_tilde"], c)
    eps = value_se(data, PARAM_SERIES["eps"], c)
    rc, rxc = curve_se(data, RATIO), curve_se(data, RATIO_X)
    big = int(params["claim_larger_n"])
    at_big = _larger_n(params, c)
    claims = [
        paper_claims.below_claim(
            figure="fig2",
            claim_id="fig2_ratios_C50",
            claim=f"At C = {c:g} both ratios are less than 0.0123",
            values={RATIO: r, RATIO_X: rx},
            threshold=0.0123,
        ),
        *paper_claims.fig2_quoted(params, eps_tilde=et, eps=eps),
        paper_claims.trend_claim(
            figure="fig2",
            claim_id="fig2_ratios_shrink",
            claim="Both ratios shrink as the clip threshold C increases",
            x=values,
            curves={RATIO: rc, RATIO_X: rxc},
            sign=-1,
        ),
        paper_claims.below_claim(
            figure="contrib",
            claim_id="eps_over_75",
            claim="For certain subpopulations the ε-DP exponential mechanism is ε/75-PMP "
            "(e.g. 7.5-DP -> 0.1-PMP -> success <= 52.5 %)",
            values={f"ε̃/ε at Figure 2's C = {c:g}": r},
            threshold=1 / 75,
            note=(
                f"tested at the configuration the paper's numbers point to (Figure 2, C = {c:g}; "
                "spec §5), not as a minimum over the grid"
            ),
        ),
        paper_claims.compare_claim(
            figure="fig2",
            claim_id="fig2_smaller_for_larger_n",
            claim="We would expect the ratios to become even smaller for larger n",
            larger=rx,
            smaller=at_big[RATIO_X],
            names=(f"ε̃/ε(X) at n = {params['n']}", f"at n = {big}"),
            note=(
                f"at C = {c:g}, T = {params['trials']} draws each (n = {big}: all C({2 * big}, {big}) "
                f"halves); ε̃/ε: {r[0]:.4g} at n = {params['n']}, {at_big[RATIO][0]:.4g} ± "
                f"{at_big[RATIO][1]:.2g} at n = {big}"
            ),
        ),
    ]
    return result(
        params,
        data=data,
        fig=fig,
        claims=claims,
        extra=_extra(values, trips) | {f"ratios_at_n{big}": at_big},
        caption=_caption(
            2,
            "the ratios against the clip threshold C (log scale)",
            params,
            f" (d = {params['d']}, σ = {params['sigma']:g}; {params['n_outliers']} "
            f"random points multiplied by {params['outlier_scale']:g} before clipping)",
        ),
    )


def fig3(params) -> FigureResult:
    """Exponential mechanism: ratios vs the data dimension d."""
    values, trips = exp_sweep(params, "fig3")
    data = tidy(values, trips)
    fig = plot(
        data,
        xlabel=AXIS["d"],
        logx=True,
        title=f"Exp. mechanism, σ = {params['sigma']:g}, ε(X) = {params['eps_x']:g}",
    )
    claims = [
        paper_claims.trend_claim(
            figure="fig3",
            claim_id="fig3_ratios_decrease_d",
            claim="The ratios become smaller as the dimension d increases",
            x=values,
            curves={RATIO: curve_se(data, RATIO), RATIO_X: curve_se(data, RATIO_X)},
            sign=-1,
            note=(
                f"clipping binds once √d ≈ C = {params['clip']:g} (d ≈ {params['clip'] ** 2:g}); the paper "
                "does not state Figure 3's C, Figure 1's is assumed"
            ),
        )
    ]
    return result(
        params,
        data=data,
        fig=fig,
        claims=claims,
        extra=_extra(values, trips),
        caption=_caption(
            3,
            "the ratios against the data dimension d",
            params,
            f" (σ = {params['sigma']:g}, C = {params['clip']:g}: the paper does not "
            "state C for this figure, we assume Figure 1's)",
        ),
    )
