"""PMP of finite-output mechanisms (privrisk.bounds.pmp): Proposition 5, Corollary 4, Lemma 6/13."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import special

from privrisk.bounds import pmp


def test_subsets_membership_matrix():
    m = pmp.subsets(12, 6)
    assert m.shape == (924, 12)
    assert np.all(m.sum(axis=1) == 6)
    assert len({tuple(r) for r in m}) == 924
    # every point is in exactly half of the subsets: N = C(11, 5) = 462
    assert np.all(m.sum(axis=0) == 462)
    with pytest.raises(ValueError):
        pmp.subsets(3, 4)


def test_prop5_sum_mod_6_is_exactly_ln2_and_not_dp():
    log_p, mem = pmp.sum_mod_mechanism(3)
    assert pmp.pmp_epsilon(log_p, mem) == pytest.approx(math.log(2), abs=1e-14)
    assert pmp.dp_epsilon_restricted(log_p, mem) == math.inf
    # Independent count: for x = 0, the outputs of halves with / without 0.
    counts_in = np.zeros(6)
    counts_out = np.zeros(6)
    for d in itertools.combinations(range(6), 3):
        (counts_in if 0 in d else counts_out)[sum(d) % 6] += 1
    assert counts_in.max() == 2 and counts_out.min() == 1


def test_prop5_n6_extension_below_ln_40_37():
    log_p, mem = pmp.sum_mod_mechanism(6)
    eps = pmp.pmp_epsilon(log_p, mem)
    assert eps == pytest.approx(math.log(38 / 37), abs=1e-12)
    assert eps < math.log(40 / 37) < 0.08


def _random_mechanism(rng, n, m, trials=4, temp=2.0):
    logits = temp * rng.standard_normal((trials, math.comb(2 * n, n), m))
    return logits - special.logsumexp(logits, axis=-1, keepdims=True), pmp.subsets(2 * n, n)


def _pmp_by_loops(log_p, mem):
    """Definition 2 with δ = 0 by explicit sums over the subsets (slow, independent)."""
    p = np.exp(log_p)
    best = 0.0
    for x in range(mem.shape[1]):
        p_in = sum(p[s] for s in range(mem.shape[0]) if mem[s, x])
        p_out = sum(p[s] for s in range(mem.shape[0]) if not mem[s, x])
        best = max(best, np.max(np.abs(np.log(p_in) - np.log(p_out))))
    return best


def test_pmp_epsilon_matches_explicit_sums():
    rng = np.random.default_rng(1)
    log_p, mem = _random_mechanism(rng, n=3, m=5, trials=3)
    ours = pmp.pmp_epsilon(log_p, mem)
    for t in range(3):
        assert ours[t] == pytest.approx(_pmp_by_loops(log_p[t], mem), rel=1e-12)


def test_corollary4_n1_pmp_equals_dp():
    # n = 1: X = {a, b}, D = {a} or {b}: PMP w.r.t. X is the DP parameter between the two.
    rng = np.random.default_rng(2)
    log_p, mem = _random_mechanism(rng, n=1, m=7, trials=20)
    assert mem.shape == (2, 2)
    np.testing.assert_allclose(
        pmp.pmp_epsilon(log_p, mem), pmp.dp_epsilon_restricted(log_p, mem), rtol=1e-13
    )
    direct = np.max(np.abs(log_p[:, 0] - log_p[:, 1]), axis=-1)
    np.testing.assert_allclose(pmp.pmp_epsilon(log_p, mem), direct, rtol=1e-13)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_prop5a_pmp_never_exceeds_dp_within_x(n):
    rng = np.random.default_rng(n)
    log_p, mem = _random_mechanism(rng, n=n, m=6, trials=10)
    assert np.all(pmp.pmp_epsilon(log_p, mem) <= pmp.dp_epsilon_restricted(log_p, mem) + 1e-12)
    # and the one-sided (Prop. 9 as printed) version never exceeds the two-sided one
    assert np.all(
        pmp.pmp_epsilon(log_p, mem, two_sided=False) <= pmp.pmp_epsilon(log_p, mem) + 1e-15
    )


def test_identical_distributions_give_zero_and_extreme_logs_stay_finite():
    mem = pmp.subsets(6, 3)
    same = np.tile(np.log(np.array([0.2, 0.3, 0.5])), (20, 1))
    assert pmp.pmp_epsilon(same, mem) == 0.0
    # log-probabilities near -700 (β ≈ 500 in Figure 1) must not underflow to 0/0.
    rng = np.random.default_rng(0)
    logits = -700 + rng.standard_normal((20, 3))
    logits[:, 0] = 0.0
    lp = logits - special.logsumexp(logits, axis=-1, keepdims=True)
    eps = pmp.pmp_epsilon(lp, mem)
    assert np.isfinite(eps) and eps > 0


def test_success_and_mip_maps():
    assert pmp.success_bound(eps_tilde=0.0) == 0.5
    assert pmp.success_bound(eps_tilde=math.inf) == 1.0
    assert pmp.success_bound(eps_tilde=0.1) == pytest.approx(1 / (1 + math.exp(-0.1)), rel=1e-14)
    # the paper's "≈ 0.53"
    assert pmp.success_bound(eps_tilde=0.123) == pytest.approx(0.5307, abs=1e-4)
    assert pmp.mip_eta(eps_tilde=0.0) == 0.0
    assert pmp.mip_eta(eps_tilde=math.inf) == 0.5
    assert pmp.mip_eta(eps_tilde=1e-12) == pytest.approx(0.5e-12, rel=1e-9)
