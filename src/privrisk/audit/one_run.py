"""One-run audits (Steinke, Nasr & Jagielski 2023, "Privacy auditing with one (1) training run").

m canaries are each included in one training run independently with probability ½; the attacker
guesses "in" for its k₊ highest scores and "out" for its k₋ lowest, and abstains on the rest. For
an (ε, δ)-DP run the number of correct guesses v out of r = k₊ + k₋ satisfies (their Theorem
3 / Proposition 5.2)

    Pr[correct ≥ v] ≤ Pr[Binomial(r, e^ε/(1 + e^ε)) ≥ v] + 2 m δ · max_{i ≤ v} Pr[v > B ≥ v − i] / i,

which is the p-value of the claim; the audit's ε lower bound is the largest ε with p ≤ α. The
number of guesses is fixed in advance: either given, or a small grid of k (the bound is taken at
α / |grid| for each k, Bonferroni). Vectorised over k (and ε in the bisection).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

#: guesses tried when none is given: fractions of the canaries (k₊ = k₋ = k/2)
GUESS_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def guess_grid(m: int, guesses: int | None) -> np.ndarray:
    if guesses is not None:
        return np.array([int(guesses)])
    ks = np.unique(np.maximum(2, np.round(np.asarray(GUESS_FRACTIONS) * m).astype(int)))
    return ks[ks <= m]


def correct_guesses(scores: np.ndarray, included: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Correct guesses of the k/2-highest "in", k/2-lowest "out" attacker for every k in ``ks``;
    scores (T, m) and included (T, m) bool → (T, len(ks)). Ties broken by canary order."""
    s, inc = np.atleast_2d(scores), np.atleast_2d(included)
    order = np.argsort(-s, axis=1, kind="stable")
    lab = np.take_along_axis(inc, order, axis=1).astype(np.int64)
    top = np.concatenate([np.zeros((lab.shape[0], 1), np.int64), np.cumsum(lab, axis=1)], axis=1)
    out_rev = np.concatenate(
        [np.zeros((lab.shape[0], 1), np.int64), np.cumsum(1 - lab[:, ::-1], axis=1)], axis=1
    )
    k_pos = (ks + 1) // 2
    k_neg = ks // 2
    return top[:, k_pos] + out_rev[:, k_neg]


def p_value(m: int, r, v, *, epsilon, delta: float):
    """Steinke et al.'s p-value of v correct out of r guesses among m canaries under (ε, δ)-DP;
    broadcasts over r, v and ε."""
    r, v, eps = np.broadcast_arrays(
        np.asarray(r, float), np.asarray(v, float), np.asarray(epsilon, float)
    )
    q = special.expit(eps)
    beta = stats.binom.sf(v - 1, r, q)
    if delta == 0:
        return np.minimum(beta, 1.0)
    vmax = int(np.max(v)) if v.size else 0
    i = np.arange(1, vmax + 1).reshape((-1,) + (1,) * v.ndim)
    pmf = np.where(v - i >= 0, stats.binom.pmf(v - i, r, q), 0.0)
    # Pr[v > B ≥ v − i] for i = 1 … v, then the largest average per unit of i
    cum = np.cumsum(pmf, axis=0)
    alpha = np.max(cum / i, axis=0, initial=0.0) if vmax else np.zeros_like(beta)
    return np.minimum(beta + alpha * delta * 2 * m, 1.0)


def epsilon_lower(m: int, r, v, *, delta: float, level: float, iterations: int = 50):
    """Largest ε with p-value ≤ ``level`` (0 when ε = 0 is not refuted); vectorised over r, v."""
    r, v = np.broadcast_arrays(np.asarray(r, float), np.asarray(v, float))
    ok0 = p_value(m, r, v, epsilon=0.0, delta=delta) <= level
    lo, hi = np.zeros(r.shape), np.full(r.shape, 64.0)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        refuted = p_value(m, r, v, epsilon=mid, delta=delta) <= level
        lo, hi = np.where(refuted, mid, lo), np.where(refuted, hi, mid)
    return np.where(ok0, lo, 0.0)


def guesses_needed(m: int, r: int, v: int, *, epsilon: float, delta: float, level: float):
    """Canaries (same guess fraction and accuracy) at which the claim would be refuted, or None
    (accuracy within the claim, or the 2mδ term grows faster than the evidence)."""
    if v / r <= float(special.expit(epsilon)):
        return None
    scales = np.geomspace(1, 1e6, 200)
    p = (
        p_value(
            np.asarray(m * scales), r * scales, np.floor(v * scales), epsilon=epsilon, delta=delta
        )
        if delta == 0
        else np.array(
            [
                float(p_value(int(m * s), int(r * s), int(v * s), epsilon=epsilon, delta=delta))
                for s in scales[:60]
            ]
        )
    )
    ok = np.flatnonzero(p <= level)
    return None if ok.size == 0 else int(np.ceil(m * scales[ok[0]]))


# --- the f-DP one-run audit (Mahloujifar, Melis & Chaudhuri 2024), as jax_privacy runs it -------

#: guesses tried by the f-DP audit: the top fraction of the canaries guessed "in" (one-sided)
FDP_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)


def fdp_grid(m: int, guesses: int | None) -> np.ndarray:
    if guesses is not None:
        return np.array([int(guesses)])
    ks = np.unique(np.maximum(1, np.round(np.asarray(FDP_FRACTIONS) * m).astype(int)))
    return ks[ks <= m]


def top_correct(scores: np.ndarray, included: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """Correct guesses when the k highest scores are guessed "in" (abstaining on the rest)."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    hits = np.concatenate([[0], np.cumsum(np.asarray(included, bool)[order])])
    return hits[ks]


def fdp_refutes(m: int, r: int, v: int, *, mu: float, level: float) -> bool:
    """Whether v correct of r "in" guesses among m canaries refute μ-GDP at ``level``: the
    recursion of Mahloujifar et al. (2024, 'audit_rh_with_cap') with the Gaussian trade-off's
    inverse blow-up x ↦ Φ(Φ⁻¹(x) − μ), line for line as jax_privacy 2.0.0's
    ``_epsilon_one_run_fdp`` objective (there μ = 1/σ of the Gaussian mechanism at (ε, δ))."""
    if r == 0:
        return False
    rr = level * v / m
    h = level * (r - v) / m
    for i in range(v - 1, -1, -1):
        h_new = max(h, float(special.ndtr(special.ndtri(rr) - mu)))
        if h == h_new:
            break
        rr = min(rr + (i / (r - i)) * (h_new - h), 1.0)
        h = h_new
    return rr + h - r / m > 0
