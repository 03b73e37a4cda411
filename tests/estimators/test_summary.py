"""Ratios and trial summaries (privrisk.estimators.summary)."""

from __future__ import annotations

import numpy as np
import pytest

from privrisk.estimators.summary import safe_ratio, summarise


def test_safe_ratio_and_summaries():
    r = safe_ratio(np.array([1.0, 0.0, 2.0, 0.0]), np.array([2.0, np.inf, 0.0, 0.0]))
    assert r[0] == 0.5 and r[1] == 0.0 and np.isinf(r[2]) and np.isnan(r[3])
    mean, std, se, count = summarise(np.array([0.3]))  # one trial: no spread, no band
    assert (mean, std, se, count) == (0.3, 0.0, 0.0, 1)
    mean, std, se, count = summarise(np.array([1.0, 3.0, np.nan]))
    assert mean == 2.0 and count == 2 and se == pytest.approx(np.sqrt(2) / np.sqrt(2))
