"""The last-iterate heuristic for DP-SGD (Steinke, Nasr, Ganesh, Balle, Choquette-Choo, Jagielski,
Hayes, Thakurta, Smith & Terzis, "The Last Iterate Advantage", ICLR 2025).

When only the final model is released, the accountant's bound (which assumes every iterate is
released) can be far from what attacks achieve. The heuristic reads DP-SGD on a linear loss: the
last iterate then reveals the sum of the target's clipped gradients, included Binomial(T, q) times,
plus the sum of T noise draws, N(0, σ²T) (σ the noise multiplier, sensitivity 1). The heuristic
privacy profile is that of the pair

    P = Binomial(T, q) + N(0, σ²T)    vs    Q = N(0, σ²T),

δ(ε) = max(H_ε(P‖Q), H_ε(Q‖P)), H the hockey-stick divergence. It is not a bound for every loss
(the paper gives counterexamples); it is what the best known attacks on the last iterate reach.

The log-likelihood ratio L(x) = log Σ_k b_k exp((2kx − k²)/2s²), s = σ√T, b_k the binomial
weights, increases in x, so each divergence is a difference of normal tails at the one point where
L = ±ε (closed form up to that root):

    H_ε(P‖Q) = Σ_k b_k Φ̄((x⁺ − k)/s) − e^ε Φ̄(x⁺/s),     L(x⁺) = ε,
    H_ε(Q‖P) = Φ(x⁻/s) − e^ε Σ_k b_k Φ((x⁻ − k)/s),       L(x⁻) = −ε.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

_FLOOR = -60.0  # terms below e^-60 of the total change no digit of δ that matters


@functools.lru_cache(maxsize=8)
def _weights(steps: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """The binomial weights above e^-60: k and log b_k. Cached, as every evaluation of L and each
    root search asks for the same ones (at T = 10⁶ the full pmf costs 0.1 s a call, ~900 calls a
    card). The pmf is unimodal, so it is computed on a window about the mean, widened until both
    ends are below the floor (or at 0 and T): the kept terms are those of the whole range."""
    mean, sd = steps * q, math.sqrt(steps * q * (1 - q))
    half = 16 * sd + 32
    while True:
        lo, hi = max(0, math.floor(mean - half)), min(steps, math.ceil(mean + half))
        k = np.arange(lo, hi + 1, dtype=float)
        logb = stats.binom.logpmf(k, steps, q)
        if (lo == 0 or logb[0] <= _FLOOR) and (hi == steps or logb[-1] <= _FLOOR):
            break
        half *= 2
    keep = logb > _FLOOR
    k, logb = k[keep], logb[keep]
    k.flags.writeable = logb.flags.writeable = False  # shared by the cache: never changed
    return k, logb


def log_ratio(x, *, noise_multiplier: float, sample_rate: float, steps: int) -> np.ndarray:
    """L(x) = log p(x)/q(x) of the pair (vectorised)."""
    s2 = noise_multiplier**2 * steps
    k, logb = _weights(steps, sample_rate)
    x = np.atleast_1d(np.asarray(x, dtype=float))
    return special.logsumexp(
        logb[None, :] + (2 * k[None, :] * x[:, None] - k**2) / (2 * s2), axis=1
    )


def _root(level: float, noise_multiplier, sample_rate, steps) -> float:
    kw = {"noise_multiplier": noise_multiplier, "sample_rate": sample_rate, "steps": steps}

    def f(x):
        return log_ratio(x, **kw)[0] - level

    k, logb = _weights(steps, sample_rate)
    if k[0] == 0 and level <= logb[0]:
        # L falls to log P(k = 0) = T log(1 − q) as x → −∞: it never reaches a lower level, and
        # the tail below the root is empty (H_ε(Q‖P) = 0)
        return -math.inf
    lo, hi = -1.0, 1.0
    while f(lo) > 0:
        lo *= 2
    while f(hi) < 0:
        hi *= 2
    return optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-14)


def delta(epsilon: float, *, noise_multiplier: float, sample_rate: float, steps: int) -> float:
    """The heuristic δ(ε): the larger of the two hockey-stick divergences."""
    s = noise_multiplier * math.sqrt(steps)
    k, logb = _weights(steps, sample_rate)
    b = np.exp(logb)
    args = (noise_multiplier, sample_rate, steps)
    xp = _root(epsilon, *args)
    pq = float(np.sum(b * stats.norm.sf((xp - k) / s)) - math.exp(epsilon) * stats.norm.sf(xp / s))
    xm = _root(-epsilon, *args)
    qp = float(
        stats.norm.cdf(xm / s) - math.exp(epsilon) * np.sum(b * stats.norm.cdf((xm - k) / s))
    )
    return max(pq, qp, 0.0)


def epsilon(delta_: float, *, noise_multiplier: float, sample_rate: float, steps: int) -> float:
    """The smallest ε with heuristic δ(ε) <= ``delta_`` (δ falls in ε)."""
    kw = {"noise_multiplier": noise_multiplier, "sample_rate": sample_rate, "steps": steps}
    if delta(0.0, **kw) <= delta_:
        return 0.0
    hi = 1.0
    while delta(hi, **kw) > delta_:
        hi *= 2
        if hi > 700:  # e^ε overflows a double beyond 709: δ(ε) > δ at every ε the card can state
            return math.inf
    return optimize.brentq(lambda e: delta(e, **kw) - delta_, 0.0, hi, xtol=1e-10)


def delta_monte_carlo(
    epsilon: float,
    *,
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    draws: int,
    seed: int,
) -> tuple[float, float]:
    """The heuristic δ(ε) by sampling, from the definition: H_ε(P‖Q) = E_P[(1 − e^{ε − L})₊] and
    H_ε(Q‖P) = E_Q[(1 − e^{ε + L})₊], independently of the closed form's roots and tails. The
    larger, and its standard error."""
    rng = np.random.default_rng(seed)
    kw = {"noise_multiplier": noise_multiplier, "sample_rate": sample_rate, "steps": steps}
    s = noise_multiplier * math.sqrt(steps)
    xp = rng.binomial(steps, sample_rate, size=draws) + rng.normal(0.0, s, size=draws)
    xq = rng.normal(0.0, s, size=draws)
    vp = np.maximum(0.0, -np.expm1(epsilon - log_ratio(xp, **kw)))
    vq = np.maximum(0.0, -np.expm1(epsilon + log_ratio(xq, **kw)))
    v = vp if vp.mean() >= vq.mean() else vq
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(draws))


@dataclass(frozen=True)
class Line:
    """One line of the DP-SGD card: an ε and the threat model it assumes."""

    key: str
    epsilon: float | None
    threat_model: str
    source: str


def three_lines(
    *, noise_multiplier: float, sample_rate: float, steps: int, delta_: float, audit=None
) -> tuple[Line, ...]:
    """The DP-SGD card's lines: the accountant's upper bound (every iterate released), the
    last-iterate heuristic (only the final model released), and, given an audit's ε lower bound
    (a number), that attack's."""
    import privrisk.explain.atlas.adapter as adapter

    kw = {"noise_multiplier": noise_multiplier, "sample_rate": sample_rate, "steps": steps}
    lines = [
        Line(
            "accountant",
            adapter.dpsgd_epsilon(**kw, delta=delta_),
            "every iterate released (the DP-SGD accountant's upper bound, PLD)",
            "privrisk.accounting.dpsgd_epsilon",
        ),
        Line(
            "last_iterate",
            epsilon(delta_, **kw),
            "only the last iterate released; heuristic, exact for linear losses, not a bound "
            "for every loss",
            "Steinke et al. 2025, The Last Iterate Advantage",
        ),
    ]
    if audit is not None:
        lines.append(Line("audit", float(audit), "this attack (an empirical lower bound)", "audit"))
    return tuple(lines)
