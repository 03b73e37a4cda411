"""Reconstruction / attribute-inference bounds of Swanberg et al., "Beyond the Worst Case" (v1).

For an ε-DP (or (ε, δ)-DP) mechanism, a product prior over n targets and a decomposable success
metric, the number of successfully attacked targets is dominated by a sum of independent
Bernoullis with success probabilities

    β_i = β(ε, p_i) = e^ε / (e^ε − 1 + 1/p_i) = σ(ε + logit p_i),

where p_i is the prior probability that the attack attempt succeeds on target i. All functions
broadcast over ε and p and are exact at the edges (p = 0 → 0, p = 1 → 1, ε = 0 → p, ε = ∞ → 1).

Public names (used by the n-gram and noisy-marginals figures too):

- :func:`beta_pure` (Theorem 3.2), :func:`beta_approx` (Thm 3.3 / Cor 3.4 for one target,
  β + δ), :func:`beta_one_run` (Thm 3.5 for one target, β + (1 − β)δ).
- :func:`tail_probabilities`, :func:`bound_tail_multi` (Theorem 3.5 with the closed-form λ),
  :func:`success_quantiles` (the high-probability upper bound v_UB at confidence levels) and
  :func:`beta_multi` (per-record β_i, an alias of beta_pure used by multi-target code).
- :func:`advantage`, :func:`epsilon_protect` (Section 5.3).
- Prior work: :func:`rero_pure` (Balle et al.), :func:`mmc_fdp` and :func:`mmc_gdp`
  (Mahloujifar et al.'s one-guess bound at uniform prior 1/K).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats


def _eps_p(epsilon, p):
    eps = np.asarray(epsilon, dtype=float)
    p = np.asarray(p, dtype=float)
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise ValueError("epsilon must be >= 0 (inf allowed)")
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("prior success probabilities p must lie in [0, 1]")
    return np.broadcast_arrays(eps, p)


def _check_delta(delta):
    d = np.asarray(delta, dtype=float)
    if np.any(np.isnan(d)) or np.any((d < 0) | (d >= 1)):
        raise ValueError("delta must be in [0, 1)")
    return d


def beta_pure(epsilon, p):
    """Theorem 3.2: β(ε, p) = e^ε / (e^ε − 1 + 1/p), computed as σ(ε + logit p)."""
    eps, p = _eps_p(epsilon, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.expit(eps + special.logit(p))
    out = np.where(p == 0, 0.0, np.where(p == 1, 1.0, out))
    return out if out.ndim else float(out)


beta_multi = beta_pure
"""Per-record β_i for multi-target bounds (Theorem 3.5 uses p_i at the Bayes-optimal guess z*_i)."""


def beta_approx(epsilon, delta, p):
    """Corollary 3.4 / Theorem 3.3 for one target and one guess: min(1, β(ε, p) + δ)."""
    d = _check_delta(delta)
    return np.minimum(1.0, beta_pure(epsilon, p) + d)


def beta_one_run(epsilon, delta, p):
    """Theorem 3.5 for n = 1, v = 1: β + (1 − β)δ (equals MMC with f_{ε,δ} at p = 1/K)."""
    d = _check_delta(delta)
    b = beta_pure(epsilon, p)
    return b + (1 - b) * d


def poisson_binomial_pmf(betas) -> np.ndarray:
    """pmf of Σ S_i, S_i ~ Bernoulli(β_i) independent, by exact O(n²) convolution."""
    b = np.asarray(betas, dtype=float).ravel()
    if np.any((b < 0) | (b > 1)) or np.any(np.isnan(b)):
        raise ValueError("betas must lie in [0, 1]")
    pmf = np.zeros(b.size + 1)
    pmf[0] = 1.0
    for k, q in enumerate(b, start=1):
        pmf[1 : k + 1] = pmf[1 : k + 1] * (1 - q) + pmf[:k] * q
        pmf[0] *= 1 - q
    return pmf


def tail_probabilities(betas) -> np.ndarray:
    """T[v] = Pr[Σ S_i >= v] for v = 0..n (T[0] = 1)."""
    pmf = poisson_binomial_pmf(betas)
    return np.minimum(1.0, np.cumsum(pmf[::-1])[::-1])


def bound_tail_multi(betas, delta: float = 0.0) -> np.ndarray:
    """Theorem 3.5: B[v] = min(1, T[v] + λ(v) n δ), λ(v) = max_j (T[v − j] − T[v]) / j, v = 0..n+1.

    With δ = 0 this is Theorem 3.2's tail. Index n + 1 is 0 (no more successes than targets).
    The closed form equals the LP optimum of the paper's Appendix B (see tests).
    """
    d = float(_check_delta(delta))
    t = tail_probabilities(betas)
    n = t.size - 1
    tail = np.append(t, 0.0)  # T[n+1] = 0
    if d == 0:
        return tail
    out = tail.copy()
    for v in range(1, n + 2):
        j = np.arange(1, n + 1)
        prev = np.where(v - j <= 0, 1.0, tail[np.clip(v - j, 0, n + 1)])
        lam = max(0.0, float(np.max((prev - tail[v]) / j)))
        out[v] = min(1.0, tail[v] + lam * n * d)
    return out


def success_quantiles(betas, levels=(0.05, 0.5, 0.95), delta: float = 0.0) -> np.ndarray:
    """High-probability upper bounds v_UB(c) on the number of successes, one per confidence c.

    v_UB(c) = min{v in 0..n : B[v + 1] <= 1 − c}, so that Pr[successes > v_UB] <= 1 − c. For pure
    DP and equal β this is ``binom.ppf(c, n, β)``; it reproduces the paper's SEX example
    (β = 0.7758, n = 100 → 84 at 95 %). Uses the cdf (scipy's poisson_binom.ppf fails for large n).
    """
    b = bound_tail_multi(betas, delta)
    n = b.size - 2
    out = []
    for c in np.atleast_1d(levels):
        if not 0 < c < 1:
            raise ValueError(f"confidence level must be in (0, 1), got {c}")
        ok = np.nonzero(b[1:] <= 1 - c + 1e-12)[0]
        out.append(int(ok[0]) if ok.size else n)
    return np.array(out)


def advantage(posterior, prior):
    """Generalised advantage (Posterior − Prior) / (1 − Prior); 0 when the prior is 1."""
    post = np.asarray(posterior, float)
    pr = np.asarray(prior, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(pr >= 1, 0.0, (post - pr) / (1 - pr))
    return out if out.ndim else float(out)


def advantage_bound(epsilon, p, delta: float = 0.0):
    """Adv bound from Corollary 3.4 for one target: (β(ε, p) + δ − p) / (1 − p)."""
    return advantage(beta_approx(epsilon, delta, p), p)


def epsilon_protect(p, delta: float = 0.0, threshold: float = 0.05):
    """Largest ε with advantage_bound(ε, p, δ) <= threshold (closed form; ∞ if p = 0 and δ small).

    With t = threshold (1 − p) + p − δ: ε = ln(t (1 − p) / (p (1 − t))); 0 if t <= p.
    """
    p = np.asarray(p, float)
    if np.any((p < 0) | (p >= 1)):
        raise ValueError("p must be in [0, 1)")
    t = threshold * (1 - p) + p - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(t) + np.log1p(-p) - np.log(p) - np.log1p(-t)
    eps = np.where(t <= p, 0.0, np.where(p == 0, np.inf, eps))
    return eps if eps.ndim else float(eps)


# --- prior work -------------------------------------------------------------------------------


def rero_pure(epsilon, p):
    """Balle et al. (2022), pure DP: min(1, e^ε κ) with κ the prior success (heaviest item)."""
    eps, p = _eps_p(epsilon, p)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.minimum(1.0, np.exp(eps) * p)
    out = np.where(p == 0, 0.0, out)
    return out if out.ndim else float(out)


def _mmc(blowup_inv, K: int) -> float:
    """max{x in [0, 1] : x + (K − 1) B⁻¹(x) <= 1} for a non-decreasing B⁻¹ (MMC, one guess)."""
    if K < 1 or int(K) != K:
        raise ValueError("K must be a positive integer")
    if K == 1:
        return 1.0
    g = lambda x: x + (K - 1) * blowup_inv(x) - 1.0  # noqa: E731
    if g(1.0) <= 0:
        return 1.0
    return optimize.brentq(g, 0.0, 1.0, xtol=1e-14, rtol=1e-14)


def mmc_fdp(epsilon: float, delta: float, K: int) -> float:
    """MMC bound with the (ε, δ)-DP trade-off function f_{ε,δ} at uniform prior 1/K."""
    _check_delta(delta)
    if math.isinf(epsilon):
        return 1.0

    def binv(y):
        return max(0.0, (y - delta) * math.exp(-epsilon), 1 - delta - math.exp(epsilon) * (1 - y))

    return _mmc(binv, K)


def mmc_gdp(mu: float, K: int) -> float:
    """MMC bound with the μ-GDP trade-off function G_μ at uniform prior 1/K."""
    if mu < 0:
        raise ValueError("mu must be >= 0")
    if math.isinf(mu):
        return 1.0

    def binv(y):
        return float(stats.norm.cdf(stats.norm.ppf(y) - mu)) if 0 < y < 1 else float(y)

    return _mmc(binv, K)


def leaked_bits(epsilon, alpha: float = 0.05):
    """Section 3.2: with probability at most α an ε-DP mechanism leaks log2(e^ε (1/α − 1) + 1) bits."""
    eps = np.asarray(epsilon, float)
    return np.log2(np.exp(eps) * (1 / alpha - 1) + 1)
