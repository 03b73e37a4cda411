"""A bisection that cannot contradict the verdict it sits beside.

The lower bound in a claim's form is sup{θ : the claim with parameter θ is refuted}; the verdict
is whether the claimed θ itself is refuted. Bisecting from the claimed value keeps it on its own
side, so the bound returned is above the claim exactly when the claim is refuted.

The value returned is the *upper* end of the last bracket: a θ the test does not refute. So a
claim equal to the printed bound is never refuted (the lower end would be a θ the test refutes,
and a claim at it would contradict the bound printed beside it). Validity is not lost: the
confidence set of the test is {θ : not refuted}, which holds the truth with the stated
confidence, and the upper end is above the supremum of the refuted θ by at most 2⁻³⁴ of the
bracket (a value the truth could fall between only by lying within that sliver above the
supremum). Where the test refutes nothing (not even θ = 0) the bound is exactly 0.
"""

from __future__ import annotations

from collections.abc import Callable

ITERATIONS = 34  # 2⁻³⁴ of the bracket: far below any bound's sampling error


def seeded_sup(pred: Callable[[float], bool], seed: float, top: float) -> float:
    """sup{θ ≥ 0 : pred(θ)} for a predicate true below a point and false above it, returned as
    the smallest θ found with ``pred(θ)`` false, so that ``pred(seed)`` ⇔ result > seed and
    ``pred(result)`` is false (``top`` or above when pred holds up to ``top``)."""
    if pred(seed):
        lo, hi, capped = _grow(pred, seed, 2 * seed if seed > 0 else 1.0, top)
        if capped:  # pred holds at hi ≥ top, and hi > seed: the largest θ looked at
            return float(hi)
        return float(_bisect(pred, lo, hi))
    if not pred(0.0):
        return 0.0
    lo, hi = 0.0, seed
    if hi == float("inf"):  # an infinite claim: find a finite point where pred fails first
        lo, hi, capped = _grow(pred, 0.0, 1.0, top)
        if capped:
            return float(hi)
    return float(_bisect(pred, lo, hi))


def _grow(pred, lo: float, hi: float, top: float) -> tuple[float, float, bool]:
    """Double ``hi`` (capped at ``top``) until pred fails there: (lo, hi, False) with pred true
    at lo and false at hi, or (lo, hi, True) with pred true at hi ≥ ``top``."""
    while pred(hi):
        if hi >= top:
            return lo, hi, True
        lo, hi = hi, min(2 * hi, top)
    return lo, hi, False


def _bisect(pred, lo: float, hi: float) -> float:
    """The upper end of the bracket after :data:`ITERATIONS` halvings (pred stays false there;
    it is above ``lo``, where pred holds)."""
    for _ in range(ITERATIONS):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if pred(mid) else (lo, mid)
    return hi
