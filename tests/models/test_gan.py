"""GAN building blocks of xu2022: architectures (spec §7.4 parameter counts), gradient penalty,
checkpoints (weights_only), DP-cGAN accounting and per-sample clipping, and runs trained as one
batched computation equal to the same runs trained alone (the pipeline run is in tests/papers/xu2022)."""

import numpy as np
import pytest
import torch

from privrisk import accounting
from privrisk.models import gan


def n_params(m):
    return sum(p.numel() for p in m.parameters())


def test_paper_mnist_architecture_parameter_counts():
    # spec §7.4 [DERIVED]: E.1 G has 1,643,280 parameters and D 2,788,353
    g, d = gan.build(
        "mlp", {"z_dim": 100, "g_hidden": [512, 512, 1024], "d_hidden": [2048, 512, 256]}, (784,)
    )
    assert n_params(g) == 1_643_280 and n_params(d) == 2_788_353


def test_cifar_architecture_shapes():
    g, d = gan.build(
        "conv",
        {"z_dim": 100, "g_channels": [512, 128, 64, 32], "d_channels": [64, 128, 128, 256]},
        (3, 32, 32),
    )
    x = g(torch.randn(2, 100))
    assert x.shape == (2, 3, 32, 32)  # erratum E8 fixed: 2 → 4 → 8 → 16 → 32
    assert d(x).shape == (2,)
    assert abs(n_params(d) - 1.44e6) < 0.01e6  # spec: D ≈ 1.44 M parameters


def test_gradient_penalty_linear_critic():
    # D(x) = w·x has gradient w everywhere: penalty = (||w|| − 1)², per run
    w = torch.tensor([[3.0, 0.0, 4.0], [1.0, 0.0, 0.0]])  # two runs: penalties 16 and 0
    crit = lambda x: torch.einsum("rbi,ri->rb", x, w)  # noqa: E731
    gp = gan.gradient_penalty(crit, torch.randn(2, 5, 3), torch.randn(2, 5, 3), torch.rand(2, 5, 1))
    assert gp.tolist() == pytest.approx([16.0, 0.0])


def test_checkpoint_roundtrip_weights_only(tmp_path):
    g, d = gan.build("mlp", {"z_dim": 4, "g_hidden": [8], "d_hidden": [8]}, (6,))
    gan.save_checkpoint(tmp_path / "m.pt", generator=g, critic=d)
    g2, d2 = gan.build("mlp", {"z_dim": 4, "g_hidden": [8], "d_hidden": [8]}, (6,))
    gan.load_checkpoint(tmp_path / "m.pt", generator=g2, critic=d2)
    x = torch.randn(3, 6)
    assert torch.equal(d(x), d2(x))
    with pytest.raises(KeyError):
        gan.load_checkpoint(tmp_path / "m.pt", other=g2)


def _mlp_gan(seed, z=2, dim=2, n_classes=0, hidden=(16,), out_act="tanh"):
    torch.manual_seed(seed)
    g = gan.MLPGenerator(z, list(hidden), dim, n_classes=n_classes, out_act=out_act)
    return g, gan.MLPCritic(dim, list(hidden), n_classes=n_classes)


def _flat(*modules):
    return torch.cat([p.detach().flatten() for m in modules for p in m.parameters()])


@pytest.mark.slow  # 1,200 critic steps: about 10 s on an idle core
def test_wgan_gp_learns_mean_shift():
    # a tiny WGAN-GP on a 2-d Gaussian moves its generator towards the data mean
    torch.manual_seed(0)
    x = torch.randn(1, 256, 2) * 0.1 + torch.tensor([2.0, -1.0])
    g, d = _mlp_gan(0)
    g.net[-1] = torch.nn.Identity()
    before = g(torch.randn(512, 2)).mean(0).detach()
    # 300 epochs of 4 critic batches, a generator step after every 5: 240 generator steps
    hist = gan.train_wgan_gp(x, [g], [d], seeds=[0], epochs=300, batch_size=64, lr=5e-3)
    after = g(torch.randn(512, 2)).mean(0).detach()
    target = torch.tensor([2.0, -1.0])
    assert hist.shape == (1, 300, 2)
    assert float((after - target).norm()) < 0.5 * float((before - target).norm())


