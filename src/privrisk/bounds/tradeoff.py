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


# --- RDP: the trade-off curve and advantage of Rényi guarantees, directly -------------------------


def _rdp_pairs(orders, rdp):
    a = np.asarray(orders, dtype=float).ravel()
    r = np.asarray(rdp, dtype=float).ravel()
    if a.shape != r.shape or a.size == 0:
        raise ValueError("orders and rdp must be non-empty and of the same length")
    if np.any(np.isnan(a)) or np.any(a < 1) or np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError("RDP orders must be >= 1 (1: the KL divergence) and RDP values >= 0")
    keep = np.isfinite(r)  # an order with ε_α = ∞ bounds nothing
    return a[keep], r[keep]


def _bisect(feasible, lo, hi, iterations: int = 64):
    """The infeasible end of a bisection for the smallest feasible point of each entry: ``lo`` is
    infeasible (or the answer), ``hi`` feasible; what is returned is never above the answer."""
    lo, hi = _bisect_bracket(feasible, lo, hi, iterations)
    return lo


def _bisect_bracket(feasible, lo, hi, iterations: int):
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        ok = feasible(mid)
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
    return lo, hi


def _largest_root(feasible_at, lo, hi, *, coarse: int = 10, fine: int = 44):
    """For each row of (rows, orders) brackets, the largest over the orders of the smallest
    feasible point, returned as the lower end of its bracket (never above the true value).

    A few halvings for every order first; then only the orders whose bracket still reaches the
    best lower end can be the largest, and only those are refined (the rest cannot change the
    answer), so a curve of hundreds of orders costs little more than one."""
    lo, hi = _bisect_bracket(lambda m: feasible_at(m, None), lo, hi, coarse)
    best = lo.max(axis=1, keepdims=True)
    live = hi >= best
    rows, cols = np.nonzero(live)
    sub_lo, sub_hi = _bisect_bracket(
        lambda m: feasible_at(m, (rows, cols)), lo[rows, cols], hi[rows, cols], fine
    )
    out = np.full(lo.shape, -np.inf)
    out[rows, cols] = sub_lo
    return out.max(axis=1)


