"""Uniform canary and Zipf password priors over 9-digit secrets, computed analytically."""

from __future__ import annotations

import numpy as np
from scipy import special


def harmonic(n: float, s: float) -> float:
    """Generalised harmonic number H_{n,s} = Σ_{r=1}^{n} r^{-s} = ζ(s) − ζ(s, n + 1) for s > 1."""
    if s <= 1:
        raise ValueError("Zipf exponent s must be > 1 for the closed form")
    if n < 1:
        raise ValueError("support size must be >= 1")
    return float(special.zeta(s) - special.zeta(s, n + 1))


def zipf_prior(ranks, *, s: float = 1.1, support: float = 1e9):
    """Probability of the password of rank r under Zipf(s) truncated to ``support`` ranks."""
    r = np.asarray(ranks, dtype=float)
    if np.any((r < 1) | (r > support)):
        raise ValueError(f"ranks must be in [1, {support:g}]")
    return r ** (-s) / harmonic(support, s)


def uniform_summary(digits: int = 9) -> dict[str, float]:
    p = 10.0**-digits
    return {"min": p, "median": p, "max": p}


def password_summary(*, s: float = 1.1, support: float = 1e9) -> dict[str, float]:
    """Least, median and most probable password priors (ranks support, support/2, 1)."""
    return {
        "min": float(zipf_prior(support, s=s, support=support)),
        "median": float(zipf_prior(np.ceil(support / 2), s=s, support=support)),
        "max": float(zipf_prior(1, s=s, support=support)),
    }


def zipf_quantile_prior(q: float, *, s: float = 1.1, support: float = 1e9) -> float:
    """q-quantile of the canary priors over all passwords (each rank is one canary).

    The prior of rank max(1, ceil((1 − q)·support)): q = 0.5 is the median (rank support/2, as in
    :func:`password_summary`), q = 1 the most probable and q = 0 the least probable password.
    """
    if not 0 <= q <= 1:
        raise ValueError("q must be in [0, 1]")
    rank = max(1.0, float(np.ceil((1 - q) * support)))
    return float(zipf_prior(rank, s=s, support=support))
