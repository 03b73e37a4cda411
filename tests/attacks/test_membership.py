"""Membership signals: the AUC against sklearn and its closed form, and Eq. 2's chunked
nearest-neighbour distance against brute force for every prefix of the synthetic set."""

import numpy as np
import pytest
import torch
from scipy import stats

from privrisk.attacks import membership as mia


def test_membership_auc_closed_form_and_ties():
    rng = np.random.default_rng(0)
    a, b = rng.normal(1, 1, 3000), rng.normal(0, 1, 5000)
    assert mia.membership_auc(a, b) == pytest.approx(stats.norm.cdf(1 / np.sqrt(2)), abs=0.015)
    assert mia.membership_auc([1, 1], [1, 1]) == 0.5
    assert mia.membership_auc([5, 6], [1, 2, 3]) == 1.0 and mia.membership_auc([0], [1, 2]) == 0.0
    aucs = mia.query_aucs(
        np.c_[np.r_[a, b], -np.r_[a, b]], np.r_[np.ones(3000, bool), np.zeros(5000, bool)]
    )
    assert aucs["d1"] == pytest.approx(1 - aucs["d0"]) and set(aucs) == {"d0", "d1", "max"}
    with pytest.raises(ValueError):
        mia.membership_auc([], [1])


def test_nearest_distances_match_brute_force_for_every_prefix():
    rng = np.random.default_rng(0)
    x, g = rng.normal(size=(37, 3, 4, 4)), rng.normal(size=(250, 3, 4, 4))
    sizes = [1, 10, 64, 250]
    out = mia.nearest_distances(torch.from_numpy(x), torch.from_numpy(g), sizes, chunk=17)
    d = np.sqrt(((x.reshape(37, 1, -1) - g.reshape(1, 250, -1)) ** 2).sum(-1))
    for k, n in enumerate(sizes):
        np.testing.assert_allclose(out[:, k], d[:, :n].min(1), rtol=1e-10)
    assert (np.diff(out, axis=1) <= 0).all()  # nested sets: the distance can only shrink
    with pytest.raises(ValueError, match="exceeds"):
        mia.nearest_distances(torch.from_numpy(x), torch.from_numpy(g), [10, 300])
