"""Membership audits: ε̂, μ̂, a claim's verdict and p-value from one family of tests; TPR at FPR
and the ROC band for the report.

ε̂, μ̂, the verdict and the p-value are all read off the bounds of :mod:`.family` (one weighted
Bonferroni family, fixed from the numbers of canaries), so that they cannot contradict each
other: a claim in its own form (:mod:`.forms`) is refuted exactly when its lower bound exceeds
it, and the p-value is the smallest level at which it would be. TPR at the quoted FPRs and the ROC
band are descriptive curves with their own (stated) confidence; no verdict is read from them.

``epsilon_lower`` and ``mu_lower`` take members (T, n_m) and non-members (T, n_n) and return one
value per trial, so a simulation of a thousand audits is one array computation.
"""

from __future__ import annotations

import numpy as np

import privrisk.audit.family as fam
import privrisk.audit.thresholds as th

#: false-positive rates at which TPR is reported (what practitioners quote)
QUOTED_FPRS = (0.001, 0.01, 0.1)
#: points of the ROC curve in the report (the band is simultaneous over them)
ROC_POINTS = 60
#: smallest p-value reported (the bisection stops there)
P_FLOOR = 1e-30
#: bisection steps of the p-value in log α (relative precision about 10⁻⁹)
P_ITERATIONS = 36


def epsilon_lower(members, nonmembers, *, delta: float = 0.0, confidence: float = 0.95):
    """ε lower bound at δ, valid at ``confidence``, one per trial (members (T, n_m))."""
    t, f = fam.evidence(members, nonmembers).bounds(1 - confidence)
    return fam.epsilon_at(t, f, delta)


def mu_lower(members, nonmembers, *, confidence: float = 0.95):
    """μ-GDP lower bound valid at ``confidence``, one per trial."""
    t, f = fam.evidence(members, nonmembers).bounds(1 - confidence)
    return fam.mu_of(t, f)


def refuted_at(evidences, form, alpha: float) -> bool:
    """Whether the claim (``form``) is refuted at level ``alpha`` by one audit's canary sets (each
    at α / number of sets, Bonferroni)."""
    share = alpha / len(evidences)
    return any(bool(form.refuted(*ev.bounds(share))[0]) for ev in evidences)


def p_value(evidences, form, alpha: float) -> float:
    """The smallest level at which the claim is refuted (bisection in log α, floor
    :data:`P_FLOOR`, 1 when not refuted at any level), seeded at ``alpha``: the claim is refuted
    at ``alpha`` exactly when the returned p-value is <= ``alpha``."""

    def pred(log_a):
        return refuted_at(evidences, form, float(np.exp(log_a)))

    seed = float(np.log(alpha))
    if pred(seed):
        lo, hi = float(np.log(P_FLOOR)), seed
        if pred(lo):
            return P_FLOOR
    else:
        lo, hi = seed, 0.0
        if not pred(hi):
            return 1.0
    for _ in range(P_ITERATIONS):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if pred(mid) else (mid, hi)
    return float(min(1.0, np.exp(hi)))


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
    # ties only where the non-member at ``below`` equals the member: one search for those only
    tied = (below < n.size) & (n[np.minimum(below, n.size - 1)] == m)
    ties = np.searchsorted(n, m[tied], side="right") - below[tied] if tied.any() else below[:0]
    return float((below.sum(dtype=np.int64) + 0.5 * ties.sum()) / (m.size * n.size))
