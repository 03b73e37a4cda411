"""Two per-step costs of xu2022's batched replicate training (privrisk.training.replicates),
each against the form it replaced, in one run:

* a grouped convolution's weights taken per run with ``weight[k]`` (the backward of R selects
  writes R zero-filled copies of the stacked weight and adds them up) vs ``weight.unbind(0)``
  (one stack in the backward; the same numbers to the last bit);
* Adam over the stacked parameters as a chain of element-wise ops (what the trainers use) vs the
  fused kernel (faster, but not used: its vector path and scalar tail round differently, so a
  run's numbers would depend on the runs stacked beside it).

    python benchmarks/bench_replicates_step.py [--epochs 3] [--repeats 3] [--runs 10]

Times one skin JS-GAN (the quick config's widths, 16×16 images, 240 members, batch 16) and one
MNIST WGAN-GP (784-d MLP, 150 members, batch 64) for ``--epochs`` epochs per variant, repeated
``--repeats`` times in alternation; prints the best CPU seconds per epoch of each variant and the
ratio to the current code (> 1: the current code is faster, < 1: the variant is). Random data: the cost does not
depend on it.
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import torch

from privrisk.models import gan, skin
from privrisk.training import replicates


def _select_forward(self, x):
    # the replaced form: self.weight[k] per run
    xs = x.reshape(self.runs, -1, *x.shape[1:])
    return torch.cat(
        [
            self._one(xs[k], self.weight[k], None if self.bias is None else self.bias[k])
            for k in range(self.runs)
        ]
    )


def _fused_adam(reps, lr, betas):
    return torch.optim.Adam(reps.parameters(), lr=lr, betas=tuple(betas), fused=True)


def _skin(runs: int, epochs: int) -> None:
    cfg = {"z_dim": 32, "g_channels": [32, 16], "d_channels": [32, 64]}
    nets = [skin.build_gan(cfg, 16, torch.device("cpu")) for _ in range(runs)]
    x = torch.rand(runs, 240, 3, 16, 16) * 2 - 1
    gan.train_jsgan(
        x,
        [g for g, _ in nets],
        [d for _, d in nets],
        seeds=list(range(runs)),
        epochs=epochs,
        batch_size=16,
        lr=1e-3,
    )


def _mnist(runs: int, epochs: int) -> None:
    cfg = {"z_dim": 32, "g_hidden": [64, 128], "d_hidden": [256, 128]}
    nets = [gan.build("mlp", cfg, (784,)) for _ in range(runs)]
    x = torch.rand(runs, 150, 784) * 2 - 1
    gan.train_wgan_gp(
        x,
        [g for g, _ in nets],
        [d for _, d in nets],
        seeds=list(range(runs)),
        epochs=epochs,
        batch_size=64,
        lr=1e-3,
    )


VARIANTS = {
    "current (unbind)": [],
    "weight[k] per run": [mock.patch.object(replicates._GroupedConv, "forward", _select_forward)],
    "fused Adam (not used)": [mock.patch.object(gan, "make_adam", _fused_adam)],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    torch.set_num_threads(1)
    for name, fn in (("skin JS-GAN", _skin), ("MNIST WGAN-GP", _mnist)):
        fn(a.runs, 1)  # warm-up
        best = {}
        for _ in range(a.repeats):
            for v, patches in VARIANTS.items():
                for p in patches:
                    p.start()
                try:
                    t = time.process_time()
                    fn(a.runs, a.epochs)
                    dt = (time.process_time() - t) / a.epochs
                finally:
                    for p in patches:
                        p.stop()
                best[v] = min(best.get(v, float("inf")), dt)
        base = best["current (unbind)"]
        for v, dt in best.items():
            print(f"{name:14s} {v:30s} {dt:.3f} s/epoch  ratio {dt / base:.2f}")


if __name__ == "__main__":
    main()
