"""thudi2022 bounds: spec oracle values (../shared/spec/thudi2022.md §2, §5, §7, §10) and edges."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privrisk.bounds import membership as mb


@pytest.mark.parametrize(
    "eps,p,expected",
    [
        (1, 0.5, 0.7311),
        (2, 0.5, 0.8808),
        (2, 0.01, 0.0695),
        (0.1, 0.01, 0.0110),
        (5, 0.01, 0.5999),
        (1, 0.25, 0.4754),
        (5, 0.95, 0.9996),
        (0.1, 0.9, 0.9086),
    ],
)
def test_theorem1_upper_oracles(eps, p, expected):
    assert mb.positive_accuracy_upper(epsilon=eps, p=p) == pytest.approx(expected, abs=1e-4)


def test_upper_closed_form_matches_paper_expression():
    eps, p = np.meshgrid(np.linspace(0, 6, 13), np.linspace(0.01, 0.99, 11))
    paper = 1 / (1 + np.exp(-eps) * (1 - p) / p)
    np.testing.assert_allclose(mb.positive_accuracy_upper(epsilon=eps, p=p), paper, rtol=1e-13)
    np.testing.assert_allclose(
        mb.positive_accuracy_lower(epsilon=eps, p=p),
        1 / (1 + np.exp(eps) * (1 - p) / p),
        rtol=1e-13,
    )


def test_corollary1_is_complement():
    lo, hi = mb.negative_accuracy_bounds(epsilon=1.3, p=0.2)
    assert lo == pytest.approx(1 - mb.positive_accuracy_upper(epsilon=1.3, p=0.2))
    assert hi == pytest.approx(1 - mb.positive_accuracy_lower(epsilon=1.3, p=0.2))


def test_prior_work_oracles():
    assert mb.erlingsson_accuracy(epsilon=1) == pytest.approx(0.8161, abs=1e-4)
    # paper says 95 % (erratum)
    assert mb.erlingsson_accuracy(epsilon=2) == pytest.approx(0.9323, abs=1e-4)
    assert mb.sablayrolles_accuracy(epsilon=1) == pytest.approx(0.75)
    assert mb.sablayrolles_accuracy(epsilon=2) == pytest.approx(1.0)
    assert mb.yeom_accuracy(epsilon=1) == pytest.approx(1.3591, abs=1e-4)


@given(st.floats(0, 50), st.floats(0.001, 0.999))
def test_theorem1_tighter_than_prior_work(eps, p):
    u = mb.positive_accuracy_upper(epsilon=eps, p=p)
    assert u <= mb.sablayrolles_accuracy(epsilon=eps, p=p, clip=False) + 1e-12
    assert (
        mb.positive_accuracy_upper(epsilon=eps, p=0.5)
        <= mb.erlingsson_accuracy(epsilon=eps) + 1e-12
    )
    assert mb.positive_accuracy_lower(epsilon=eps, p=p) <= p + 1e-12 and p <= u + 1e-12


@pytest.mark.parametrize(
    "eps,p_star,mx",
    [(0.1, 0.4875, 0.0500), (1, 0.3775, 0.4898), (3, 0.1824, 1.2703), (5, 0.0759, 1.6966)],
)
def test_advantage_maximum(eps, p_star, mx):
    ps, m = mb.advantage_argmax(epsilon=eps)
    assert ps == pytest.approx(p_star, abs=1e-4) and m == pytest.approx(mx, abs=1e-4)
    grid = np.linspace(1e-4, 1 - 1e-4, 200001)
    adv = mb.advantage_upper(epsilon=eps, p=grid)
    assert adv.max() == pytest.approx(mx, abs=1e-4)
    assert grid[adv.argmax()] == pytest.approx(p_star, abs=1e-3)


def test_advantage_at_half_is_tanh():
    for e in (0.1, 1, 3, 5):
        assert mb.advantage_upper(epsilon=e, p=0.5) == pytest.approx(math.tanh(e / 2))


def test_threshold_attack_oracles():
    a = np.array([-100, -75, -50, -25, -10, -5, -0.5, 0, 5, 10, 25])
    pos, acc = mb.threshold_attack(a, sigma=4.0412)
    np.testing.assert_allclose(
        pos,
        [0.9978, 0.9898, 0.9548, 0.8233, 0.6604, 0.5987, 0.5492, 0.5445, 0.5107, 0.5009, 0.5000],
        atol=1e-4,
    )
    np.testing.assert_allclose(
        acc, [0.5, 0.5, 0.5, 0.5, 0.5032, 0.5266, 0.5492, 0.5489, 0.5196, 0.5017, 0.5], atol=1e-4
    )


def test_threshold_attack_monte_carlo():
    """Simulate the one-step DP-SGD release and the attack; compare with eqs. (3)-(4)."""
    rng = np.random.default_rng(1)
    n = 400_000
    member = rng.random(n) < 0.5
    w = -member.astype(float) + rng.normal(0, 4.0412, n)  # offsets from 10^6
    for alpha in (-5.0, -0.5, 3.0):
        guess = w <= alpha
        pos_emp = member[guess].mean()
        acc_emp = (guess == member).mean()
        pos, acc = mb.threshold_attack(alpha, sigma=4.0412)
        assert pos_emp == pytest.approx(float(pos), abs=5 * math.sqrt(0.25 / guess.sum()))
        assert acc_emp == pytest.approx(float(acc), abs=5 * math.sqrt(0.25 / n))


def test_deletion_capacity_oracles():
    kw = dict(n_superset=10000, epsilon=1.0, b=0.8)
    assert mb.deletion_capacity(0.5, **kw) == pytest.approx(12130.85, abs=0.01)
    assert mb.deletion_capacity(1.0, **kw) == pytest.approx(6065.18, abs=0.01)
    assert mb.deletion_capacity(200, **kw) == pytest.approx(29.83, abs=0.01)
    assert mb.deletion_capacity(0.5, variant="corrected", **kw) == pytest.approx(1641.8, abs=0.1)
    assert mb.deletion_capacity(0.0, **kw) == math.inf
    with pytest.raises(ValueError, match="variant"):
        mb.deletion_capacity(1.0, variant="nope", **kw)


def test_edges_are_finite_and_exact():
    assert mb.positive_accuracy_upper(epsilon=0, p=0.3) == pytest.approx(0.3)
    assert mb.positive_accuracy_upper(epsilon=np.inf, p=0.3) == 1.0
    assert mb.positive_accuracy_upper(epsilon=1e6, p=0.3) == 1.0
    assert mb.positive_accuracy_upper(epsilon=np.inf, p=0.0) == 0.0
    assert mb.positive_accuracy_upper(epsilon=3, p=1.0) == 1.0
    assert mb.positive_accuracy_lower(epsilon=np.inf, p=0.3) == 0.0
    assert mb.advantage_upper(epsilon=np.inf, p=0.0) == 0.0
    assert np.all(
        np.isfinite(mb.positive_accuracy_upper(epsilon=np.array([0, 1, 1e3, np.inf]), p=0.5))
    )


@pytest.mark.parametrize("eps,p", [(-1, 0.5), (1, -0.1), (1, 1.5), (np.nan, 0.5)])
def test_invalid_inputs_raise(eps, p):
    with pytest.raises(ValueError):
        mb.positive_accuracy_upper(epsilon=eps, p=p)


def test_max_epsilon_for_accuracy_roundtrip():
    e = mb.max_epsilon_for_accuracy(0.0695, 0.01)
    assert e == pytest.approx(2.0, abs=2e-3)
    assert mb.positive_accuracy_upper(epsilon=e, p=0.01) == pytest.approx(0.0695)
