"""The qualitative statements of pankova2022 as small functions of the computed curves.

Each returns the ledger row; tests/papers/pankova2022/test_claims.py feeds each one a constructed
curve on which the statement is false (``qualitative-fails``) and one where it holds. The curves
are analytic (exact up to the stated numerical tolerance) except the Monte Carlo attack, which is
judged with its interval by the shared rule :func:`privrisk.contract.verdicts.below`.
"""

from __future__ import annotations

import numpy as np

from ...contract import verdicts as V
from ...contract.claims import Claim, Ledger

LEDGER = Ledger("pankova2022")


def agrees(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    numeric,
    closed_form,
    atol: float = 0.0,
    rtol: float = 0.0,
    what: str = "",
) -> Claim:
    """A numerical search (e.g. a minimum over a dense grid of priors) matches the closed form."""
    a, b = np.asarray(numeric, float), np.asarray(closed_form, float)
    err = float(np.max(np.abs(a - b)))
    verdict = V.exact_close(
        a,
        b,
        atol=atol,
        rtol=rtol,
        why=f"the numerical search departs from the closed form by {err:.3g}",
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=f"{what}largest deviation {err:.3g} (atol {atol:g}, rtol {rtol:g})",
    )


def below(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x,
    values,
    bound,
    what: str = "",
    note: str = "",
    tol: float = 1e-12,
) -> Claim:
    """``values`` (e.g. an attack's success, or a lower confidence limit of it) never exceed ``bound``."""
    x, v, b = (np.asarray(a, float) for a in (x, values, bound))
    over = np.nonzero(v > b + tol)[0]  # where it fails, for the numbers shown
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=V.exact_below(v, b, tol=tol, why=note),
        ours=(
            f"{what}checked at {x.size} points; largest excess {float(np.max(v - b)):.3g}"
            + (
                f"; first violation at x = {x[over[0]]:g}: {v[over[0]]:.4f} > {b[over[0]]:.4f}"
                if len(over)
                else ""
            )
        ),
    )


def looser(
    *, figure: str, claim_id: str, claim: str, x, loose, tight, factor: float = 1.2
) -> Claim:
    """``loose`` is never below ``tight`` and is much weaker somewhere (its gap to certainty,
    1 − y, is at least ``factor`` × smaller... i.e. loose >= tight everywhere and the ratio
    (loose − tight) / tight reaches ``factor`` − 1 at some x)."""
    x, lo_, ti = (np.asarray(a, float) for a in (x, loose, tight))
    rel = float(np.max((lo_ - ti) / np.maximum(ti, 1e-300)))
    verdict = V.exact_all(
        {
            "never below": V.exact_above(
                lo_, ti, tol=-1e-12, strict=False, why="below the tighter bound somewhere"
            ),
            "much weaker": V.exact_above(rel, factor - 1, strict=False, why="never much weaker"),
        },
        first=True,
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=f"largest relative excess of the looser bound {rel:.1%} (criterion >= {factor - 1:.0%})",
    )


def exceeds(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x,
    values,
    reference,
    what: str = "",
    rtol: float = 1e-6,
) -> Claim:
    """``values`` (e.g. the largest ε a precise bound allows) are strictly larger than ``reference``
    (the same quantity from a cruder bound) at every x, by more than ``rtol`` relatively."""
    x, v, r = (np.asarray(a, float) for a in (x, values, reference))
    ratio = v / np.maximum(r, 1e-300)
    bad = np.nonzero(~(ratio > 1 + rtol))[0]  # where it fails, for the numbers shown
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=V.exact_above(ratio, 1 + rtol, why="not larger everywhere"),
        ours=(
            f"{what}checked at {x.size} points; ratio from {float(np.min(ratio)):.4g} to {float(np.max(ratio)):.4g}"
            + (
                f"; not larger at x = {x[bad[0]]:g}: {v[bad[0]]:.4g} vs {r[bad[0]]:.4g}"
                if len(bad)
                else ""
            )
        ),
    )


def attack_below_bound(
    *, figure: str, claim_id: str, claim: str, x, rate, lo, hi, bound, what: str
) -> Claim:
    """A simulated attack's success (rate with its interval [lo, hi] at the verdicts' level) stays
    below a bound at every x (:func:`privrisk.contract.verdicts.below`, Bonferroni over the points)."""
    est = {
        f"ε={a:g}": V.Estimate(float(r), lo=float(lo_), hi=float(hi_))
        for a, r, lo_, hi_ in zip(x, rate, lo, hi, strict=True)
    }
    bounds = dict(zip(est, (float(b) for b in np.asarray(bound, float)), strict=True))
    verdict = V.below(est, bounds, what="attack success")
    excess = float(np.max(np.asarray(rate, float) - np.asarray(bound, float)))
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=f"{what}: checked at {len(est)} ε; largest rate − bound {excess:.3g}",
        data="simulated",  # a simulated attack's success rates
    )


