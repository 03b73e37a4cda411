"""Thresholds that cannot invalidate the bound: non-member order statistics, fixed in advance.

The audit never picks a threshold by looking at which canaries are members. Each threshold is
the k-th largest non-member score s_(k) for a k fixed in advance by the sample sizes alone, and
the test says "member" when a score is strictly above it. Then, with no assumption on the score
distributions:

* the test's true false-positive rate P(X > s_(k)) is the k-th smallest of n uniform order
  statistics, Beta(k, n − k + 1) (stochastically smaller with ties), so its exact upper
  confidence bound is that Beta's quantile — the Clopper–Pearson upper bound of k − 1 false
  positives out of n;
* given the non-members, the number of members above s_(k) is Binomial(n_members, TPR), so the
  Clopper–Pearson lower bound of the true-positive rate is exact.

The same with the roles swapped (thresholds at the members' lowest scores, "member" when a score
is above) bounds the true-negative and false-negative rates. Over a family of K thresholds the
2K one-sided bounds are made simultaneous by Bonferroni: each is taken at level α / (2K). That
is the correction for the number of thresholds tried; nothing is split off.

Everything is vectorised over a leading axis of independent trials (shape (T, n)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

#: false-positive rates of the central thresholds (where a μ-GDP curve is measured best)
CENTRAL_FPRS = (0.5, 0.3, 0.15, 0.05, 0.01)
#: thresholds per side in the geometric family of the ε bound (from 1 false positive to n/2)
GEOMETRIC_POINTS = 12


@dataclass(frozen=True)
class Family:
    """Thresholds on both sides: ``high[i]`` is a k for "member above the k-th largest
    non-member", ``low[j]`` a k for "non-member below the k-th smallest member"."""

    high: np.ndarray
    low: np.ndarray

    @property
    def size(self) -> int:
        return int(self.high.size + self.low.size)


