"""An all-thresholds reference for the tightness tests: jax_privacy 2.0.0's
``CanaryScoreAuditor.epsilon_clopper_pearson`` (Bonferroni strategy, two-sided) re-written in numpy
from its code (``auditing.py``): every distinct score is a threshold ("in" at or above it), the
thresholds are pruned to the ROC's Pareto frontier, and each bound (FNR and FPR upper,
Clopper–Pearson at significance / (2 × frontier size)) is Bonferroni-corrected over the frontier.
The benchmark checks it against jax_privacy itself where that is installed.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def _pareto(points: np.ndarray) -> np.ndarray:
    idx = np.arange(points.shape[0])
    while idx.size > 2:
        d = np.diff(points[idx], axis=0)
        cross = d[:-1, 1] * d[1:, 0] - d[1:, 1] * d[:-1, 0]
        dominated = cross <= 0
        if not dominated.any():
            break
        idx = idx[np.r_[True, ~dominated, True]]
    return idx


def _cp_upper(k, n, significance):
    return np.where(k < n, stats.beta.ppf(1 - significance, k + 1, n - k), 1.0)


def epsilon_all_thresholds(members, nonmembers, *, significance=0.05, delta=0.0) -> float:
    m, x = np.sort(members), np.sort(nonmembers)
    thresholds = np.r_[np.union1d(m, x), np.inf]
    fn = np.searchsorted(m, thresholds, side="left")
    tn = np.searchsorted(x, thresholds, side="left")
    keep = _pareto(np.stack([fn, tn], axis=1))
    fn, tn = fn[keep], tn[keep]
    sig = significance / fn.size
    fnr_ub = _cp_upper(fn, m.size, sig / 2)
    fpr_ub = _cp_upper(x.size - tn, x.size, sig / 2)

    def side(fnr, fpr):
        tpr = 1 - fnr
        ok = tpr > delta
        if not ok.any():
            return 0.0
        return max(0.0, float(np.max(np.log(tpr[ok] - delta) - np.log(fpr[ok]))))

    return max(side(fnr_ub, fpr_ub), side(fpr_ub, fnr_ub))
