"""The cross-fitted membership classifiers: on Gaussian queries whose optimal advantage and AUC
are known they reach them, on a null query they stay at chance with intervals that cover it, the
heuristic finds its direction on the training folds, and the bootstrap is paired."""

import numpy as np
import pytest
from scipy import stats

from privrisk.estimators import crossfit as cf
from privrisk.estimators import mace


def gauss(mu, n_in, n_out, seed, d=1):
    rng = np.random.default_rng(seed)
    return rng.normal(mu, 1, (n_in, d)), rng.normal(0, 1, (n_out, d))


def test_folds_are_stratified_and_cover_every_point():
    rng = np.random.default_rng(0)
    f_in, f_out = cf.folds(23, 101, 5, rng)
    assert sorted(np.bincount(f_in)) == [4, 4, 5, 5, 5] and sorted(np.bincount(f_out)) == [
        20,
        20,
        20,
        20,
        21,
    ]
    with pytest.raises(ValueError, match="at least 2 folds"):
        cf.folds(10, 10, 1, rng)
    with pytest.raises(ValueError, match="at least 5 members"):
        cf.folds(3, 100, 5, rng)


@pytest.mark.parametrize("method", ["kde", "hist"])
def test_gaussian_shift_reaches_the_optimum(method):
    # spec §6: μ = 2 gives Adv = TV = 0.682689; the AUC of the likelihood ratio is Φ(μ/√2)
    a, b = gauss(2.0, 2000, 4000, 1)
    ev = cf.evaluate(
        {"q": (a, b)}, rng=np.random.default_rng(1), method=method, bins=30, n_boot=200
    )
    adv, _ = ev.metric("q", 0.5, "adv")
    auc, _ = ev.auc("q")
    assert adv == pytest.approx(0.682689, abs=0.03)
    assert auc == pytest.approx(stats.norm.cdf(2 / np.sqrt(2)), abs=0.015)


def test_two_dimensional_query_beats_its_first_coordinate():
    # members differ from the hold-out points in y − x only: x alone is at chance
    rng = np.random.default_rng(2)
    z = rng.normal(0, 1, (3000, 2))
    shift = np.r_[np.full(1000, 1.5), np.zeros(2000)]
    q = np.c_[z[:, 0], z[:, 0] + shift + 0.3 * z[:, 1]]
    a, b = q[:1000], q[1000:]
    ev = cf.evaluate({"2d": (a, b), "x": (a[:, :1], b[:, :1])}, rng=rng, n_boot=200)
    assert ev.metric("2d", 0.5, "adv")[0] > ev.metric("x", 0.5, "adv")[0] + 0.3
    assert abs(ev.auc("x")[0] - 0.5) < 0.05


def test_null_query_stays_at_chance_and_the_interval_covers_it():
    a, b = gauss(0.0, 300, 900, 3)
    ev = cf.evaluate({"q": (a, b)}, rng=np.random.default_rng(3), n_boot=300)
    auc, draws = ev.auc("q")
    s = cf.summary(auc, draws)
    assert abs(auc - 0.5) < 3 * s["se"] and 0.01 < s["se"] < 0.05
    # in-sample, one point per bin, the paper's W_N on the same null is far from 0
    assert mace.discrete_advantage(a, b, 0.5, bins=300) > 0.3


def test_heuristic_finds_its_direction_and_matches_the_optimum_on_a_monotone_signal():
    a, b = gauss(-2.0, 1500, 1500, 4)  # members score lower: a distance-like query
    ids = cf.folds(len(a), len(b), 5, np.random.default_rng(4))
    h = cf.heuristic(a, b, ids, p=0.5)
    assert (h.s_in == -a[:, 0]).all()  # the sign was flipped on every training split
    assert h.tpr + h.tnr - 1 == pytest.approx(0.682689, abs=0.04)
    # at p = 0.1 it predicts the top tenth of the prior-weighted mixture
    h10 = cf.heuristic(a, b, ids, p=0.1)
    assert 0.1 * h10.tpr + 0.9 * (1 - h10.tnr) == pytest.approx(0.1, abs=0.02)


def test_plugin_threshold_follows_the_metric():
    assert cf.plugin_cut(0.5, "acc") == pytest.approx(0.0)
    assert cf.plugin_cut(0.1, "am") == pytest.approx(0.0)
    assert cf.plugin_cut(0.1, "acc") == pytest.approx(np.log(9))
    a, b = gauss(2.0, 1000, 9000, 5)
    ev = cf.evaluate({"q": (a, b)}, rng=np.random.default_rng(5), p=0.1, metric="acc", n_boot=50)
    h = ev.adversaries[("q", "plugin")]
    acc = ev.boot.metric(h, 0.1, "acc")[0]
    am = ev.boot.metric(h.at(cf.plugin_cut(0.1, "am")), 0.1, "am")[0]
    assert acc == pytest.approx((1 + 0.859879) / 2, abs=0.01)  # Bayes ACC at p = 0.1 (spec §6)
    assert am == pytest.approx(stats.norm.cdf(1.0), abs=0.02)  # AM-optimal threshold at x = 1


def test_bootstrap_is_paired_and_its_se_matches_the_binomial():
    rng = np.random.default_rng(6)
    boot = cf.Bootstrap(400, 400, 2000, rng)
    pred_in = rng.random(400) < 0.7
    h = cf.Heldout(pred_in.astype(float), np.zeros(400), pred_in, np.zeros(400, bool))
    (tpr, tnr), (d_tpr, d_tnr) = boot.rates(h)
    assert tnr == 1.0 and d_tpr.std() == pytest.approx(np.sqrt(tpr * (1 - tpr) / 400), rel=0.1)
    # the same adversary twice: the paired difference is exactly 0 on every draw
    v1, d1 = boot.metric(h, 0.5, "adv")
    v2, d2 = boot.metric(h, 0.5, "adv")
    assert v1 - v2 == 0 and np.all(d1 - d2 == 0)
    # the weighted AUC on unit weights is the Mann–Whitney AUC
    s_in, s_out = rng.normal(1, 1, 400), rng.normal(0, 1, 400)
    auc, _ = boot.auc(cf.Heldout(s_in, s_out, s_in > 0, s_out > 0))
    assert auc == pytest.approx(stats.mannwhitneyu(s_in, s_out).statistic / 400**2)
    with pytest.raises(ValueError, match="other points"):
        boot.auc(cf.Heldout(s_in[:10], s_out, s_in[:10] > 0, s_out > 0))


def test_evaluate_caps_points_and_checks_shapes():
    a, b = gauss(1.0, 300, 3000, 7)
    ev = cf.evaluate({"q": (a, b)}, rng=np.random.default_rng(7), max_points=200, n_boot=20)
    assert len(ev.idx_in) == 200 and len(ev.idx_out) == 200
    with pytest.raises(ValueError, match="share their points"):
        cf.evaluate({"q": (a, b), "r": (a[:10], b)}, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown queries"):
        cf.evaluate({"q": (a, b)}, rng=np.random.default_rng(0), heuristics=("r",))


def test_individual_risk_is_the_tanh_of_half_the_llr():
    h = cf.Heldout(
        np.array([0.0, 2.0, -4.0]), np.array([1.0]), np.zeros(3, bool), np.zeros(1, bool)
    )
    r_in, r_out = cf.individual_risk(h)
    assert r_in == pytest.approx([0.0, np.tanh(1.0), np.tanh(2.0)]) and r_out == pytest.approx(
        [np.tanh(0.5)]
    )
