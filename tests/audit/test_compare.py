"""audit.compare(card, report): the audit's lower bounds under the card's upper bounds."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

import privrisk
from privrisk.audit import audit, compare


def _membership(mu, n, seed=0):
    rng = np.random.default_rng(seed)
    return audit(
        {
            "score": np.r_[rng.normal(mu, 1, n), rng.normal(0, 1, n)],
            "member": np.r_[np.ones(n), np.zeros(n)],
        }
    )


def test_membership_advantage_under_the_cards_bounds():
    report = _membership(1.0, 5000)
    c = compare(privrisk.explain(mu=1), report)
    keys = {p.key for p in c.pairs}
    assert {"membership.advantage_eps_delta", "membership.advantage_fdp"} <= keys
    tight = next(p for p in c.pairs if p.key == "membership.advantage_fdp")
    # a Gaussian attack at the claimed μ: its proved advantage lies under 2Φ(μ/2) − 1 = 0.383, close
    assert 0.3 < tight.lower <= tight.upper
    assert tight.gap == pytest.approx(tight.upper - tight.lower)
    back = json.loads(c.to_json())
    assert back["pairs"][0]["key"].startswith("membership.advantage")
    assert "at least" in c.text()


def test_a_leakier_mechanism_shows_a_negative_gap():
    c = compare(privrisk.explain(mu=0.5), _membership(2.0, 5000))
    tight = next(p for p in c.pairs if p.key == "membership.advantage_fdp")
    assert tight.gap < 0 and "refuted" in tight.note


def test_tpr_at_fpr_rows_when_the_card_has_them():
    report = _membership(2.0, 5000)
    row = SimpleNamespace(key="membership.tpr_at_fpr.0.01", label="TPR at FPR 1 %", value=0.6)
    card = SimpleNamespace(
        guarantee="test", rows=(row,), setting=lambda name: (_ for _ in ()).throw(KeyError(name))
    )
    (pair,) = compare(card, report).pairs
    expected = report.groups[0].tpr_at_fpr[1]
    assert expected.fpr == 0.01 and pair.lower == expected.tpr_lo


def test_reconstruction_success_compared_when_priors_match():
    rng = np.random.default_rng(1)
    hits = (rng.random(200) < 0.45).astype(int)
    report = audit({"hit": hits, "prior": np.full(200, 0.25)})
    c = compare(privrisk.explain(epsilon=1, prior=0.25, targets=200), report)
    beta = next(p for p in c.pairs if p.key == "reconstruction.beta")
    assert beta.comparable and beta.lower < hits.mean() < beta.upper
    q = next(p for p in c.pairs if p.key == "reconstruction.quantiles")
    assert q.lower == pytest.approx(beta.lower * 200)
    other = compare(privrisk.explain(epsilon=1, prior=0.1, targets=200), report)
    assert not any(p.comparable for p in other.pairs)
