"""GANs of the MACE experiments (spec xu2022 §7.2–§7.4), in torch on CPU or GPU.

* :func:`train_wgan_gp` — WGAN-GP (Gulrajani et al. 2017: critic without sigmoid, gradient
  penalty λ = 10, n_critic = 5, Adam(1e-4, β = (0, 0.9)) by default) with the MNIST MLP (E.1),
  the CIFAR-10 convolutional networks (E.2, with the spec's fixes E8/E9) or the skin networks
  (E.3, :mod:`.skin`); training length in epochs of critic steps.
* :func:`train_jsgan` — the original JS-GAN (Goodfellow et al. 2014) of the skin experiments.
* :func:`train_privgan` — privGAN (Mukherjee et al. 2019) with r generator–discriminator pairs,
  each on a disjoint part of the training set, and a privacy discriminator the generators fool.
* :func:`train_dpcgan` — conditional GAN whose discriminator is trained with DP-SGD
  (opacus per-sample gradients, clipping and Gaussian noise) at a target (ε, δ).

Widths are arguments so quick scale can shrink them; paper scale passes the spec's widths.
Checkpoints are plain ``state_dict``s, loaded with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- networks


def mlp(sizes: Sequence[int], out_act: nn.Module | None = None) -> nn.Sequential:
    """Dense layers with LeakyReLU(0.2) between them (E.1)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.LeakyReLU(0.2))
    if out_act is not None:
        layers.append(out_act)
    return nn.Sequential(*layers)


class MLPGenerator(nn.Module):
    """E.1 generator: z (+ one-hot condition) → hidden LeakyReLU layers → out_dim (tanh/sigmoid)."""

    def __init__(
        self,
        z_dim: int,
        hidden: Sequence[int],
        out_dim: int,
        n_classes: int = 0,
        out_act: str = "tanh",
    ):
        super().__init__()
        self.z_dim, self.n_classes = z_dim, n_classes
        self.net = mlp(
            [z_dim + n_classes, *hidden, out_dim], nn.Tanh() if out_act == "tanh" else nn.Sigmoid()
        )

    def forward(self, z, y=None):
        if self.n_classes:
            z = torch.cat([z, F.one_hot(y, self.n_classes).float()], 1)
        return self.net(z)


class MLPCritic(nn.Module):
    """E.1 discriminator without its sigmoid: a raw score (the critic value for WGAN-GP)."""

    def __init__(self, in_dim: int, hidden: Sequence[int], n_classes: int = 0):
        super().__init__()
        self.n_classes = n_classes
        self.net = mlp([in_dim + n_classes, *hidden, 1])

    def forward(self, x, y=None):
        x = x.flatten(1)
        if self.n_classes:
            x = torch.cat([x, F.one_hot(y, self.n_classes).float()], 1)
        return self.net(x).squeeze(1)


class ConvGenerator(nn.Module):
    """E.2 generator, fixed to output 32×32 (erratum E8): Dense(2·2·c0) → ConvT(c1, k3, s1)
    → ConvT(c2, k4, s2, p1) → ConvT(c3, k4, s2, p1) → ConvT(3, k4, s2, p1, tanh): 2→4→8→16→32.
    Paper widths c = (512, 128, 64, 32)."""

    def __init__(self, z_dim: int, channels: Sequence[int]):
        super().__init__()
        c0, c1, c2, c3 = channels
        self.z_dim, self.c0 = z_dim, c0
        self.fc = nn.Linear(z_dim, 4 * c0)
        self.net = nn.Sequential(
            nn.ConvTranspose2d(c0, c1, 3, 1, 0),
            nn.ReLU(),
            nn.ConvTranspose2d(c1, c2, 4, 2, 1),
            nn.ReLU(),
            nn.ConvTranspose2d(c2, c3, 4, 2, 1),
            nn.ReLU(),
            nn.ConvTranspose2d(c3, 3, 4, 2, 1),
            nn.Tanh(),
        )

    def forward(self, z, y=None):
        return self.net(self.fc(z).view(-1, self.c0, 2, 2))