def _log_renyi_pair(x, y, order):
    """log of x^λ y^{1−λ} + (1 − x)^λ (1 − y)^{1−λ}: (λ − 1)·D_λ(Bern(x) ‖ Bern(y)), with 0·log 0 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = np.where(x > 0, order * np.log(x) + (1 - order) * np.log(y), -np.inf)
        t2 = np.where(x < 1, order * np.log1p(-x) + (1 - order) * np.log1p(-y), -np.inf)
    return np.logaddexp(t1, t2)


def tradeoff_rdp(alpha, *, orders, rdp):
    """A lower bound on the trade-off function f(α) of a mechanism that is (λ, ε_λ)-RDP at each
    order λ (both ways round, as a neighbouring relation is symmetric): the largest over the
    orders of the smallest false-negative rate β with

        D_λ(Bern(1 − β) ‖ Bern(α)) <= ε_λ   and   D_λ(Bern(α) ‖ Bern(1 − β)) <= ε_λ,

    the data-processing inequality applied to the test's decision (Zhu et al. 2022, App. F.1; the
    single-order conversion is optimal: riskcal's ``get_beta_from_rdp``, which the tests compare).
    Order 1 is the KL divergence (the limit of a zCDP curve ρα as α → 1).
    Each order's constraint is convex and decreasing in β on [0, 1 − α], so β is found by
    bisection; the lower end of the bracket is returned (f never overstated: the TPR bound
    1 − f(α) stays on the safe side). Order ∞ is pure ε-DP (f_{ε,0}). Broadcasts over α.

    Tighter than the (ε, δ) pairs of the Canonne–Kamath–Steinke conversion for small α: it uses
    each order's guarantee whole, not one (ε, δ) point of it.
    """
    orders, values = _rdp_pairs(orders, rdp)
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
    flat = a.reshape(-1, 1)
    best = np.zeros(flat.shape[0])
    finite = np.isfinite(orders) & (orders > 1)
    if np.any(np.isinf(orders)):  # order ∞: pure DP at the smallest such ε
        eps = float(np.min(values[np.isinf(orders)]))
        best = np.maximum(best, np.ravel(tradeoff_approx(flat[:, 0], epsilon=eps)))
    if np.any(orders == 1):  # order 1: the KL divergence, both ways round
        kl = float(np.min(values[orders == 1]))
        x1 = flat[:, 0]

        def kl_ok(beta):
            first = special.rel_entr(1 - beta, x1) + special.rel_entr(beta, 1 - x1)
            second = special.rel_entr(x1, 1 - beta) + special.rel_entr(1 - x1, beta)
            return (first <= kl) & (second <= kl)

        lo0 = np.zeros(x1.shape)
        beta = np.where(kl_ok(lo0), 0.0, _bisect(kl_ok, lo0, 1.0 - x1))
        best = np.maximum(best, beta)
    if np.any(finite):
        lam = orders[finite][None, :]
        bound = (lam - 1) * values[finite][None, :]
        shape = (flat.shape[0], lam.shape[1])
        x = np.broadcast_to(flat, shape)
        with np.errstate(divide="ignore"):
            la, l1a = np.log(x), np.log1p(-x)  # fixed through the bisection
        lam_b, bound_b = np.broadcast_to(lam, shape), np.broadcast_to(bound, shape)

        def feasible_at(beta, where):
            if where is None:
                ls, bs, a0, a1 = lam_b, bound_b, la, l1a
            else:
                ls, bs, a0, a1 = lam_b[where], bound_b[where], la[where], l1a[where]
            with np.errstate(divide="ignore", invalid="ignore"):
                b0, b1 = np.log(beta), np.log1p(-beta)
                # (1 − β)^λ α^{1−λ} + β^λ (1 − α)^{1−λ} and α^λ (1 − β)^{1−λ} + (1 − α)^λ β^{1−λ}
                first = np.logaddexp(ls * b1 + (1 - ls) * a0, ls * b0 + (1 - ls) * a1)
                second = np.logaddexp(ls * a0 + (1 - ls) * b1, ls * a1 + (1 - ls) * b0)
            return (first <= bs) & (second <= bs)

        hi = 1.0 - x
        lo = np.zeros(shape)
        at_zero = feasible_at(lo, None)
        hi = np.where(at_zero, 0.0, hi)  # β = 0 already feasible: the answer is 0
        best = np.maximum(best, _largest_root(feasible_at, lo, hi))
    best = np.where(flat[:, 0] <= 0, 1.0, np.where(flat[:, 0] >= 1, 0.0, best))
    return _out(best.reshape(a.shape))


def advantage_rdp(*, orders, rdp):
    """An upper bound on the advantage max_α (1 − α − f(α)) of an RDP guarantee: the smallest over
    the orders of 1 − 2a*, where a* is the smallest a with D_λ(Bern(1 − a) ‖ Bern(a)) <= ε_λ.
    Each order's feasible (α, β) region is convex and symmetric under α ↔ β (the constraint and
    its reverse swap), so the largest 1 − α − β lies on the diagonal α = β. Bisection returns the
    lower end of a*, so the advantage is never understated."""
    orders, values = _rdp_pairs(orders, rdp)
    best = 1.0
    finite = np.isfinite(orders) & (orders > 1)
    if np.any(np.isinf(orders)):
        best = min(best, float(advantage_approx(epsilon=float(np.min(values[np.isinf(orders)])))))
    if np.any(orders == 1):
        kl = float(np.min(values[orders == 1]))

        def kl_ok(a):
            return special.rel_entr(1 - a, a) + special.rel_entr(a, 1 - a) <= kl

        best = min(best, 1 - 2 * float(_bisect(kl_ok, np.zeros(1), np.full(1, 0.5))[0]))
    if np.any(finite):
        lam = orders[finite][None, :]
        bound = (lam - 1) * values[finite][None, :]

        def feasible_at(a, where):
            ls, bs = (lam, bound) if where is None else (lam[where], bound[where])
            return _log_renyi_pair(1 - a, a, ls) <= bs

        lo, hi = np.zeros(lam.shape), np.full(lam.shape, 0.5)
        a_star = float(_largest_root(feasible_at, lo, hi)[0])
        best = min(best, 1 - 2 * a_star)
    return best
