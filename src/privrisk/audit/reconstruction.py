"""Reconstruction audits: the observed hits against Swanberg et al.'s Theorem 3.5.

Under (ε, δ)-DP (replace-one) and a product prior, the number of targets an attacker
reconstructs is dominated by a sum of independent Bernoulli(β_i), β_i = σ(ε + logit p_i), with
Theorem 3.5's δ correction: Pr[hits ≥ v] ≤ min(1, T[v] + λ(v) n δ)
(:func:`privrisk.bounds.reconstruction.bound_tail_multi`). That tail at the observed hits is a
p-value for the claim; the largest ε whose tail is at most α is the audit's ε lower bound.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

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


def violates(hits: int, priors, pairs) -> bool:
    """True when the hits exceed the claim's median number of successes (the observed effect is
    beyond the claim even if the sample is too small to refute it)."""
    e, d = pairs[0]
    betas = rb.beta_multi(epsilon=e, delta=d, p=np.asarray(priors, float), n=1)
    return bool(hits > float(np.sum(betas)))


def targets_needed(hits: int, priors, pairs, *, confidence: float) -> int | None:
    """Targets (same priors, same hit rate) at which the hits would refute the claim: a normal
    approximation of the Poisson-binomial (a planning number, not a test). None if the hit rate
    is within the claim."""
    e, d = pairs[0]
    betas = rb.beta_multi(epsilon=e, delta=d, p=np.asarray(priors, float), n=1)
    n = betas.size
    gap = hits - betas.sum()
    if gap <= 0:
        return None
    sd = math.sqrt(float(np.sum(betas * (1 - betas))))
    z = float(stats.norm.isf(1 - confidence))
    scale = max(1.0, (z * sd / gap) ** 2)
    return int(math.ceil(scale * n))