def test_jsgan_learns_mean_shift():
    torch.manual_seed(0)
    x = torch.randn(1, 256, 2) * 0.1 + torch.tensor([2.0, -1.0])
    g, d = _mlp_gan(0)
    g.net[-1] = torch.nn.Identity()
    before = g(torch.randn(512, 2)).mean(0).detach()
    hist = gan.train_jsgan(x, [g], [d], seeds=[0], epochs=60, batch_size=64, lr=5e-3)
    after = g(torch.randn(512, 2)).mean(0).detach()
    target = torch.tensor([2.0, -1.0])
    assert hist.shape == (1, 60, 2)
    assert float((after - target).norm()) < 0.5 * float((before - target).norm())
    s = gan.generate(g, 10, seed=3)
    assert s.shape == (10, 2) and torch.equal(s, gan.generate(g, 10, seed=3))


# --- batched runs are independent replicates ------------------------------------------------------

SEEDS = [11, 22, 33]


def _data(runs=3, n=40, dim=2):
    return torch.randn(runs, n, dim, generator=torch.Generator().manual_seed(5))


@pytest.fixture
def deterministic():
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    yield
    torch.use_deterministic_algorithms(before)


@pytest.mark.parametrize("train", ["wgan_gp", "jsgan"])
def test_batched_runs_equal_runs_trained_alone(train, deterministic):
    """Three runs trained as one batched computation give each run exactly the weights training it
    alone with its seed gives (privrisk.training.replicates: a run's numbers do not depend on the
    runs beside it, so a model trained in shards equals the model trained in one job), and the
    runs differ."""
    fn = getattr(gan, f"train_{train}")
    x = _data()
    kw = {"epochs": 3, "batch_size": 16, "lr": 1e-2}
    together = [_mlp_gan(s) for s in SEEDS]
    fn(x, [m[0] for m in together], [m[1] for m in together], seeds=SEEDS, **kw)
    for k, s in enumerate(SEEDS):
        g, d = _mlp_gan(s)
        fn(x[k : k + 1], [g], [d], seeds=[s], **kw)
        assert torch.equal(_flat(*together[k]), _flat(g, d))
    assert not torch.allclose(_flat(*together[0]), _flat(*together[1]))


def test_batched_privgan_runs_equal_runs_trained_alone(deterministic):
    x = _data(dim=4)

    def make(s):
        torch.manual_seed(s)
        gens = [gan.MLPGenerator(3, [8], 4) for _ in range(2)]
        discs = [gan.MLPCritic(4, [8]) for _ in range(2)]
        return gens, discs, gan.mlp([4, 8, 2])

    kw = {"epochs": 3, "batch_size": 8, "lr": 1e-2, "dp_delay": 1, "disc_epochs": 1}
    nets = [make(s) for s in SEEDS]
    part = gan.train_privgan(
        x, [n[0] for n in nets], [n[1] for n in nets], [n[2] for n in nets], seeds=SEEDS, **kw
    )
    assert part.shape == (3, 40) and (np.bincount(part[0]) == 20).all()
    for k, s in enumerate(SEEDS):
        gens, discs, priv = make(s)
        alone = gan.train_privgan(x[k : k + 1], [gens], [discs], [priv], seeds=[s], **kw)
        assert np.array_equal(alone[0], part[k])
        assert torch.equal(_flat(*nets[k][0], *nets[k][1], nets[k][2]), _flat(*gens, *discs, priv))


def _dp_nets(s):
    return _mlp_gan(s, z=3, dim=6, n_classes=2, hidden=(8,), out_act="sigmoid")


@pytest.mark.parametrize("epsilon", [2.0, float("inf")])
def test_batched_dpcgan_runs_equal_runs_trained_alone(epsilon, deterministic):
    x = torch.rand(3, 40, 6, generator=torch.Generator().manual_seed(1))
    y = torch.randint(0, 2, (3, 40), generator=torch.Generator().manual_seed(2))
    kw = {"epsilon": epsilon, "delta": 1e-5, "epochs": 1, "batch_size": 8, "lr_d": 0.1}
    nets = [_dp_nets(s) for s in SEEDS]
    rec = gan.train_dpcgan(x, y, [n[0] for n in nets], [n[1] for n in nets], seeds=SEEDS, **kw)
    assert rec["steps"] == 5 and len(rec["empty_batches"]) == 3
    for k, s in enumerate(SEEDS):
        g, d = _dp_nets(s)
        gan.train_dpcgan(x[k : k + 1], y[k : k + 1], [g], [d], seeds=[s], **kw)
        assert torch.equal(_flat(*nets[k]), _flat(g, d))


