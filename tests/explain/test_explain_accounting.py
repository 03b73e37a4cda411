"""DP-SGD accounting on the card against dp-accounting's own accountants (PLD at its default
grid, RDP) and the f-DP numbers against riskcal on the same PLD."""

import numpy as np
import pytest

from privrisk import accounting
from privrisk.explain import ADD_REMOVE, REPLACE_ONE, explain
from privrisk.explain import accounted as gm

dp_accounting = pytest.importorskip("dp_accounting")
riskcal = pytest.importorskip("riskcal.analysis", reason="riskcal is in the test extra")

from dp_accounting import dp_event, pld, rdp  # noqa: E402

NR = dp_accounting.NeighboringRelation


def _event(nm, q, t):
    return dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(nm)), t
    )


def _reference_eps(nm, q, t, delta, relation):
    acc = pld.PLDAccountant(neighboring_relation=relation)  # the library's default grid, 1e-4
    acc.compose(_event(nm, q, t))
    return acc.get_epsilon(delta)


@pytest.mark.parametrize(
    "nm,q,t", [(0.6, 0.01, 300), (1.1, 256 / 60000, 2000), (3.0, 0.02, 1000), (8.0, 0.05, 500)]
)
def test_pld_epsilon_matches_dp_accounting_and_rdp_sits_beside_it(nm, q, t):
    delta = 1e-5
    g = gm.parse(noise_multiplier=nm, sample_rate=q, steps=t, delta=delta)
    assert g.adjacency == ADD_REMOVE  # DP-SGD's default, as opacus and dp-accounting report ε
    ref = _reference_eps(nm, q, t, delta, NR.ADD_OR_REMOVE_ONE)
    # pessimistic on a coarser grid: never below the fine-grid ε, within 0.5 % of it
    assert g.as_stated.epsilon >= ref * (1 - 1e-9)
    assert g.as_stated.epsilon == pytest.approx(ref, rel=5e-3)
    # the RDP ε beside it is the project's one (accounting.dpsgd_epsilon), never above
    # dp-accounting's (tests/test_accounting_dpsgd.py pins where the two are equal)
    assert g.rdp_epsilon == accounting.dpsgd_epsilon(
        noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, accountant="rdp"
    )
    acc = rdp.RdpAccountant()
    acc.compose(_event(nm, q, t))
    assert g.rdp_epsilon <= acc.get_epsilon(delta) * (1 + 1e-12)
    assert g.rdp_epsilon >= g.as_stated.epsilon  # RDP's conversion is looser than the PLD
    # replace-one: dp-accounting's REPLACE_ONE accounting, tighter than doubling
    ref_ro = _reference_eps(nm, q, t, delta, NR.REPLACE_ONE)
    assert g.replace_one.adjacency == REPLACE_ONE
    assert g.replace_one.epsilon == pytest.approx(ref_ro, rel=5e-3)
    # group privacy: add/remove (ε, δ) implies replace-one (2ε, (1 + e^ε) δ)
    eps_ar = g.as_stated.epsilon
    grid, deltas = g.replace_one.profile
    assert np.interp(2 * eps_ar, grid, deltas) <= (1 + np.exp(eps_ar)) * delta * 1.01
    assert g.replace_one.epsilon >= eps_ar


def test_fdp_rows_of_a_dpsgd_card_match_riskcal_on_the_same_mechanism():
    nm, q, t, delta, kappa = 1.1, 0.01, 1000, 1e-5, 0.1
    card = explain(noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, prior=kappa)
    fine = pld.privacy_loss_distribution.from_gaussian_mechanism(
        nm, sampling_prob=q, value_discretization_interval=1e-4
    ).self_compose(t)
    adv = card.row("membership.advantage_fdp").value
    assert adv == pytest.approx(riskcal.get_advantage_from_pld(fine), rel=1e-2)
    one_minus_f = card.row("reconstruction.baseline_fdp").value
    exact = 1 - float(riskcal.get_beta_from_pld(fine, alpha=kappa))
    assert one_minus_f == pytest.approx(exact, rel=1e-2)
    assert one_minus_f >= exact - 1e-4  # our profile grid can only be conservative
    # the (ε, δ) rows read at the card's own δ are far looser than the profile-wide ones
    beta = card.row("reconstruction.beta")
    assert "privacy profile" in beta.note and beta.value < 0.9


def test_pld_interval_keeps_epsilon_within_half_a_percent_of_the_finest_grid():
    nm, q, t, delta = 1.1, 256 / 60000, 14_000, 1e-5
    ours = gm.dpsgd_privacy(
        noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, adjacency=ADD_REMOVE
    ).epsilon
    finest = (
        pld.privacy_loss_distribution.from_gaussian_mechanism(
            nm, sampling_prob=q, value_discretization_interval=2e-5
        )
        .self_compose(t)
        .get_epsilon_for_delta(delta)
    )
    assert finest <= ours <= finest * 1.005


def test_full_batch_dpsgd_is_gaussian_composition():
    """q = 1: T Gaussian steps of noise multiplier σ are exactly μ-GDP with μ = √T/σ."""
    nm, t, delta = 4.0, 16, 1e-5
    card = explain(noise_multiplier=nm, sample_rate=1.0, steps=t, delta=delta)
    gdp = explain(mu=np.sqrt(t) / nm, delta=delta, adjacency="add-remove")
    assert card.setting("epsilon").value == pytest.approx(gdp.setting("epsilon").value, rel=2e-3)
    assert card.row("membership.advantage_fdp").value == pytest.approx(
        gdp.row("membership.advantage_fdp").value, rel=2e-3
    )
