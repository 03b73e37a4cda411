"""The Gaussian mechanism for a mean query and its PMP parameter (Lowy et al. 2024, §4.2).

A(D) = q(D) + N(0, s² I_d) with q(D) = (1/n) Σ_{x ∈ D} x. Calibration is Balle & Wang's exact
(analytic) one, shared through :mod:`privrisk.accounting` (δ_BW(ε; Δ, s) is μ-GDP's δ(ε) with
μ = Δ/s). The PMP parameter is the paper's 3-step approach:

1. s from the target DP parameters (ε, δ) (global sensitivity 2C/n) or (ε(X), δ) (Δ(X));
2. Proposition 12's pairwise bound, which for a sum query is
   B_x(ε̃) = 1/(2n−1) Σ_{x' ≠ x} δ_BW(ε̃; ‖x − x'‖/n, s);
3. ε̃(X) = max_x min{ε̃ >= 0 : B_x(ε̃) <= δ}.

Step 3 is solved for every target of every trial at once by a safeguarded Newton iteration
(the slope of δ_BW in ε is −e^ε Φ(−Δ/2s − εs/Δ), so it costs nothing extra), pruning targets
whose root is provably below the current best of their trial.

ε, δ, μ, ε̃ and the scalars beside them (Δ, s, n) are keyword-only; the population ``x`` and a
target's distances ``dist_row`` are positional.
"""

from __future__ import annotations

import logging

import numpy as np
from scipy import optimize, special, stats

from .. import accounting

log = logging.getLogger(__name__)