def simplified_tight_two_point(*, simplified: float, attained: float) -> Claim:
    """The simplified bound at ε = 1 against the posterior randomized response attains on the
    worst two-point prior (spec-derived: the bound is tight there)."""
    return LEDGER.quoted("simplified_tight_two_point", ours=attained, paper_value=simplified)


def shell_sum_bound(*, attained, shell, at_one: tuple[float, float]) -> Claim:
    """The slides' shell sum against the posterior attained on the counter-example prior, over ε
    (``at_one``: both at ε = 1, for the row)."""
    a1, s1 = at_one
    return LEDGER.judged(
        figure="fig_shell_counterexample",
        claim_id="shell_sum_bound",
        claim="The discrete shell sum (slides 'Less of a simplification' / 'Guessing a single attribute') "
        "upper-bounds Pr_post(g(x))",
        verdict=V.exact_below(attained, shell, tol=1e-12),
        ours=f"at ε = 1: attained {float(a1):.4f} > shell sum {float(s1):.4f}",
        note="fails for priors with mass at the far edge of g(x) and just outside the opposite edge when "
        "shells are measured from the guess centre (nearest-point distance); valid with farthest-point "
        "distances. The slides call the sum an approximation (spec §2.8, §2.10).",
    )


def cafeteria(*, average: float, alice: float, distance: float) -> list[Claim]:
    """The cafeteria example's three quoted numbers, recomputed."""
    return [
        LEDGER.quoted("avg_table_b", ours=average),
        LEDGER.quoted("differencing_alice", ours=alice),
        LEDGER.quoted("distance_t_tprime", ours=distance),
    ]


def search_simplified_closed_form(deviation: float, *, Ms, etas, centres: int) -> Claim:
    """Self-check: the window search on the simplified bound against its closed-form inverse
    (``deviation``: the largest relative deviation over the M, η and guess centres)."""
    return LEDGER.quoted(
        "search_simplified_closed_form",
        ours=deviation,
        note=(
            "self-check: largest relative deviation between the window search on the simplified bound "
            f"and the closed form, over M ∈ {Ms}, η ∈ {etas} and {centres} guess "
            "centres each"
        ),
    )


def scaling_invariance(deviation: float, *, alphas, epsilons, eta: float) -> Claim:
    """(ε, d) and (αε, d/α) are the same guarantee: ``deviation`` is the largest change of the
    bounds and of α⁻¹·ε_max under the rescaling."""
    return LEDGER.quoted(
        "scaling_invariance",
        ours=deviation,
        note=(
            "a property of the formulas (only ε·d enters); checked numerically: largest change of the "
            f"simplified bound and the main-theorem quadrature (centres M/2 and 1) for α ∈ "
            f"{alphas}, ε ∈ {epsilons}, and relative change "
            f"of α⁻¹·ε_max(η = {eta:g}) from the search. The slides' shell sum over a ∈ ℕ is not "
            "invariant (its integer shells do not rescale)"
        ),
    )


def and_balls_from_cdfs(deviation: float, *, grid_size: int, radii) -> Claim:
    """Self-check: the AND ball probabilities from the CDFs against the mass counted on a grid
    (``deviation``: the largest difference over the radii; tolerance 2 / grid size)."""
    k = grid_size
    return LEDGER.quoted(
        "and_balls_from_cdfs",
        ours=deviation,
        tolerance=2 / k,
        note=(
            f"self-check: largest |∏ᵢ[Fᵢ(xᵢ + a rᵢ) − Fᵢ(xᵢ − a rᵢ)] − mass counted on a {k}×{k} grid| "
            f"over a ∈ {radii}; tolerance 2/grid size"
        ),
    )


def or_no_better_bound(
    *, gap_max: float, at_max: float, small: tuple[float, float, float]
) -> Claim:
    """The OR statement ("no significantly better bound"), undecidable by computation; the row
    gives the largest gap between the union bound and the attained floor (and where), and both at
    a small ε (``small``: ε, union, floor)."""
    e_small, union_small, floor_small = small
    return LEDGER.judged(
        figure="fig_two_attributes",
        claim_id="or_no_better_bound",
        claim="For OR, one cannot get a significantly better bound than the union of the single-attribute bounds",
        ours=(
            f"union bound − attained floor (tight two-point attributes): largest gap {gap_max:.3g} at "
            f"ε = {at_max:.3g}; at ε = {e_small:.3g}: union {union_small:.4f} vs "
            f"floor {floor_small:.4f}"
        ),
        verdict=V.undecidable(
            "not decidable by computation: 'significantly' is not defined and the statement is about every "
            "possible bound. Estimate: the best bound from single-attribute information lies between the "
            "floor 1 − (1 − s₁)(1 − s₂) (attained by randomized response on two independent two-point "
            "attributes) and the union min(1, s₁ + s₂), a gap of at most s₁s₂ (the largest gap is given in "
            "ours); null: a bound lower than the union by more than that; half-width: 0 (exact formulas)"
        ),
    )
