"""Membership audits: ε and μ lower bounds, a claimed trade-off tested, TPR at FPR, the ROC band.

Every bound is read off the thresholds of :mod:`.thresholds` (fixed in advance, Bonferroni over
the family), so that each is a valid lower bound at the stated confidence however the scores
are distributed:

* **ε at δ**: (ε, δ)-DP gives TPR ≤ e^ε FPR + δ and TNR ≤ e^ε FNR + δ for every test, so
  ε ≥ ln((TPR_lo − δ) / FPR_hi) at each threshold, and on the other side with TNR and FNR.
* **μ-GDP**: a μ-GDP mechanism has FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ), so μ ≥ Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi)
  (Nasr et al. 2023's conversion, here at thresholds fixed in advance).
* **a claimed trade-off f** (any guarantee ``privrisk explain`` accepts): refuted at level α' when
  some threshold has 1 − TPR_lo < f(FPR_hi) (or 1 − TNR_lo < f(FNR_hi)) with the bounds at
  α' / (number of bounds); the p-value is the smallest such α'.

Functions take members (T, n_m) and non-members (T, n_n) and return one value per trial, so a
simulation of a thousand audits is one array computation.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import special

import privrisk.audit.thresholds as th

#: false-positive rates at which TPR is reported (what practitioners quote)
QUOTED_FPRS = (0.001, 0.01, 0.1)
#: points of the ROC curve in the report (the band is simultaneous over them)
ROC_POINTS = 60
#: smallest p-value reported (the bisection stops there)
P_FLOOR = 1e-30


def epsilon_from_pairs(t_lo, f_hi, *, delta: float) -> np.ndarray:
    """max over thresholds of ln((t_lo − δ)/f_hi), floored at 0; (T, K) → (T,)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.log(np.maximum(t_lo - delta, 0.0)) - np.log(f_hi)
    e = np.where(t_lo > delta, e, 0.0)
    return np.maximum(np.max(e, axis=-1, initial=0.0), 0.0)


def mu_from_pairs(t_lo, f_hi) -> np.ndarray:
    """max over thresholds of Φ⁻¹(t_lo) − Φ⁻¹(f_hi), floored at 0; (T, K) → (T,)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        m = special.ndtri(t_lo) - special.ndtri(f_hi)
    m = np.where(np.isnan(m), 0.0, m)
    return np.maximum(np.max(m, axis=-1, initial=0.0), 0.0)


def epsilon_lower(members, nonmembers, *, delta: float = 0.0, confidence: float = 0.95):
    """ε lower bound at δ, valid at ``confidence``, one per trial."""
    m, n = np.atleast_2d(members), np.atleast_2d(nonmembers)
    c = th.count(m, n, th.epsilon_family(m.shape[1], n.shape[1]))
    t_lo, f_hi = c.pairs((1 - confidence) / (2 * c.family.size))
    return epsilon_from_pairs(t_lo, f_hi, delta=delta)


def mu_lower(members, nonmembers, *, confidence: float = 0.95):
    """μ-GDP lower bound valid at ``confidence``, one per trial."""
    m, n = np.atleast_2d(members), np.atleast_2d(nonmembers)
    c = th.count(m, n, th.mu_family(m.shape[1], n.shape[1]))
    t_lo, f_hi = c.pairs((1 - confidence) / (2 * c.family.size))
    return mu_from_pairs(t_lo, f_hi)


def claim_family(n_members: int, n_nonmembers: int) -> th.Family:
    """A claimed trade-off is tested at both families' thresholds (tails and centre)."""
    return th.union(
        th.epsilon_family(n_members, n_nonmembers), th.mu_family(n_members, n_nonmembers)
    )


def refuted_at(counts: th.Counts, f: Callable, alpha) -> np.ndarray:
    """(T,) whether the claimed trade-off ``f`` is refuted at level ``alpha`` ((T,) or scalar)."""
    level = np.asarray(alpha, float).reshape(-1, 1) / (2 * counts.family.size)
    t_lo, f_hi = counts.pairs(level)
    return np.any(1 - t_lo < np.asarray(f(f_hi)) - 1e-12, axis=-1)


def p_value(counts: th.Counts, f: Callable, iterations: int = 30) -> np.ndarray:
    """(T,) the smallest level at which ``f`` is refuted (bisection in log α; floor
    :data:`P_FLOOR`, 1 when not refuted at any level)."""
    t = counts.high.shape[0]
    lo = np.full(t, np.log(P_FLOOR))  # refuted at e^lo? (checked below)
    hi = np.zeros(t)
    at_one = refuted_at(counts, f, np.ones(t))
    at_floor = refuted_at(counts, f, np.exp(lo))
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        r = refuted_at(counts, f, np.exp(mid))
        hi, lo = np.where(r, mid, hi), np.where(r, lo, mid)
    p = np.exp(hi)
    p = np.where(at_floor, P_FLOOR, p)
    return np.where(at_one, p, 1.0)


