"""MACE estimators against the spec's analytic values (xu2022 §5–§6), closed forms and simulation."""

import numpy as np
import pytest
from scipy import stats

from privrisk.estimators import intervals, mace


def gauss(mu, n, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(mu, 1, n), rng.normal(0, 1, n)


def test_clopper_pearson_spec_example():
    # spec §5.2: δ = 0.05, k = 30, n = 100, level 1 − δ/2 → [0.2015, 0.4138]
    lo, hi = intervals.clopper_pearson(30, 100, confidence=1 - 0.05 / 2)
    assert lo == pytest.approx(0.2015, abs=5e-5) and hi == pytest.approx(0.4138, abs=5e-5)
    lo, hi = intervals.clopper_pearson(np.array([0, 10]), 10, confidence=0.95)
    assert lo[0] == 0 and hi[1] == 1


def test_clopper_pearson_matches_scipy():
    ci = stats.binomtest(7, 40).proportion_ci(confidence_level=0.9, method="exact")
    lo, hi = intervals.clopper_pearson(7, 40, confidence=0.9)
    assert (lo, hi) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_mcdiarmid_table():
    # spec §6: N = 14,000 → 0.0230; N = 1,000 → 0.0859
    assert intervals.mcdiarmid_halfwidth(14_000, confidence=0.95) == pytest.approx(0.0230, abs=5e-5)
    assert intervals.mcdiarmid_halfwidth(1_000, confidence=0.95) == pytest.approx(0.0859, abs=5e-5)


@pytest.mark.parametrize("mu, tv", [(1.0, 0.382925), (2.0, 0.682689)])
def test_gaussian_tv_discrete_and_kde(mu, tv):
    a, b = gauss(mu, 200_000, 1)
    # the histogram bias at 100 bins with 2e5 points per class is ~0.01
    assert mace.discrete_advantage(a, b, 0.5, bins=100) == pytest.approx(tv, abs=0.012)
    a, b = gauss(mu, 20_000, 2)
    assert mace.kde_advantage(a, b, 0.5) == pytest.approx(tv, abs=0.012)


def test_gaussian_p01_prior_weighted():
    # spec §6: p = 0.1 gives 0.802673 (μ = 1); N1 : N2 = 1 : 9
    rng = np.random.default_rng(3)
    a, b = rng.normal(1, 1, 40_000), rng.normal(0, 1, 360_000)
    assert mace.discrete_advantage(a, b, 0.1, bins=100) == pytest.approx(0.802673, abs=0.01)


@pytest.mark.parametrize("eps", [1.0, 2.0])
def test_laplace_tv_and_bound(eps):
    rng = np.random.default_rng(4)
    a, b = rng.laplace(eps, 1, 200_000), rng.laplace(0, 1, 200_000)
    w = mace.discrete_advantage(a, b, 0.5, bins=100)
    assert w == pytest.approx(1 - np.exp(-eps / 2), abs=0.012)
    assert 1 - np.exp(-eps / 2) <= mace.dp_bound(epsilon=eps, p=0.5)


def test_dp_bound_numbers():
    assert float(mace.dp_bound(epsilon=1, p=0.5)) == pytest.approx(0.4621, abs=5e-5)
    assert float(mace.dp_bound(epsilon=2, p=0.5)) == pytest.approx(0.7616, abs=5e-5)
    assert float(mace.dp_bound(epsilon=1, p=0.1)) == pytest.approx(0.9215, abs=5e-5)
    assert float(mace.dp_bound(epsilon=0, p=0.1)) == pytest.approx(0.8)  # |2p − 1| at ε = 0


def test_discrete_exact_sum():
    # exact W_N on a hand-computable sample: bins [0, .5), [.5, 1]
    a, b = np.array([0.1, 0.2, 0.9, 0.9]), np.array([0.1, 0.9])
    # r = (.5, .5), q = (.5, .5) → 0;  shift one member
    assert mace.discrete_advantage(a, b, 0.5, bins=2, value_range=[(0, 1)]) == pytest.approx(0.0)
    a = np.array([0.1, 0.9, 0.9, 0.9])
    assert mace.discrete_advantage(a, b, 0.5, bins=2, value_range=[(0, 1)]) == pytest.approx(0.25)


def test_individual_risk_laplace_tail_reaches_bound():
    # Laplace pair: in the far tails f = ±tanh(ε/2) exactly (spec §6); intervals contain it
    eps = 2.0
    rng = np.random.default_rng(5)
    a, b = rng.laplace(eps, 1, 300_000), rng.laplace(0, 1, 300_000)
    res = mace.individual_risk(
        a, b, np.array([-1.5, 3.5, 1.0]), 0.5, confidence=0.95, bins=100, value_range=[(-3, 5)]
    )
    assert res["advi"][:2] == pytest.approx([np.tanh(eps / 2)] * 2, abs=0.03)
    assert np.all(res["lo"][:2] <= np.tanh(eps / 2)) and np.all(res["hi"][:2] >= np.tanh(eps / 2))
    assert res["advi"][2] < 0.1  # at the midpoint r = q
    # Theorem 1(2): Adv = E[AdvI] over the pooled sample
    pooled = np.r_[a[:20_000], b[:20_000]]
    full = mace.individual_risk(a, b, pooled, 0.5, bins=100, value_range=[(-3, 5)])
    assert full["advi"].mean() == pytest.approx(1 - np.exp(-eps / 2), abs=0.02)


def test_individual_risk_kde_midpoint():
    a, b = gauss(1.0, 5000, 6)
    res = mace.individual_risk_kde(a, b, np.array([0.5, 4.0]), 0.5)
    assert res["advi"][0] < 0.1 and res["advi"][1] > 0.8
    assert np.all(res["lo"] <= res["advi"]) and np.all(res["advi"] <= res["hi"])


def test_metric_coefficients_match_definitions():
    rng = np.random.default_rng(7)
    p = 0.1
    m = np.where(rng.random(10_000) < p, 1, -1)
    pred = np.where(rng.random(10_000) < 0.3, 1, -1)
    tp, tn = np.mean((pred == 1) & (m == 1)), np.mean((pred == -1) & (m == -1))
    fp, fn = np.mean((pred == 1) & (m == -1)), np.mean((pred == -1) & (m == 1))
    pe = np.mean(m == 1)
    assert mace.empirical_metric(pred, m, pe, "acc") == pytest.approx(tp + tn)
    am = 0.5 * (tp / (tp + fn) + tn / (tn + fp))
    assert mace.empirical_metric(pred, m, pe, "am") == pytest.approx(am)


def test_algorithm2_simulation_known_optimum():
    # Gaussian r = N(2, 1), q = N(0, 1), p = 0.1: Bayes ACC = (1 + Adv_p)/2 with Adv_p = 0.859879
    # (spec §6); Bayes AM = 1/2 + TV/2 = Φ(1) for the threshold at η = p, i.e. x = 1.
    rng = np.random.default_rng(8)
    a, b = rng.normal(2, 1, 20_000), rng.normal(0, 1, 180_000)
    acc = mace.algorithm2(a, b, 0.1, "acc", rng, bins=100)
    assert acc["value"] == pytest.approx((1 + 0.859879) / 2, abs=0.01)
    am = mace.algorithm2(a, b, 0.1, "am", rng, bins=100)
    assert am["value"] == pytest.approx(stats.norm.cdf(1.0), abs=0.01)
    # the Hayes heuristic (top 10 % of the pooled sample) cannot beat the Bayes classifier's AM
    s = np.r_[a, b]
    m = np.r_[np.ones(len(a)), -np.ones(len(b))]
    pred = np.where(s >= np.quantile(s, 0.9), 1, -1)
    assert mace.empirical_metric(pred, m, 0.1, "am") <= am["value"] + 0.01


def test_null_baseline_positive_bias_and_zero_limit():
    rng = np.random.default_rng(9)
    out = rng.beta(5, 2, 200_000)
    kw = {"p": 0.5, "bins": 100, "value_range": [(0, 1)]}  # the spec's sigmoid range
    small = mace.null_baseline(out, 1000, 1000, mace.discrete_advantage, rng, **kw)
    big = mace.null_baseline(out, 90_000, 90_000, mace.discrete_advantage, rng, **kw)
    assert small == pytest.approx(0.151, abs=0.04)  # spec §6: 0.151 at n = 1,000 per class
    assert big < 0.03 < small
    two_d = mace.null_baseline(
        np.c_[out, rng.beta(5, 2, 200_000)],
        1000,
        1000,
        mace.discrete_advantage,
        rng,
        p=0.5,
        bins=100,
        value_range=[(0, 1), (0, 1)],
    )
    assert two_d == pytest.approx(0.764, abs=0.05)  # spec §6: 0.764 with 100² bins


def test_experiment2_sizes_and_errors():
    rng = np.random.default_rng(0)
    i, o = mace.experiment2(700, 6300, 0.1, rng)
    assert len(i) == 700 and len(o) == 6300
    i, o = mace.experiment2(700, 6300, 0.5, rng)
    assert len(i) == len(o) == 700
    with pytest.raises(ValueError):
        mace.experiment2(10, 0, 0.5, rng)
    with pytest.raises(ValueError, match="metric"):
        mace.metric_coefficients("ppv", 0.1)


def test_bins_for_sample_size():
    assert mace.bins_for(150, 1, max_bins=100, points_per_bin=10) == 15
    assert mace.bins_for(7000, 1, max_bins=100, points_per_bin=10) == 100  # paper scale: capped
    assert mace.bins_for(150, 2, max_bins=100, points_per_bin=10) == 5  # √15 → 3, raised to 5
    assert mace.bins_for(10_000, 2, max_bins=100, points_per_bin=1) == 100
    assert mace.bins_for(150, 1, max_bins=100, points_per_bin=None) == 100  # the paper's 100^d
    with pytest.raises(ValueError):
        mace.bins_for(150, 1, points_per_bin=0)


def test_paper_estimate_reports_the_bias_beside_the_estimate():
    rng = np.random.default_rng(11)
    a, b = rng.normal(2, 1, 300), rng.normal(0, 1, 3000)
    r = mace.paper_estimate(a, b, p=0.5, rng=rng, trials=3, points_per_bin=10)
    assert r["bins"] == 30 and r["N"] == 600
    assert r["estimate"] == pytest.approx(0.682689, abs=0.1) and r["null"] < 0.25
    assert r["excess"] == pytest.approx(r["estimate"] - r["null"])
    assert r["halfwidth"] == pytest.approx(np.sqrt(2 / 600 * np.log(40)))
    # the paper's 100² bins on 300 + 300 points: the 2-d estimate is mostly its own null
    a2, b2 = rng.normal(0, 1, (300, 2)), rng.normal(0, 1, (3000, 2))
    r2 = mace.paper_estimate(a2, b2, p=0.5, rng=rng, trials=1)
    assert r2["bins"] == 100 and r2["estimate"] > 0.8 and abs(r2["excess"]) < 0.1
    k = mace.paper_estimate(a, b, p=0.5, rng=rng, trials=1, method="kde")
    assert k["estimate"] == pytest.approx(0.682689, abs=0.1) and k["bins"] == 0


def test_risk_from_counts_is_theorem_2_with_clopper_pearson_ends():
    """A bin with 30 of 100 members and 10 of 100 hold-out points at p = ½: f = (0.3 − 0.1) /
    (0.3 + 0.1) = ½, and its interval from r's and q's Clopper–Pearson ends at level 1 − δ/2
    (scipy's beta quantiles), f increasing in r and decreasing in q."""
    out = mace.risk_from_counts(30, 100, 10, 100, 0.5, confidence=0.9)
    assert out["f"] == pytest.approx(0.5) and out["advi"] == pytest.approx(0.5)
    a = 0.1 / 2 / 2  # δ = 0.1 split over r and q, then two-sided
    r_lo, r_hi = stats.beta.ppf(a, 30, 71), stats.beta.ppf(1 - a, 31, 70)
    q_lo, q_hi = stats.beta.ppf(a, 10, 91), stats.beta.ppf(1 - a, 11, 90)
    assert out["lo"] == pytest.approx((r_lo - q_hi) / (r_lo + q_hi))
    assert out["hi"] == pytest.approx((r_hi - q_lo) / (r_hi + q_lo))
    # an interval of f across 0 gives AdvI's interval from 0; an empty bin has risk 0
    both = mace.risk_from_counts(np.array([10, 0]), 100, np.array([12, 0]), 100, 0.5)
    assert both["lo"][0] == 0.0 and both["f"][0] < 0 and both["advi"][1] == 0.0
    # individual_risk is it per point: each point gets its bin's numbers
    rng = np.random.default_rng(0)
    a_, b_ = rng.normal(1, 1, 200), rng.normal(0, 1, 150)
    ir = mace.individual_risk(a_, b_, a_[:5], 0.5, bins=6)
    per = mace.risk_from_counts(ir["members"][ir["bin"]], 200, ir["holdout"][ir["bin"]], 150, 0.5)
    for k in ("f", "advi", "lo", "hi"):
        assert np.array_equal(ir[k], per[k])
