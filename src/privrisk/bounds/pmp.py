"""Practical membership privacy (PMP) of Lowy et al. (2024) for mechanisms with finite outputs.

Setting: a population X of 2n distinct points, the private data set D a uniformly random half of
X, an attacker who knows X and the mechanism but not which other points are in D.
A mechanism is ε̃-PMP w.r.t. X (Definition 2, δ = 0) iff for every target x ∈ X and output w

    |ln Σ_{D ∋ x} p_D(w) − ln Σ_{D ∌ x} p_D(w)| <= ε̃

(Lemma 3 (3) with singletons S = {w}; both sums have N = C(2n−1, n−1) terms). This module
computes that exact parameter from per-subset output log-probabilities, the exact DP parameter
restricted to subsets of X (for comparisons and Corollary 4), and the analytic maps of the paper
(success bound of Lemma 6, MIP of Lemma 13).

ε̃ is keyword-only in those maps (``success_bound(eps_tilde=…)``); the arrays ``log_p`` and
``membership`` are positional.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np


def subsets(population: int, size: int) -> np.ndarray:
    """Membership matrix of every size-``size`` subset of ``range(population)``.

    Returns a bool array (C(population, size), population) in lexicographic order, e.g. the
    924 × 12 matrix of all halves of a 12-point population.
    """
    if not 0 <= size <= population:
        raise ValueError(f"need 0 <= size <= population, got size={size}, population={population}")
    if comb(population, size) > 5_000_000:
        raise ValueError(f"C({population}, {size}) subsets is too many to enumerate")
    out = np.zeros((comb(population, size), population), dtype=bool)
    for r, idx in enumerate(itertools.combinations(range(population), size)):
        out[r, list(idx)] = True
    return out


def _log_mixture(log_p: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """log Σ_{D: mask[D, x]} p_D(w) for every x, by a shifted matrix product.

    ``log_p`` is (..., S, m); ``mask`` (S, P). Shifting each output column by its maximum over
    subsets keeps the terms representable as long as one output's log-probabilities differ
    across subsets by less than ~700 (for the exponential mechanism they differ by at most
    n·ε(X) <= 60 in the paper's figures); -inf entries (impossible outputs) give exact zeros.
    """
    top = np.max(log_p, axis=-2, keepdims=True)  # (..., 1, m)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    p = np.exp(log_p - safe_top)  # (..., S, m); exact 0 where log_p = -inf
    sums = np.matmul(mask.T.astype(float), p)  # (..., P, m); a BLAS product, not einsum
    with np.errstate(divide="ignore"):
        return np.log(sums) + safe_top


def pmp_epsilon(log_p: np.ndarray, membership: np.ndarray, *, two_sided: bool = True) -> np.ndarray:
    """Exact PMP parameter ε̃(X) (δ = 0) of a finite-output mechanism.

    Args:
        log_p: (..., S, m) log P(A(D) = w) for every subset D (rows of ``membership``) and every
            output w; leading axes are independent instances (e.g. trials).
        membership: (S, 2n) bool matrix of all C(2n, n) halves of X (see :func:`subsets`).
        two_sided: the faithful Definition 2 (both directions); False gives Prop. 9 as printed
            (only ln Σ_in − ln Σ_out).

    Returns:
        ε̃(X) per instance (shape ``log_p.shape[:-2]``); ∞ when some output is possible for one
        side only; 0 when every subset has the same output distribution.
    """
    diff = log_ratios(log_p, membership)
    if two_sided:
        diff = np.abs(diff)
    return np.max(diff, axis=(-2, -1))


def log_ratios(log_p: np.ndarray, membership: np.ndarray) -> np.ndarray:
    """ln Σ_{D∋x} p_D(w) − ln Σ_{D∌x} p_D(w) for every target x and output w: (..., 2n, m).

    Outputs no subset can produce give 0. :func:`pmp_epsilon` is the maximum of its absolute
    value (two-sided) or of itself (one-sided); compute it once when both are needed.
    """
    log_p = np.asarray(log_p, dtype=float)
    membership = np.asarray(membership, dtype=bool)
    if log_p.shape[-2] != membership.shape[0]:
        raise ValueError(f"log_p has {log_p.shape[-2]} subsets, membership {membership.shape[0]}")
    log_in = _log_mixture(log_p, membership)
    log_out = _log_mixture(log_p, ~membership)
    possible = np.isfinite(log_in) | np.isfinite(log_out)  # outputs no subset can produce drop out
    with np.errstate(invalid="ignore"):
        return np.where(possible, log_in - log_out, 0.0)


def dp_epsilon_restricted(log_p: np.ndarray, membership: np.ndarray) -> np.ndarray:
    """Exact DP parameter over adjacent (replace-one) pairs of subsets of X.

    max over D ~ D' ⊂ X (|D Δ D'| = 2) and outputs w of |ln p_D(w) − ln p_D'(w)|, by enumerating
    the pairs — a different code path from :func:`pmp_epsilon`, used to check Proposition 5 (a)
    (ε̃(X) <= ε(X)) and Corollary 4 (n = 1: PMP = DP).
    """
    log_p = np.asarray(log_p, dtype=float)
    m = membership.astype(int)
    overlap = m @ m.T
    n = int(m[0].sum())
    i, j = np.nonzero(np.triu(overlap == n - 1, k=1))
    a, b = log_p[..., i, :], log_p[..., j, :]
    both_inf = np.isneginf(a) & np.isneginf(b)
    with np.errstate(invalid="ignore"):
        diff = np.where(both_inf, 0.0, np.abs(a - b))
    return np.max(diff, axis=(-2, -1))


def success_bound(*, eps_tilde):
    """Lemma 6: a practical MIA with prior 1/2 succeeds with probability <= 1/(1 + e^{−ε̃})."""
    eps = np.asarray(eps_tilde, dtype=float)
    out = 0.5 * (1.0 + np.tanh(eps / 2.0))  # = expit(ε), exact at ε = ∞
    return out if out.ndim else float(out)


def mip_eta(*, eps_tilde):
    """Lemma 13: ε-PMP implies η-MIP (Izzo et al.) with η = (1 − e^{−ε})/2."""
    eps = np.asarray(eps_tilde, dtype=float)
    out = -0.5 * np.expm1(-eps)
    return out if out.ndim else float(out)


def sum_mod_mechanism(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Proposition 5 (b)'s deterministic mechanism A(D) = Σ D mod 2n on X = {0, …, 2n−1}.

    Returns (log_p, membership): log_p is (C(2n, n), 2n) with 0 at the output and -inf elsewhere.
    It is not ε'-DP for any finite ε' but is ln 2-PMP for n = 3.
    """
    membership = subsets(2 * n, n)
    values = np.arange(2 * n)
    out = (membership.astype(int) @ values) % (2 * n)
    log_p = np.full((membership.shape[0], 2 * n), -np.inf)
    log_p[np.arange(membership.shape[0]), out] = 0.0
    return log_p, membership
