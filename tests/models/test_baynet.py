"""BayNet learning and exact inference against brute-force enumeration and pgmpy."""

import itertools

import numpy as np
import pytest

from privrisk.models import baynet as bnm


def _random_net(seed=0):
    rng = np.random.default_rng(seed)
    doms = [3, 2, 4, 3, 2, 3]
    parents = [(), (0,), (0, 1), (1, 2), (2, 3), (0, 4)]
    cpts = [
        rng.dirichlet(np.full(doms[v], 0.7), size=tuple(doms[p] for p in parents[v]))
        for v in range(6)
    ]
    return bnm.BayesNet(doms, parents, cpts, list(range(6)))


def _joint(bn):
    allx = np.array(list(itertools.product(*[range(k) for k in bn.domains])))
    return allx, np.exp(bn.log_prob(allx))


@pytest.mark.parametrize("unknown", [[2], [5], [0, 3], [1, 2, 4], [3, 4, 5], list(range(6))])
def test_inference_matches_enumeration(unknown):
    bn = _random_net()
    allx, p = _joint(bn)
    assert np.isclose(p.sum(), 1.0)
    recs = bn.sample(9, np.random.default_rng(1))
    z, pz = bnm.conditional_map(bn, recs, unknown)
    known = [v for v in range(bn.d) if v not in unknown]
    for i, r in enumerate(recs):
        m = np.all(allx[:, known] == r[known], axis=1)
        post = p[m] / p[m].sum()
        assert pz[i] == pytest.approx(post.max(), rel=1e-10)
        assert post[np.all(allx[m][:, unknown] == z[i], axis=1)].item() == pytest.approx(
            post.max(), rel=1e-10
        )
        for t in unknown:
            ref = np.bincount(allx[m][:, t], weights=post, minlength=bn.domains[t])
            np.testing.assert_allclose(
                bnm.conditional_marginal(bn, recs[i : i + 1], unknown, t)[0], ref, atol=1e-12
            )


def test_inference_matches_pgmpy():
    pgmpy_models = pytest.importorskip("pgmpy.models")
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination

    bn = _random_net(3)
    names = [f"v{i}" for i in range(bn.d)]
    model = pgmpy_models.DiscreteBayesianNetwork(
        [(names[p], names[v]) for v in range(bn.d) for p in bn.parents[v]]
    )
    for v in range(bn.d):
        pa = bn.parents[v]
        values = (
            bn.cpts[v].reshape(-1, bn.domains[v]).T
        )  # pgmpy: columns = parent states, last fastest
        model.add_cpds(
            TabularCPD(
                names[v],
                bn.domains[v],
                values,
                evidence=[names[p] for p in pa] or None,
                evidence_card=[bn.domains[p] for p in pa] or None,
            )
        )
    assert model.check_model()
    ve = VariableElimination(model)
    rec = bn.sample(1, np.random.default_rng(4))
    unknown = [1, 3, 5]
    ev = {names[v]: int(rec[0, v]) for v in range(bn.d) if v not in unknown}
    for t in unknown:
        ref = ve.query([names[t]], evidence=ev, show_progress=False).values
        np.testing.assert_allclose(
            bnm.conditional_marginal(bn, rec, unknown, t)[0], ref, atol=1e-10
        )
    mp = ve.map_query([names[u] for u in unknown], evidence=ev, show_progress=False)
    z, _ = bnm.conditional_map(bn, rec, unknown)
    assert [mp[names[u]] for u in unknown] == z[0].tolist()


def test_greedy_learner_recovers_a_strong_structure():
    rng = np.random.default_rng(0)
    n = 20000
    a = rng.integers(0, 4, n)
    b = (a + (rng.random(n) < 0.1)) % 4  # b follows a
    c = (a + b + (rng.random(n) < 0.05)) % 3  # c follows (a, b)
    noise = rng.integers(0, 2, n)  # independent
    data = np.stack([a, b, c, noise], axis=1)
    bn = bnm.fit_greedy(data, [4, 4, 3, 2], degree=2, root=0)
    assert bn.order[:3] == [0, 1, 2] and set(bn.parents[2]) == {0, 1}
    assert all(len(p) <= 2 for p in bn.parents)
    # the CPTs are the empirical conditionals
    emp = np.mean(b[a == 2] == 2)
    assert bn.cpts[1][2, 2] == pytest.approx(emp)
    # round trip through flat arrays (the step files)
    bn2 = bnm.BayesNet.from_arrays(bn.to_arrays())
    np.testing.assert_array_equal(bn2.log_prob(data[:50]), bn.log_prob(data[:50]))


def test_sampling_follows_the_cpts():
    bn = _random_net(5)
    x = bn.sample(200_000, np.random.default_rng(0))
    freq = np.bincount(x[:, 0], minlength=3) / len(x)
    np.testing.assert_allclose(freq, bn.cpts[0], atol=0.005)
    sel = (x[:, 0] == 1) & (x[:, 1] == 0)
    np.testing.assert_allclose(
        np.bincount(x[sel, 2], minlength=4) / sel.sum(), bn.cpts[2][1, 0], atol=0.01
    )


def test_best_window_matches_brute_force():
    rng = np.random.default_rng(2)
    prob = rng.dirichlet(np.ones(10), size=20)
    for radius in (0, 1, 3, 9):
        z, mass = bnm.best_window(prob, radius)
        brute = np.array(
            [
                [prob[i, max(0, c - radius) : c + radius + 1].sum() for c in range(10)]
                for i in range(20)
            ]
        )
        np.testing.assert_allclose(mass, brute.max(axis=1))
        np.testing.assert_allclose(brute[np.arange(20), z], brute.max(axis=1))
    assert np.allclose(bnm.best_window(prob, 9)[1], 1.0)
    np.testing.assert_array_equal(bnm.best_window(prob, 0)[0], prob.argmax(axis=1))


def test_bad_queries_raise():
    bn = _random_net()
    recs = bn.sample(2, np.random.default_rng(0))
    with pytest.raises(ValueError):
        bnm.conditional_map(bn, recs, [0, 0])
    with pytest.raises(ValueError):
        bnm.conditional_marginal(bn, recs, [1], 2)
