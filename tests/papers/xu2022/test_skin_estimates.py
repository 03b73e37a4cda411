"""skin_estimates: bins from the sample size, W_N with its null baseline, the held-out comparison
(spec §6 Gaussian values) and the verdict rule of the skin claims."""

import numpy as np
import pytest

from privrisk.papers.xu2022 import skin_estimates as se

EST = {"p": 0.5, "points_per_bin": 24, "max_bins": 100, "confidence": 0.95, "trials": 2}


def test_bins_follow_the_sample_size():
    assert se.bins_for(480, 1, 24, 100) == 20 and se.bins_for(480, 2, 24, 100) == 4
    assert se.bins_for(2000, 1, 20, 100) == 100 and se.bins_for(10**6, 1, 20, 100) == 100
    assert se.bins_for(10, 1, 24, 100) == 2
    with pytest.raises(ValueError):
        se.bins_for(0, 1, 24, 100)


def test_estimate_recovers_gaussian_tv_and_a_small_null():
    rng = np.random.default_rng(0)
    r = se.estimate(rng.normal(2, 1, 5000), rng.normal(0, 1, 45_000), EST, np.random.default_rng(1))
    assert r["bins"] == 100 and r["N"] == 10_000
    assert r["estimate"] == pytest.approx(0.682689, abs=0.03)  # TV of N(2, 1) vs N(0, 1), spec §6
    assert 0 < r["null"] < 0.1 and r["excess"] == pytest.approx(r["estimate"] - r["null"])
    assert r["halfwidth"] == pytest.approx(np.sqrt(2 / 10_000 * np.log(40)))


def test_heldout_optimal_and_heuristic_agree_on_a_monotone_shift_and_not_on_two_tails():
    rng = np.random.default_rng(2)
    r = se.heldout(
        rng.normal(2, 1, 4000),
        rng.normal(0, 1, 36_000),
        EST,
        np.random.default_rng(3),
        heuristic="hayes",
    )
    assert r["optimal"] == pytest.approx(0.682689, abs=0.04) and r["heuristic"] == pytest.approx(
        0.682689, abs=0.04
    )
    # members in both tails: a one-sided threshold cannot find them, the histogram adversary can
    tails = np.r_[rng.normal(-3, 0.5, 2000), rng.normal(3, 0.5, 2000)]
    r2 = se.heldout(
        tails, rng.normal(0, 1, 36_000), EST, np.random.default_rng(4), heuristic="fitted"
    )
    assert r2["optimal"] > 0.9 and r2["heuristic"] < 0.6


def test_verdict_rule():
    assert se.verdict(0.5, 0.1, 0.1, signal=True) is True
    assert se.verdict(0.1, 0.5, 0.1, signal=True) is False
    assert (
        se.verdict(0.05, 0.02, 0.1, signal=True) is None
    )  # both within the half-width of their null
    assert se.verdict(0.5, 0.1, 0.1, signal=False) is None  # no membership signal in the model
    # a gap within the half-width decides nothing, either way
    assert (
        se.verdict(0.5, 0.45, 0.1, signal=True) is None
        and se.verdict(0.45, 0.5, 0.1, signal=True) is None
    )
    # "a lot larger" (margin = half-width): holds beyond margin + half, fails below margin − half
    assert se.verdict(0.5, 0.25, 0.1, signal=True, margin=0.1) is True
    assert se.verdict(0.5, 0.45, 0.1, signal=True, margin=0.1) is None
    assert se.verdict(0.5, 0.52, 0.1, signal=True, margin=0.1) is False
    assert se.clip01(0.95, 0.1) == (0.85, 1.0) and se.clip01(0.02, 0.1) == (
        0.0,
        pytest.approx(0.12),
    )


def test_gate_reads_the_best_auc_either_direction():
    assert se.gate({"auc": {"a": 0.55, "b": 0.2}}, 0.7) == (True, 0.8)
    assert se.gate({"auc": {"a": 0.6}}, 0.7) == (False, 0.6) and se.gate({}, 0.7) == (False, 0.5)
