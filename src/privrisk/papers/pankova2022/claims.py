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
