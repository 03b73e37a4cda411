"""Noisy 3-way marginals (sensitivity, calibration) and the RAP-based M-AI attack."""

import math

import numpy as np
import pytest
import torch

from privrisk import accounting
from privrisk.attacks import rap, rap_gram
from privrisk.data import acs, fire
from privrisk.mechanisms import marginals as mm

# spec §2.10: m = C(d,3) - C(d-d',3) for ACS (d = 16) and FIRE (d = 10)
M_ACS = [105, 196, 274, 340, 395, 440, 476, 504, 525, 540, 550, 556, 559]
M_FIRE = [36, 64, 85, 100, 110, 116, 119]


def test_workload_sizes_match_the_spec():
    for k, m in enumerate(M_ACS, start=1):
        assert mm.n_marginals(16, k) == m == len(mm.workload(16, list(range(16 - k, 16))))
    for k, m in enumerate(M_FIRE, start=1):
        assert mm.n_marginals(10, k) == m == len(mm.workload(10, list(range(k))))
    assert all(3 in t for t in mm.workload(16, [3]))


@pytest.mark.parametrize(
    "eps, m, sigma",
    [(1.0, 105, 54.06), (1.0, 36, 31.66), (3.0, 559, 46.50), (3.0, 119, 21.45)],  # spec §2.10
)
def test_noise_std_matches_spec_and_accountant(eps, m, sigma):
    s = mm.noise_std(epsilon=eps, delta=1e-5, m=m)
    assert s == pytest.approx(sigma, abs=0.01)
    # The whole release (L2 sensitivity sqrt(2m)) is mu-GDP with mu = sqrt(2m)/s, which the
    # accountant maps back to exactly (eps, 1e-5).
    assert accounting.gaussian_delta(epsilon=eps, mu=math.sqrt(2 * m) / s) == pytest.approx(
        1e-5, rel=1e-6
    )
    assert mm.noise_std(epsilon=math.inf, delta=1e-5, m=m) == 0.0


def test_marginal_sensitivity_is_sqrt2_per_marginal():
    rng = np.random.default_rng(0)
    domains = [3, 4, 2, 5, 3]
    x = np.stack([rng.integers(0, k, 30) for k in domains], axis=1)
    lay = mm.layout(domains, mm.workload(5, [1, 3]))
    m = len(lay.triples)
    base = mm.marginal_counts(x, domains, lay)
    assert base.sum() == 30 * m
    worst = 0.0
    for _ in range(200):
        y = x.copy()
        y[rng.integers(30)] = [rng.integers(0, k) for k in domains]
        worst = max(worst, np.linalg.norm(mm.marginal_counts(y, domains, lay) - base))
        assert worst <= math.sqrt(2 * m) + 1e-12
    y = x.copy()
    y[0] = (x[0] + 1) % np.asarray(domains)  # differs in every column: every marginal moves
    assert np.linalg.norm(mm.marginal_counts(y, domains, lay) - base) == pytest.approx(
        math.sqrt(2 * m)
    )


def test_marginal_counts_match_a_direct_count():
    rng = np.random.default_rng(1)
    domains = [2, 3, 4, 2]
    x = np.stack([rng.integers(0, k, 50) for k in domains], axis=1)
    lay = mm.layout(domains, mm.workload(4, [2]))
    q = mm.marginal_counts(x, domains, lay)
    for ti, t in enumerate(lay.triples):
        block = q[lay.offsets[ti] : lay.offsets[ti + 1]].reshape([domains[c] for c in t])
        direct = np.zeros(block.shape)
        np.add.at(direct, tuple(x[:, c] for c in t), 1)
        np.testing.assert_array_equal(block, direct)


def test_release_noise_has_the_calibrated_scale():
    rng = np.random.default_rng(2)
    domains = acs.DOMAINS
    x = np.stack([rng.integers(0, k, 100) for k in domains], axis=1)
    lay, noisy, sigma = mm.release(x, domains, [6], epsilon=1.0, delta=1e-5, rng=rng)
    resid = noisy * 100 - mm.marginal_counts(x, domains, lay)
    assert len(lay.triples) == 105 and resid.std() == pytest.approx(sigma, rel=0.03)
    _, exact, s0 = mm.release(x, domains, [6], epsilon=math.inf, delta=1e-5, rng=rng)
    assert s0 == 0.0 and np.array_equal(exact * 100, mm.marginal_counts(x, domains, lay))


