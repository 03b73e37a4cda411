"""The Gaussian mechanism's exact (ε, δ) curve (Balle & Wang 2018, "analytic Gaussian"), the same
as μ-GDP's dual (Dong, Roth & Su 2019): a Gaussian mechanism with sensitivity Δ and noise σ is
μ-GDP with μ = Δ/σ and (ε, δ(ε))-DP for every ε with δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2);
and its calibration (the smallest σ, largest μ, meeting a target (ε, δ))."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from .limits import _check_delta


def _log_ndtr(x):
    return special.log_ndtr(x)


def gaussian_delta(*, epsilon, mu):
    """δ(ε) of μ-GDP (= Gaussian mechanism with Δ/σ = μ). Vectorised; exact at the edges.

    Computed as Φ(a) − e^ε Φ(b) with a = −ε/μ + μ/2, b = −ε/μ − μ/2, in log space so large ε
    and small μ neither overflow nor lose all digits. μ = 0 gives δ = 0; ε = ∞ gives 0.
    """
    eps = np.asarray(epsilon, dtype=float)
    mu = np.asarray(mu, dtype=float)
    if np.any(mu < 0) or np.any(eps < 0):
        raise ValueError("epsilon and mu must be non-negative")
    eps, mu = np.broadcast_arrays(eps, mu)
    out = np.zeros(eps.shape)
    ok = (mu > 0) & np.isfinite(eps)
    inf_mu = np.isinf(mu) & np.isfinite(eps)
    out[inf_mu] = 1.0
    ok &= ~np.isinf(mu)
    if np.any(ok):
        e, m = eps[ok], mu[ok]
        la = _log_ndtr(-e / m + m / 2)
        lb = e + _log_ndtr(-e / m - m / 2)
        # Φ(a) − e^ε Φ(b) = Φ(a) (1 − exp(lb − la)); lb <= la always holds for this pair.
        out[ok] = np.exp(la) * -np.expm1(np.minimum(lb - la, 0.0))
    return out if out.ndim else float(out)


def gaussian_epsilon(*, delta: float, mu: float) -> float:
    """Smallest ε with δ(ε) <= delta for μ-GDP (∞ if δ = 0 and μ > 0; 0 if μ = 0)."""
    _check_delta(delta, allow_zero=True)
    if mu < 0:
        raise ValueError("mu must be non-negative")
    if mu == 0:
        return 0.0
    if delta == 0 or math.isinf(mu):
        return math.inf
    if gaussian_delta(epsilon=0.0, mu=mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(epsilon=hi, mu=mu) > delta:
        hi *= 2
    return optimize.brentq(
        lambda e: gaussian_delta(epsilon=e, mu=mu) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12
    )


def gdp_mu(*, epsilon: float, delta: float) -> float:
    """Largest μ such that μ-GDP implies (ε, δ)-DP. ε = ∞ gives ∞ (no noise)."""
    _check_delta(delta, allow_zero=False)
    if epsilon < 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon}")
    if math.isinf(epsilon):
        return math.inf
    # δ(ε; μ) increases in μ; bracket then solve in log μ.
    lo, hi = 1e-8, 1.0
    while gaussian_delta(epsilon=epsilon, mu=hi) < delta:
        hi *= 2
        if hi > 1e6:
            return math.inf
    # δ(0; μ) ≈ 0.4 μ, so at ε ≈ 0 and tiny δ the root lies below 1e-8: widen the bracket.
    while gaussian_delta(epsilon=epsilon, mu=lo) > delta:
        lo *= 1e-4
        if lo < 1e-300:
            return 0.0
    f = lambda lm: gaussian_delta(epsilon=epsilon, mu=math.exp(lm)) - delta  # noqa: E731
    return math.exp(optimize.brentq(f, math.log(lo), math.log(hi), xtol=1e-13, rtol=1e-13))


def gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ for which N(0, σ²) noise on a Δ-sensitive query is (ε, δ)-DP (Balle–Wang)."""
    if sensitivity < 0:
        raise ValueError("sensitivity must be >= 0")
    mu = gdp_mu(epsilon=epsilon, delta=delta)
    if math.isinf(mu) or sensitivity == 0:
        return 0.0
    return sensitivity / mu if mu > 0 else math.inf


def classic_gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Dwork–Roth's σ = Δ √(2 ln(1.25/δ)) / ε (valid for ε < 1; looser than Balle–Wang)."""
    _check_delta(delta, allow_zero=False)
    if epsilon <= 0:
        raise ValueError("epsilon must be > 0")
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def gaussian_hockey_stick_mc(
    *, epsilon: float, mu: float, n: int = 2_000_000, seed: int = 0
) -> float:
    """Monte-Carlo estimate of δ(ε) = E_P[(1 − e^{ε − L})_+], L the privacy loss of N(μ,1) vs N(0,1).

    An independent check of :func:`gaussian_delta` (used in tests).
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) + mu
    loss = mu * x - mu**2 / 2
    return float(np.mean(np.maximum(0.0, 1.0 - np.exp(epsilon - loss))))
