"""The informed attacker's ceiling: the Gibbs posterior attack against brute-force enumeration on
a tiny network, the enumeration against a direct formula, ε = ∞, and the ceiling against the prior
and the revealed-others bound in simulation."""

import math

import numpy as np
import pytest

from privrisk import accounting
from privrisk.attacks import posterior as po
from privrisk.bounds import reconstruction as rb
from privrisk.mechanisms import marginals as mm
from privrisk.models import baynet as bnm


def _tiny_net(seed=0):
    rng = np.random.default_rng(seed)
    doms = [3, 2, 3, 2, 3]
    parents = [(), (0,), (0, 1), (2,), (1, 3)]
    cpts = [
        rng.dirichlet(np.full(doms[v], 0.8), size=tuple(doms[p] for p in parents[v]))
        for v in range(5)
    ]
    return bnm.BayesNet(doms, parents, cpts, list(range(5)))


def _problems(bn, unknown, n, b, seed, eps=2.0):
    rng = np.random.default_rng(seed)
    recs, noisy = [], []
    for _ in range(b):
        x = bn.sample(n, rng)
        lay, nz, _ = mm.release(x, bn.domains, unknown, epsilon=eps, delta=1e-5, rng=rng)
        recs.append(x)
        noisy.append(nz)
    return np.stack(recs), lay, np.stack(noisy)


def test_enumeration_equals_the_posterior_written_out_for_one_record():
    bn = _tiny_net()
    recs, lay, noisy = _problems(bn, [2], 1, 1, seed=0)
    sigma = 8.0
    res = po.enumerate_posterior(bn, recs, [2], lay, noisy, noise_std=sigma)
    # one record: P(v | a) ∝ P(record with v) · exp(−‖C(v) − a·n‖² / 2σ²)
    logw = []
    for v in range(3):
        x = recs[0].copy()
        x[0, 2] = v
        c = mm.marginal_counts(x, bn.domains, lay)
        logw.append(bn.log_prob(x)[0] - ((c - noisy[0]) ** 2).sum() / (2 * sigma**2))
    w = np.exp(np.array(logw) - max(logw))
    w /= w.sum()
    assert w.min() > 1e-3  # every value keeps some mass: the check is not degenerate
    np.testing.assert_allclose(res.probs[0][0, 0], w, rtol=1e-9)
    assert res.guess[0, 0, 0] == w.argmax() and res.mass[0, 0] == pytest.approx(w.max())


@pytest.mark.parametrize(
    ("unknown", "n", "sigma", "tol"),
    [([2], 6, 3.0, 0.01), ([1, 4], 4, 3.0, 0.03), ([1, 4], 4, 5.0, 0.02)],
)
def test_gibbs_matches_brute_force_enumeration(unknown, n, sigma, tol):
    """The ceiling attack against the exact posterior of every assignment of the unknown cells:
    Rao–Blackwellised marginals within Monte Carlo error, and every guess (nearly) the exact
    posterior's best (its exact mass within the tolerance of the maximum)."""
    bn = _tiny_net()
    recs, lay, noisy = _problems(bn, unknown, n, 3, seed=1)
    exact = po.enumerate_posterior(bn, recs, unknown, lay, noisy, noise_std=sigma)
    gibbs = po.posterior_attack(
        bn,
        recs,
        unknown,
        lay,
        noisy,
        noise_std=sigma,
        sweeps=3000,
        burn_in=100,
        chains=4,
        rng=np.random.default_rng(0),
        max_states=1,  # force the sampler
    )
    assert gibbs.method == "gibbs" and exact.method == "enumeration"
    for j in range(len(unknown)):
        np.testing.assert_allclose(gibbs.probs[j], exact.probs[j], atol=tol)
    # the exact posterior mass of each Gibbs guess is (nearly) the largest
    doms = [bn.domains[u] for u in unknown]
    joint = exact.info["joint"]
    got = np.take_along_axis(joint, po._codes(gibbs.guess, doms)[..., None], axis=2)[..., 0]
    assert (got >= joint.max(axis=2) - tol).all()


def test_one_column_field_and_block_samplers_agree():
    """The fast one-column sampler (fixed linear term minus the other records' field) and the
    block sampler (the residual gathered per group of marginals) draw from the same conditionals:
    same uniforms, same chain, same Rao–Blackwellised marginals."""
    bn = _tiny_net(3)
    recs, lay, noisy = _problems(bn, [2], 12, 2, seed=4)
    out = []
    for path in (po._gibbs_one_column, po._gibbs_blocks):
        x = recs.copy()
        z0, _ = bnm.conditional_map(bn, x.reshape(-1, 5), [2])
        x[:, :, 2] = z0.reshape(2, 12)
        acc = np.zeros((2, 12, 3))
        prec = po._precisions(2.0, 30, 5, 1.0)
        rng = np.random.default_rng(7)
        if path is po._gibbs_one_column:
            path(bn, x, 2, lay, noisy * 12, prec, 5, [acc], rng)
        else:
            path(bn, x, [2], lay, noisy * 12, prec, 5, acc, rng)
        out.append((x, acc))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-9, atol=1e-12)