@pytest.mark.parametrize("unknown", [[0], [1, 3], [0, 2, 4], [0, 1, 2, 3, 4]])
def test_relaxed_marginals_are_exact_on_one_hot_rows(unknown):
    rng = np.random.default_rng(3)
    domains = [3, 4, 2, 5, 3]
    x = np.stack([rng.integers(0, k, 20) for k in domains], axis=1)
    lay = mm.layout(domains, mm.workload(5, unknown))
    feat, cell, dense, dense_idx = rap._index_plan(x, domains, unknown, lay)
    plan = (torch.from_numpy(feat), torch.from_numpy(cell), dense, torch.from_numpy(dense_idx))
    onehot = [
        torch.nn.functional.one_hot(torch.from_numpy(x[:, u]), domains[u]).double() for u in unknown
    ]
    q = rap.relaxed_marginals(onehot, plan, lay.n_cells).numpy()
    np.testing.assert_allclose(q, mm.marginal_counts(x, domains, lay) / 20, atol=1e-12)


def test_exact_marginals_let_the_attack_recover_every_determined_record():
    torch.manual_seed(0)
    rng = np.random.default_rng(4)
    n = 40
    # Known columns 0 and 1 jointly identify each record, so the exact (0, 1, 3) marginal
    # determines every record's unknown column 3.
    ids = rng.permutation(n)
    x = np.stack([ids % 8, ids // 8, rng.integers(0, 3, n), rng.integers(0, 4, n)], axis=1)
    domains = [8, 5, 3, 4]
    lay, exact, sigma = mm.release(x, domains, [3], epsilon=math.inf, delta=1e-5, rng=rng)
    init = [np.full((n, 4), 0.25)]
    res = rap.rap_attack(x, domains, [3], lay, exact, init, steps=300, lr=0.1, noise_std=sigma)
    assert (res.guess[:, 0] == x[:, 3]).all()
    # With no marginals' information (pure noise, huge sigma) the attack cannot do this.
    lay, noisy, sigma = mm.release(x, domains, [3], epsilon=0.01, delta=1e-5, rng=rng)
    res = rap.rap_attack(x, domains, [3], lay, noisy, init, steps=300, lr=0.1, noise_std=sigma)
    assert (res.guess[:, 0] == x[:, 3]).mean() < 0.8


def test_prior_term_vanishes_without_noise_and_attack_input_checks():
    rng = np.random.default_rng(5)
    domains = [3, 3, 3, 2]
    x = np.stack([rng.integers(0, k, 15) for k in domains], axis=1)
    lay, exact, _ = mm.release(x, domains, [3], epsilon=math.inf, delta=1e-5, rng=rng)
    init = [rng.dirichlet(np.ones(2), size=15)]
    a = rap.rap_attack(x, domains, [3], lay, exact, init, steps=30, prior_weight=0.0)
    b = rap.rap_attack(x, domains, [3], lay, exact, init, steps=30, prior_weight=1.0)
    np.testing.assert_allclose(a.probs[0], b.probs[0])
    with pytest.raises(ValueError, match="shape"):
        rap.rap_attack(x, domains, [3], lay, exact[:-1], init, steps=1)
    with pytest.raises(ValueError, match="initial"):
        rap.rap_attack(x, domains, [3], lay, exact, [], steps=1)


def test_fire_domains_fit_the_layout():
    lay = mm.layout(fire.DOMAINS, mm.workload(10, [7]))
    assert len(lay.triples) == 36 and lay.n_cells == 20586


@pytest.mark.parametrize("unknown", [[2], [1, 4], [4, 0, 2, 5]])
def test_batched_attack_equals_one_at_a_time(unknown):
    """Draws × settings × variants as one tensor computation give, element by element, the
    one-at-a-time attack (torch.optim.Adam / SGD on the scatter objective) on the same inputs."""
    rng = np.random.default_rng(7)
    domains = [3, 4, 2, 5, 3, 4]
    b, n = 5, 25
    recs = np.stack([np.stack([rng.integers(0, k, n) for k in domains], axis=1) for _ in range(b)])
    noisy = []
    for i in range(b):
        lay, nz, sigma = mm.release(recs[i], domains, unknown, epsilon=2.0, delta=1e-5, rng=rng)
        noisy.append(nz)
    noisy = np.stack(noisy)
    init = [rng.dirichlet(np.ones(domains[u]), size=(b, n)) for u in unknown]
    opts, lrs, lams = (
        ["adam", "adam", "sgd", "sgd", "adam"],
        [0.1, 0.02, 3.0, 30.0, 0.5],
        [0, 1, 0, 1, 0],
    )
    ckpts = [0, 4, 15]
    res = rap.rap_attack_batch(
        recs,
        domains,
        unknown,
        lay,
        noisy,
        init,
        checkpoints=ckpts,
        lr=lrs,
        optimiser=opts,
        noise_std=sigma,
        prior_weight=lams,
        dtype=torch.float64,
    )
    assert res.guess.shape == (3, b, n, len(unknown)) and res.loss.shape == (3, b)
    for i in range(b):
        for ci, steps in enumerate(ckpts):
            one = rap.rap_attack(
                recs[i],
                domains,
                unknown,
                lay,
                noisy[i],
                [p[i] for p in init],
                steps=steps,
                lr=lrs[i],
                optimiser=opts[i],
                noise_std=sigma,
                prior_weight=lams[i],
                dtype=torch.float64,
            )
            np.testing.assert_array_equal(one.guess, res.guess[ci, i])
            for j in range(len(unknown)):
                np.testing.assert_allclose(one.probs[j], res.probs[j][ci, i], atol=1e-10)


@pytest.mark.parametrize("unknown", [[2], [0, 2, 3], [4, 0, 1, 3], [0, 1, 2, 3, 4]])
def test_gram_objective_equals_the_scatter_objective(unknown):
    """The fused Gram form (singles, pair groups, one GEMM per closing column) equals the
    per-marginal scatter objective, including unsorted unknown columns and no known column."""
    rng = np.random.default_rng(8)
    domains = [3, 4, 2, 5, 3]
    x = np.stack([rng.integers(0, k, 20) for k in domains], axis=1)
    lay, noisy, _ = mm.release(x, domains, unknown, epsilon=1.0, delta=1e-5, rng=rng)
    probs = [torch.as_tensor(rng.dirichlet(np.ones(domains[u]), size=20)) for u in unknown]
    feat, cell, dense, dense_idx = rap._index_plan(x, domains, unknown, lay)
    plan = (torch.from_numpy(feat), torch.from_numpy(cell), dense, torch.from_numpy(dense_idx))
    scatter = float(
        ((rap.relaxed_marginals(probs, plan, lay.n_cells) - torch.as_tensor(noisy)) ** 2).sum()
    )
    gplan = rap_gram.gram_plan(x[None], domains, unknown, lay, noisy[None])
    gram = float(rap_gram.gram_loss([p[None] for p in probs], gplan)[0])
    assert gram == pytest.approx(scatter, rel=1e-10)


def test_batched_attack_input_checks():
    domains = [2, 2, 2, 2]
    x = np.zeros((2, 5, 4), dtype=int)
    lay = mm.layout(domains, mm.workload(4, [3]))
    init = [np.full((2, 5, 2), 0.5)]
    with pytest.raises(ValueError, match="optimiser"):
        rap.rap_attack_batch(
            x,
            domains,
            [3],
            lay,
            np.zeros((2, lay.n_cells)),
            init,
            checkpoints=[1],
            lr=0.1,
            optimiser="lbfgs",
        )
    with pytest.raises(ValueError, match="noisy"):
        rap.rap_attack_batch(
            x, domains, [3], lay, np.zeros((3, lay.n_cells)), init, checkpoints=[1], lr=0.1
        )
    with pytest.raises(ValueError, match="lr"):
        rap.rap_attack_batch(
            x, domains, [3], lay, np.zeros((2, lay.n_cells)), init, checkpoints=[1], lr=[0.1] * 3
        )
