"""Synthetic clipped Gaussian populations (privrisk.data.synthetic)."""

from __future__ import annotations

import numpy as np

from privrisk.data import synthetic


def test_outlier_mask_and_clipping():
    # the two outliers (x100) are the clipped ones at small C
    rng = np.random.default_rng(1)
    mask = synthetic.outlier_mask(rng, 50, 12, 2)
    assert np.all(mask.sum(axis=1) == 2)
    assert np.all(synthetic.clip_rows(np.zeros((2, 3)), 0.0) == 0)
