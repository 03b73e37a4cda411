"""Validity first, tightness second, by simulation (issues 31 and 36); all trials as one array.

Validity (confidence 0.95, so at most 5 % of audits may report leakage):

* null files in eleven shapes (members and non-members from one distribution): Gaussian, t₂,
  Cauchy, integer and 0/1 scores with ties, 100 vs 10,000 and 10,000 vs 100, 10 + 10, all equal,
  exponential, 20 + 20 — ε̂ > 0 and μ̂ > 0 (and so a claimed ε = 0.1 refuted) in at most 5 %;
* true-DP files: randomized response at ε = 1 and Gaussian canaries at μ ∈ {0.5, 1, 2} — ε̂ above
  the mechanism's ε (at δ = 0 and 10⁻⁵), μ̂ above μ, in at most 5 %.

Tightness: randomized response at ε = 1 with 10⁴ a side reaches >= 0.85 of the truth (median of
100); within 10 % of the all-thresholds reference (:mod:`tests.audit.reference`, jax_privacy's
Clopper–Pearson bound) on randomized response and integer scores, within 5 % of it on Gaussian
scores; the median bound does not fall as the sample grows; μ̂ >= 0.85 μ at 10⁴ a side.
"""

from __future__ import annotations

import numpy as np
import pytest

from privrisk import accounting
from privrisk.audit import membership as mb
from tests.audit.reference import epsilon_all_thresholds

ALPHA = 0.05
TRIALS = 200

NULL_SHAPES = {
    # name: (draw(rng, shape) for one side, members, non-members)
    "gaussian": (lambda r, s: r.standard_normal(s), 500, 500),
    "t2": (lambda r, s: r.standard_t(2, s), 500, 500),
    "cauchy": (lambda r, s: r.standard_cauchy(s), 500, 500),
    "integer": (lambda r, s: r.integers(0, 5, s).astype(float), 500, 500),
    "binary": (lambda r, s: r.integers(0, 2, s).astype(float), 500, 500),
    "100_vs_10000": (lambda r, s: r.standard_normal(s), 100, 10_000),
    "10000_vs_100": (lambda r, s: r.standard_normal(s), 10_000, 100),
    "10_plus_10": (lambda r, s: r.standard_normal(s), 10, 10),
    "all_equal": (lambda r, s: np.zeros(s), 300, 300),
    "exponential": (lambda r, s: r.exponential(size=s), 1000, 1000),
    "20_plus_20": (lambda r, s: r.standard_normal(s), 20, 20),
}


def _null(name, trials, seed):
    draw, n_m, n_n = NULL_SHAPES[name]
    rng = np.random.default_rng(seed)
    return draw(rng, (trials, n_m)), draw(rng, (trials, n_n))


