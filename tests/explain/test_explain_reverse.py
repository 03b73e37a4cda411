"""The reverse question against the closed forms the papers give and riskcal's calibration."""

import math

import pytest

from privrisk import accounting
from privrisk.bounds import attribute, membership, reconstruction
from privrisk.explain import explain


def reverse(**kw):
    return explain(**kw).row("reverse")


def test_largest_epsilon_for_a_positive_accuracy_is_thudi_closed_form():
    r = reverse(epsilon=3, base_rate=0.1, max_risk="membership.positive_accuracy=0.3")
    assert r.value == pytest.approx(membership.max_epsilon_for_accuracy(0.3, 0.1), rel=1e-6)
    assert r.values[1] <= 0.3 + 1e-12 and "largest ε" in r.label


def test_largest_epsilon_for_an_attribute_advantage_is_pankova_laud_closed_form():
    r = reverse(epsilon=3, prior=0.2, max_risk="attribute.simplified=0.1")
    assert r.value == pytest.approx(attribute.epsilon_for_advantage(0.1, 0.2), rel=1e-6)


def test_largest_epsilon_for_a_5_percent_advantage_is_epsilon_protect():
    card = explain(epsilon=3, prior=0.1, max_risk="reconstruction.advantage=0.05")
    assert card.row("reverse").value == pytest.approx(
        card.row("reconstruction.epsilon_protect").value, rel=1e-6
    )
    assert card.row("reverse").value == pytest.approx(reconstruction.epsilon_protect(p=0.1))


def test_largest_epsilon_for_beta_and_for_a_quantile():
    # β(ε, p) <= t  ⇔  ε <= logit t − logit p
    r = reverse(epsilon=1, prior=0.1, max_risk="reconstruction.beta=0.5")
    assert r.value == pytest.approx(math.log(9), rel=1e-6)
    # the 95 % bound on targets reconstructed is a step function of ε: the answer is its edge
    q = reverse(epsilon=1, prior=0.1, targets=100, max_risk="reconstruction.quantiles=30")
    at = explain(epsilon=q.value, prior=0.1, targets=100).row("reconstruction.quantiles")
    above = explain(epsilon=q.value * 1.001, prior=0.1, targets=100).row("reconstruction.quantiles")
    assert at.values[-1] <= 30 < above.values[-1]


def test_smallest_sigma_and_largest_mu_for_the_fdp_advantage():
    # 2Φ(μ/2) − 1 <= 0.2  ⇔  μ <= 2 Φ⁻¹(0.6)
    from scipy import stats

    mu_max = 2 * stats.norm.ppf(0.6)
    r = reverse(mu=1, max_risk="membership.advantage_fdp=0.2")
    assert r.value == pytest.approx(mu_max, rel=1e-5)
    s = reverse(sigma=1, sensitivity=2, max_risk="membership.advantage_fdp=0.2")
    assert s.value == pytest.approx(2 / mu_max, rel=1e-5) and "smallest σ" in s.label


def test_impossible_and_always_met_targets():
    none = reverse(epsilon=1, prior=0.5, max_risk="reconstruction.beta=0.4")
    assert none.value is None and "prior" in none.note
    anything = reverse(epsilon=1, prior=0.5, max_risk="reconstruction.beta=1")
    assert anything.value == math.inf


def test_smallest_noise_multiplier_agrees_with_riskcal_calibration():
    calib = pytest.importorskip("riskcal.calibration.dpsgd", reason="riskcal: the test extra")
    q, t = 0.05, 100
    r = reverse(
        noise_multiplier=2.0,
        sample_rate=q,
        steps=t,
        delta=1e-5,
        max_risk="membership.advantage_fdp=0.1",
    )
    theirs = calib.find_noise_multiplier_for_advantage(
        advantage=0.1, sample_rate=q, num_steps=t, grid_step=1e-3
    )
    assert r.value == pytest.approx(theirs, rel=5e-3)
    assert r.values[1] <= 0.1 and "noise multiplier" in r.label


def test_reverse_gdp_epsilon_beside_the_card():
    # sanity: the card's own ε (at δ) for the reverse μ reaches the target exactly
    r = reverse(mu=1, values=10, max_risk="reconstruction.mmc=0.3")
    assert reconstruction.mmc_gdp(mu=r.value, K=10) == pytest.approx(0.3, abs=1e-6)
    assert accounting.gaussian_epsilon(delta=1e-5, mu=r.value) > 0


@pytest.mark.slow
def test_dpsgd_reverse_search_and_its_check_share_one_grid():
    """Issue 30: the answer's reported risk was 0.2000136 > 0.2 when the search and the check
    used different PLD grids; on one grid the reported risk meets the target."""
    target = 0.2
    r = reverse(
        noise_multiplier=1.1,
        sample_rate=0.01,
        steps=200,
        delta=1e-5,
        max_risk=f"membership.tpr_at_fpr_0.01={target}",
    )
    assert r.values[1] <= target
    assert r.values[1] == pytest.approx(target, rel=5e-3)  # and the search went to the edge
