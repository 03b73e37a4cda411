"""The RDP curve of the Poisson-subsampled Gaussian (DP-SGD, add/remove; Mironov, Talwar & Zhang
2019): ε_α = T/(α − 1)·log A_α at integer orders by their closed-form sum, at fractional orders
by quadrature or, where the quadrature would need a very fine grid (small noise multipliers), by
the series opacus and dp-accounting sum."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

#: the orders of :func:`dpsgd_rdp`: dp-accounting's default orders (1.1 to 10.9 in steps of 0.1, the
#: integers 11 to 63, 128, 256, 512, 1024), which contain opacus' (the same without 11 and beyond
#: 63), and every integer from 2 to 256. A superset of both libraries' grids, so the ε is at most
#: theirs, and equal wherever their best order is one of theirs.
DPSGD_RDP_ORDERS = np.unique(
    np.r_[1 + np.arange(1, 100) / 10, np.arange(2, 257), 512, 1024].astype(float)
)


@functools.lru_cache(maxsize=4)
def _log_binomials(orders: tuple):
    """log C(α, k) for k = 0..max α (−∞ beyond α), with k and α as broadcastable arrays."""
    a = np.asarray(orders, dtype=float)
    k = np.arange(int(a.max()) + 1, dtype=float)[None, :]
    al = a[:, None]
    with np.errstate(invalid="ignore"):
        table = special.gammaln(al + 1) - special.gammaln(k + 1) - special.gammaln(al - k + 1)
    return np.where(k <= al, table, -np.inf), k, al


def _log_a_integer(orders, sig: float, q: float):
    """log A_α = log Σ_k C(α, k)(1 − q)^{α−k} q^k e^{(k² − k)/2σ²} at integer orders α >= 2
    (orders up to 256 in one table, larger ones in another: a few rows need the long sums)."""
    orders = np.asarray(orders, dtype=float)
    out = np.empty(orders.size)
    for part in (orders <= 256, orders > 256):
        if not np.any(part):
            continue
        log_binom, k, al = _log_binomials(tuple(orders[part]))
        with np.errstate(divide="ignore", invalid="ignore"):
            rest = np.where(al - k > 0, (al - k) * math.log1p(-q) if q < 1 else -np.inf, 0.0)
            log_terms = log_binom + rest + k * math.log(q) + (k * k - k) / (2 * sig * sig)
        out[part] = special.logsumexp(log_terms, axis=1)
    return out


def _log_a_fractional(orders, sig: float, q: float):
    """log A_α = log E_{z ~ N(0, σ²)}[(1 − q + q·e^{(2z − 1)/2σ²})^α] at any orders α > 1, by the
    trapezoid rule in u = z/σ (Mironov, Talwar & Zhang 2019, Section 3.3, define A_α; they and the
    libraries sum an alternating series for fractional α).

    The integrand is exp(−u²/2 + α·ℓ(u)) with ℓ(u) = log(1 − q + q·e^{(2σu − 1)/2σ²}) convex and of
    slope at most 1/σ: its mass lies in u ∈ [−15, α/σ + 15] (to e^−112) and its log-curvature is at most
    1 + α/(4σ²), so a step of 0.05/√(1 + α/(4σ²)) resolves it (the trapezoid rule converges
    geometrically for such integrands; the tests compare dp-accounting's series to 10⁻¹⁰). The
    same sum of φ alone normalises it, and where A_α − 1 is tiny (small q) it is summed as
    E[expm1(α·ℓ)] so that log A_α keeps its relative digits.
    """
    a = np.asarray(orders, dtype=float)
    top = float(a.max())
    h = _quadrature_step(top, sig)  # one grid for every order: the finest
    u = np.arange(-15.0, top / sig + 15.0 + h, h)
    log_phi = -0.5 * u * u
    ell = np.logaddexp(math.log1p(-q), math.log(q) + (2 * sig * u - 1) / (2 * sig * sig))
    norm = special.logsumexp(log_phi)
    w = np.exp(log_phi - norm)
    log_a = np.empty(a.size)
    rows = max(1, 2_000_000 // u.size)  # orders at a time: at most ~16 MB per array
    for start in range(0, a.size, rows):
        part = slice(start, start + rows)
        t = a[part, None] * ell[None, :]
        la = special.logsumexp(log_phi[None, :] + t, axis=1) - norm
        small = la < 1e-2  # A_α close to 1: sum A_α − 1 directly
        if np.any(small):
            la[small] = np.log1p(np.sum(w * np.expm1(np.minimum(t[small], 700.0)), axis=1))
        log_a[part] = la
    return log_a


#: the most points of :func:`_log_a_fractional`'s grid (about 0.3 s for dp-accounting's 99
#: fractional orders); beyond it, noise multipliers below about 0.045, :func:`_log_a_series` is used
MAX_QUADRATURE_POINTS = 200_000


def _quadrature_step(top: float, sig: float) -> float:
    return 0.05 / math.sqrt(1.0 + top / (4 * sig * sig))


def fractional_by_series(*, noise_multiplier: float, orders=None) -> bool:
    """True when :func:`dpsgd_rdp` sums the series at the fractional ``orders`` (default
    :data:`DPSGD_RDP_ORDERS`) for this noise multiplier, False when it integrates."""
    a = np.asarray(DPSGD_RDP_ORDERS if orders is None else orders, dtype=float)
    frac = a[a != np.floor(a)]
    if frac.size == 0:
        return False
    top, sig = float(frac.max()), float(noise_multiplier)
    return (top / sig + 30.0) / _quadrature_step(top, sig) > MAX_QUADRATURE_POINTS


def _log_a_series(orders, sig: float, q: float):
    """log A_α at fractional orders α by the series of Mironov, Talwar & Zhang (2019, Section 3.3),
    summed with its signs as opacus' ``_compute_log_a_for_frac_alpha`` does (each half of the
    integral, split at z₀ = σ²·log(1/q − 1) + ½, is Σ_i C(α, i)·… with the binomial's sign), to
    the same stopping rule (both terms below e^−30). Used where the quadrature's grid would be
    too fine: at small σ the terms fall by a factor e^{(2j − 1)/2σ²} from one to the next, so a
    few terms settle it and their signs cancel nothing. Should a partial sum ever turn negative in
    rounding, that order takes the sum of the terms' absolute values instead (dp-accounting's
    ``_compute_log_a_frac``, an upper bound on A_α), so the curve stays an upper bound."""
    out = np.empty(len(orders))
    z0 = sig * sig * math.log(1 / q - 1) + 0.5
    log_q, log_1mq = math.log(q), math.log1p(-q)
    for n, alpha in enumerate(np.asarray(orders, dtype=float)):
        signed, absolute = [[], []], [[], []]
        for i in range(_MAX_SERIES_TERMS):
            j = alpha - i
            log_coef = special.gammaln(alpha + 1) - special.gammaln(i + 1) - special.gammaln(j + 1)
            sign = float(np.sign(special.binom(alpha, i)))
            # opacus' log(½·erfc(x/√2σ)) is log Φ(−x/σ)
            log_s0 = (log_coef + i * log_q + j * log_1mq + (i * i - i) / (2 * sig * sig)
                      + special.log_ndtr((z0 - i) / sig))  # fmt: skip
            log_s1 = (log_coef + j * log_q + i * log_1mq + (j * j - j) / (2 * sig * sig)
                      + special.log_ndtr((j - z0) / sig))  # fmt: skip
            for half, term in enumerate((log_s0, log_s1)):
                signed[half].append((term, sign))
                absolute[half].append(term)
            if max(log_s0, log_s1) < -30:
                break
        log_a = _signed_log_sum([t for half in signed for t in half])
        if not math.isfinite(log_a):
            log_a = float(special.logsumexp([t for half in absolute for t in half]))
        out[n] = log_a
    return out


#: opacus stops at e^−30; dp-accounting caps its loop at 1000 terms (small σ needs a handful)
_MAX_SERIES_TERMS = 1000


def _signed_log_sum(terms) -> float:
    """log Σ sign·e^{log_term} (NaN if the sum is not positive)."""
    logs = np.array([t for t, _ in terms])
    signs = np.array([s for _, s in terms])
    ok = np.isfinite(logs)
    if not np.any(ok):
        return -math.inf
    top = float(np.max(logs[ok]))
    total = math.fsum(float(v) for v in signs[ok] * np.exp(logs[ok] - top))
    return top + math.log(total) if total > 0 else math.nan


def dpsgd_rdp(
    *, noise_multiplier: float, sample_rate: float, steps: int, orders=DPSGD_RDP_ORDERS
) -> tuple[np.ndarray, np.ndarray]:
    """The RDP curve (add/remove) of ``steps`` Poisson-subsampled Gaussian steps: ε_α = T/(α − 1)·
    log A_α (Mironov, Talwar & Zhang 2019), the composition multiplying by T. Integer orders in
    closed form, vectorised: A_α = Σ_k C(α, k)(1 − q)^{α−k} q^k e^{(k² − k)/2σ²} (their Theorem 9,
    the sum the libraries evaluate order by order); fractional orders by quadrature
    (:func:`_log_a_fractional`) or, at noise multipliers below about 0.045 where its grid would
    exceed :data:`MAX_QUADRATURE_POINTS` (:func:`fractional_by_series`), by opacus' series
    (:func:`_log_a_series`). Sample rate 1 is the Gaussian mechanism: ε_α = Tα/2σ².
    Milliseconds for any number of steps and any noise multiplier."""
    a = np.asarray(orders, dtype=float).ravel()
    if np.any(~np.isfinite(a)) or np.any(a <= 1):
        raise ValueError("dpsgd_rdp takes finite orders > 1")
    sig, q = float(noise_multiplier), float(sample_rate)
    if not (sig > 0 and 0 < q <= 1):
        raise ValueError("needs noise_multiplier > 0 and 0 < sample_rate <= 1")
    if q == 1.0:
        return a, steps * a / (2 * sig * sig)
    return a, steps * _one_step_rdp(sig, q, tuple(a))


@functools.lru_cache(maxsize=64)
def _one_step_rdp(sig: float, q: float, orders: tuple) -> np.ndarray:
    """One step's RDP at the orders (cached: the card and a calibration ask for it repeatedly)."""
    a = np.asarray(orders)
    log_a = np.empty(a.size)
    whole = a == np.floor(a)
    if np.any(whole):
        log_a[whole] = _log_a_integer(a[whole], sig, q)
    if np.any(~whole):
        series = fractional_by_series(noise_multiplier=sig, orders=a[~whole])
        log_a[~whole] = (_log_a_series if series else _log_a_fractional)(a[~whole], sig, q)
    out = np.maximum(log_a, 0.0) / (a - 1)
    out.flags.writeable = False
    return out