def test_a_dpcgan_run_that_draws_a_large_batch_is_computed_alone(monkeypatch, deterministic):
    """The batch width comes from n and q (poisson_width), not from the other runs' draws; a run
    whose Poisson draw exceeds it gets its gradient from its own wider batch, so batched runs
    still equal runs trained alone, and no sampled point is dropped."""
    assert gan.poisson_width(40, 0.2) == 16  # Binomial(40, 0.2): P(> 16) <= 1e-3 < P(> 15)
    assert gan.poisson_width(40, 1.0) == 40 and gan.poisson_width(3, 1e-9) == 1
    monkeypatch.setattr(gan, "WIDTH_QUANTILE", 0.5)  # half the draws exceed the width
    calls = []
    real = gan.clipped_gradient_sum

    def spy(d, x, *args, lanes=None):
        calls.append(lanes)
        return real(d, x, *args, lanes=lanes)

    monkeypatch.setattr(gan, "clipped_gradient_sum", spy)
    x = torch.rand(3, 40, 6, generator=torch.Generator().manual_seed(1))
    y = torch.randint(0, 2, (3, 40), generator=torch.Generator().manual_seed(2))
    # ε = ∞: the same clipped steps without the accountant's calibration (seconds per call)
    kw = {"epsilon": float("inf"), "delta": 1e-5, "epochs": 2, "batch_size": 8, "lr_d": 0.1}
    nets = [_dp_nets(s) for s in SEEDS]
    gan.train_dpcgan(x, y, [n[0] for n in nets], [n[1] for n in nets], seeds=SEEDS, **kw)
    assert sum(c is not None for c in calls) >= 3  # the wide path ran
    for k, s in enumerate(SEEDS):
        g, d = _dp_nets(s)
        gan.train_dpcgan(x[k : k + 1], y[k : k + 1], [g], [d], seeds=[s], **kw)
        assert torch.equal(_flat(*nets[k]), _flat(g, d))


def test_dpcgan_clips_every_sample_of_every_run():
    """The clipped sum equals per-sample autograd gradients, each clipped to C (opacus' factor
    min(1, C/(‖g‖ + 1e-6))) and weighted, summed per run: no sample's or run's gradient leaks
    into another's and padding (weight 0) adds nothing."""
    torch.manual_seed(0)
    crits = [gan.MLPCritic(6, [5, 4], n_classes=2) for _ in range(2)]
    from privrisk.training.replicates import Replicas

    rep = Replicas(crits)
    x, y = torch.randn(2, 7, 6) * 3, torch.randint(0, 2, (2, 7))
    target = torch.randint(0, 2, (2, 7)).float()
    weight = torch.tensor([[1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1, 1.0]])
    clip = 0.5
    got = gan.clipped_gradient_sum(rep, x, y, target, weight, clip)
    for k, crit in enumerate(crits):
        want = [torch.zeros_like(p) for p in crit.parameters()]
        norms = []
        for i in range(7):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                crit(x[k, i : i + 1], y[k, i : i + 1]), target[k, i : i + 1]
            )
            grads = torch.autograd.grad(loss, list(crit.parameters()))
            norm = torch.sqrt(sum(gr.pow(2).sum() for gr in grads))
            norms.append(float(norm))
            c = min(1.0, clip / (float(norm) + 1e-6)) * float(weight[k, i])
            want = [w + c * gr for w, gr in zip(want, grads, strict=True)]
        assert max(norms) > clip > min(norms) or max(norms) > clip  # clipping is exercised
        for (name, _), w in zip(crit.named_parameters(), want, strict=True):
            torch.testing.assert_close(got[name][k], w, rtol=1e-5, atol=1e-6)


