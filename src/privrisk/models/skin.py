"""Models of the MACE skin-lesion experiments (spec xu2022 §7.4, App. E.3), on any torch device.

* :class:`Generator` / :class:`Discriminator` — the E.3 DCGAN pair: Dense(4·4·c0) and stride-2
  k5 transposed convolutions up to the image size; stride-2 k5 convolutions with LeakyReLU(0.2)
  (fix E9) and a Dense(1) logit. Paper widths (512, 256, 128, 64) and (64, 128, 128, 256) at 64×64.
* :func:`train_jsgan` — the original (Jensen–Shannon) GAN with the non-saturating generator loss;
  :func:`train_wgangp` — the WGAN-GP of the Fig. 2b caption (erratum E7), same networks.
* :class:`Classifier` — the E.3.3 toy classifier Conv(c, k5, s2) → LeakyReLU → Dense(2, relu)
  → Dense(1, sigmoid); :meth:`Classifier.queries` gives the white-box 2-d penultimate output and
  the black-box sigmoid.
* :func:`nearest_distances` — Eq. 2's L2 distance to the nearest of the first n synthetic
  samples, for a whole grid of n in one chunked pass.

Every module and tensor lives on the ``device`` passed in (:func:`privrisk.device.resolve`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

log = logging.getLogger(__name__)


class Generator(nn.Module):
    """z → Dense(4·4·c0) → ConvT(c_i, k5, s2, 'same') + ReLU … → ConvT(3, k5, s2, tanh).

    ``channels`` = (c0, c1, …): one stride-2 layer per entry, so the output is 4·2^len(channels).
    """

    def __init__(self, z_dim: int, channels: Sequence[int]):
        super().__init__()
        self.z_dim, self.c0 = z_dim, channels[0]
        self.fc = nn.Linear(z_dim, 16 * channels[0])
        layers: list[nn.Module] = []
        outs = [*channels[1:], 3]
        for i, (c_in, c_out) in enumerate(zip(channels, outs, strict=True)):
            last = i == len(outs) - 1
            layers += [
                nn.ConvTranspose2d(c_in, c_out, 5, 2, 2, output_padding=1),
                nn.Tanh() if last else nn.ReLU(),
            ]
        self.net = nn.Sequential(*layers)

    @property
    def size(self) -> int:
        return 4 * 2 ** (len(self.net) // 2)

    def forward(self, z):
        return self.net(F.relu(self.fc(z)).view(-1, self.c0, 4, 4))


class Discriminator(nn.Module):
    """Conv(c_i, k5, s2, 'same') + LeakyReLU(0.2) per entry of ``channels``, Flatten, Dense(1) logit."""

    def __init__(self, channels: Sequence[int], size: int):
        super().__init__()
        layers, c_in = [], 3
        for c in channels:
            layers += [nn.Conv2d(c_in, c, 5, 2, 2), nn.LeakyReLU(0.2)]
            c_in = c
        side = size // 2 ** len(channels)
        if side < 1:
            raise ValueError(f"{len(channels)} stride-2 layers do not fit a {size}×{size} image")
        self.net = nn.Sequential(*layers, nn.Flatten())
        self.fc = nn.Linear(c_in * side * side, 1)

    def forward(self, x):
        return self.fc(self.net(x)).squeeze(1)


class Classifier(nn.Module):
    """E.3.3: Conv(c, k5, s2) → LeakyReLU(0.2) → Flatten → Dense(2, relu) → Dense(1) (sigmoid in the loss)."""

    def __init__(self, channels: int, size: int):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, channels, 5, 2, 2), nn.LeakyReLU(0.2), nn.Flatten())
        self.hidden = nn.Linear(channels * (size // 2) ** 2, 2)
        self.out = nn.Linear(2, 1)

    def penultimate(self, x):
        return F.relu(self.hidden(self.conv(x)))

    def forward(self, x):
        return self.out(self.penultimate(x)).squeeze(1)

    @torch.no_grad()
    def queries(self, x: torch.Tensor, batch: int = 1024) -> tuple[np.ndarray, np.ndarray]:
        """(white-box (N, 2) penultimate outputs, black-box (N,) sigmoid outputs) as float64."""
        self.eval()
        wb, bb = [], []
        for s in range(0, len(x), batch):
            h = self.penultimate(x[s : s + batch])
            wb.append(h)
            bb.append(torch.sigmoid(self.out(h).squeeze(1)))
        self.train()
        return torch.cat(wb).double().cpu().numpy(), torch.cat(bb).double().cpu().numpy()


def build_gan(cfg: dict, size: int, device: torch.device) -> tuple[Generator, Discriminator]:
    g = Generator(cfg["z_dim"], cfg["g_channels"]).to(device)
    if g.size != size:
        raise ValueError(
            f"g_channels has {len(cfg['g_channels'])} entries: the generator makes {g.size}×{g.size} "
            f"images, the data are {size}×{size} (need log2(size/4) entries)"
        )
    return g, Discriminator(cfg["d_channels"], size).to(device)


def _batches(n: int, bs: int, gen: torch.Generator, device: torch.device):
    """One epoch of shuffled index batches (the last one may be short)."""
    perm = torch.randperm(n, generator=gen).to(device)
    return [perm[s : s + bs] for s in range(0, n, bs)]


def train_jsgan(
    x: torch.Tensor,
    g: Generator,
    d: Discriminator,
    *,
    epochs: int,
    batch_size: int,
    lr: float = 2e-4,
    beta1: float = 0.5,
    seed: int = 0,
) -> list[tuple[float, float]]:
    """The JS-GAN in place on x (NCHW in [−1, 1], on the models' device); returns per-epoch losses."""
    dev = x.device
    gen = torch.Generator().manual_seed(seed)
    og = torch.optim.Adam(g.parameters(), lr=lr, betas=(beta1, 0.999))
    od = torch.optim.Adam(d.parameters(), lr=lr, betas=(beta1, 0.999))
    hist = []
    for ep in range(epochs):
        for idx in _batches(len(x), batch_size, gen, dev):
            real, b = x[idx], len(idx)
            fake = g(torch.randn(b, g.z_dim, generator=gen).to(dev))
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


def train_wgangp(
    x: torch.Tensor,
    g: Generator,
    d: Discriminator,
    *,
    epochs: int,
    batch_size: int,
    lr: float = 1e-4,
    n_critic: int = 5,
    gp_weight: float = 10.0,
    seed: int = 0,
):
    """WGAN-GP (Gulrajani et al.: Adam(β = 0, 0.9)) in place; one generator step per n_critic batches."""
    dev = x.device
    gen = torch.Generator().manual_seed(seed)
    og = torch.optim.Adam(g.parameters(), lr=lr, betas=(0.0, 0.9))
    od = torch.optim.Adam(d.parameters(), lr=lr, betas=(0.0, 0.9))
    hist, step = [], 0
    for _ in range(epochs):
        for idx in _batches(len(x), batch_size, gen, dev):
            real, b = x[idx], len(idx)
            fake = g(torch.randn(b, g.z_dim, generator=gen).to(dev)).detach()
            eps = torch.rand(b, 1, 1, 1, generator=gen).to(dev)
            xh = (eps * real + (1 - eps) * fake).requires_grad_(True)
            (grad,) = torch.autograd.grad(d(xh).sum(), xh, create_graph=True)
            gp = ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()
            ld = d(fake).mean() - d(real).mean() + gp_weight * gp
            od.zero_grad()
            ld.backward()
            od.step()
            step += 1
            if step % n_critic == 0:
                lg = -d(g(torch.randn(b, g.z_dim, generator=gen).to(dev))).mean()
                og.zero_grad()
                lg.backward()
                og.step()
        hist.append(ld.item())
    return hist


def train_classifier(
    x: torch.Tensor,
    y: torch.Tensor,
    model: Classifier,
    *,
    epochs: int,
    batch_size: int,
    lr: float = 1e-3,
    seed: int = 0,
) -> list[float]:
    """Binary cross-entropy with Adam; y in {0, 1} on the model's device. Returns per-epoch losses."""
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    hist = []
    for _ in range(epochs):
        for idx in _batches(len(x), batch_size, gen, x.device):
            loss = F.binary_cross_entropy_with_logits(model(x[idx]), y[idx].float())
            opt.zero_grad()
            loss.backward()
            opt.step()
        hist.append(loss.item())
    return hist


@torch.no_grad()
def logits(d: nn.Module, x: torch.Tensor, batch: int = 1024) -> np.ndarray:
    d.eval()
    out = torch.cat([d(x[s : s + batch]) for s in range(0, len(x), batch)])
    d.train()
    return out.double().cpu().numpy()


@torch.no_grad()
def generate(g: Generator, n: int, seed: int, batch: int = 1024) -> torch.Tensor:
    """n synthetic images (on the generator's device), from a seeded latent stream."""
    dev = next(g.parameters()).device
    gen = torch.Generator().manual_seed(seed)
    g.eval()
    out = torch.cat(
        [
            g(torch.randn(min(batch, n - s), g.z_dim, generator=gen).to(dev))
            for s in range(0, n, batch)
        ]
    )
    g.train()
    return out


@torch.no_grad()
def nearest_distances(
    x: torch.Tensor, synthetic: torch.Tensor, sizes: Sequence[int], *, chunk: int = 4096
) -> np.ndarray:
    """(N, len(sizes)): min_{j < n} ||x_i − g_j||₂ for each n in ``sizes`` (Eq. 2, L2 in pixel space).

    One pass over the synthetic set in chunks of ``chunk`` rows keeps a running minimum, read off
    at each size, so memory is O(N · chunk) whatever the synthetic-set size (10⁵ at paper scale).
    """
    sizes = sorted(int(s) for s in sizes)
    if sizes[-1] > len(synthetic):
        raise ValueError(f"largest size {sizes[-1]} exceeds the {len(synthetic)} synthetic samples")
    xf = x.flatten(1).double()
    best = torch.full((len(x),), math.inf, dtype=torch.float64, device=x.device)
    out, k, start = np.empty((len(x), len(sizes))), 0, 0
    while k < len(sizes):
        stop = min(start + chunk, sizes[k])
        g = synthetic[start:stop].flatten(1).double()
        best = torch.minimum(best, torch.cdist(xf, g).min(1).values)
        start = stop
        while k < len(sizes) and sizes[k] == start:
            out[:, k] = best.cpu().numpy()
            k += 1
    return out


def member_auc(scores_in, scores_out) -> float:
    """P(member score > non-member score) + ½ P(tie): the AUC of the score as a membership test."""
    from scipy.stats import mannwhitneyu

    a, b = np.asarray(scores_in, float), np.asarray(scores_out, float)
    return float(mannwhitneyu(a, b).statistic / (len(a) * len(b)))
