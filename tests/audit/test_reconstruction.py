"""Reconstruction audits against Swanberg et al.'s Theorem 3.5."""

from __future__ import annotations

import numpy as np
import pytest

from privrisk.audit import reconstruction as rec
from privrisk.bounds import reconstruction as rb


@pytest.mark.parametrize("delta", [0.0, 1e-3, 0.02])
def test_tail_at_one_point_equals_the_projects_theorem_3_5(delta):
    rng = np.random.default_rng(0)
    priors = rng.uniform(0.05, 0.9, 60)
    full = rb.bound_tail_multi(rb.beta_multi(epsilon=1.3, p=priors), delta=delta)
    for v in (0, 1, 20, 35, 59, 60):
        assert rec.tail_at(v, priors, epsilon=1.3, delta=delta) == pytest.approx(full[v], abs=1e-12)


def test_null_hits_give_epsilon_lower_zero_in_95_percent():
    rng = np.random.default_rng(1)
    priors = rng.uniform(0.1, 0.6, 200)
    zero = 0
    trials = 400
    hits = (rng.random((trials, priors.size)) < priors).sum(axis=1)  # ε = 0: hits at the prior
    for h in hits:
        zero += rec.epsilon_lower(int(h), priors, delta=0.0, confidence=0.95) == 0
    assert zero / trials >= 0.95


def test_epsilon_lower_is_where_the_tail_crosses_alpha():
    priors = np.full(100, 0.25)
    e = rec.epsilon_lower(60, priors, delta=0.0, confidence=0.95)
    assert 0 < e < 2
    assert rec.tail_at(60, priors, epsilon=e - 1e-6, delta=0.0) <= 0.05
    assert rec.tail_at(60, priors, epsilon=e + 1e-3, delta=0.0) > 0.05
    # the paper's example: β = 0.7758 for n = 100 → 84 successes at 95 %: 85 refute that ε
    p = 0.5
    eps = float(np.log(0.7758 / (1 - 0.7758)) - np.log(p / (1 - p)))
    assert rec.tail_at(85, np.full(100, p), epsilon=eps, delta=0.0) <= 0.05
    assert rec.tail_at(84, np.full(100, p), epsilon=eps, delta=0.0) > 0.05
