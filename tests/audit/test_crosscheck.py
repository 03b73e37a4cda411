"""Cross-checks of the audit's conversions against riskcal (Kulynych et al.'s trade-off tools)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from privrisk.audit import family as fam

riskcal = pytest.importorskip("riskcal.analysis", reason="riskcal is in the test extra")

RATES = [(0.3, 0.1), (0.9, 0.01), (0.55, 0.5), (0.999, 1e-4), (0.2, 0.05)]


@pytest.mark.parametrize("delta", [0.0, 1e-5, 0.01])
@pytest.mark.parametrize("tpr,fpr", RATES)
def test_epsilon_of_one_test_equals_riskcal(tpr, fpr, delta):
    """ε ≥ ln((TPR − δ)/FPR) is riskcal's ε of the error rates (α = FPR, β = 1 − TPR) whenever
    that side is the binding one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = float(riskcal.get_epsilon_for_err_rates(delta, fpr, 1 - tpr))
    # both pieces of f_{ε,δ} at one test: TPR against FPR, and TNR = 1 − FPR against FNR = 1 − TPR
    ours = float(fam.epsilon_at(np.array([[tpr]]), np.array([[fpr]]), delta)[0])
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("tpr,fpr", RATES)
def test_mu_of_one_test_inverts_riskcals_gdp_tradeoff(tpr, fpr):
    mu = float(fam.mu_of(np.array([[tpr]]), np.array([[fpr]]))[0])
    if mu == 0:
        assert tpr <= fpr
        return
    beta = float(riskcal.get_beta_for_mu(mu, np.array([fpr]))[0])
    assert beta == pytest.approx(1 - tpr, rel=1e-9)
