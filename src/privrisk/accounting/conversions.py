"""From RDP curves and privacy profiles to (ε, δ): Canonne, Kamath & Steinke's conversion at every
order (δ(ε) and ε(δ)), group privacy for two records (add/remove to replace-one), and the ε of
a profile's pairs."""

from __future__ import annotations

import math

import numpy as np

from .limits import _check_delta


def _rdp_arrays(orders, rdp):
    a = np.asarray(orders, dtype=float).ravel()
    r = np.asarray(rdp, dtype=float).ravel()
    if a.shape != r.shape or a.size == 0:
        raise ValueError("orders and rdp must be non-empty and of the same length")
    if np.any(np.isnan(a)) or np.any(a <= 1):
        raise ValueError("RDP orders must be > 1")
    if np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError("RDP values must be >= 0")
    return a, r


def _lower_envelope(intercepts, slopes):
    """The lines y = c_i − s_i·x (s_i > 0) that attain min_i at some x, in order of x, and the x
    where each next one takes over (the convex-hull trick: O(k log k) once, then any number of x
    by bisection, instead of k evaluations per x)."""
    order = np.lexsort((intercepts, slopes))  # by slope, then intercept
    c, m = intercepts[order], slopes[order]
    keep_c: list[float] = []
    keep_m: list[float] = []
    starts: list[float] = []
    for ci, mi in zip(c, m, strict=True):
        if keep_m and mi == keep_m[-1]:
            continue  # same slope, larger intercept: never lower
        while keep_m:
            x = (ci - keep_c[-1]) / (mi - keep_m[-1])  # where the new, steeper line crosses
            if len(starts) > 1 and x <= starts[-1]:
                keep_c.pop(), keep_m.pop(), starts.pop()
                continue
            starts.append(x)
            break
        else:
            starts.append(-math.inf)
        keep_c.append(ci)
        keep_m.append(mi)
    return np.array(keep_c), np.array(keep_m), np.array(starts)


def rdp_delta(*, orders, rdp, epsilon):
    """δ(ε) implied by an RDP curve (order α, RDP ε_α), vectorised over ε: the smaller of
    Canonne, Kamath & Steinke's conversion exp((α − 1)(ε_α − ε + log(1 − 1/α)) − log α) over the
    orders α > 1.01 and the KL bound √(1 − exp(−ε_α)) — dp-accounting's ``compute_delta``, in
    numpy. Orders <= 1 are refused; ∞ values are allowed (that order gives no bound), and so is the
    order ∞, pure DP, whose profile is exact: (e^{ε_∞} − e^ε)/(1 + e^{ε_∞}) below ε_∞.

    log δ of each order is a line in ε, so the minimum over hundreds of orders is their lower
    envelope, found once and read at every ε by bisection."""
    a, r, ok, kl = _curve(orders, rdp)
    eps = np.asarray(epsilon, dtype=float)
    finite = np.isfinite(a) & ok
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_d = np.full(eps.shape, float(np.min(kl[ok], initial=0.0)))
        lines = finite & (a > 1.01)
        if np.any(lines):
            al, rl = a[lines], r[lines]
            # (α − 1)(ε_α − ε + log(1 − 1/α)) − log α = c − (α − 1)·ε
            c = (al - 1) * (rl + np.log1p(-1 / al)) - np.log(al)
            ce, me, starts = _lower_envelope(c, al - 1)
            i = np.clip(np.searchsorted(starts, eps, side="right") - 1, 0, ce.size - 1)
            log_d = np.minimum(log_d, ce[i] - me[i] * eps)
        for rp in r[np.isinf(a) & np.isfinite(r)]:  # order ∞: pure rp-DP
            pure = np.where(
                eps < rp,
                rp + np.log(-np.expm1(np.minimum(eps - rp, 0.0))) - np.logaddexp(0.0, rp),
                -np.inf,
            )
            log_d = np.minimum(log_d, pure)
    out = np.minimum(1.0, np.exp(log_d))
    return out if out.ndim else float(out)


def _curve(orders, rdp):
    """The curve's orders and values as arrays, which values are finite, and each order's KL
    bound log δ (−∞ at a zero value), the conversions' common start."""
    a, r = _rdp_arrays(orders, rdp)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(r == 0, -np.inf, 0.5 * np.log1p(-np.exp(-r)))
    return a, r, np.isfinite(r), kl


