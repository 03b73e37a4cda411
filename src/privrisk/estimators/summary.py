"""Summaries of repeated estimates: ratios with the limits spelled out, mean ± s.e. over
trials, and one criterion for "the curve increases/decreases" claims."""

from __future__ import annotations

import numpy as np
from scipy import stats


def safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den with x/∞ = 0 and 0/0 = NaN (no privacy loss at all: the ratio is undefined)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(np.isinf(den), 0.0, num / den)
    return np.where((den == 0) & (num == 0), np.nan, out)


def summarise(values: np.ndarray) -> tuple[float, float, float, int]:
    """Mean, standard deviation, standard error over trials (NaN trials dropped), count."""
    v = np.asarray(values, float)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return np.nan, np.nan, np.nan, 0
    std = float(v.std(ddof=1)) if v.size > 1 else 0.0
    return float(v.mean()), std, std / np.sqrt(v.size), int(v.size)


def trend(x, y, sign: int) -> tuple[bool, bool]:
    """(overall trend holds, strictly monotone) for sign = +1 (increasing) or −1 (decreasing).

    "Overall" means the last grid value is beyond the first in that direction and the Spearman
    rank correlation with x is at least 0.8 in absolute value; one criterion for every
    "the curve increases/decreases with …" claim, so that a plateau within noise does not count
    as a reversal while a real reversal does.
    """
    y = np.asarray(y, float)
    rho = stats.spearmanr(np.asarray(x, float), y).statistic
    overall = bool(sign * (y[-1] - y[0]) > 0 and sign * rho >= 0.8)
    return overall, bool(np.all(sign * np.diff(y) > 0))
