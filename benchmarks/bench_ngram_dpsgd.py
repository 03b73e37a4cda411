"""Batched DP-SGD over many lazy n-gram models (swanberg2025 Figure 3) vs a per-model opacus loop.

Same work on both sides: M models, each trained on its own canary for T full-batch steps
(clip C, noise σC, SGD), starting from the password prior. (a) ``privrisk.training.dpsgd.
batched_dpsgd`` trains all M models in one computation; (b) opacus (GradSampleModule +
DPOptimizer) trains them one at a time, as a loop over models would. Prints seconds per model
for each and the ratio (b)/(a); (a) is also timed on a 100x larger batch (the per-model cost
falls further as the batch grows). Equality of the two on the same noise draws is tested in
tests/training/test_dpsgd_batched.py.

Run: python benchmarks/bench_ngram_dpsgd.py [--models 50] [--steps 16] [--threads 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from privrisk.core import seeds
from privrisk.models import ngram
from privrisk.priors import scaled_prior
from privrisk.training import dpsgd

PREFIX = [3, 1, 4, 1, 5, 9, 2, 6]


def batched(m, steps, clip, lr, sigma, seed=0):
    prior = np.tile(scaled_prior("password"), (m, 1))
    targets = torch.as_tensor(seeds.rng(seed).integers(0, 10, m))
    h, init = ngram.lazy_setup(prior, PREFIX, hidden=32, seed=seed)
    t0 = time.perf_counter()
    out = dpsgd.batched_dpsgd(
        init,
        lambda p: ngram.lazy_loss(p, h, targets),
        steps=steps,
        lr=lr,
        clip=clip,
        noise_multiplier=sigma,
        generator=torch.Generator().manual_seed(seed),
    )
    guesses = ngram.lazy_logits(out, h).argmax(1)
    return time.perf_counter() - t0, guesses


def opacus_loop(m, steps, clip, lr, sigma, seed=0):
    prior = np.tile(scaled_prior("password"), (m, 1))
    targets = torch.as_tensor(seeds.rng(seed).integers(0, 10, m))
    h, init = ngram.lazy_setup(prior, PREFIX, hidden=32, seed=seed)
    t0 = time.perf_counter()
    guesses = []
    for i in range(m):
        lin = torch.nn.Linear(h.numel(), 10)
        with torch.no_grad():
            lin.weight.copy_(init["weight"][i])
            lin.bias.copy_(init["bias"][i])
        trained = dpsgd.opacus_reference_train(
            lin,
            h[None],
            targets[i : i + 1],
            steps=steps,
            lr=lr,
            clip=clip,
            noise_multiplier=sigma,
            seed=seed + i,
        )
        with torch.no_grad():
            guesses.append(int(trained(h[None]).argmax()))
    return time.perf_counter() - t0, torch.tensor(guesses)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=50)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    sigma = dpsgd.full_batch_noise_multiplier(4.0, 1e-5, a.steps)
    clip, lr = 1.0, 0.1
    batched(10, 2, clip, lr, sigma)  # warm-up
    tb, _ = batched(a.models, a.steps, clip, lr, sigma)
    tl, _ = opacus_loop(a.models, a.steps, clip, lr, sigma)
    big = a.models * 100
    tbb, _ = batched(big, a.steps, clip, lr, sigma)
    print(f"{a.models} models x {a.steps} steps (ε = 4, σ = {sigma:.2f}, {a.threads} thread(s))")
    print(f"  opacus loop      : {tl:.3f} s  ({tl / a.models * 1e3:.3f} ms/model)")
    print(f"  batched          : {tb:.4f} s  ({tb / a.models * 1e3:.4f} ms/model)")
    print(f"  batched, {big} : {tbb:.3f} s  ({tbb / big * 1e3:.4f} ms/model)")
    print(f"  speed ratio per model (same {a.models} models): {tl / tb:.0f}x")
    print(
        f"  speed ratio per model (batched at {big} models): {(tl / a.models) / (tbb / big):.0f}x"
    )


if __name__ == "__main__":
    main()