def rdp_epsilon(*, orders, rdp, delta: float) -> float:
    """Smallest ε with :func:`rdp_delta` <= δ, in closed form: each order's δ falls with ε, so it
    is the smallest over the orders of where each reaches δ (0 if the KL bound already does)."""
    _check_delta(delta, allow_zero=False)
    a, r, ok, kl = _curve(orders, rdp)
    if not np.any(ok):
        return math.inf
    log_delta = math.log(delta)
    if np.min(kl[ok]) <= log_delta:
        return 0.0
    best = math.inf
    lines = ok & np.isfinite(a) & (a > 1.01)
    if np.any(lines):
        al, rl = a[lines], r[lines]
        best = float(np.min(rl + np.log1p(-1 / al) - (log_delta + np.log(al)) / (al - 1)))
    for rp in r[np.isinf(a) & ok]:  # pure rp-DP: (e^rp − e^ε)/(1 + e^rp) = δ
        arg = -math.expm1(math.log(delta) + math.log1p(math.exp(-rp)))  # 1 − δ(1 + e^−rp)
        best = min(best, rp + math.log(arg) if arg > 0 else 0.0)
    return max(0.0, best)


def group_of_two_epsilon(*, orders, rdp, delta: float) -> float:
    """Replace-one ε at δ of an add/remove RDP curve, by group privacy for two records applied to
    each order's (ε, δ) conversion: the smallest 2x over the orders with (1 + e^x)·δ_α(x) <= δ,
    δ_α(x) the order's bound of :func:`rdp_delta` (its KL bound included), x >= 0. Exactly what
    :func:`group_of_two` gives for the pairs of the curve's profile, without a grid: the card's
    replace-one view of an RDP curve takes its pairs from there.

    Per order, log((1 + e^x)·δ_α(x)) = log(1 + e^x) + c_α − (α − 1)x is convex in x, so its
    smallest root is found by bisection on [0, x*], x* its minimum (∞ for α >= 2: it decreases).
    """
    _check_delta(delta, allow_zero=False)
    a, r, ok, kl = _curve(orders, rdp)
    if not np.any(ok):
        return math.inf
    log_delta = math.log(delta)
    if math.log(2.0) + float(np.min(kl[ok])) <= log_delta:  # x = 0 already: (1 + e^0)·KL <= δ
        return 0.0
    lines = ok & np.isfinite(a) & (a > 1.01)
    if not np.any(lines):
        return math.inf
    al, rl = a[lines], r[lines]
    c = (al - 1) * (rl + np.log1p(-1 / al)) - np.log(al) - log_delta

    def f(x):  # log((1 + e^x) δ_α(x) / δ), per order
        return np.logaddexp(0.0, x) + c - (al - 1) * x

    with np.errstate(divide="ignore", invalid="ignore"):
        x_min = np.where(al >= 2, np.inf, np.log(al - 1) - np.log(2 - al))  # where f' = 0
    x_min = np.maximum(x_min, 0.0)
    hi = np.where(np.isfinite(x_min), x_min, 1.0)
    grow = np.isinf(x_min)
    while np.any(grow & (f(hi) > 0) & (hi < 1e4)):  # α >= 2: f decreases (α = 2: to c_α)
        hi = np.where(grow & (f(hi) > 0), 2 * hi, hi)
    feasible = f(hi) <= 0
    if not np.any(feasible):
        return math.inf
    lo = np.zeros_like(hi)
    done = f(lo) <= 0
    for _ in range(200):
        mid = (lo + hi) / 2
        below = f(mid) <= 0
        hi, lo = np.where(below, mid, hi), np.where(below, lo, mid)
        if np.all((hi - lo) <= 1e-13 * np.maximum(hi, 1.0)):
            break
    x = np.where(done, 0.0, hi)
    return float(2 * np.min(x[feasible]))


def profile_epsilon(*, epsilons, deltas, delta: float) -> float:
    """The smallest ε_i of a privacy profile's pairs (ε_i, δ_i) with δ_i <= δ (∞ if none)."""
    e = np.asarray(epsilons, dtype=float)
    d = np.asarray(deltas, dtype=float)
    ok = d <= delta
    return float(np.min(e[ok])) if np.any(ok) else math.inf


def group_of_two(*, epsilons, deltas) -> tuple[np.ndarray, np.ndarray]:
    """Add/remove pairs (ε, δ) as replace-one pairs by group privacy: (2ε, (1 + e^ε)δ), δ <= 1."""
    e = np.asarray(epsilons, dtype=float)
    d = np.asarray(deltas, dtype=float)
    with np.errstate(over="ignore"):
        d2 = np.minimum(1.0, (1 + np.exp(np.minimum(e, 700))) * d)
    return 2 * e, d2
