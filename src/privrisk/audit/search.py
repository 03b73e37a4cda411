"""A bisection that cannot contradict the verdict it sits beside.

The lower bound in a claim's form is sup{θ : the claim with parameter θ is refuted}; the verdict
is whether the claimed θ itself is refuted. Bisecting from the claimed value keeps it on its own
side, so the bound returned is above the claim exactly when the claim is refuted (to the last
bit: when the supremum is within rounding of the claim, the next float above it is returned).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ITERATIONS = 34  # 2⁻³⁴ of the bracket: far below any bound's sampling error


def seeded_sup(pred: Callable[[float], bool], seed: float, top: float) -> float:
    """sup{θ ≥ 0 : pred(θ)} for a predicate true below a point and false above it, returned so
    that ``pred(seed)`` ⇔ result > seed (``top`` when pred holds up to it)."""
    if pred(seed):
        bracket = _grow(pred, seed, 2 * seed if seed > 0 else 1.0, top)
        if bracket is None:
            return float(top)
        lo = _bisect(pred, *bracket)
        return float(lo) if lo > seed else float(np.nextafter(seed, np.inf))
    if not pred(0.0):
        return 0.0
    bracket = (0.0, seed)
    if not np.isfinite(seed):  # an infinite claim: find a finite point where pred fails first
        bracket = _grow(pred, 0.0, 1.0, top)
        if bracket is None:
            return float(top)
    return float(_bisect(pred, *bracket))


def _grow(pred, lo: float, hi: float, top: float) -> tuple[float, float] | None:
    """Double ``hi`` (capped at ``top``) until pred fails there: the bracket (lo, hi) with pred
    true at lo and false at hi, or None when pred holds up to ``top``."""
    while pred(hi):
        if hi >= top:
            return None
        lo, hi = hi, min(2 * hi, top)
    return lo, hi


def _bisect(pred, lo: float, hi: float) -> float:
    """The lower end of the bracket after :data:`ITERATIONS` halvings (pred stays true there)."""
    for _ in range(ITERATIONS):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if pred(mid) else (lo, mid)
    return lo
