"""The one formula behind three papers' bounds: σ(s + logit p), exact at the edges.

Under ε-DP an attacker's posterior that a binary event holds, from prior p, is at most
1 / (1 + e^{−ε}(1 − p)/p) = σ(ε + logit p). It is Thudi et al.'s Theorem 1 (membership, p = P(x* ∈ D)),
Pankova & Laud's simplified bound (shift ε·R) and Swanberg et al.'s β(ε, p) (Theorem 3.2).
ε and p are keyword-only in :func:`check_epsilon_p`.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def check_epsilon_p(*, epsilon, p, p_name: str = "p"):
    """Validate ε >= 0 (∞ allowed) and p in [0, 1]; return them as broadcast float arrays."""
    eps = np.asarray(epsilon, dtype=float)
    p = np.asarray(p, dtype=float)
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise ValueError("epsilon must be >= 0 (inf allowed)")
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"{p_name} must be a probability in [0, 1]")
    return np.broadcast_arrays(eps, p)


def sigmoid_shift(shift, p):
    """σ(shift + logit p) for any real shift (±∞ allowed), with p ∈ {0, 1} kept at 0 and 1.

    Written with ``expit``/``logit`` so that large shifts neither overflow nor give NaN.
    """
    shift, p = np.broadcast_arrays(np.asarray(shift, float), np.asarray(p, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.expit(shift + special.logit(p))
    # ∞ + (−∞) is NaN: when p ∈ {0, 1} the posterior is p itself, whatever the shift.
    out = np.where(p == 0, 0.0, np.where(p == 1, 1.0, out))
    return out if out.ndim else float(out)
