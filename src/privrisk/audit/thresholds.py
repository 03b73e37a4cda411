"""Exact one-sided bounds at order-statistic thresholds, for the report's descriptive curves.

TPR at the quoted FPRs and the ROC band (:mod:`.membership`) and the reconstruction hit rate
beside the card (:mod:`.compare`) use these; the verdict and the bounds ε̂, μ̂ use the family of
:mod:`.family`, whose bounds are the same two facts:

* a test "member above the k-th largest non-member score" has a false-positive rate
  stochastically at most the k-th smallest of n uniforms, Beta(k, n − k + 1), so its exact upper
  bound is that Beta's quantile (Clopper–Pearson for k − 1 false positives);
* given the non-members, the members above it are Binomial(n_members, TPR): Clopper–Pearson.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def sorted_counts(pos_desc: np.ndarray, neg_desc: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """(1, K): how many ``pos`` scores lie strictly above the k-th largest ``neg`` score, for every
    k in ``ks`` (1-based), both sorted in decreasing order."""
    s = neg_desc[ks - 1]
    return np.searchsorted(-pos_desc, -s, side="left")[None, :]


def false_rate_upper(ks: np.ndarray, n: int, level) -> np.ndarray:
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
