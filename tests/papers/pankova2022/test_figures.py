"""pankova2022's window-search table and the AND / OR figure at small scale: claim statuses, the
table against spec §7.5, and the figures' own curves fed to their checks the wrong way round."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from privrisk.bounds import attribute as at
from privrisk.papers.pankova2022 import claims, figures_epsilon_search, figures_two_attributes

matplotlib.use("Agg")

TABLE = {
    "intervals_d_units": [12],
    "etas": [0.05, 0.1],
    "n_centres": 7,
    "scaling_alphas": [0.5, 3.0],
    "scaling_epsilons": [0.2, 1.0],
    "scaling_eta": 0.1,
    "seed": 0,
}
TWO = {
    "intervals_d_units": [8, 12],
    "epsilons": {"min": 0.05, "max": 2, "n_points": 25},
    "release_points": 201,
    "check_grid": 300,
    "check_radii": [1, 2, 5],
    "seed": 0,
}


@pytest.fixture(scope="module")
def table():
    return figures_epsilon_search.table_eps_for_advantage(TABLE)


@pytest.fixture(scope="module")
def two():
    return figures_two_attributes.fig_two_attributes(TWO)


def test_table_claims_and_spec_oracle(table):
    st = {c.claim_id: c.status for c in table.claims}
    assert st == {
        "search_simplified_closed_form": "derived",
        "precise_eps_window_search": "qualitative-ok",
        "precise_allows_larger_eps": "qualitative-ok",
        "scaling_invariance": "derived",
    }
    for c in table.claims:
        if c.status == "derived":
            assert float(c.ours) <= float(c.tolerance)
    d = table.data.set_index(["series", "x"]).y
    # spec §7.5 (M = 12, η = 0.1): centred 0.1787 (main) and 0.04982 (simplified); centres 0, 1, 2, ... 6
    assert d[("M = 12: precise window search (centred guess)", 0.1)] == pytest.approx(
        0.1787, abs=1e-4
    )
    assert d[("M = 12: simplified closed form (worst centre)", 0.1)] == pytest.approx(
        0.04982, abs=1e-5
    )
    assert d[("M = 12: precise window search (worst centre)", 0.1)] == pytest.approx(
        0.1072, abs=1e-4
    )
    assert "| 12 |" in table.table_md and r"\bottomrule" in table.table_tex


def test_precise_not_larger_on_two_point_prior():
    """Counter-example: on a two-point prior at distance R the main theorem equals the simplified bound
    (spec §2.7), so 'the precise bound allows a larger ε' fails there."""
    p, R, eta = 0.3, 2.0, 0.1
    main = at.largest_epsilon_for_advantage(
        lambda e: 1 / (1 + (1 - p) / (np.exp(e * R) * p)), p, eta
    )
    simp = at.epsilon_for_advantage(eta, p, R)
    c = claims.exceeds(figure="f", claim_id="c", claim="s", x=[0], values=[main], reference=[simp])
    assert c.status == "qualitative-fails"


def test_two_attributes_claims(two):
    st = {c.claim_id: c.status for c in two.claims}
    assert st == {
        "and_balls_from_cdfs": "derived",
        "and_below_single": "qualitative-ok",
        "or_union_bound": "qualitative-ok",
        "or_no_better_bound": "uninformative",
    }
    assert set(two.data.panel) == {"a", "b"}
    assert np.isfinite(two.data.y).all()


def test_two_attributes_checks_fail_the_wrong_way_round(two):
    d = two.data
    y = {s: g.y.to_numpy() for s, g in d.groupby("series")}
    x = d[d.series == "AND shell sum"].x.to_numpy()
    kw = dict(figure="f", claim_id="c", claim="s", x=x)
    assert (
        claims.below(values=y["X1 shell sum"], bound=y["AND shell sum"], **kw).status
        == "qualitative-fails"
    )
    # an "attack" at the larger single bound plus the other prior beats a bound that forgot one attribute
    assert (
        claims.below(values=y["OR attained (Laplace)"], bound=y["X2 simplified"] * 0.9, **kw).status
        == "qualitative-fails"
    )


def test_and_grid_check_detects_a_wrong_combination():
    """The CDF-product self-check would catch a sum instead of a product of the marginal masses."""
    from scipy import stats

    F = (stats.uniform(0, 8).cdf, stats.uniform(0, 12).cdf)
    prod = at.ball_prob_independent(np.array([2.0]), (4, 6), (1, 1), F)[0]
    wrong = F[0](6) - F[0](2) + F[1](8) - F[1](4)
    assert abs(wrong - prod) > 0.1
