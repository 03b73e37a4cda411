"""Summaries of repeated estimates: ratios with the limits spelled out, mean ± s.e. over
trials. (Claims about curves are decided by :mod:`privrisk.contract.verdicts`.)"""

from __future__ import annotations

import numpy as np


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
