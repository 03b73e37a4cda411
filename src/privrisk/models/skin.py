"""Networks of the MACE skin-lesion experiments (spec xu2022 §7.4, App. E.3), on any torch device.

* :class:`Generator` / :class:`Discriminator` — the E.3 DCGAN pair: Dense(4·4·c0) and stride-2
  k5 transposed convolutions up to the image size; stride-2 k5 convolutions with LeakyReLU(0.2)
  (fix E9) and a Dense(1) logit. Paper widths (512, 256, 128, 64) and (64, 128, 128, 256) at 64×64.
  They train with :func:`privrisk.models.gan.train_jsgan` or :func:`~privrisk.models.gan.train_wgan_gp`.
* :class:`Classifier` — the E.3.3 toy classifier Conv(c, k5, s2) → LeakyReLU → Dense(2) →
  Dense(1, sigmoid); :meth:`Classifier.queries` gives the white-box 2-d penultimate output and
  the black-box output (as a logit). The Dense(2) layer uses LeakyReLU(0.2) where the paper lists
  relu: with relu one or both units died (0 on every image) in 8 of 17 trial runs at quick scale
  (Adam, lr 1e-4 to 1e-3; a unit with 1,024 inputs moves by about 1 per step at lr 1e-3), which
  leaves a 1-d or constant "2-d" query.

Every module and tensor lives on the ``device`` passed in (:func:`privrisk.core.device.resolve`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..training.replicates import Replicas, RunRNG, lane_bce, make_adam, step, take

log = logging.getLogger(__name__)

#: negative slope of the white-box layer (LeakyReLU(0.2), as every other layer of App. E)
HIDDEN_SLOPE = 0.2


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

    def forward(self, x, y=None):
        return self.fc(self.net(x)).squeeze(1)


class Classifier(nn.Module):
    """E.3.3: Conv(c, k5, s2) → LeakyReLU(0.2) → Flatten → Dense(2, LeakyReLU(0.2)) → Dense(1)
    (sigmoid in the loss); the paper's relu in Dense(2) is replaced (module docstring)."""

    def __init__(self, channels: int, size: int):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, channels, 5, 2, 2), nn.LeakyReLU(0.2), nn.Flatten())
        self.hidden = nn.Linear(channels * (size // 2) ** 2, 2)
        self.out = nn.Linear(2, 1)

    def penultimate(self, x):
        return F.leaky_relu(self.hidden(self.conv(x)), HIDDEN_SLOPE)

    def forward(self, x):
        return self.out(self.penultimate(x)).squeeze(1)

    @torch.no_grad()
    def queries(self, x: torch.Tensor, batch: int = 1024) -> tuple[np.ndarray, np.ndarray]:
        """(white-box (N, 2) penultimate outputs, black-box (N,) output logits) as float64 (the
        logit orders images as the sigmoid does, without piling them up at 0 and 1)."""
        self.eval()
        wb, bb = [], []
        for s in range(0, len(x), batch):
            h = self.penultimate(x[s : s + batch])
            wb.append(h)
            bb.append(self.out(h).squeeze(1))
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


def train_classifier(
    x: torch.Tensor,
    y: torch.Tensor,
    models: Sequence[Classifier],
    *,
    seeds: Sequence[int],
    epochs: int,
    batch_size: int,
    lr: float = 1e-3,
) -> np.ndarray:
    """Binary cross-entropy with Adam for R runs at once (one batched computation, each run its
    own seed's batches: :mod:`privrisk.training.replicates`), in place; x (R, n, ...) and y (R, n)
    in {0, 1} are the runs' training sets on the models' device. Returns the loss of each epoch's
    last batch, shape (R, epochs)."""
    if not (len(models) == len(seeds) == x.shape[0] == y.shape[0]):
        raise ValueError("train_classifier: one training set, one seed and one model per run")
    net = Replicas(models)
    rng = RunRNG(seeds, net.device)
    opt = make_adam(net, lr, (0.9, 0.999))
    hist = []
    for _ in range(epochs):
        for idx in rng.epoch(x.shape[1], batch_size):
            target = take(y, idx).to(x.dtype)
            loss = lane_bce(net(take(x, idx)), target).mean(1)
            step(opt, loss)
        hist.append(loss.detach())
    net.write_back()
    return torch.stack(hist, 1).cpu().numpy()