class ConvCritic(nn.Module):
    """E.2 discriminator (with E9: LeakyReLU after every conv, Flatten): four Conv(k5, s2, 'same')
    32→16→8→4→2, then Dense(1) without sigmoid. Paper widths (64, 128, 128, 256)."""

    def __init__(self, channels: Sequence[int], size: int = 32):
        super().__init__()
        layers, c_in = [], 3
        for c in channels:
            layers += [nn.Conv2d(c_in, c, 5, 2, 2), nn.LeakyReLU(0.2)]
            c_in = c
        self.net = nn.Sequential(*layers, nn.Flatten())
        self.fc = nn.Linear(c_in * (size // 2 ** len(channels)) ** 2, 1)

    def forward(self, x, y=None):
        return self.fc(self.net(x)).squeeze(1)


def build(kind: str, cfg: dict, data_shape: tuple[int, ...], n_classes: int = 0):
    """(generator, critic) for ``kind`` = ``mlp`` (flattened images) or ``conv`` (3×32×32)."""
    if kind == "mlp":
        dim = int(np.prod(data_shape))
        g = MLPGenerator(cfg["z_dim"], cfg["g_hidden"], dim, n_classes, cfg.get("g_out", "tanh"))
        return g, MLPCritic(dim, cfg["d_hidden"], n_classes)
    if kind == "conv":
        return ConvGenerator(cfg["z_dim"], cfg["g_channels"]), ConvCritic(
            cfg["d_channels"], data_shape[-1]
        )
    raise ValueError(f"unknown architecture {kind!r}; expected mlp or conv")


# ----------------------------------------------------------------------------- WGAN-GP


def _device(*modules: nn.Module) -> torch.device:
    """The one device of the modules' parameters; every tensor a training loop makes goes there."""
    devs = {p.device for m in modules for p in m.parameters()}
    if len(devs) != 1:
        raise ValueError(f"modules must sit on one device, found {sorted(map(str, devs))}")
    return devs.pop()


def _rng(seed: int, dev: torch.device) -> torch.Generator:
    # on the CPU this is the same stream as torch.Generator().manual_seed(seed)
    return torch.Generator(device=dev).manual_seed(seed)


def gradient_penalty(
    critic: nn.Module, real: torch.Tensor, fake: torch.Tensor, gen: torch.Generator
) -> torch.Tensor:
    """E[(||∇_x̂ D(x̂)||₂ − 1)²] at random interpolates x̂ (Gulrajani et al. 2017, Alg. 1)."""
    eps = torch.rand((real.shape[0],) + (1,) * (real.dim() - 1), generator=gen, device=real.device)
    xh = (eps * real + (1 - eps) * fake).requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(xh).sum(), xh, create_graph=True)
    return ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


def _epoch(n: int, batch_size: int, gen: torch.Generator, dev: torch.device):
    """One epoch of shuffled index batches (the last one may be short)."""
    perm = torch.randperm(n, generator=gen, device=dev)
    return [perm[s : s + batch_size] for s in range(0, n, batch_size)]


def _latent(g: nn.Module, b: int, gen: torch.Generator, dev: torch.device) -> torch.Tensor:
    return torch.randn(b, g.z_dim, generator=gen, device=dev)


def train_wgan_gp(
    x: torch.Tensor,
    g: nn.Module,
    d: nn.Module,
    *,
    epochs: int,
    batch_size: int = 64,
    n_critic: int = 5,
    gp_weight: float = 10.0,
    lr: float = 1e-4,
    betas: tuple[float, float] = (0.0, 0.9),
    seed: int = 0,
) -> list[tuple[float, float]]:
    """WGAN-GP in place (Gulrajani et al. 2017, Algorithm 1); x is the training set in [−1, 1] on
    the models' device.

    An epoch is one pass of critic steps over the shuffled training set (⌈n / batch_size⌉
    batches); the generator takes one step after every ``n_critic`` critic steps. Returns the
    (critic loss, generator loss) of the last step of each epoch.
    """
    torch.manual_seed(seed)
    dev = _device(g, d)
    gen = _rng(seed, dev)
    og = torch.optim.Adam(g.parameters(), lr=lr, betas=tuple(betas))
    od = torch.optim.Adam(d.parameters(), lr=lr, betas=tuple(betas))
    hist, step, loss_g = [], 0, torch.tensor(float("nan"))
    for ep in range(epochs):
        for idx in _epoch(len(x), batch_size, gen, dev):
            real = x[idx]
            fake = g(_latent(g, len(idx), gen, dev)).view_as(real).detach()
            loss_d = (
                d(fake).mean() - d(real).mean() + gp_weight * gradient_penalty(d, real, fake, gen)
            )
            od.zero_grad()
            loss_d.backward()
            od.step()
            step += 1
            if step % n_critic == 0:
                loss_g = -d(g(_latent(g, len(idx), gen, dev)).view_as(real)).mean()
                og.zero_grad()
                loss_g.backward()
                og.step()
        hist.append((loss_d.item(), loss_g.item()))
        if (ep + 1) % max(1, epochs // 5) == 0:
            log.info(
                "WGAN-GP epoch %d/%d: critic loss %.4f, generator loss %.4f",
                ep + 1,
                epochs,
                *hist[-1],
            )
    return hist


def train_jsgan(
    x: torch.Tensor,
    g: nn.Module,
    d: nn.Module,
    *,
    epochs: int,
    batch_size: int,
    lr: float = 2e-4,
    betas: tuple[float, float] = (0.5, 0.999),
    seed: int = 0,
) -> list[tuple[float, float]]:
    """The original (Jensen–Shannon) GAN in place, non-saturating generator loss; one D and one G
    step per batch of an epoch. Returns the (D loss, G loss) of the last step of each epoch."""
    torch.manual_seed(seed)
    dev = _device(g, d)
    gen = _rng(seed, dev)
    og = torch.optim.Adam(g.parameters(), lr=lr, betas=tuple(betas))
    od = torch.optim.Adam(d.parameters(), lr=lr, betas=tuple(betas))
    hist = []
    for ep in range(epochs):
        for idx in _epoch(len(x), batch_size, gen, dev):
            real, b = x[idx], len(idx)
            fake = g(_latent(g, b, gen, dev)).view_as(real)
            ld = F.binary_cross_entropy_with_logits(
                d(real), torch.ones(b, device=dev)
            ) + F.binary_cross_entropy_with_logits(d(fake.detach()), torch.zeros(b, device=dev))
            od.zero_grad()
            ld.backward()
            od.step()
            lg = F.binary_cross_entropy_with_logits(d(fake), torch.ones(b, device=dev))
            og.zero_grad()
            lg.backward()
            og.step()
        hist.append((ld.item(), lg.item()))
        if (ep + 1) % max(1, epochs // 5) == 0:
            log.info("JS-GAN epoch %d/%d: D loss %.4f, G loss %.4f", ep + 1, epochs, *hist[-1])
    return hist


# ----------------------------------------------------------------------------- privGAN


def train_privgan(
    x: torch.Tensor,
    gens: Sequence[nn.Module],
    discs: Sequence[nn.Module],
    priv: nn.Module,
    *,
    epochs: int,
    batch_size: int = 128,
    lr: float = 2e-4,
    betas: tuple[float, float] = (0.5, 0.999),
    privacy_weight: float = 1.0,
    dp_delay: int = 0,
    disc_epochs: int = 0,
    label_smoothing: float = 0.95,
    seed: int = 0,
):
    """privGAN (Mukherjee et al. 2019): pair i (G_i, D_i) is a JS-GAN on part i of the training
    set; the privacy discriminator ``priv`` (r logits) learns which generator made a sample and
    each G_i also minimises −λ log(1 − P_priv(i | G_i(z))) once ``dp_delay`` epochs have passed.
    ``disc_epochs`` pre-train ``priv`` on the initial generators. Returns the part index of each
    training point."""
    torch.manual_seed(seed)
    dev = _device(*gens, *discs, priv)
    gen = _rng(seed, dev)
    r, n = len(gens), len(x)
    part = torch.randperm(n, generator=gen, device=dev) % r
    parts = [x[part == i] for i in range(r)]
    adam = lambda ps: torch.optim.Adam(ps, lr=lr, betas=tuple(betas))  # noqa: E731
    ogs, ods, op = (
        [adam(m.parameters()) for m in gens],
        [adam(m.parameters()) for m in discs],
        adam(priv.parameters()),
    )
    bs = min(batch_size, min(len(p) for p in parts))
    steps = max(1, math.ceil(min(len(p) for p in parts) / bs))
    z_dim = gens[0].z_dim

    def priv_step():
        fakes = torch.cat(
            [gens[i](torch.randn(bs, z_dim, generator=gen, device=dev)).detach() for i in range(r)]
        )
        lab = torch.arange(r, device=dev).repeat_interleave(bs)
        loss = F.cross_entropy(priv(fakes), lab)
        op.zero_grad()
        loss.backward()
        op.step()
        return loss.item()

    for _ in range(disc_epochs * steps):
        priv_step()
    for ep in range(epochs):
        for _ in range(steps):
            for i in range(r):
                real = parts[i][torch.randint(0, len(parts[i]), (bs,), generator=gen, device=dev)]
                fake = gens[i](torch.randn(bs, z_dim, generator=gen, device=dev))
                ld = F.binary_cross_entropy_with_logits(
                    discs[i](real), torch.full((bs,), label_smoothing, device=dev)
                ) + F.binary_cross_entropy_with_logits(
                    discs[i](fake.detach()), torch.zeros(bs, device=dev)
                )
                ods[i].zero_grad()
                ld.backward()
                ods[i].step()
                lg = F.binary_cross_entropy_with_logits(discs[i](fake), torch.ones(bs, device=dev))
                if ep >= dp_delay and privacy_weight > 0:
                    p_i = F.softmax(priv(fake), 1)[:, i]
                    lg = lg - privacy_weight * torch.log1p(-p_i.clamp(max=1 - 1e-6)).mean()
                ogs[i].zero_grad()
                lg.backward()
                ogs[i].step()
            if ep >= dp_delay and privacy_weight > 0:
                lp = priv_step()
        if (ep + 1) % max(1, epochs // 10) == 0 or ep + 1 == epochs:
            log.info(
                "privGAN epoch %d/%d: D loss %.4f, G loss %.4f, privacy D loss %s",
                ep + 1,
                epochs,
                ld.item(),
                lg.item(),
                f"{lp:.4f}" if ep >= dp_delay and privacy_weight > 0 else "n/a",
            )
    return part.cpu().numpy()


# ----------------------------------------------------------------------------- DP-cGAN


def train_dpcgan(
    x: torch.Tensor,
    y: torch.Tensor,
    g: nn.Module,
    d: nn.Module,
    *,
    epsilon: float,
    delta: float,
    epochs: int,
    batch_size: int,
    max_grad_norm: float = 1.0,
    lr_d: float = 0.05,
    lr_g: float = 1e-3,
    d_optimizer: str = "sgd",
    seed: int = 0,
) -> dict:
    """Conditional GAN with a DP-SGD discriminator (Torkzadehmahani et al. 2019), in place.

    Each step Poisson-samples real points with rate q = batch_size / n and draws ``batch_size``
    fakes; D's loss on the joint batch (real → 1, fake → 0) gets opacus per-sample gradients,
    *every* sample's gradient (real and fake, as the DP-CGAN repository clips both) is clipped to
    ``max_grad_norm``, Gaussian noise σ·C is added to the sum (σ from the RDP accountant for
    (ε, δ) after ``epochs / q`` steps) and the sum is divided by the expected batch 2·batch_size.
    A fake sample touches no training point, so clipping it costs no privacy; clipping only the
    real gradients (as this function did before) lets the unclipped fake gradient dominate every
    step, and D learns to call everything fake (σ(D) ≤ 0.05 on real images). G only sees D
    (post-processing). ε = ∞ is the non-private control: the same clipped steps without noise.
    Returns the accounting record.
    """
    from opacus import GradSampleModule
    from opacus.optimizers import DPOptimizer

    from .. import accounting

    if d_optimizer not in ("sgd", "adam"):
        raise ValueError(f"d_optimizer must be sgd or adam, got {d_optimizer!r}")
    torch.manual_seed(seed)
    dev = _device(g, d)
    gen = _rng(seed, dev)
    n = len(x)
    q = min(1.0, batch_size / n)
    steps = max(1, int(round(epochs / q)))
    private = math.isfinite(epsilon)
    sigma = (
        accounting.dpsgd_noise_multiplier(epsilon=epsilon, delta=delta, sample_rate=q, steps=steps)
        if private
        else 0.0
    )
    gd = GradSampleModule(d)
    # DP-Adam is as private as DP-SGD (Adam only post-processes the noised, clipped gradients)
    base = (
        torch.optim.SGD(gd.parameters(), lr=lr_d)
        if d_optimizer == "sgd"
        else torch.optim.Adam(gd.parameters(), lr=lr_d, betas=(0.5, 0.999))
    )
    od = DPOptimizer(
        base,
        noise_multiplier=sigma,
        max_grad_norm=max_grad_norm,
        expected_batch_size=2 * batch_size,
    )
    og = torch.optim.Adam(g.parameters(), lr=lr_g, betas=(0.5, 0.999))
    skipped = 0
    for step in range(steps):
        mask = torch.rand(n, generator=gen, device=dev) < q
        if not mask.any():  # probability (1 − q)^n, negligible; nothing to clip
            skipped += 1
            continue
        xb, yb = x[mask], y[mask]
        yf = torch.randint(0, g.n_classes, (batch_size,), generator=gen, device=dev)
        fake = g(torch.randn(batch_size, g.z_dim, generator=gen, device=dev), yf)
        target = torch.cat([torch.ones(len(xb), device=dev), torch.zeros(batch_size, device=dev)])
        od.zero_grad()
        loss_d = F.binary_cross_entropy_with_logits(
            gd(torch.cat([xb, fake.detach()]), torch.cat([yb, yf])), target
        )
        with warnings.catch_warnings():
            # opacus' hooks on the first layer, whose input (the images) needs no gradient
            warnings.filterwarnings("ignore", message="Full backward hook is firing")
            loss_d.backward()
        od.step()
        gd.disable_hooks()
        lg = F.binary_cross_entropy_with_logits(
            gd(g(torch.randn(batch_size, g.z_dim, generator=gen, device=dev), yf), yf),
            torch.ones(batch_size, device=dev),
        )
        og.zero_grad()
        lg.backward()
        og.step()
        gd.zero_grad()
        gd.enable_hooks()
        if (step + 1) % max(1, steps // 5) == 0:
            log.info(
                "DP-cGAN ε=%g step %d/%d: D loss %.4f, G loss %.4f",
                epsilon,
                step + 1,
                steps,
                loss_d.item(),
                lg.item(),
            )
    spent = (
        accounting.dpsgd_epsilon(noise_multiplier=sigma, delta=delta, sample_rate=q, steps=steps)
        if private
        else math.inf
    )
    return {
        "noise_multiplier": sigma,
        "sample_rate": q,
        "steps": steps,
        "epsilon_spent": spent,
        "d_optimizer": d_optimizer,
        "delta": delta,
        "max_grad_norm": max_grad_norm,
        "clipped": "real and fake per-sample gradients",
        "skipped_empty_batches": skipped,
    }


# ----------------------------------------------------------------------------- I/O


def save_checkpoint(path: str | Path, **modules: nn.Module) -> None:
    torch.save({k: m.state_dict() for k, m in modules.items()}, path)


def load_checkpoint(path: str | Path, **modules: nn.Module) -> None:
    """Load state dicts saved by :func:`save_checkpoint` (tensors only: weights_only=True)."""
    state = torch.load(path, weights_only=True)
    missing = set(modules) - set(state)
    if missing:
        raise KeyError(f"{path}: checkpoint lacks {sorted(missing)}")
    for k, m in modules.items():
        m.load_state_dict(state[k])


@torch.no_grad()
def generate(g: nn.Module, n: int, seed: int, batch: int = 1024) -> torch.Tensor:
    """n synthetic samples on the generator's device, from a seeded latent stream."""
    dev = _device(g)
    gen = _rng(seed, dev)
    g.eval()
    out = torch.cat([g(_latent(g, min(batch, n - s), gen, dev)) for s in range(0, n, batch)])
    g.train()
    return out


@torch.no_grad()
def scores(
    model: nn.Module, x: torch.Tensor, y: torch.Tensor | None = None, batch: int = 2048
) -> np.ndarray:
    """Model outputs (a critic value or a logit) on all of x, in batches, as float64."""
    model.eval()
    out = [
        model(x[s : s + batch], None if y is None else y[s : s + batch])
        for s in range(0, len(x), batch)
    ]
    model.train()
    return torch.cat(out).double().cpu().numpy()