def test_dpcgan_accounting_meets_target():
    torch.manual_seed(0)
    x, y = torch.rand(1, 64, 6), torch.randint(0, 2, (1, 64))
    g, d = _mlp_gan(0, z=3, dim=6, n_classes=2, hidden=(8,), out_act="sigmoid")
    w0 = _flat(d)
    rec = gan.train_dpcgan(
        x, y, [g], [d], seeds=[0], epsilon=2.0, delta=1e-5, epochs=2, batch_size=16
    )
    assert rec["epsilon_spent"] <= 2.0 + 1e-2
    assert rec["noise_multiplier"] == pytest.approx(
        accounting.dpsgd_noise_multiplier(
            epsilon=2.0, delta=1e-5, sample_rate=16 / 64, steps=rec["steps"]
        ),
        rel=1e-6,
    )
    assert not torch.equal(w0, _flat(d))


def test_dpcgan_infinite_epsilon_is_the_noiseless_control():
    torch.manual_seed(0)
    x, y = torch.rand(1, 64, 6), torch.randint(0, 2, (1, 64))
    g, d = _mlp_gan(0, z=3, dim=6, n_classes=2, hidden=(8,), out_act="sigmoid")
    kw = {"delta": 1e-5, "epochs": 1, "batch_size": 16, "seeds": [0]}
    rec = gan.train_dpcgan(
        x, y, [g], [d], epsilon=float("inf"), d_optimizer="adam", lr_d=1e-3, **kw
    )
    assert rec["noise_multiplier"] == 0.0 and rec["epsilon_spent"] == float("inf")
    assert rec["d_optimizer"] == "adam"
    with pytest.raises(ValueError, match="d_optimizer"):
        gan.train_dpcgan(x, y, [g], [d], epsilon=1.0, d_optimizer="rmsprop", **kw)


def test_dpcgan_clips_real_and_fake_gradients():
    """Regression: only the real-data gradients were clipped, so the unclipped fake gradient won
    every step and D called every real image fake (median σ(D) 0.002-0.09 on the quick 0-vs-6
    set). One noiseless SGD step moves D by at most lr · C · (batch) / (2 · batch_size)."""
    torch.manual_seed(0)
    x, y = (torch.rand(1, 64, 784) > 0.8).float(), torch.randint(0, 2, (1, 64))
    g, d = _mlp_gan(0, z=3, dim=784, n_classes=2, out_act="sigmoid")
    w0 = _flat(d)
    rec = gan.train_dpcgan(
        x,
        y,
        [g],
        [d],
        seeds=[0],
        epsilon=float("inf"),
        delta=1e-5,
        epochs=0.25,
        batch_size=16,
        max_grad_norm=1e-3,
        lr_d=1.0,
        lr_g=0.0,
    )
    moved = float((_flat(d) - w0).norm())
    assert rec["steps"] == 1 and rec["clipped"] == "real and fake per-sample gradients"
    assert 0 < moved <= 1e-3 * (64 + 16) / 32 + 1e-9


def test_batched_classifier_runs_equal_runs_trained_alone(deterministic):
    from privrisk.models import skin

    x = torch.randn(3, 24, 3, 8, 8, generator=torch.Generator().manual_seed(3))
    y = torch.randint(0, 2, (3, 24), generator=torch.Generator().manual_seed(4))

    def make(s):
        torch.manual_seed(s)
        return skin.Classifier(4, 8)

    kw = {"epochs": 2, "batch_size": 8, "lr": 1e-2}
    together = [make(s) for s in SEEDS]
    hist = skin.train_classifier(x, y, together, seeds=SEEDS, **kw)
    assert hist.shape == (3, 2)
    for k, s in enumerate(SEEDS):
        alone = make(s)
        skin.train_classifier(x[k : k + 1], y[k : k + 1], [alone], seeds=[s], **kw)
        assert torch.equal(_flat(together[k]), _flat(alone))


def test_runs_must_match_their_seeds_and_modules():
    g, d = _mlp_gan(0)
    with pytest.raises(ValueError, match="one seed and one module per run"):
        gan.train_jsgan(_data(runs=2), [g], [d], seeds=[0], epochs=1, batch_size=8)
