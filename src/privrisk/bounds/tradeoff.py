"""Trade-off functions (f-DP) and the two bounds read off them: advantage and baseline success.

A mechanism is f-DP (Dong, Roth & Su 2019) when every test between two neighbouring inputs with
false-positive rate α has false-negative rate at least f(α). Two bounds follow from f alone:

- **advantage** (total variation): TPR − FPR <= max_α (1 − α − f(α)) for every membership test;
  for (ε, δ)-DP it is (e^ε − 1 + 2δ)/(e^ε + 1), for μ-GDP 2Φ(μ/2) − 1, and for any privacy
  profile δ(·) it is δ(0).
- **success from a baseline κ** (Kulynych et al. 2025, "Unifying re-identification, attribute
  inference and data reconstruction risks in DP", the bound riskcal computes): an attack on one
  target whose success without the release would be at most κ (its best blind guess) succeeds with
  probability at most 1 − f(κ). The test behind it compares the real target with a world where the
  target is removed (add/remove) or replaced by a fresh draw from the prior (replace-one): f must
  be the trade-off function of that adjacency. Under add/remove it is tight; under replace-one
  Swanberg et al.'s β(ε, κ) (:mod:`.reconstruction`) is smaller for pure ε-DP.

All functions broadcast and are exact at the edges (ε = ∞, μ = ∞, α ∈ {0, 1}) without overflow.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .core import check_epsilon_p


def _delta(delta):
    d = np.asarray(delta, dtype=float)
    if np.any(np.isnan(d)) or np.any((d < 0) | (d >= 1)):
        raise ValueError("delta must be in [0, 1)")
    return d


def _mu(mu):
    m = np.asarray(mu, dtype=float)
    if np.any(np.isnan(m)) or np.any(m < 0):
        raise ValueError("mu must be >= 0 (inf allowed)")
    return m


def _out(x):
    x = np.asarray(x, dtype=float)
    return x if x.ndim else float(x)


def tradeoff_approx(alpha, *, epsilon, delta=0.0):
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Dong, Roth & Su 2019, eq. 5)."""
    eps, a = check_epsilon_p(epsilon=epsilon, p=alpha, p_name="alpha (false-positive rate)")
    d = _delta(delta)
    with np.errstate(over="ignore", invalid="ignore"):
        first = 1 - d - np.exp(eps) * a
    first = np.where(a == 0, 1 - d, first)  # e^∞ · 0: a test that never fires misses everything
    second = np.exp(-eps) * (1 - d - a)
    return _out(np.maximum(0.0, np.maximum(first, second)))


def tradeoff_gdp(alpha, *, mu):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the trade-off function of μ-GDP."""
    m = _mu(mu)
    _, a = check_epsilon_p(epsilon=0.0, p=alpha, p_name="alpha (false-positive rate)")
    with np.errstate(invalid="ignore"):
        out = special.ndtr(special.ndtri(1 - a) - m)
    out = np.where(np.isinf(m), np.where(a == 0, 1.0, 0.0), out)
    return _out(out)


def tradeoff_from_profile(alpha, *, epsilons, deltas):
    """The trade-off function implied by privacy-profile points (ε_i, δ_i): max_i f_{ε_i,δ_i}(α).

    Each point is a valid (ε, δ) guarantee, so the maximum is a valid f (Dong, Roth & Su 2019,
    Prop. 2.12: it is the exact f when the points cover the whole symmetric profile). A finite
    grid can only make f smaller, i.e. the bounds read off it larger (conservative).
    """
    eps = np.asarray(epsilons, dtype=float).ravel()
    dl = np.clip(np.asarray(deltas, dtype=float).ravel(), 0.0, 1.0 - 1e-16)
    if eps.shape != dl.shape or eps.size == 0:
        raise ValueError("epsilons and deltas must be non-empty and of the same length")
    a = np.asarray(alpha, dtype=float)
    curves = tradeoff_approx(a[..., None], epsilon=eps, delta=dl)
    return _out(np.max(curves, axis=-1))


def advantage_approx(*, epsilon, delta=0.0):
    """max_α (1 − α − f_{ε,δ}(α)) = (e^ε − 1 + 2δ)/(e^ε + 1), written tanh(ε/2) + δ (1 − tanh(ε/2)).

    At δ = 0 it is tanh(ε/2), Mace's Theorem 1(4) bound at p = 1/2.
    """
    eps, _ = check_epsilon_p(epsilon=epsilon, p=0.5)
    d = _delta(delta)
    t = np.tanh(eps / 2)
    return _out(t + d * (1 - t))


def advantage_gdp(*, mu):
    """max_α (1 − α − G_μ(α)) = 2Φ(μ/2) − 1 = erf(μ / (2√2)) (μ = ∞ gives 1)."""
    return _out(special.erf(_mu(mu) / (2 * np.sqrt(2))))


def success_from_baseline_approx(kappa, *, epsilon, delta=0.0):
    """1 − f_{ε,δ}(κ): the most often an attack with baseline success κ succeeds (Kulynych et al.)."""
    return _out(1 - np.asarray(tradeoff_approx(kappa, epsilon=epsilon, delta=delta)))


def success_from_baseline_gdp(kappa, *, mu):
    """1 − G_μ(κ) for a μ-GDP mechanism."""
    return _out(1 - np.asarray(tradeoff_gdp(kappa, mu=mu)))


def success_from_baseline_profile(kappa, *, epsilons, deltas):
    """1 − f(κ) with f from privacy-profile points (:func:`tradeoff_from_profile`)."""
    return _out(1 - np.asarray(tradeoff_from_profile(kappa, epsilons=epsilons, deltas=deltas)))
