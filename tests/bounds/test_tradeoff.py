"""Trade-off functions, the f-DP advantage and Kulynych et al.'s 1 − f(κ): closed forms, riskcal,
the GDP privacy profile, edges, and a mechanism that attains 1 − f(κ) under add/remove."""

import numpy as np
import pytest
from scipy import stats

from privrisk import accounting
from privrisk.bounds import reconstruction, tradeoff

riskcal = pytest.importorskip("riskcal.analysis", reason="riskcal is in the test extra")

ALPHAS = np.linspace(0, 1, 101)


@pytest.mark.parametrize(
    "eps,delta", [(0.0, 0.0), (0.5, 0.0), (1.0, 1e-3), (3.0, 0.0), (8.0, 1e-5)]
)
def test_approx_tradeoff_and_advantage_equal_riskcal(eps, delta):
    ours = tradeoff.tradeoff_approx(ALPHAS, epsilon=eps, delta=delta)
    theirs = riskcal.get_beta_from_adp(eps, delta, ALPHAS)
    assert ours == pytest.approx(theirs, abs=1e-12)
    adv = tradeoff.advantage_approx(epsilon=eps, delta=delta)
    assert adv == pytest.approx(riskcal.get_advantage_from_adp(eps, delta), abs=1e-12)
    # the advantage is max_α (1 − α − f(α)) of the same curve
    fine = np.linspace(0, 1, 200_001)
    f = tradeoff.tradeoff_approx(fine, epsilon=eps, delta=delta)
    assert adv == pytest.approx(np.max(1 - fine - f), abs=1e-5)


@pytest.mark.parametrize("mu", [0.0, 0.3, 1.0, 2.5, 6.0])
def test_gdp_tradeoff_and_advantage_equal_riskcal_and_balle_wang(mu):
    ours = tradeoff.tradeoff_gdp(ALPHAS, mu=mu)
    assert ours == pytest.approx(riskcal.get_beta_from_gdp(mu, ALPHAS), abs=1e-10)
    adv = tradeoff.advantage_gdp(mu=mu)
    assert adv == pytest.approx(riskcal.get_advantage_from_gdp(mu), abs=1e-12)
    # total variation = δ(0) of the GDP privacy profile (Balle–Wang)
    assert adv == pytest.approx(accounting.gaussian_delta(epsilon=0.0, mu=mu), abs=1e-12)
    assert adv == pytest.approx(2 * stats.norm.cdf(mu / 2) - 1, abs=1e-12)


def test_the_issue_example_one_minus_f_kappa_at_eps_3_prior_01():
    # riskcal's single-baseline bound at ε = 3, κ = 0.1 (issue: 0.955) beside Swanberg's β (0.69)
    v = tradeoff.success_from_baseline_approx(0.1, epsilon=3.0)
    assert v == pytest.approx(1 - riskcal.get_beta_from_adp(3.0, 0.0, 0.1), abs=1e-12)
    assert v == pytest.approx(1 - np.exp(-3.0) * 0.9, abs=1e-12)
    assert round(v, 3) == 0.955
    assert round(reconstruction.beta_pure(epsilon=3.0, p=0.1), 2) == 0.69


def test_one_minus_f_kappa_is_attained_under_add_remove():
    """A mechanism on K values that is ε-DP for add/remove (output uniform without the target)
    and guesses right with probability exactly 1 − f_{ε,0}(1/K): the bound is tight there, and it
    exceeds Swanberg's replace-one β(ε, 1/K), which the same mechanism does not satisfy."""
    eps, K = 3.0, 10
    kappa = 1 / K
    right = 1 - np.exp(-eps) * (1 - kappa)  # P(out = z | z present)
    wrong = (1 - right) / (K - 1)  # each other value
    absent = np.full(K, 1 / K)  # the target removed: output independent of it
    present = np.full(K, wrong)
    present[0] = right
    ratio = np.log(present / absent)
    assert np.max(np.abs(ratio)) <= eps + 1e-12  # ε-DP between present and absent
    bound = tradeoff.success_from_baseline_approx(kappa, epsilon=eps)
    assert right == pytest.approx(bound, abs=1e-12)
    # replace-one: target z vs z' differ by log(right / wrong) > ε, so β(ε) need not hold ...
    assert np.log(right / wrong) > eps
    # ... and indeed this attack beats β(ε, κ) but not β(2ε, κ) (add/remove ε ⇒ replace-one 2ε)
    assert right > reconstruction.beta_pure(epsilon=eps, p=kappa)
    assert right <= reconstruction.beta_pure(epsilon=2 * eps, p=kappa)


def test_profile_tradeoff_from_the_gdp_profile_approaches_g_mu_from_below():
    mu = 1.3
    eps = np.linspace(0, accounting.gaussian_epsilon(delta=1e-14, mu=mu), 4001)
    deltas = accounting.gaussian_delta(epsilon=eps, mu=mu)
    a = np.linspace(0.001, 0.999, 57)
    f_prof = tradeoff.tradeoff_from_profile(a, epsilons=eps, deltas=deltas)
    g = tradeoff.tradeoff_gdp(a, mu=mu)
    assert np.all(f_prof <= g + 1e-12)  # a finite set of (ε, δ) pairs is conservative
    assert f_prof == pytest.approx(g, abs=2e-5)  # and Prop. 2.12: the profile determines f
    k = tradeoff.success_from_baseline_profile(0.1, epsilons=eps, deltas=deltas)
    assert k == pytest.approx(tradeoff.success_from_baseline_gdp(0.1, mu=mu), abs=2e-5)


def test_edges_do_not_overflow_or_nan():
    assert tradeoff.tradeoff_approx(0.0, epsilon=np.inf) == 1.0
    assert tradeoff.tradeoff_approx(0.3, epsilon=np.inf) == 0.0
    assert tradeoff.tradeoff_approx(1.0, epsilon=0.0) == 0.0
    assert tradeoff.advantage_approx(epsilon=np.inf) == 1.0
    assert tradeoff.advantage_approx(epsilon=0.0, delta=0.2) == pytest.approx(0.2)
    assert tradeoff.tradeoff_gdp(0.0, mu=np.inf) == 1.0
    assert tradeoff.tradeoff_gdp(0.5, mu=np.inf) == 0.0
    assert tradeoff.advantage_gdp(mu=np.inf) == 1.0
    assert tradeoff.success_from_baseline_gdp(0.2, mu=0.0) == pytest.approx(0.2)
    assert tradeoff.success_from_baseline_approx(0.2, epsilon=0.0) == pytest.approx(0.2)
    big = tradeoff.tradeoff_approx(np.array([1e-300, 0.5]), epsilon=800.0)
    assert np.all(np.isfinite(big))


@pytest.mark.parametrize(
    "call",
    [
        lambda: tradeoff.tradeoff_approx(0.1, epsilon=-1.0),
        lambda: tradeoff.tradeoff_approx(1.1, epsilon=1.0),
        lambda: tradeoff.tradeoff_approx(0.1, epsilon=1.0, delta=1.0),
        lambda: tradeoff.tradeoff_gdp(0.1, mu=-0.5),
        lambda: tradeoff.tradeoff_from_profile(0.1, epsilons=[0.0, 1.0], deltas=[0.1]),
    ],
)
def test_bad_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call()
