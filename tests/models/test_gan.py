"""GAN building blocks of xu2022: architectures (spec §7.4 parameter counts), gradient penalty,
checkpoints (weights_only) and DP-cGAN accounting (the pipeline run is in tests/papers/xu2022)."""

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
    # D(x) = w·x has gradient w everywhere: penalty = (||w|| − 1)²
    lin = torch.nn.Linear(3, 1, bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[3.0, 0.0, 4.0]]))
    crit = lambda x: lin(x).squeeze(1)  # noqa: E731
    gp = gan.gradient_penalty(
        crit, torch.randn(5, 3), torch.randn(5, 3), torch.Generator().manual_seed(0)
    )
    assert float(gp) == pytest.approx(16.0)


def test_checkpoint_roundtrip_weights_only(tmp_path):
    g, d = gan.build("mlp", {"z_dim": 4, "g_hidden": [8], "d_hidden": [8]}, (6,))
    gan.save_checkpoint(tmp_path / "m.pt", generator=g, critic=d)
    g2, d2 = gan.build("mlp", {"z_dim": 4, "g_hidden": [8], "d_hidden": [8]}, (6,))
    gan.load_checkpoint(tmp_path / "m.pt", generator=g2, critic=d2)
    x = torch.randn(3, 6)
    assert torch.equal(d(x), d2(x))
    with pytest.raises(KeyError):
        gan.load_checkpoint(tmp_path / "m.pt", other=g2)


def test_wgan_gp_learns_mean_shift():
    # a tiny WGAN-GP on a 2-d Gaussian moves its generator towards the data mean
    torch.manual_seed(0)
    x = torch.randn(256, 2) * 0.1 + torch.tensor([2.0, -1.0])
    g, d = gan.build(
        "mlp", {"z_dim": 2, "g_hidden": [16], "d_hidden": [16], "g_out": "sigmoid"}, (2,)
    )
    g.net[-1] = torch.nn.Identity()
    before = g(torch.randn(512, 2)).mean(0)
    # 190 epochs of 4 critic batches, a generator step after every 5: 152 generator steps
    gan.train_wgan_gp(x, g, d, epochs=190, batch_size=64, lr=5e-3, seed=0)
    after = g(torch.randn(512, 2)).mean(0).detach()
    target = torch.tensor([2.0, -1.0])
    assert float((after - target).norm()) < 0.5 * float((before - target).norm())


def test_dpcgan_accounting_meets_target():
    torch.manual_seed(0)
    x, y = torch.rand(64, 6), torch.randint(0, 2, (64,))
    g = gan.MLPGenerator(3, [8], 6, n_classes=2, out_act="sigmoid")
    d = gan.MLPCritic(6, [8], n_classes=2)
    w0 = [p.detach().clone() for p in d.parameters()]
    rec = gan.train_dpcgan(x, y, g, d, epsilon=2.0, delta=1e-5, epochs=2, batch_size=16, seed=0)
    assert rec["epsilon_spent"] <= 2.0 + 1e-2
    assert rec["noise_multiplier"] == pytest.approx(
        accounting.dpsgd_noise_multiplier(
            epsilon=2.0, delta=1e-5, sample_rate=16 / 64, steps=rec["steps"]
        ),
        rel=1e-6,
    )
    assert any(not torch.equal(a, b) for a, b in zip(w0, d.parameters(), strict=True))


def test_dpcgan_infinite_epsilon_is_the_noiseless_control():
    torch.manual_seed(0)
    x, y = torch.rand(64, 6), torch.randint(0, 2, (64,))
    g = gan.MLPGenerator(3, [8], 6, n_classes=2, out_act="sigmoid")
    d = gan.MLPCritic(6, [8], n_classes=2)
    rec = gan.train_dpcgan(
        x,
        y,
        g,
        d,
        epsilon=float("inf"),
        delta=1e-5,
        epochs=1,
        batch_size=16,
        d_optimizer="adam",
        lr_d=1e-3,
        seed=0,
    )
    assert rec["noise_multiplier"] == 0.0 and rec["epsilon_spent"] == float("inf")
    assert rec["d_optimizer"] == "adam"
    with pytest.raises(ValueError, match="d_optimizer"):
        gan.train_dpcgan(
            x, y, g, d, epsilon=1.0, delta=1e-5, epochs=1, batch_size=16, d_optimizer="rmsprop"
        )


def test_jsgan_learns_mean_shift():
    torch.manual_seed(0)
    x = torch.randn(256, 2) * 0.1 + torch.tensor([2.0, -1.0])
    g = gan.MLPGenerator(2, [16], 2)
    g.net[-1] = torch.nn.Identity()
    d = gan.MLPCritic(2, [16])
    before = g(torch.randn(512, 2)).mean(0).detach()
    hist = gan.train_jsgan(x, g, d, epochs=60, batch_size=64, lr=5e-3, seed=0)
    after = g(torch.randn(512, 2)).mean(0).detach()
    target = torch.tensor([2.0, -1.0])
    assert len(hist) == 60 and float((after - target).norm()) < 0.5 * float(
        (before - target).norm()
    )
    s = gan.generate(g, 10, seed=3)
    assert s.shape == (10, 2) and torch.equal(s, gan.generate(g, 10, seed=3))


def test_dpcgan_clips_real_and_fake_gradients():
    """Regression: only the real-data gradients were clipped, so the unclipped fake gradient won
    every step and D called every real image fake (median σ(D) 0.002-0.09 on the quick 0-vs-6
    set). One noiseless SGD step moves D by at most lr · C · (batch) / (2 · batch_size)."""
    torch.manual_seed(0)
    x, y = (torch.rand(64, 784) > 0.8).float(), torch.randint(0, 2, (64,))
    g = gan.MLPGenerator(3, [16], 784, n_classes=2, out_act="sigmoid")
    d = gan.MLPCritic(784, [16], n_classes=2)
    w0 = torch.cat([p.detach().flatten().clone() for p in d.parameters()])
    rec = gan.train_dpcgan(
        x,
        y,
        g,
        d,
        epsilon=float("inf"),
        delta=1e-5,
        epochs=0.25,
        batch_size=16,
        max_grad_norm=1e-3,
        lr_d=1.0,
        lr_g=0.0,
        seed=0,
    )
    moved = float((torch.cat([p.detach().flatten() for p in d.parameters()]) - w0).norm())
    assert rec["steps"] == 1 and rec["clipped"] == "real and fake per-sample gradients"
    assert 0 < moved <= 1e-3 * (64 + 16) / 32 + 1e-9
