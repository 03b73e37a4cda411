"""GANs of the MACE experiments (spec xu2022 §7.2–§7.4), in torch on CPU or GPU.

* :func:`train_wgan_gp` — WGAN-GP (Gulrajani et al. 2017: critic without sigmoid, gradient
  penalty λ = 10, n_critic = 5, Adam(1e-4, β = (0, 0.9)) by default) with the MNIST MLP (E.1),
  the CIFAR-10 convolutional networks (E.2, with the spec's fixes E8/E9) or the skin networks
  (E.3, :mod:`.skin`); training length in epochs of critic steps.
* :func:`train_jsgan` — the original JS-GAN (Goodfellow et al. 2014) of the skin experiments.
* :func:`train_privgan` — privGAN (Mukherjee et al. 2019) with r generator–discriminator pairs,
  each on a disjoint part of the training set, and a privacy discriminator the generators fool.
* :func:`train_dpcgan` — conditional GAN whose discriminator is trained with DP-SGD
  (per-sample clipping as opacus clips, Gaussian noise) at a target (ε, δ), calibrated by
  :func:`privrisk.accounting.dpsgd_noise_multiplier` (RDP, add/remove).

Widths are arguments so quick scale can shrink them; paper scale passes the spec's widths.
Checkpoints are plain ``state_dict``s, loaded with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..training.replicates import (
    Replicas,
    RunRNG,
    device_of,
    lane_bce,
    lane_matmul,
    make_adam,
    step,
    take,
)

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


def _rng(seed: int, dev: torch.device) -> torch.Generator:
    # on the CPU this is the same stream as torch.Generator().manual_seed(seed)
    return torch.Generator(device=dev).manual_seed(seed)


def _latent(g: nn.Module, b: int, gen: torch.Generator, dev: torch.device) -> torch.Tensor:
    return torch.randn(b, g.z_dim, generator=gen, device=dev)


# ----------------------------------------------------------------------------- training runs
#
# Every trainer below trains R independent runs of one model as ONE batched computation: run k's
# modules are ``gs[k]``, ``ds[k]`` (built and initialised by the caller from run k's seed), its
# training set is ``x[k]`` (so x has shape (R, n, ...)) and its batches, latents and noise come
# from ``seeds[k]`` alone (:class:`~privrisk.training.replicates.RunRNG`). The parameters of the R
# runs are stacked (:class:`~privrisk.training.replicates.Replicas`), every step is one vmapped
# forward and one backward for all runs, and the trained weights are written back into the
# modules. One run is the case R = 1.


def _check_runs(x: torch.Tensor, seeds: Sequence[int], *groups: Sequence) -> None:
    r = len(seeds)
    if r < 1 or x.shape[0] != r or any(len(g) != r for g in groups):
        raise ValueError(
            f"one training set, one seed and one module per run: x has {x.shape[0]} runs, "
            f"seeds {r}, modules {[len(g) for g in groups]}"
        )


def gradient_penalty(critic, real: torch.Tensor, fake: torch.Tensor, eps: torch.Tensor):
    """Per run, E[(||∇_x̂ D(x̂)||₂ − 1)²] at the interpolates x̂ = eps·real + (1 − eps)·fake
    (Gulrajani et al. 2017, Alg. 1); real, fake (R, b, ...), eps (R, b, 1, ...) -> (R,)."""
    xh = (eps * real + (1 - eps) * fake).requires_grad_(True)
    (grad,) = torch.autograd.grad(critic(xh).sum(), xh, create_graph=True)
    return ((grad.flatten(2).norm(dim=2) - 1) ** 2).mean(1)


def _progress(name: str, ep: int, epochs: int, losses: torch.Tensor) -> None:
    if (ep + 1) % max(1, epochs // 5) == 0:
        lo = losses.mean(0).tolist()  # one sync every fifth of the training
        log.info("%s epoch %d/%d: mean losses over runs %s", name, ep + 1, epochs, lo)


def train_wgan_gp(
    x: torch.Tensor,
    gs: Sequence[nn.Module],
    ds: Sequence[nn.Module],
    *,
    seeds: Sequence[int],
    epochs: int,
    batch_size: int = 64,
    n_critic: int = 5,
    gp_weight: float = 10.0,
    lr: float = 1e-4,
    betas: tuple[float, float] = (0.0, 0.9),
) -> np.ndarray:
    """WGAN-GP (Gulrajani et al. 2017, Algorithm 1) for every run at once, in place; x (R, n, ...)
    in [−1, 1] on the models' device.

    An epoch is one pass of critic steps over each run's shuffled training set (⌈n / batch_size⌉
    batches); the generators take one step after every ``n_critic`` critic steps. Returns the
    (critic loss, generator loss) of the last step of each epoch, shape (R, epochs, 2).
    """
    _check_runs(x, seeds, gs, ds)
    g, d = Replicas(gs), Replicas(ds)
    rng = RunRNG(seeds, g.device)
    og, od = make_adam(g, lr, betas), make_adam(d, lr, betas)
    sample = x.shape[2:]
    hist, count = [], 0
    loss_g = torch.full((len(seeds),), float("nan"), device=g.device)
    for ep in range(epochs):
        for idx in rng.epoch(x.shape[1], batch_size):
            real, b = take(x, idx), idx.shape[1]
            with torch.no_grad():
                fake = g(rng.randn(b, g.z_dim)).view_as(real)
            eps = rng.rand(b, *(1,) * len(sample))
            loss_d = (
                d(fake).mean(1) - d(real).mean(1) + gp_weight * gradient_penalty(d, real, fake, eps)
            )
            step(od, loss_d)
            count += 1
            if count % n_critic == 0:
                loss_g = -d(g(rng.randn(b, g.z_dim)).view_as(real)).mean(1)
                step(og, loss_g)
        hist.append(torch.stack([loss_d.detach(), loss_g.detach()], 1))
        _progress("WGAN-GP", ep, epochs, hist[-1])
    g.write_back()
    d.write_back()
    return torch.stack(hist, 1).cpu().numpy()


def train_jsgan(
    x: torch.Tensor,
    gs: Sequence[nn.Module],
    ds: Sequence[nn.Module],
    *,
    seeds: Sequence[int],
    epochs: int,
    batch_size: int,
    lr: float = 2e-4,
    betas: tuple[float, float] = (0.5, 0.999),
) -> np.ndarray:
    """The original (Jensen–Shannon) GAN for every run at once, in place, non-saturating generator
    loss; one D and one G step per batch of an epoch. Returns the (D loss, G loss) of the last
    step of each epoch, shape (R, epochs, 2)."""
    _check_runs(x, seeds, gs, ds)
    g, d = Replicas(gs), Replicas(ds)
    rng = RunRNG(seeds, g.device)
    og, od = make_adam(g, lr, betas), make_adam(d, lr, betas)
    hist = []
    for ep in range(epochs):
        for idx in rng.epoch(x.shape[1], batch_size):
            real = take(x, idx)
            fake = g(rng.randn(idx.shape[1], g.z_dim)).view_as(real)
            dr, df = d(real), d(fake.detach())
            ld = lane_bce(dr, torch.ones_like(dr)).mean(1) + lane_bce(
                df, torch.zeros_like(df)
            ).mean(1)
            step(od, ld)
            dg = d(fake)
            lg = lane_bce(dg, torch.ones_like(dg)).mean(1)
            step(og, lg)
        hist.append(torch.stack([ld.detach(), lg.detach()], 1))
        _progress("JS-GAN", ep, epochs, hist[-1])
    g.write_back()
    d.write_back()
    return torch.stack(hist, 1).cpu().numpy()


# ----------------------------------------------------------------------------- privGAN


def train_privgan(
    x: torch.Tensor,
    gens: Sequence[Sequence[nn.Module]],
    discs: Sequence[Sequence[nn.Module]],
    privs: Sequence[nn.Module],
    *,
    seeds: Sequence[int],
    epochs: int,
    batch_size: int = 128,
    lr: float = 2e-4,
    betas: tuple[float, float] = (0.5, 0.999),
    privacy_weight: float = 1.0,
    dp_delay: int = 0,
    disc_epochs: int = 0,
    label_smoothing: float = 0.95,
) -> np.ndarray:
    """privGAN (Mukherjee et al. 2019) for every run at once: in run k, pair i (``gens[k][i]``,
    ``discs[k][i]``) is a JS-GAN on part i of x[k]; the privacy discriminator ``privs[k]`` (r
    logits) learns which generator made a sample and each G_i also minimises
    −λ log(1 − P_priv(i | G_i(z))) once ``dp_delay`` epochs have passed. ``disc_epochs`` pre-train
    the privacy discriminators on the initial generators.

    The r pairs of the R runs train as R·r stacked GANs: within a step pair i's updates touch
    neither another pair nor the privacy discriminator, so updating all pairs at once is the
    loop over pairs. Returns the part index of each training point, shape (R, n)."""
    _check_runs(x, seeds, gens, discs, privs)
    runs, n = x.shape[:2]
    r = len(gens[0])
    if any(len(p) != r for p in (*gens, *discs)):
        raise ValueError("train_privgan: every run needs the same number r of pairs")
    g = Replicas([m for run in gens for m in run])  # index k·r + i
    d = Replicas([m for run in discs for m in run])
    priv = Replicas(privs)
    dev = g.device
    rng = RunRNG(seeds, dev)
    part = rng.randperm(n) % r  # (R, n); part i holds ⌈(n − i)/r⌉ points in every run
    sizes = torch.tensor([len(range(i, n, r)) for i in range(r)], device=dev)
    order = torch.argsort(part, dim=1, stable=True)  # run k's points grouped by part
    start = torch.cumsum(sizes, 0) - sizes
    bs = min(batch_size, int(sizes.min()))
    steps_per_epoch = max(1, math.ceil(int(sizes.min()) / bs))
    og, od, op = make_adam(g, lr, betas), make_adam(d, lr, betas), make_adam(priv, lr, betas)
    lab = torch.arange(r, device=dev).repeat_interleave(bs)

    def latents():  # (R·r, bs, z): run k's stream draws for its r generators
        return rng.randn(r, bs, g.z_dim).flatten(0, 1)

    def priv_step():
        with torch.no_grad():
            fakes = g(latents()).view(runs, r * bs, -1)
        logits = priv(fakes)
        loss = F.cross_entropy(logits.flatten(0, 1), lab.repeat(runs), reduction="none")
        step(op, loss.view(runs, -1).mean(1))

    for _ in range(disc_epochs * steps_per_epoch):
        priv_step()
    for ep in range(epochs):
        private = ep >= dp_delay and privacy_weight > 0
        for _ in range(steps_per_epoch):
            pos = start[:, None] + (rng.rand(r, bs) * sizes[:, None]).long()  # (R, r, bs)
            real = take(x, torch.gather(order, 1, pos.flatten(1))).view(runs * r, bs, -1)
            fake = g(latents())
            dr, df = d(real), d(fake.detach())
            ld = lane_bce(dr, torch.full_like(dr, label_smoothing)).mean(1) + lane_bce(
                df, torch.zeros_like(df)
            ).mean(1)
            step(od, ld)
            dg = d(fake)
            lg = lane_bce(dg, torch.ones_like(dg)).mean(1)  # (R·r,)
            if private:
                p = F.softmax(priv(fake.view(runs, r * bs, -1)), -1).view(runs, r, bs, r)
                own = torch.diagonal(p, dim1=1, dim2=3).permute(0, 2, 1)  # (R, r, bs): P(i | G_i)
                lg = lg - privacy_weight * torch.log1p(-own.clamp(max=1 - 1e-6)).mean(2).flatten()
            step(og, lg)
            if private:
                priv_step()
        _progress("privGAN", ep, epochs, torch.stack([ld.detach(), lg.detach()], 1))
    for m in (g, d, priv):
        m.write_back()
    return part.cpu().numpy()


# ----------------------------------------------------------------------------- DP-cGAN


def _linear_layers(d: Replicas) -> list[tuple[str, float | None]]:
    """The MLP critic as (Linear parameter prefix, negative slope of the LeakyReLU after it)."""
    layers, out = list(d.template.net), []
    for i, layer in enumerate(layers):
        if isinstance(layer, nn.Linear):
            out.append((f"net.{i}", None))
        elif isinstance(layer, nn.LeakyReLU) and out and out[-1][1] is None:
            out[-1] = (out[-1][0], layer.negative_slope)
        else:
            raise ValueError(f"DP-cGAN critic: unsupported layer {layer!r} (Linear/LeakyReLU)")
    covered = {f"{p}.{w}" for p, _ in out for w in ("weight", "bias")}
    if covered != set(d.params):
        raise ValueError("DP-cGAN critic: parameters outside its Linear layers")
    return out


def clipped_gradient_sum(
    d: Replicas,
    x: torch.Tensor,
    y: torch.Tensor,
    target: torch.Tensor,
    weight: torch.Tensor,
    clip: float,
    lanes: slice | None = None,
) -> dict[str, torch.Tensor]:
    """Σ_i weight_i · clip_C(∇ℓ_i) per run, for the binary cross-entropy ℓ_i of sample i of the
    MLP critic ``d``; x (R, B, ...), y, target, weight (R, B) (weight 0 marks padding).
    ``lanes`` selects runs of ``d`` (x then holds those runs only).

    A Linear layer's per-sample gradient is the outer product δ_i a_iᵀ of the back-propagated
    error and the layer input, so its squared norm is ‖δ_i‖²‖a_i‖² (+ ‖δ_i‖² for the bias) and the
    clipped sum is Σ_i c_i δ_i a_iᵀ: per-sample clipping without materialising R·B gradient copies
    (ghost clipping, Goodfellow 2015; Li et al. 2022). opacus' factor c_i = min(1, C/(‖g_i‖ + 1e-6)).
    """
    layers = _linear_layers(d)
    p = {k: v.detach() if lanes is None else v.detach()[lanes] for k, v in d.params.items()}
    h = x.flatten(2)
    if d.n_classes:
        h = torch.cat([h, F.one_hot(y, d.n_classes).to(h.dtype)], 2)
    inputs, pre = [], []
    for name, slope in layers:
        inputs.append(h)
        z = lane_matmul(h, p[f"{name}.weight"], p[f"{name}.bias"][:, None], tb=True)
        if not pre:  # the graph starts at the first pre-activation (the inputs need no gradient)
            z.requires_grad_(True)
        pre.append(z)
        h = z if slope is None else F.leaky_relu(z, slope)
    loss = lane_bce(h.squeeze(-1), target)
    deltas = torch.autograd.grad(loss.sum(), pre)  # δ_i = ∂ℓ_i/∂z_i: sample i's loss alone
    sq = sum(dl.pow(2).sum(2) * (a.pow(2).sum(2) + 1) for dl, a in zip(deltas, inputs, strict=True))
    c = (clip / (sq.sqrt() + 1e-6)).clamp(max=1.0) * weight  # (R, B)
    out = {}
    for (name, _), dl, a in zip(layers, deltas, inputs, strict=True):
        cd = dl * c[..., None]
        out[f"{name}.weight"] = lane_matmul(cd, a, ta=True)  # Σ_i c_i δ_i a_iᵀ per run
        out[f"{name}.bias"] = cd.sum(1)
    return out


#: a DP-SGD batch is padded to this quantile of a run's Poisson batch size (below)
WIDTH_QUANTILE = 1 - 1e-3


def poisson_width(n: int, q: float) -> int:
    """The padded width of a run's Poisson batch of ``n`` points at rate ``q``: its
    :data:`WIDTH_QUANTILE` quantile, from n and q alone.

    Padding every run to the largest draw among the runs of a job would make each run's numbers
    depend on the other runs' draws (another matrix shape rounds differently); with a width fixed
    by n and q, a run's computation is the same whichever runs share its job. A run that draws
    more (1 step in 1,000 on average) is computed again alone at its own size.
    """
    from scipy.stats import binom

    return max(1, min(n, int(binom.ppf(WIDTH_QUANTILE, n, q))))


def _joint_batch(x, y, order, count, fake, yf, width: int):
    """Each run's real points (its first ``width`` Poisson-sampled ones, zero weight past its
    count) then its fakes: inputs, labels, targets (real 1, fake 0) and weights."""
    idx = order[:, :width]
    valid = (torch.arange(idx.shape[1], device=x.device) < count[:, None]).to(x.dtype)
    ones = torch.ones(fake.shape[:2], dtype=x.dtype, device=x.device)
    return (
        torch.cat([take(x, idx), fake], 1),
        torch.cat([take(y, idx), yf], 1),
        torch.cat([torch.ones_like(valid), torch.zeros_like(ones)], 1),
        torch.cat([valid, ones], 1),
    )


def train_dpcgan(
    x: torch.Tensor,
    y: torch.Tensor,
    gs: Sequence[nn.Module],
    ds: Sequence[nn.Module],
    *,
    seeds: Sequence[int],
    epsilon: float,
    delta: float,
    epochs: float,
    batch_size: int,
    max_grad_norm: float = 1.0,
    lr_d: float = 0.05,
    lr_g: float = 1e-3,
    d_optimizer: str = "sgd",
) -> dict:
    """Conditional GANs with DP-SGD discriminators (Torkzadehmahani et al. 2019), every run at
    once, in place; x (R, n, ...), y (R, n) the runs' training sets.

    Each step Poisson-samples each run's real points with rate q = batch_size / n and draws
    ``batch_size`` fakes; D's loss on the joint batch (real → 1, fake → 0) is differentiated per
    sample (:func:`clipped_gradient_sum`), *every* sample's gradient (real and fake, as the DP-CGAN
    repository clips both) is clipped to ``max_grad_norm``, Gaussian noise σ·C is added to each
    run's sum (σ from :func:`privrisk.accounting.dpsgd_noise_multiplier`, RDP, add/remove, for
    (ε, δ) after ``epochs / q`` steps; each run its own noise) and the sum is divided by the
    expected batch 2·batch_size. A fake sample touches no training point, so clipping it costs no
    privacy; clipping only the real gradients lets the unclipped fake gradient dominate every
    step, and D learns to call everything fake. A run whose Poisson batch is empty still takes its
    noise step, as DP-SGD's accounting assumes. G only sees D (post-processing). ε = ∞ is the
    non-private control: the same clipped steps without noise. Returns the accounting record (σ,
    q, steps, the ε spent by :func:`privrisk.accounting.dpsgd_epsilon`, its adjacency and
    accountant).
    """
    from .. import accounting

    if d_optimizer not in ("sgd", "adam"):
        raise ValueError(f"d_optimizer must be sgd or adam, got {d_optimizer!r}")
    _check_runs(x, seeds, gs, ds)
    g, d = Replicas(gs), Replicas(ds)
    dev = g.device
    rng = RunRNG(seeds, dev)
    runs, n = x.shape[:2]
    q = min(1.0, batch_size / n)
    steps = max(1, int(round(epochs / q)))
    private = math.isfinite(epsilon)
    # the accounting the card reports for this run: RDP, add/remove (as opacus, which this once was)
    how = {"adjacency": "add-remove", "accountant": "rdp"}
    sigma = (
        accounting.dpsgd_noise_multiplier(
            epsilon=epsilon, delta=delta, sample_rate=q, steps=steps, **how
        )
        if private
        else 0.0
    )
    # DP-Adam is as private as DP-SGD (Adam only post-processes the noised, clipped gradients)
    od = (
        torch.optim.SGD(d.parameters(), lr=lr_d)
        if d_optimizer == "sgd"
        else make_adam(d, lr_d, (0.5, 0.999))
    )
    og = make_adam(g, lr_g, (0.5, 0.999))
    ones = torch.ones(runs, batch_size, device=dev)
    empty = torch.zeros(runs, dtype=torch.long, device=dev)
    width = poisson_width(n, q)
    for t in range(steps):
        mask = rng.rand(n) < q  # (R, n) Poisson sampling
        count = mask.sum(1)
        empty += count == 0
        order = torch.argsort((~mask).to(torch.int8), dim=1, stable=True)
        yf = rng.randint(g.n_classes, batch_size)
        with torch.no_grad():
            fake = g(rng.randn(batch_size, g.z_dim), yf).view(runs, batch_size, *x.shape[2:])
        joint = _joint_batch(x, y, order, count, fake, yf, width)
        grads = clipped_gradient_sum(d, *joint, max_grad_norm)
        for k in torch.nonzero(count > width).flatten().tolist():  # one sync a step
            run = slice(k, k + 1)
            own = _joint_batch(
                x[run], y[run], order[run], count[run], fake[run], yf[run], int(count[k])
            )
            wide = clipped_gradient_sum(d, *own, max_grad_norm, lanes=run)
            for name in grads:
                grads[name][k] = wide[name][0]
        for name, p in d.params.items():
            noise = rng.randn(*p.shape[1:]) * (sigma * max_grad_norm) if private else 0.0
            p.grad = (grads[name] + noise) / (2 * batch_size)
        od.step()
        dg = d(g(rng.randn(batch_size, g.z_dim), yf), yf)
        lg = lane_bce(dg, ones).mean(1)
        step(og, lg)
        if (t + 1) % max(1, steps // 5) == 0:
            log.info("DP-cGAN ε=%g step %d/%d: mean G loss %.4f", epsilon, t + 1, steps, lg.mean())
    g.write_back()
    d.write_back()
    spent = (
        accounting.dpsgd_epsilon(
            noise_multiplier=sigma, delta=delta, sample_rate=q, steps=steps, **how
        )
        if private
        else math.inf
    )
    return {
        "noise_multiplier": sigma,
        "sample_rate": q,
        "steps": steps,
        "epsilon_spent": spent,
        **how,
        "d_optimizer": d_optimizer,
        "delta": delta,
        "max_grad_norm": max_grad_norm,
        "clipped": "real and fake per-sample gradients",
        "empty_batches": empty.tolist(),
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
    dev = device_of(g)
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
