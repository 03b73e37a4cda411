"""Ratios, trial summaries and the trend criterion (privrisk.estimators.summary)."""

from __future__ import annotations

import numpy as np
import pytest

from privrisk.estimators.summary import safe_ratio, summarise, trend


def test_safe_ratio_and_summaries():
    r = safe_ratio(np.array([1.0, 0.0, 2.0, 0.0]), np.array([2.0, np.inf, 0.0, 0.0]))
    assert r[0] == 0.5 and r[1] == 0.0 and np.isinf(r[2]) and np.isnan(r[3])
    mean, std, se, count = summarise(np.array([0.3]))  # one trial: no spread, no band
    assert (mean, std, se, count) == (0.3, 0.0, 0.0, 1)
    mean, std, se, count = summarise(np.array([1.0, 3.0, np.nan]))
    assert mean == 2.0 and count == 2 and se == pytest.approx(np.sqrt(2) / np.sqrt(2))


def test_trend_criterion():
    x = [1, 2, 3, 4, 5, 6]
    assert trend(x, [1, 2, 3, 3.2, 3.21, 3.205], +1) == (True, False)  # plateau within noise
    assert trend(x, [1, 2, 3, 2, 1, 0.5], +1)[0] is False  # real reversal
    assert trend(x, [6, 5, 4, 3, 2, 1], -1) == (True, True)
