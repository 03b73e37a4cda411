"""fixture2099's claim functions where each claim holds and where it fails (a check that cannot
fail proves nothing), and Figure 1's numbers against the closed form. Fast: no Snakemake."""

from __future__ import annotations

import matplotlib
import numpy as np

from privrisk.papers.fixture2099 import claims, figures

matplotlib.use("Agg")

EPS = np.linspace(0.0, 4.0, 41)


def closed_form(eps, p):
    """Theorem 1's bound, written out: e^ε p / (e^ε p + 1 − p)."""
    return np.exp(eps) * p / (np.exp(eps) * p + 1 - p)


def test_prior_at_zero_holds_and_fails():
    row = claims.prior_at_zero(figure="fig1", eps=EPS, bound=closed_form(EPS, 0.3), prior=0.3)
    assert row.status == "qualitative-ok"
    shifted = closed_form(EPS + 0.5, 0.3)  # starts above the prior: the claim is false
    row = claims.prior_at_zero(figure="fig1", eps=EPS, bound=shifted, prior=0.3)
    assert row.status == "qualitative-fails" and row.note


def test_odds_at_one_reproduces_and_differs():
    row = claims.odds_at_one(eps=EPS, bound=closed_form(EPS, 0.2), prior=0.2)
    assert row.status == "reproduced" and abs(row.ours - np.e) < 1e-7
    doubled = closed_form(2 * EPS, 0.2)  # odds e² times the prior's at ε = 1
    row = claims.odds_at_one(eps=EPS, bound=doubled, prior=0.2)
    assert row.status == "differs"


def test_fig1_plots_the_closed_form_and_makes_its_claims():
    params = {"epsilons": {"min": 0.0, "max": 4.0, "n_points": 41}, "prior_prob": 0.25}
    result = figures.fig1(params)
    np.testing.assert_allclose(result.data.y, closed_form(result.data.x, 0.25), rtol=1e-12)
    assert [c.status for c in result.claims] == ["qualitative-ok", "reproduced"]
