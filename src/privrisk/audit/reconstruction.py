"""Reconstruction audits: the observed hits against Swanberg et al.'s Theorem 3.5.

Under (ε, δ)-DP (replace-one) and a product prior, the number of targets an attacker
reconstructs is dominated by a sum of independent Bernoulli(β_i), β_i = σ(ε + logit p_i), with
Theorem 3.5's δ correction: Pr[hits ≥ v] ≤ min(1, T[v] + λ(v) n δ)
(:func:`privrisk.bounds.reconstruction.bound_tail_multi`). That tail at the observed hits is a
p-value for the claim; the largest ε whose tail is at most α is the audit's ε lower bound.
"""

from __future__ import annotations

import numpy as np

from privrisk.bounds import reconstruction as rb


def tail_at(hits: int, priors, *, epsilon: float, delta: float) -> float:
    """Theorem 3.5's bound on Pr[#successes ≥ hits] (one entry of ``bound_tail_multi``, computed
    in O(n) memory: the LP's value at v needs only the tail at v and below)."""
    betas = rb.beta_multi(epsilon=epsilon, p=np.asarray(priors, float))
    t = rb.tail_probabilities(betas)
    n = t.size - 1
    v = int(hits)
    if v > n:
        return 0.0
    if delta == 0 or v == 0:
        return float(min(1.0, t[v]))
    j = np.arange(1, n + 1)
    prev = np.where(v - j <= 0, 1.0, t[np.clip(v - j, 0, n)])
    g = np.maximum(prev - t[v], 0.0)
    b = n * delta
    if b <= 1:  # the closed form λ(v)·nδ is the LP's optimum here
        value = float(np.max(g / j)) * b
    else:  # beyond, only the LP's concave envelope is exact (the closed form is looser)
        value = float(rb.lp_envelope(np.concatenate([[0.0], g])[None, :], b)[0])
    return float(min(1.0, t[v] + value))


def p_value(hits: int, priors, pairs) -> float:
    """The smallest Theorem 3.5 tail at ``hits`` over the claim's (ε, δ) pairs."""
    return min(tail_at(hits, priors, epsilon=e, delta=d) for e, d in pairs)


def epsilon_lower(hits: int, priors, *, delta: float, confidence: float) -> float:
    """The largest ε at which ``hits`` successes have a Theorem 3.5 tail ≤ 1 − confidence (the
    claim "ε-DP at δ" is refuted for every smaller ε); 0 when even ε = 0 is not refuted."""
    alpha = 1 - confidence
    if tail_at(hits, priors, epsilon=0.0, delta=delta) > alpha:
        return 0.0
    lo, hi = 0.0, 1.0
    while tail_at(hits, priors, epsilon=hi, delta=delta) <= alpha and hi < 200:
        lo, hi = hi, 2 * hi
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if tail_at(hits, priors, epsilon=mid, delta=delta) <= alpha:
            lo = mid
        else:
            hi = mid
    return lo


def targets_needed(priors, pairs, *, alpha: float, limit: int) -> int | None:
    """Targets (the given priors repeated) at which reconstructing every one would refute the
    claim at level ``alpha``: a property of the design, never of the observed hit rate. None when
    no design up to ``limit`` targets would (Theorem 3.5's nδ term can grow faster than the
    evidence)."""
    p = np.asarray(priors, float)
    n = p.size

    def refutes(size: int) -> bool:
        tiled = np.resize(p, size)
        return p_value(size, tiled, pairs) <= alpha

    size = n
    while not refutes(size):
        if size >= limit:
            return None
        size = min(2 * size, limit)
    lo, hi = max(n, size // 2), size
    while hi - lo > max(1, lo // 100):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if refutes(mid) else (mid, hi)
    return int(hi)