def violates(counts: th.Counts, f: Callable) -> np.ndarray:
    """(T,) whether the point estimates at some threshold lie beyond the claimed trade-off: the
    observed effect exceeds what the claim allows (only the sample is too small to say so)."""
    t, fr = counts.point()
    return np.any(1 - t < np.asarray(f(fr)) - 1e-12, axis=-1)


def canaries_needed(counts: th.Counts, f: Callable, *, confidence: float) -> int | None:
    """Canaries (members + non-members, in today's proportion) at which the observed rates would
    refute ``f`` at ``confidence``: the counts scaled up with the rates kept, the same Bonferroni
    count. None when no size up to 10⁹ would (the observed effect lies within the claim)."""
    alpha = 1 - confidence
    fam = counts.family
    scales = np.geomspace(1.0, 1e9 / (counts.n_members + counts.n_nonmembers), 400)
    level = alpha / (2 * fam.size)
    k_hi = fam.high[None, :] * scales[:, None]
    k_lo = fam.low[None, :] * scales[:, None]
    n_m = counts.n_members * scales[:, None]
    n_n = counts.n_nonmembers * scales[:, None]
    from scipy import stats

    def bounds(c, n_true, k, n_false):
        with np.errstate(invalid="ignore"):
            lo = np.where(c > 0, stats.beta.ppf(level, np.maximum(c, 1e-300), n_true - c + 1), 0.0)
        return lo, stats.beta.isf(level, k, n_false - k + 1)

    ok = np.zeros(scales.size, bool)
    if fam.high.size:
        lo, fh = bounds(counts.high[0][None, :] * scales[:, None], n_m, k_hi, n_n)
        ok |= np.any(1 - lo < np.asarray(f(fh)) - 1e-12, axis=1)
    if fam.low.size:
        lo, fh = bounds(counts.low[0][None, :] * scales[:, None], n_n, k_lo, n_m)
        ok |= np.any(1 - lo < np.asarray(f(fh)) - 1e-12, axis=1)
    if not ok.any():
        return None
    s = scales[int(np.argmax(ok))]
    return int(np.ceil(s * (counts.n_members + counts.n_nonmembers)))


def tpr_at_fpr(members_desc, nonmembers_desc, *, confidence: float, fprs=QUOTED_FPRS) -> list:
    """For each quoted FPR x: the threshold with at most x·n non-members above it (the
    ⌊x·n⌋ + 1-th largest non-member score), its TPR with a two-sided Clopper–Pearson interval,
    the empirical FPR and the FPR's exact upper bound (each interval at ``confidence``)."""
    n_m, n_n = members_desc.size, nonmembers_desc.size
    ks = np.clip(np.floor(np.asarray(fprs) * n_n).astype(int) + 1, 1, n_n)
    c = th.sorted_counts(members_desc, nonmembers_desc, ks)[0]
    half = (1 - confidence) / 2
    lo = th.true_rate_lower(c, n_m, half)
    hi = th.true_rate_upper(c, n_m, half)
    f_hi = th.false_rate_upper(ks, n_n, half)
    return [
        {
            "fpr": float(x),
            "tpr": float(ci / n_m),
            "tpr_lo": float(a),
            "tpr_hi": float(b),
            "fpr_observed": float((k - 1) / n_n),
            "fpr_hi": float(fh),
        }
        for x, ci, a, b, k, fh in zip(fprs, c, lo, hi, ks, f_hi, strict=True)
    ]


def roc_band(members_desc, nonmembers_desc, *, confidence: float, points: int = ROC_POINTS):
    """The ROC at thresholds k = 1 … n (geometric then linear in k) with a band simultaneous over
    its points (Bonferroni over 2 × points one-sided bounds at each side of each point)."""
    n_m, n_n = members_desc.size, nonmembers_desc.size
    ks = np.unique(
        np.concatenate(
            [np.ceil(np.geomspace(1, n_n, points // 2)), np.linspace(1, n_n, points // 2)]
        ).astype(int)
    )
    c = th.sorted_counts(members_desc, nonmembers_desc, ks)[0]
    level = (1 - confidence) / (4 * ks.size)
    return {
        "fpr": tuple(float(x) for x in (ks - 1) / n_n),
        "tpr": tuple(float(x) for x in c / n_m),
        "tpr_lo": tuple(float(x) for x in th.true_rate_lower(c, n_m, level)),
        "tpr_hi": tuple(float(x) for x in th.true_rate_upper(c, n_m, level)),
        "fpr_lo": tuple(float(x) for x in th.false_rate_upper(ks, n_n, 1 - level)),
        "fpr_hi": tuple(float(x) for x in th.false_rate_upper(ks, n_n, level)),
        "simultaneous": True,
    }


def auc(members_desc, nonmembers_desc) -> float:
    """P(member score > non-member score) + ½ P(tie) (Mann–Whitney), from the sorted scores."""
    m, n = members_desc[::-1], nonmembers_desc[::-1]  # ascending
    below = np.searchsorted(n, m, side="left")
    ties = np.searchsorted(n, m, side="right") - below
    return float((below.sum() + 0.5 * ties.sum()) / (m.size * n.size))
