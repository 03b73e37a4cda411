"""Batched one-example DP-SGD (privrisk.training.dpsgd): equality with opacus, calibration, noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from privrisk import accounting
from privrisk.models import ngram
from privrisk.training import dpsgd

torch.set_num_threads(1)


def _setup(m=5, vocab=10, hidden=6, seed=3):
    prior = np.random.default_rng(seed).dirichlet(np.ones(vocab), size=m) + 1e-3
    prior /= prior.sum(1, keepdims=True)
    h, init = ngram.lazy_setup(
        prior, [1, 2, 3], embedding_dim=4, hidden=hidden, seed=seed, dtype=torch.float64
    )
    return prior, h, init


def test_batched_equals_opacus_per_model_on_same_noise():
    m, steps = 5, 4
    prior, h, init = _setup(m)
    targets = torch.tensor([0, 3, 9, 5, 1])
    # per-model hyperparameters: clipping active (C = 0.05) and inactive (C = 50), no noise, strong noise
    clip = torch.tensor([0.05, 50.0, 1.0, 0.3, 2.0], dtype=torch.float64)
    lr = torch.tensor([0.5, 0.1, 1.0, 0.2, 0.05], dtype=torch.float64)
    sigma = torch.tensor([1.3, 0.7, 0.0, 4.0, 2.2], dtype=torch.float64)
    gen = torch.Generator().manual_seed(11)
    noise = {
        (t, k): torch.randn(v.shape, generator=gen, dtype=torch.float64)
        for t in range(steps)
        for k, v in init.items()
    }
    out = dpsgd.batched_dpsgd(
        init,
        lambda p: ngram.lazy_loss(p, h, targets),
        steps=steps,
        lr=lr,
        clip=clip,
        noise_multiplier=sigma,
        noise_fn=lambda t, k, shape: noise[(t, k)],
    )
    for i in range(m):
        lin = torch.nn.Linear(h.numel(), prior.shape[1]).double()
        with torch.no_grad():
            lin.weight.copy_(init["weight"][i])
            lin.bias.copy_(init["bias"][i])
        noises = [[noise[(t, "weight")][i], noise[(t, "bias")][i]] for t in range(steps)]
        ref = dpsgd.opacus_reference_train(
            lin,
            h[None],
            targets[i : i + 1],
            steps=steps,
            lr=float(lr[i]),
            clip=float(clip[i]),
            noise_multiplier=float(sigma[i]),
            noises=noises,
        )
        torch.testing.assert_close(out["weight"][i], ref.weight.detach(), rtol=1e-10, atol=1e-10)
        torch.testing.assert_close(out["bias"][i], ref.bias.detach(), rtol=1e-10, atol=1e-10)
    # the updates really moved the parameters (a vacuous comparison would pass otherwise)
    assert float((out["bias"] - init["bias"]).abs().min(1).values.max()) > 1e-3


def test_clipping_bounds_each_models_update_without_noise():
    prior, h, init = _setup(200, seed=5)
    targets = torch.as_tensor(np.random.default_rng(0).integers(0, 10, 200))
    clip, lr = 0.01, 1.0
    out = dpsgd.batched_dpsgd(
        init,
        lambda p: ngram.lazy_loss(p, h, targets),
        steps=1,
        lr=lr,
        clip=clip,
        noise_multiplier=0.0,
    )
    norms = torch.sqrt(
        ((out["weight"] - init["weight"]) ** 2).sum((1, 2))
        + ((out["bias"] - init["bias"]) ** 2).sum(1)
    )
    assert float(norms.max()) <= lr * clip * (1 + 1e-9)
    assert (
        float(norms.min()) > 0.99 * lr * clip
    )  # gradients are far larger than C: every model clipped


def test_noise_scale_and_independence_across_models():
    m = 4000
    params = {"w": torch.zeros(m, 3, dtype=torch.float64)}
    gen = torch.Generator().manual_seed(0)
    lr, clip, sigma = 0.5, 2.0, 3.0
    out = dpsgd.batched_dpsgd(
        params,
        lambda p: (p["w"] * 0).sum(1),
        steps=1,
        lr=lr,
        clip=clip,
        noise_multiplier=sigma,
        generator=gen,
    )["w"].numpy()
    assert out.std() == pytest.approx(lr * sigma * clip, rel=0.03)
    corr = np.corrcoef(out[: m // 2, 0], out[m // 2 :, 0])[0, 1]
    assert abs(corr) < 0.08


def test_active_steps_freeze_finished_models():
    prior, h, init = _setup(3)
    tgt = torch.tensor([1, 2, 3])
    loss = lambda p: ngram.lazy_loss(p, h, tgt)  # noqa: E731
    a = dpsgd.batched_dpsgd(
        init,
        loss,
        steps=5,
        lr=0.3,
        clip=1.0,
        noise_multiplier=0.0,
        active_steps=torch.tensor([1, 5, 0]),
    )
    b1 = dpsgd.batched_dpsgd(init, loss, steps=1, lr=0.3, clip=1.0, noise_multiplier=0.0)
    b5 = dpsgd.batched_dpsgd(init, loss, steps=5, lr=0.3, clip=1.0, noise_multiplier=0.0)
    torch.testing.assert_close(a["bias"][0], b1["bias"][0])
    torch.testing.assert_close(a["bias"][1], b5["bias"][1])
    torch.testing.assert_close(a["bias"][2], init["bias"][2])


@pytest.mark.parametrize("eps,steps", [(1.0, 1), (1.0, 16), (4.0, 4), (10.0, 25)])
def test_calibration_matches_dp_accounting_pld(eps, steps):
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    delta = 1e-5
    sigma = dpsgd.full_batch_noise_multiplier(eps, delta, steps, "replace_one")
    # replace-one: sensitivity 2C per step, i.e. a Gaussian with noise multiplier σ/2 at sensitivity 1
    acc = PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(sigma / 2), steps))
    assert acc.get_epsilon(delta) == pytest.approx(eps, rel=5e-3)
    # add/remove needs half the noise; the exact GDP curve meets δ at ε
    assert dpsgd.full_batch_noise_multiplier(eps, delta, steps, "add_remove") == pytest.approx(
        sigma / 2
    )
    mu = dpsgd.full_batch_mu(sigma, steps)
    assert accounting.gaussian_delta(epsilon=eps, mu=mu) == pytest.approx(delta, rel=1e-6)


def test_calibration_matches_opacus_prv_accountant():
    from opacus.accountants import PRVAccountant

    eps, delta, steps = 2.0, 1e-5, 8
    sigma = dpsgd.full_batch_noise_multiplier(eps, delta, steps, "add_remove")
    acc = PRVAccountant()
    acc.history = [(sigma, 1.0, steps)]
    assert acc.get_epsilon(delta=delta) == pytest.approx(eps, rel=2e-2)


def test_calibration_edges_and_errors():
    assert dpsgd.full_batch_noise_multiplier(math.inf, 1e-5, 3) == 0.0
    assert math.isinf(dpsgd.full_batch_mu(0.0, 3))
    with pytest.raises(ValueError, match="adjacency"):
        dpsgd.full_batch_noise_multiplier(1.0, 1e-5, 3, "swap")
    with pytest.raises(ValueError, match="steps"):
        dpsgd.full_batch_noise_multiplier(1.0, 1e-5, 0)
