"""A per-period budget composed over N periods, by the exact accountant of its variant.

* ρ-zCDP composes additively: Nρ (Bun & Steinke 2016).
* μ-GDP composes as μ√N (Dong, Roth & Su 2022).
* Pure ε-DP composes optimally as N-fold binary randomized response (Kairouz, Oh & Viswanath 2015,
  Theorem 3.3): the privacy loss is ε(N − 2i) with probability C(N, i) p^{N−i}(1 − p)^i,
  p = e^ε/(1 + e^ε), and δ(x) = E[(1 − e^{x − L})₊].
* (ε, δ)-DP composes optimally as δ_N(x) = 1 − (1 − δ)^N (1 − δ_pure,N(x)) (same theorem), which
  is what dp-accounting's PLD of the same pair composes to (the tests cross-check it).

The composed pure and approximate guarantees are handed to the card as a privacy profile (pairs
ε, δ(ε) on a grid), the card's own form for a curve.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

#: profile points: enough that the card's (ε, δ) reading between points is close (it reads the
#: smallest grid ε whose δ is below its δ, so a grid step is the most it can overstate ε by)
GRID = 2000


def pure_delta(epsilon: float, n: int, x) -> np.ndarray:
    """δ(x) of n-fold ε-DP under optimal composition (vectorised over x)."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    i = np.arange(n + 1, dtype=float)
    log_binom = special.gammaln(n + 1) - special.gammaln(i + 1) - special.gammaln(n - i + 1)
    log_p = -np.logaddexp(0.0, -epsilon)  # log e^ε/(1 + e^ε)
    log_q = -np.logaddexp(0.0, epsilon)
    log_w = log_binom + (n - i) * log_p + i * log_q  # P(i flips)
    loss = epsilon * (n - 2 * i)  # falling in i: the losses above x are a prefix
    # Σ_{L > x} w (1 − e^{x − L}) = A − e^x B, A and B prefix sums of w and w e^{−L}, in logs
    log_a = np.logaddexp.accumulate(log_w)
    log_b = np.logaddexp.accumulate(log_w - loss)
    k = np.searchsorted(-loss, -x, side="left")  # how many losses exceed x
    out = np.zeros(x.size)
    some = k > 0
    la, lb = log_a[k[some] - 1], log_b[k[some] - 1]
    out[some] = np.exp(la) * -np.expm1(np.minimum(x[some] + lb - la, 0.0))
    return out


def approx_delta(epsilon: float, delta: float, n: int, x) -> np.ndarray:
    """δ(x) of n-fold (ε, δ)-DP under optimal composition."""
    d = pure_delta(epsilon, n, x)
    keep = math.exp(n * math.log1p(-delta)) if delta > 0 else 1.0
    return 1.0 - keep * (1.0 - d)


def profile(epsilon: float, delta: float, n: int, *, name: str) -> dict:
    """The composed guarantee as the pairs of a privacy profile, in the card's saved-curve form."""
    top = n * epsilon
    x = np.linspace(0.0, top, GRID)
    d = approx_delta(epsilon, delta, n, x) if delta > 0 else pure_delta(epsilon, n, x)
    pairs = [[float(a), float(min(b, 1.0))] for a, b in zip(x, d, strict=True)]
    return {"name": name, "pairs": pairs, "adjacency": None}


def epsilon_at(epsilon: float, delta: float, n: int, target: float) -> float:
    """The smallest x with δ_n(x) <= target (bisection; δ_n falls in x)."""
    f = (
        (lambda x: approx_delta(epsilon, delta, n, x)[0])
        if delta > 0
        else (lambda x: pure_delta(epsilon, n, x)[0])
    )
    lo, hi = 0.0, n * epsilon
    if f(lo) <= target:
        return 0.0
    if f(hi) > target:
        return math.inf
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(mid) <= target else (mid, hi)
    return hi