@pytest.mark.parametrize("name", sorted(NULL_SHAPES))
def test_null_files_give_no_leakage_beyond_the_level(name):
    trials = 60 if "10000" in name else TRIALS
    m, x = _null(name, trials, seed=hash(name) % 1000)
    eps = mb.epsilon_lower(m, x, delta=0.0, confidence=1 - ALPHA)
    mu = mb.mu_lower(m, x, confidence=1 - ALPHA)
    assert np.mean(eps > 0) <= ALPHA and np.mean(mu > 0) <= ALPHA
    assert np.mean(eps > 0.1) <= ALPHA  # a claimed ε = 0.1 refuted


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NULL_SHAPES))
def test_null_files_many_trials(name):
    trials, chunk = 1000, (20 if "10000" in name else 200)
    false = 0
    for i in range(trials // chunk):
        m, x = _null(name, chunk, seed=1000 * i + hash(name) % 1000)
        eps = mb.epsilon_lower(m, x, delta=0.0, confidence=1 - ALPHA)
        mu = mb.mu_lower(m, x, confidence=1 - ALPHA)
        false += int(np.sum((eps > 0) | (mu > 0)))
    assert false / trials <= ALPHA


def _rr(rng, trials, n, eps=1.0):
    q = 1 / (1 + np.exp(-eps))
    return (rng.random((trials, n)) < q) * 1.0, (rng.random((trials, n)) < 1 - q) * 1.0


@pytest.mark.parametrize("n", [100, 1000])
def test_randomized_response_bound_stays_below_the_truth(n):
    m, x = _rr(np.random.default_rng(n), TRIALS, n)
    eps = mb.epsilon_lower(m, x, delta=0.0)
    assert np.mean(eps > 1.0) <= ALPHA


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_gaussian_bounds_stay_below_the_truth(mu):
    rng = np.random.default_rng(int(mu * 10))
    n = 1000
    m = rng.standard_normal((TRIALS, n)) + mu
    x = rng.standard_normal((TRIALS, n))
    assert np.mean(mb.mu_lower(m, x) > mu) <= ALPHA
    eps = mb.epsilon_lower(m, x, delta=1e-5)
    assert np.mean(eps > accounting.gaussian_epsilon(delta=1e-5, mu=mu)) <= ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_gaussian_and_rr_truth_at_ten_thousand(mu):
    rng = np.random.default_rng(int(mu * 100))
    over_mu = over_eps = over_rr = 0
    for _ in range(5):
        m = rng.standard_normal((20, 10_000)) + mu
        x = rng.standard_normal((20, 10_000))
        over_mu += int(np.sum(mb.mu_lower(m, x) > mu))
        e = mb.epsilon_lower(m, x, delta=1e-5)
        over_eps += int(np.sum(e > accounting.gaussian_epsilon(delta=1e-5, mu=mu)))
        rm, rx = _rr(rng, 20, 10_000)
        over_rr += int(np.sum(mb.epsilon_lower(rm, rx) > 1.0))
    assert max(over_mu, over_eps, over_rr) <= ALPHA * 100


def test_randomized_response_at_ten_thousand_reaches_85_percent_of_the_truth():
    m, x = _rr(np.random.default_rng(85), 100, 10_000)
    eps = mb.epsilon_lower(m, x, delta=0.0)
    assert np.median(eps) >= 0.85
    assert np.median(eps) <= 1.0


def test_power_does_not_fall_as_the_sample_grows():
    rng = np.random.default_rng(86)
    medians = [
        np.median(mb.epsilon_lower(*_rr(rng, 60, n), delta=0.0))
        for n in (100, 300, 1000, 3000, 10_000)
    ]
    assert np.all(np.diff(medians) >= 0), medians


def _ratio_to_reference(m, x):
    ours = mb.epsilon_lower(m, x, delta=0.0)
    ref = np.array([epsilon_all_thresholds(a, b) for a, b in zip(m, x, strict=True)])
    return float(np.median(ours)), float(np.median(ref))


def test_within_10_percent_of_the_all_thresholds_reference_on_discrete_scores():
    rng = np.random.default_rng(87)
    ours, ref = _ratio_to_reference(*_rr(rng, 30, 10_000))
    assert ours >= 0.9 * ref, (ours, ref)
    # integer scores: Binomial(8, ·) members against non-members
    m = rng.binomial(8, 0.6, (30, 10_000)) * 1.0
    x = rng.binomial(8, 0.4, (30, 10_000)) * 1.0
    ours, ref = _ratio_to_reference(m, x)
    assert ours >= 0.9 * ref, (ours, ref)


def test_close_to_the_all_thresholds_reference_on_gaussian_scores():
    """The reference's Bonferroni count is the size of the data's own ROC hull (a count chosen
    from the data, without a validity proof); ours is fixed in advance. On Gaussian scores at
    δ = 0 it is 0-5 % tighter than ours (docs/audit.md); ours stays within 5 %."""
    rng = np.random.default_rng(88)
    m = rng.standard_normal((20, 10_000)) + 1.0
    x = rng.standard_normal((20, 10_000))
    ours, ref = _ratio_to_reference(m, x)
    assert ours >= 0.95 * ref, (ours, ref)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_tightness_median_mu_lower_at_least_85_percent_at_10k_per_side(mu):
    rng = np.random.default_rng(85 + int(10 * mu))
    n, trials = 10_000, 30
    m = rng.standard_normal((trials, n)) + mu
    x = rng.standard_normal((trials, n))
    lower = mb.mu_lower(m, x, confidence=0.95)
    assert np.median(lower) >= 0.85 * mu
    assert np.median(lower) <= mu


@pytest.mark.parametrize("sizes", [(10, 10), (11, 37), (100, 10_000), (10_000, 100), (5000, 5000)])
def test_the_family_spends_exactly_the_error_budget(sizes):
    """Every bound's share of α, summed over the family (two bounds per grid test, one per band
    checkpoint), is exactly 1: the bounds hold together at the stated confidence, no more."""
    from privrisk.audit import family as fam

    d = fam.design(*sizes)
    total = 2 * d.high_share.sum() + 2 * d.low_share.sum()
    total += d.band_n_share * d.band_n.size + d.band_m_share * d.band_m.size
    assert total == pytest.approx(1.0, abs=1e-12)