def test_too_many_joint_values_are_refused():
    bn = _tiny_net()
    recs, lay, noisy = _problems(bn, [0, 2, 4], 5, 1, seed=0)
    with pytest.raises(ValueError, match="max_tuples"):
        po.posterior_attack(
            bn,
            recs,
            [0, 2, 4],
            lay,
            noisy,
            noise_std=1.0,
            sweeps=2,
            burn_in=1,
            chains=1,
            rng=np.random.default_rng(0),
            max_tuples=10,
            max_states=1,
        )


def test_exact_release_guess_counts_each_groups_majority():
    lay = mm.layout([2, 2, 3], mm.workload(3, [2]))  # one marginal (0, 1, 2)
    x = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 2], [1, 0, 0], [1, 1, 2]])
    guess, mass, und = po.exact_release_guess(x[None], [2], lay)
    np.testing.assert_array_equal(guess[0, :, 0], [1, 1, 1, 0, 2])
    np.testing.assert_allclose(mass[0], [2 / 3, 2 / 3, 2 / 3, 1, 1])
    assert po.exact_success(x[None], [2], guess)[0] == 4 and und[0] == 0
    with pytest.raises(ValueError, match="one unknown column"):
        po.exact_release_guess(x[None], [1, 2], mm.layout([2, 2, 3], mm.workload(3, [1, 2])))


def test_ceiling_beats_the_prior_and_respects_the_revealed_bound_in_simulation():
    """Over fresh (sample, noise) draws the Bayes attack recovers at least the prior's MAP guess
    on average, and no more than the bound with the other records revealed (one column)."""
    bn = _tiny_net(5)
    n, draws, eps = 40, 60, 1.0
    recs, lay, noisy = _problems(bn, [2], n, draws, seed=9, eps=eps)
    sigma = mm.noise_std(epsilon=eps, delta=1e-5, m=len(lay.triples))
    res = po.posterior_attack(
        bn,
        recs,
        [2],
        lay,
        noisy,
        noise_std=sigma,
        sweeps=40,
        burn_in=10,
        chains=2,
        rng=np.random.default_rng(0),
    )
    flat = recs.reshape(-1, 5)
    z, _ = bnm.conditional_map(bn, flat, [2])
    prior_ok = (z.reshape(draws, n) == recs[:, :, 2]).sum(axis=1)
    post_ok = po.exact_success(recs, [2], res.guess)
    gain = post_ok - prior_ok
    assert gain.mean() > -2 * gain.std(ddof=1) / math.sqrt(draws)
    mu = accounting.gdp_mu(epsilon=eps, delta=1e-5)
    p = bnm.conditional_marginal(bn, flat, [2], 2)
    bound = rb.bayes_success_revealed(mu=mu, p=p).reshape(draws, n).sum(axis=1)
    assert post_ok.mean() <= bound.mean() + 2 * post_ok.std(ddof=1) / math.sqrt(draws)


def test_twin_records_are_permuted_and_bad_input_is_refused():
    x = np.array([[[0, 1], [0, 2], [1, 0]]])
    groups = po._twin_groups(x, [0])
    assert [(e, m.tolist()) for e, m in groups] == [(0, [0, 1])]
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = x.copy()
        po._permute_twins(y, groups, [1], rng)
        seen.add(tuple(y[0, :2, 1]))
        assert y[0, 2, 1] == 0
    assert seen == {(1, 2), (2, 1)}
    bn = _tiny_net()
    recs, lay, noisy = _problems(bn, [2], 5, 1, seed=0)
    with pytest.raises(ValueError, match="noisy marginals"):
        po.posterior_attack(
            bn,
            recs,
            [2],
            lay,
            noisy[:, :-1],
            noise_std=1.0,
            sweeps=2,
            burn_in=1,
            chains=1,
            rng=np.random.default_rng(0),
        )
    with pytest.raises(ValueError, match="sweeps > burn_in"):
        po.posterior_attack(
            bn,
            recs,
            [2],
            lay,
            noisy,
            noise_std=1.0,
            sweeps=2,
            burn_in=2,
            chains=1,
            rng=np.random.default_rng(0),
            max_states=1,
        )
