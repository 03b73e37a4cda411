"""The exponential mechanism over a finite candidate set, with the geometric-median loss.

Lowy et al. (2024), Definition 7: P(A(D) = w) ∝ exp(−β ℓ(w, D)) with β = ε / (2Δ_ℓ) and
ℓ(w, D) = (1/n) Σ_{x ∈ D} ‖w − x‖₂. Everything is batched over a leading "trials" axis so that
T independent data draws are one array computation. The populations themselves come from
:mod:`privrisk.data.synthetic`.
"""

from __future__ import annotations

import numpy as np

from ..bounds import pmp


def unit_rows(w: np.ndarray) -> np.ndarray:
    """Each row (last axis) scaled to unit ℓ2 norm."""
    return w / np.linalg.norm(w, axis=-1, keepdims=True)


def draw_candidates(rng: np.random.Generator, trials: int, m: int, d: int) -> np.ndarray:
    """m i.i.d. N(0, I_d) candidates per trial, each scaled to unit ℓ2 norm: (trials, m, d)."""
    return unit_rows(rng.standard_normal((trials, m, d)))


def distances(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """‖w_j − x_i‖₂ for every candidate and point: (trials, m, 2n)."""
    return np.linalg.norm(w[:, :, None, :] - x[:, None, :, :], axis=-1)


def global_sensitivity(clip: float, n: int) -> float:
    """Δ_ℓ over the ball {‖x‖ <= C} for unit-norm candidates (replace-one adjacency).

    Swapping x for x' changes ℓ(w, ·) by (‖w − x‖ − ‖w − x'‖)/n; over the ball the range of
    ‖w − x‖ is [max(0, 1 − C), 1 + C], hence (C + 1)/n for C >= 1 and 2C/n for C < 1.
    """
    if clip < 0 or n < 1:
        raise ValueError(f"need C >= 0 and n >= 1, got C={clip}, n={n}")
    return (clip + 1.0) / n if clip >= 1 else 2.0 * clip / n


def restricted_sensitivity(dist: np.ndarray, n: int) -> np.ndarray:
    """Δ_ℓ(X) = (1/n) max_w (max_x ‖w − x‖ − min_x ‖w − x‖), per trial.

    Any two points of X can be swapped inside some half D ⊂ X, so this closed form equals the
    maximum over adjacent subsets of X (checked against brute force in the tests).
    """
    return np.max(dist.max(axis=-1) - dist.min(axis=-1), axis=-1) / n


def subset_losses(dist: np.ndarray, membership: np.ndarray) -> np.ndarray:
    """ℓ(w, D) for every subset D and candidate w: (trials, S, m)."""
    n = int(membership[0].sum())
    return np.swapaxes(dist @ membership.T.astype(float), -1, -2) / n  # BLAS, not einsum


def log_probs(losses: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """log P(A(D) = w) = −β ℓ(w, D) − logsumexp_w'(−β ℓ(w', D)), stable for huge β.

    ``beta`` is per trial (trials,); β = ∞ (zero restricted sensitivity) is the argmin limit,
    computed as the uniform distribution over the minimisers of each row.
    """
    beta = np.asarray(beta, dtype=float)[:, None, None]
    finite = np.isfinite(beta)
    shifted = losses - losses.min(axis=-1, keepdims=True)  # >= 0, 0 at the argmin
    a = -np.where(finite, beta, 0.0) * shifted
    if not finite.all():
        a = np.where(finite, a, np.where(shifted <= 1e-12 * (1 + np.abs(losses)), 0.0, -np.inf))
    # max(a) = 0 on every row (the argmin), so the plain log-sum-exp cannot overflow
    return a - np.log(np.exp(a).sum(axis=-1, keepdims=True))


def eps_triple(
    w: np.ndarray,
    x: np.ndarray,
    *,
    n: int,
    clip: float,
    eps_x: float,
    membership: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """(ε, ε(X), ε̃(X)) per trial for the exponential mechanism calibrated to ε(X) (spec §3.1.3).

    β = ε(X) / (2 Δ_ℓ(X)) (nominal guarantee with the X-restricted sensitivity equals ε(X));
    ε = 2 β Δ_ℓ (Lemma 8 with the global sensitivity); ε̃(X) exact by Proposition 9, two-sided.

    Args:
        w: (trials, m, d) unit candidates; x: (trials, 2n, d) population.
        n: half the population size; clip: C; eps_x: the fixed ε(X).
        membership: optional precomputed :func:`privrisk.bounds.pmp.subsets` (2n, n).

    Returns dict of (trials,) arrays: eps, eps_x, eps_tilde, eps_tilde_one_sided, beta,
    sens_x. A population whose points are all at the same distance from every candidate
    (Δ_ℓ(X) = 0, e.g. σ = 0 or C = 0) gives ε̃(X) = 0; then ε = ∞ if Δ_ℓ > 0 and 0 if Δ_ℓ = 0.
    """
    if x.shape[1] != 2 * n:
        raise ValueError(f"population has {x.shape[1]} points, expected 2n = {2 * n}")
    if eps_x < 0:
        raise ValueError(f"eps_x must be >= 0, got {eps_x}")
    membership = pmp.subsets(2 * n, n) if membership is None else membership
    dist = distances(w, x)
    sens_x = restricted_sensitivity(dist, n)
    sens = global_sensitivity(clip, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = np.where(sens_x > 0, eps_x / (2.0 * np.where(sens_x > 0, sens_x, 1.0)), np.inf)
        eps = np.where(sens_x > 0, 2.0 * beta * sens, np.inf if sens > 0 else 0.0)
    lp = log_probs(subset_losses(dist, membership), beta)
    ratios = pmp.log_ratios(lp, membership)  # once for both versions of Proposition 9
    eps_tilde = np.max(np.abs(ratios), axis=(-2, -1))
    one_sided = np.max(ratios, axis=(-2, -1))
    # Δ_ℓ(X) = 0 means every subset has the same loss vector, hence the same output law.
    eps_tilde = np.where(sens_x > 0, eps_tilde, 0.0)
    one_sided = np.where(sens_x > 0, one_sided, 0.0)
    return {
        "eps": eps,
        "eps_x": np.full_like(eps, eps_x),
        "eps_tilde": eps_tilde,
        "eps_tilde_one_sided": one_sided,
        "beta": beta,
        "sens_x": sens_x,
    }