def geometric(n: int, points: int = GEOMETRIC_POINTS) -> np.ndarray:
    top = max(1, n // 2)
    return np.unique(np.ceil(np.geomspace(1, top, points)).astype(int))


def central(n: int, fprs=CENTRAL_FPRS) -> np.ndarray:
    return np.unique(np.clip(np.round(np.asarray(fprs) * (n + 1)).astype(int), 1, n))


def epsilon_family(n_members: int, n_nonmembers: int) -> Family:
    """Both sides, geometric in k: the tails of the trade-off, where ε is decided."""
    return Family(high=geometric(n_nonmembers), low=geometric(n_members))


def mu_family(n_members: int, n_nonmembers: int) -> Family:
    """One side, central false-positive rates: where a Gaussian curve's μ is measured with the
    least variance (the μ-GDP curve is symmetric, so the other side repeats it)."""
    return Family(high=central(n_nonmembers), low=np.zeros(0, int))


def union(a: Family, b: Family) -> Family:
    return Family(high=np.union1d(a.high, b.high), low=np.union1d(a.low, b.low))


def above_counts(pos: np.ndarray, neg: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """(T, K): how many of each row's ``pos`` scores lie strictly above its k-th largest ``neg``
    score, for every k in ``ks`` (1-based). One stable sort of the pooled scores per row; ties
    put the ``neg`` score first, so a tied ``pos`` score is not counted (conservative)."""
    pos, neg = np.atleast_2d(pos), np.atleast_2d(neg)
    t, n_neg = neg.shape
    if ks.size == 0:
        return np.zeros((t, 0), int)
    pooled = np.concatenate([neg, pos], axis=1)
    order = np.argsort(-pooled, axis=1, kind="stable")
    at = np.nonzero(order < n_neg)[1].reshape(t, n_neg)  # positions of the neg scores, in order
    return at[:, ks - 1] - (ks - 1)


def sorted_counts(pos_desc: np.ndarray, neg_desc: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """As :func:`above_counts` for one row already sorted in decreasing order (the audit of a
    file: scores are sorted once and every family reuses them)."""
    s = neg_desc[ks - 1]
    # number of pos strictly greater than s: pos_desc is decreasing, search its negation
    return np.searchsorted(-pos_desc, -s, side="left")[None, :]


def false_rate_upper(ks: np.ndarray, n: int, level: float) -> np.ndarray:
    """Exact upper bound of P(score beyond the k-th order statistic) at one-sided ``level``."""
    return special.betainccinv(ks, n - ks + 1, level)  # Beta(k, n − k + 1).isf(level)


def true_rate_lower(counts, n: int, level) -> np.ndarray:
    """Clopper–Pearson lower bound of a binomial rate at one-sided ``level`` (0 at 0 counts)."""
    c = np.asarray(counts, float)
    with np.errstate(invalid="ignore"):
        lo = special.betaincinv(np.maximum(c, 1e-300), n - c + 1, level)
    return np.where(c > 0, lo, 0.0)


def true_rate_upper(counts, n: int, level) -> np.ndarray:
    c = np.asarray(counts, float)
    with np.errstate(invalid="ignore"):
        hi = special.betainccinv(c + 1, np.maximum(n - c, 1e-300), level)
    return np.where(c < n, hi, 1.0)


@dataclass(frozen=True)
class Counts:
    """The counts of one family for T trials: ``high`` (T, K_high) members above the k-th largest
    non-member; ``low`` (T, K_low) non-members below the k-th smallest member."""

    family: Family
    high: np.ndarray
    low: np.ndarray
    n_members: int
    n_nonmembers: int

    def pairs(self, level) -> tuple[np.ndarray, np.ndarray]:
        """(true-rate lower bounds, false-rate upper bounds), each (T, K), at one-sided ``level``
        per bound (a scalar or an array broadcasting against (T, 1)): TPR and FPR on the high
        side, TNR and FNR on the low side."""
        f = self.family
        t_hi = true_rate_lower(self.high, self.n_members, level)
        f_hi = false_rate_upper(f.high, self.n_nonmembers, level) * np.ones_like(t_hi)
        t_lo = true_rate_lower(self.low, self.n_nonmembers, level)
        f_lo = false_rate_upper(f.low, self.n_members, level) * np.ones_like(t_lo)
        return np.concatenate([t_hi, t_lo], axis=1), np.concatenate([f_hi, f_lo], axis=1)

    def point(self) -> tuple[np.ndarray, np.ndarray]:
        """Point estimates (true rate, false rate), each (T, K): the false rate at the k-th order
        statistic is the Beta mean k / (n + 1)."""
        f = self.family
        t = np.concatenate([self.high / self.n_members, self.low / self.n_nonmembers], axis=1)
        fr = np.concatenate([f.high / (self.n_nonmembers + 1), f.low / (self.n_members + 1)])
        return t, fr * np.ones_like(t)


def count(members, nonmembers, family: Family) -> Counts:
    """Counts of ``family`` for T trials: members (T, n_m), non-members (T, n_n)."""
    m, n = np.atleast_2d(members), np.atleast_2d(nonmembers)
    high = above_counts(m, n, family.high)
    # low side: negate the scores and swap the roles (non-members below the k-th smallest member)
    low = above_counts(-n, -m, family.low)
    return Counts(family, high, low, m.shape[1], n.shape[1])


def count_sorted(members_desc, nonmembers_desc, family: Family) -> Counts:
    """:func:`count` for one audit whose scores are already sorted in decreasing order."""
    m, n = np.asarray(members_desc), np.asarray(nonmembers_desc)
    high = sorted_counts(m, n, family.high) if family.high.size else np.zeros((1, 0), int)
    low = (
        sorted_counts(-n[::-1], -m[::-1], family.low) if family.low.size else np.zeros((1, 0), int)
    )
    return Counts(family, high, low, m.size, n.size)