def delta_bw(*, epsilon, sensitivity, s):
    """δ_BW(ε; Δ, s) of Lemma 10 (vectorised). Δ = 0 gives 0; s = 0 < Δ gives 1 (finite ε)."""
    sens = np.asarray(sensitivity, dtype=float)
    s = np.asarray(s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(sens > 0, sens / s, 0.0)
    return accounting.gaussian_delta(epsilon=epsilon, mu=mu)


_TINY, _HUGE = 1e-300, 1e300


def _delta_slope(eps: np.ndarray, mu: np.ndarray):
    """δ(ε; μ) and dδ/dε = −e^ε Φ(−ε/μ − μ/2), elementwise, for μ in [1e-300, 1e300].

    The hot loop of the PMP solver, so it is plain in-place arithmetic: callers clip μ into that
    range beforehand (μ = 0 then gives δ = 0 and μ = ∞ gives δ = 1 at every finite ε, exactly).
    """
    t = eps / mu
    half = 0.5 * mu
    b = np.negative(t)
    b -= half
    eb = special.log_ndtr(b)
    eb += eps
    np.exp(eb, out=eb)  # e^ε Φ(b) without overflow
    np.subtract(half, t, out=t)
    d = special.ndtr(t)
    d -= eb
    np.maximum(d, 0.0, out=d)
    np.negative(eb, out=eb)
    return d, eb


def _solve_rows(mu, rows, denom, delta, lo, hi, gid, best, tol, max_iter):
    """Safeguarded Newton on ``mu[rows]`` (see :func:`smallest_eps`); NaN marks pruned rows."""
    roots = np.full(rows.size, np.nan)
    pos = np.arange(rows.size)
    x = lo.copy()
    for _ in range(max_iter):
        if pos.size == 0:
            return roots
        if gid is not None:
            # Evaluate no lower than the group's best lower bound: a row whose constraint already
            # holds there cannot raise the group's maximum, so it is dropped below.
            x = np.maximum(x, np.minimum(best[gid], hi))
        f, g = _delta_slope(x[:, None], mu[rows[pos]])
        excess = f.sum(axis=1) / denom - delta
        slope = g.sum(axis=1) / denom
        above = excess > 0
        lo = np.where(above, x, lo)
        hi = np.where(above, hi, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = x - excess / slope
        ok = np.isfinite(newton) & (newton > lo) & (newton < hi)
        nxt = np.where(ok, newton, 0.5 * (lo + hi))
        done = (hi - lo <= tol * np.maximum(1.0, hi)) | (
            np.abs(nxt - x) <= tol * np.maximum(1.0, x)
        )
        res = np.where(above, np.maximum(nxt, lo), x)
        if gid is not None:
            np.maximum.at(best, gid, lo)
            dropped = ~above & (x <= best[gid])  # root <= x <= a lower bound of the group max
            done |= dropped
            res = np.where(dropped, np.nan, res)
            fin = done & ~np.isnan(res)
            np.maximum.at(best, gid[fin], res[fin])
        roots[pos[done]] = res[done]
        keep = ~done
        pos, lo, hi, x = pos[keep], lo[keep], hi[keep], nxt[keep]
        if gid is not None:
            gid = gid[keep]
    raise RuntimeError(f"smallest_eps did not converge in {max_iter} iterations")


def smallest_eps(
    *,
    mu: np.ndarray,
    delta: float,
    groups: np.ndarray | None = None,
    denominator: int | None = None,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> tuple[np.ndarray, np.ndarray]:
    """For each row r, the smallest ε >= 0 with Σ_k δ(ε; μ[r, k]) / K <= δ.

    Args:
        mu: (R, k) GDP parameters Δ_k/s of the terms averaged in each row (a single term for an
            ordinary DP parameter, the 2n−1 partners of a target for Proposition 12; μ = 0 terms
            contribute 0, so a target's own zero distance may stay in its row).
        delta: target δ in (0, 1).
        groups: optional (R,) integer labels 0..G−1 (e.g. the trial of each target). When given,
            only the maximum root of each group is wanted: each group's most exposed row at ε = 0
            is solved first, then every row is evaluated once at that root and the rows whose
            constraint already holds there are dropped (their returned root is NaN).
        denominator: K (default k, the number of columns).
        tol: relative tolerance on ε (absolute below 1).

    Returns:
        (roots (R,), group maxima (G,), empty without groups). ∞ where no finite ε works (the
        share of μ = ∞ terms in the row reaches δ).
    """
    mu = np.asarray(mu, dtype=float)
    if mu.ndim != 2:
        raise ValueError(f"mu must be 2-D (rows, terms), got shape {mu.shape}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    rows, k = mu.shape
    denom = k if denominator is None else denominator
    rowmax = mu.max(axis=1)
    if np.isnan(rowmax).any() or mu.min() < 0:
        raise ValueError("mu must be >= 0 and not NaN")
    roots = np.full(rows, np.nan)
    target = np.full(rows, float(delta))
    has_inf = np.isinf(rowmax)
    if has_inf.any():  # μ = ∞ terms contribute δ = 1 at every finite ε
        target[has_inf] -= np.isinf(mu[has_inf]).sum(axis=1) / denom
        rowmax[has_inf] = np.max(np.where(np.isinf(mu[has_inf]), 0.0, mu[has_inf]), axis=1)
    never = target <= 0
    mu = np.maximum(mu, _TINY)
    if has_inf.any():
        np.minimum(mu, _HUGE, out=mu)
    f0 = (2.0 * special.ndtr(0.5 * mu) - 1.0).sum(axis=1) / denom  # δ(0; μ) = 2Φ(μ/2) − 1
    zero = ~never & (f0 <= delta)
    roots[never] = np.inf
    roots[zero] = 0.0
    act = np.nonzero(~never & ~zero)[0]
    # Upper bracket: every finite term has δ <= Φ(μ/2 − ε/μ) <= target once ε >= μ²/2 − μ z,
    # which increases with μ, so the row maximum gives it.
    z = stats.norm.ppf(np.clip(target, 1e-300, 1.0))
    hi_all = rowmax**2 / 2 - rowmax * z + 1e-9
    if groups is None:
        roots[act] = _solve_rows(
            mu, act, denom, delta, np.zeros(act.size), hi_all[act], None, None, tol, max_iter
        )
        return roots, np.empty(0)
    groups = np.asarray(groups)
    n_groups = int(groups.max()) + 1
    best = np.full(n_groups, -np.inf)
    np.maximum.at(best, groups[zero], 0.0)
    np.maximum.at(best, groups[never], np.inf)
    gid = groups[act]
    # Seed: in each group, solve the row with the largest δ at ε = 0 exactly.
    order = np.lexsort((-f0[act], gid))
    first = order[np.r_[True, gid[order][1:] != gid[order][:-1]]] if act.size else order
    seed = _solve_rows(
        mu,
        act[first],
        denom,
        delta,
        np.zeros(first.size),
        hi_all[act[first]],
        None,
        None,
        tol,
        max_iter,
    )
    roots[act[first]] = seed
    np.maximum.at(best, gid[first], seed)
    rest = np.setdiff1d(np.arange(act.size), first)
    roots[act[rest]] = _solve_rows(
        mu,
        act[rest],
        denom,
        delta,
        np.zeros(rest.size),
        hi_all[act[rest]],
        gid[rest],
        best,
        tol,
        max_iter,
    )
    fin = ~np.isnan(roots)
    best = np.full(n_groups, -np.inf)
    np.maximum.at(best, groups[fin], roots[fin])
    return roots, best


def dp_epsilon(*, sensitivity: np.ndarray, s: np.ndarray, delta: float) -> np.ndarray:
    """Smallest ε with δ_BW(ε; Δ, s) <= δ, vectorised over matching arrays Δ and s."""
    sens, s = np.broadcast_arrays(np.asarray(sensitivity, float), np.asarray(s, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(sens > 0, sens / s, 0.0)
    roots, _ = smallest_eps(mu=mu.reshape(-1, 1), delta=delta)
    return roots.reshape(sens.shape)


def pairwise_distances(x: np.ndarray) -> np.ndarray:
    """‖x_i − x_j‖₂ for every pair within each trial: (trials, P, P), exact zeros on the diagonal."""
    sq = np.einsum("tpd,tpd->tp", x, x)
    d2 = sq[:, :, None] + sq[:, None, :] - 2 * np.einsum("tpd,tqd->tpq", x, x)
    d = np.sqrt(np.maximum(d2, 0.0))
    idx = np.arange(x.shape[1])
    d[:, idx, idx] = 0.0
    return d


def pmp_bound_terms(dist: np.ndarray, n: int, s: np.ndarray) -> np.ndarray:
    """GDP parameters μ = ‖x − x'‖/(n s) of Proposition 12's terms: (trials · 2n, 2n).

    Row (t, x) holds every x' of trial t including x itself (μ = 0, contributing δ = 0), so the
    row mean over the 2n − 1 partners is the row sum over ``denominator = 2n − 1``.
    """
    t, p, _ = dist.shape
    s = np.asarray(s, dtype=float).reshape(t, 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(dist > 0, dist / (n * s), 0.0)
    return mu.reshape(t * p, p)


def pmp_bound(dist_row: np.ndarray, *, eps_tilde, n: int, s: float):
    """B_x(ε̃; s) of Proposition 12 for one target, from its distances to the 2n − 1 others."""
    return np.mean(
        delta_bw(epsilon=np.asarray(eps_tilde, float)[..., None], sensitivity=dist_row / n, s=s),
        axis=-1,
    )


def eps_tilde(x: np.ndarray, *, n: int, s: np.ndarray, delta: float) -> np.ndarray:
    """ε̃(X) by Proposition 12 (an upper bound on the PMP parameter), per trial, vectorised.

    ``x`` is (trials, 2n, d); ``s`` the noise std per trial (trials,).
    """
    t, p, _ = x.shape
    if p != 2 * n:
        raise ValueError(f"population has {p} points, expected 2n = {2 * n}")
    mu = pmp_bound_terms(pairwise_distances(x), n, s)
    groups = np.repeat(np.arange(t), p)
    _, best = smallest_eps(mu=mu, delta=delta, groups=groups, denominator=p - 1)
    return best


def eps_tilde_loop(x: np.ndarray, *, n: int, s: np.ndarray, delta: float) -> np.ndarray:
    """The straightforward reference: brentq on B_x for every target of every trial in turn."""

    out = np.zeros(x.shape[0])
    for ti in range(x.shape[0]):
        best = 0.0
        for i in range(x.shape[1]):
            dist = np.linalg.norm(np.delete(x[ti], i, axis=0) - x[ti, i], axis=1)

            def f(e, dist=dist, s_t=s[ti]):
                return pmp_bound(eps_tilde=e, dist_row=dist, n=n, s=s_t) - delta

            if f(0.0) <= 0:
                continue
            hi = 1.0
            while f(hi) > 0:
                hi *= 2
            best = max(best, optimize.brentq(f, 0.0, hi, xtol=1e-12, rtol=1e-12))
        out[ti] = best
    return out


def eps_triple(
    x: np.ndarray, *, n: int, clip: float, delta: float, fixed: str, value: float
) -> dict[str, np.ndarray]:
    """(ε, ε(X), ε̃(X)) per trial for the mean query on population ``x`` (trials, 2n, d).

    ``fixed`` chooses which DP parameter is held at ``value`` (the paper is ambiguous,
    spec §3.2.4): ``"global"`` calibrates s to (ε, δ) with the global sensitivity 2C/n (the
    same s for every trial); ``"restricted"`` calibrates s to (ε(X), δ) with Δ(X) per trial.
    """
    if fixed not in ("global", "restricted"):
        raise ValueError(f"fixed must be 'global' or 'restricted', got {fixed!r}")
    t = x.shape[0]
    dist = pairwise_distances(x)
    sens_x = dist.max(axis=(1, 2)) / n
    sens = 2.0 * clip / n
    # s = Δ_used / μ for the calibrated mechanism
    mu_fixed = accounting.gdp_mu(epsilon=value, delta=delta)
    if fixed == "global":
        s = np.full(t, sens / mu_fixed if np.isfinite(mu_fixed) else 0.0)
    else:
        s = sens_x / mu_fixed if np.isfinite(mu_fixed) else np.zeros(t)
    eps = dp_epsilon(sensitivity=np.full(t, sens), s=s, delta=delta)
    eps_x = dp_epsilon(sensitivity=sens_x, s=s, delta=delta)
    mu = pmp_bound_terms(dist, n, s)
    _, et = smallest_eps(
        mu=mu, delta=delta, groups=np.repeat(np.arange(t), x.shape[1]), denominator=x.shape[1] - 1
    )
    return {"eps": eps, "eps_x": eps_x, "eps_tilde": et, "s": s, "sens_x": sens_x}
