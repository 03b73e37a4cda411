"""Membership-inference bounds under ε-DP with per-point sampling probability p = P_{x*}(1).

Thudi et al. (2022), Theorem 1: the positive accuracy P(x* ∈ D | S) of any MI attack on an
ε-DP training function satisfies σ(−ε + logit p) <= P(x* ∈ D | S) <= σ(ε + logit p), where σ is
the logistic function. All functions broadcast over ε and p and are exact at the edges
(ε ∈ {0, ∞}, p ∈ {0, 1}) without overflow: they are written with ``expit``/``logit``.

ε, δ and p are keyword-only (``positive_accuracy_upper(epsilon=3, p=0.1)``).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .core import check_epsilon_p, sigmoid_shift


def _check(epsilon, p):
    return check_epsilon_p(epsilon=epsilon, p=p)


_sigmoid_shift = sigmoid_shift


def positive_accuracy_upper(*, epsilon, p):
    """Theorem 1 upper bound U(ε, p) = (1 + e^{−ε}(1−p)/p)^{−1} = σ(ε + logit p)."""
    eps, p = _check(epsilon, p)
    return _sigmoid_shift(eps, p)


def positive_accuracy_lower(*, epsilon, p):
    """Theorem 1 lower bound (1 + e^{ε}(1−p)/p)^{−1} = σ(−ε + logit p)."""
    eps, p = _check(epsilon, p)
    return _sigmoid_shift(-eps, p)


def negative_accuracy_bounds(*, epsilon, p):
    """Corollary 1: (lower, upper) bounds on P(x* ∉ D | S)."""
    eps, p = _check(epsilon, p)
    return _sigmoid_shift(-eps, 1 - p), _sigmoid_shift(eps, 1 - p)


def max_epsilon_for_accuracy(target, p):
    """Largest ε whose Theorem 1 bound is <= target: logit(target) − logit(p) (0 if target <= p)."""
    target = np.asarray(target, float)
    p = np.asarray(p, float)
    if np.any((target < 0) | (target > 1)) or np.any((p <= 0) | (p >= 1)):
        raise ValueError("target must be in [0, 1] and p in (0, 1)")
    with np.errstate(divide="ignore"):
        out = np.maximum(special.logit(target) - special.logit(p), 0.0)
    return out if out.ndim else float(out)


def advantage_upper(*, epsilon, p):
    """Eq. (5): Ad <= 2 (U(ε, p) − p), Thudi et al.'s generalisation of Yeom's advantage."""
    return 2 * (positive_accuracy_upper(epsilon=epsilon, p=p) - np.asarray(p, float))


def advantage_argmax(*, epsilon):
    """(p*, max) of eq. (5) over p: p* = 1/(1 + e^{ε/2}), max = 2 tanh(ε/4)."""
    eps, _ = _check(epsilon, 0.5)
    return special.expit(-eps / 2), 2 * np.tanh(eps / 4)


# --- prior work (Table 1 of Thudi et al.), all in the Yeom p = 1/2 experiment -------------------


def yeom_accuracy(*, epsilon):
    """Yeom et al. (2018): advantage <= e^ε − 1, i.e. accuracy <= e^ε / 2 (vacuous above ln 2)."""
    eps, _ = _check(epsilon, 0.5)
    return np.exp(eps) / 2


def erlingsson_accuracy(*, epsilon, delta=0.0):
    """Erlingsson et al. (2019): advantage <= 1 − e^{−ε} + δ e^{−ε}; accuracy = (1 + adv)/2."""
    eps, _ = _check(epsilon, 0.5)
    adv = 1 - np.exp(-eps) + delta * np.exp(-eps)
    return (1 + adv) / 2


def sablayrolles_accuracy(*, epsilon, p=0.5, clip=True):
    """Sablayrolles et al. (2019): P(x* ∈ D | θ) <= p + ε/4 (clipped at 1 unless clip=False)."""
    eps, p = _check(epsilon, p)
    out = p + eps / 4
    return np.minimum(out, 1.0) if clip else out


# --- §5.2: one DP-SGD step on 1-D logistic regression ((ε, δ)-DP counter-example) -------------


def threshold_attack(alpha_offset, *, sigma, shift=1.0, prior_in=0.5):
    """Positive accuracy (eq. 3) and accuracy (eq. 4) of the attack "x₂ ∈ D iff W <= α".

    W ~ N(μ, σ) without x₂ and N(μ − shift, σ) with it; ``alpha_offset`` is α − μ. Computed from
    log-CDFs so that far thresholds (CDFs ~ 1e-135) stay exact.
    """
    a = np.asarray(alpha_offset, float)
    l_out = stats.norm.logcdf(a / sigma)  # P(W_{D1} <= α)
    l_in = stats.norm.logcdf((a + shift) / sigma)  # P(W_{D2} <= α)
    log_num = np.log(prior_in) + l_in
    log_den = np.logaddexp(log_num, np.log1p(-prior_in) + l_out)
    pos_acc = np.exp(log_num - log_den)
    acc = (1 - prior_in) * stats.norm.sf(a / sigma) + prior_in * np.exp(l_in)
    return pos_acc, acc


# --- §6: deletion capacity ---------------------------------------------------------------------


def deletion_capacity(c, *, n_superset, epsilon, b, variant="printed"):
    """m(c) = ln B / ln L(c) with P_x(1) = c/N.

    ``variant="printed"`` uses the paper's printed L(c) = (1 + e^{−ε} q/(1−q))^{−1} (which is
    Corollary 1's *upper* bound); ``"corrected"`` uses the lower bound with e^{+ε} that the
    argument needs. c = 0 gives L = 1 and an infinite capacity (returned as inf).
    """
    c = np.asarray(c, float)
    if np.any((c < 0) | (c >= n_superset)):
        raise ValueError("expected training-set size c must be in [0, N)")
    if not 0 < b < 1:
        raise ValueError("B must be in (0, 1)")
    sign = {"printed": -1.0, "corrected": 1.0}
    if variant not in sign:
        raise ValueError(f"variant must be one of {sorted(sign)}, got {variant!r}")
    q = c / n_superset
    with np.errstate(divide="ignore"):
        log_l = -np.log1p(np.exp(sign[variant] * epsilon) * q / (1 - q))
        m = np.where(c == 0, np.inf, np.log(b) / np.where(c == 0, -1.0, log_l))
    return m if m.ndim else float(m)
