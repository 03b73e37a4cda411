"""Honest use of the MACE estimators: bins from the sample size, AUC, held-out comparisons and
the stratified metric interval (closed forms, sklearn cross-checks, simulation)."""

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from privrisk.estimators import heldout, mace


def test_bins_for_sample_size():
    assert heldout.bins_for(150, 1, max_bins=100, points_per_bin=10) == 15
    assert heldout.bins_for(7000, 1, max_bins=100, points_per_bin=10) == 100  # paper scale: capped
    assert heldout.bins_for(150, 2, max_bins=100, points_per_bin=10) == 5  # √15 → 3, raised to 5
    assert heldout.bins_for(10_000, 2, max_bins=100, points_per_bin=1) == 100
    assert (
        heldout.bins_for(150, 1, max_bins=100, points_per_bin=None) == 100
    )  # the paper's fixed bins
    with pytest.raises(ValueError):
        heldout.bins_for(150, 1, points_per_bin=0)


def test_fewer_bins_cut_the_null_bias():
    # the reason for bins_for: on 150 + 150 null points 100 bins read ~0.38, 15 bins much less
    rng = np.random.default_rng(0)
    out = rng.normal(0, 1, 100_000)
    w = {
        b: np.mean(
            [
                mace.null_baseline(out, 150, 150, mace.discrete_advantage, rng, p=0.5, bins=b)
                for _ in range(20)
            ]
        )
        for b in (15, 100)
    }
    assert w[100] > 0.3 and w[15] < 0.6 * w[100]


def test_membership_auc_matches_sklearn_and_closed_form():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1, 1, 3000), rng.normal(0, 1, 5000)
    auc = heldout.membership_auc(a, b)
    assert auc == pytest.approx(
        roc_auc_score(np.r_[np.ones(3000), np.zeros(5000)], np.r_[a, b]), abs=1e-12
    )
    assert auc == pytest.approx(stats.norm.cdf(1 / np.sqrt(2)), abs=0.015)
    assert heldout.membership_auc([1, 1], [1, 1]) == 0.5  # ties count ½
    aucs = heldout.query_aucs(
        np.c_[np.r_[a, b], -np.r_[a, b]], np.r_[np.ones(3000, bool), np.zeros(5000, bool)]
    )
    assert aucs["d1"] == pytest.approx(1 - auc) and set(aucs) == {"d0", "d1", "max"}


def test_heldout_comparison_gaussian_reaches_tv():
    rng = np.random.default_rng(2)
    a, b = rng.normal(2, 1, 20_000), rng.normal(0, 1, 20_000)
    for method in ("hist", "kde"):
        r = heldout.heldout_comparison(
            a[:5000] if method == "kde" else a,
            b[:5000] if method == "kde" else b,
            0.5,
            rng,
            method=method,
            bins=50,
        )
        assert r["adv_optimal"] == pytest.approx(0.682689, abs=0.04)  # spec §6, μ = 2
        assert r["adv_heuristic"] == pytest.approx(0.682689, abs=0.04)
        assert r["optimal_lo"] <= r["optimal"] <= r["optimal_hi"]
        assert r["direction"] == "higher is member"


def test_heuristic_direction_is_chosen_on_the_fitting_half():
    rng = np.random.default_rng(3)
    a, b = (
        rng.normal(-2, 1, 4000),
        rng.normal(0, 1, 4000),
    )  # members score lower (a distance-like query)
    r = heldout.heldout_comparison(a, b, 0.5, rng, bins=30)
    assert r["direction"] == "lower is member" and r["adv_heuristic"] == pytest.approx(
        0.682689, abs=0.04
    )


def test_heldout_plugin_does_not_win_by_overfitting():
    # a null query: in-sample W_N with one point per bin is large, held out the plug-in is at chance
    rng = np.random.default_rng(4)
    a, b = rng.normal(0, 1, 300), rng.normal(0, 1, 300)
    assert mace.discrete_advantage(a, b, 0.5, bins=300) > 0.4
    r = heldout.heldout_comparison(a, b, 0.5, rng, bins=300)
    assert abs(r["adv_optimal"]) < 0.15


def test_metric_interval_covers_in_simulation():
    rng = np.random.default_rng(5)
    p, tpr, tnr = 0.1, 0.6, 0.8
    truth = {"acc": p * tpr + (1 - p) * tnr, "am": (tpr + tnr) / 2}
    cover = {k: 0 for k in truth}
    for _ in range(400):
        m = np.r_[np.ones(50), -np.ones(450)]
        pred = np.r_[np.where(rng.random(50) < tpr, 1, -1), np.where(rng.random(450) < tnr, -1, 1)]
        for k in truth:
            lo, hi = heldout.metric_interval(pred, m, p, k)
            cover[k] += lo <= truth[k] <= hi
    assert min(cover.values()) / 400 >= 0.95
    lo, hi = heldout.metric_interval(
        np.r_[np.ones(50), -np.ones(450)], np.r_[np.ones(50), -np.ones(450)], p, "acc"
    )
    assert hi == 1.0 and lo > 0.97  # narrower than McDiarmid's ±0.15 at n = 500
    assert mace.metric_halfwidth(500, p, "acc") > 0.1
