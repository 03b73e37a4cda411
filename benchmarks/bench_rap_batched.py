"""Batched vs one-at-a-time RAP M-AI attacks (swanberg2025 Figures 4-7: draws × tuning settings).

On the ACS stand-in BayNet (16 columns, 100 records) this attacks B = draws × settings
(optimiser, lr, λ) conditions for one column set, once
  (a) one at a time with privrisk.attacks.rap.rap_attack (torch.optim, scatter objective), and
  (b) as one batched tensor computation, privrisk.attacks.rap.rap_attack_batch (Gram objective,
      per-element Adam/SGD),
checks that both give the same guesses, and prints seconds and the ratio (a)/(b).

Run: python benchmarks/bench_rap_batched.py [--steps 50] [--draws 5] [--unknown 1 4]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from privrisk.attacks import rap
from privrisk.core import seeds
from privrisk.data import acs
from privrisk.mechanisms import marginals as mm
from privrisk.models import baynet

SETTINGS = [("adam", 0.003, 0.0), ("adam", 0.1, 0.0), ("sgd", 10.0, 0.0), ("adam", 0.03, 1.0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--unknown", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    table = acs.standin(20000, seed=1)
    bn = baynet.fit_greedy(table.codes, table.domains, rng=seeds.rng(0))
    print(
        f"{'d_unknown':>9} {'B':>4} {'one-at-a-time s':>16} {'batched s':>10} {'ratio':>6} {'same guesses':>13}"
    )
    for k in args.unknown:
        unknown = list(bn.order[-k:])
        recs, noisy = [], []
        for r in range(args.draws):
            x = bn.sample(100, seeds.rng(1, r))
            lay, nz, sigma = mm.release(
                x, bn.domains, unknown, epsilon=1.0, delta=1e-5, rng=seeds.rng(2, r)
            )
            recs.append(x)
            noisy.append(nz)
        init = [
            np.stack([baynet.conditional_marginal(bn, x, unknown, u) for x in recs])
            for u in unknown
        ]
        elems = [(s, r) for s in SETTINGS for r in range(args.draws)]
        t0 = time.perf_counter()
        single = [
            rap.rap_attack(
                recs[r],
                bn.domains,
                unknown,
                lay,
                noisy[r],
                [p[r] for p in init],
                steps=args.steps,
                lr=s[1],
                optimiser=s[0],
                prior_weight=s[2],
                noise_std=sigma,
            ).guess
            for s, r in elems
        ]
        t_single = time.perf_counter() - t0
        ri = np.array([r for _, r in elems])
        t0 = time.perf_counter()
        res = rap.rap_attack_batch(
            np.stack(recs)[ri],
            bn.domains,
            unknown,
            lay,
            np.stack(noisy)[ri],
            [p[ri] for p in init],
            checkpoints=[args.steps],
            optimiser=[s[0] for s, _ in elems],
            lr=[s[1] for s, _ in elems],
            prior_weight=[s[2] for s, _ in elems],
            noise_std=sigma,
        )
        t_batch = time.perf_counter() - t0
        same = np.mean([np.mean(g == res.guess[0, i]) for i, g in enumerate(single)])
        print(
            f"{k:>9} {len(elems):>4} {t_single:>16.2f} {t_batch:>10.2f} {t_single / t_batch:>6.1f} {same:>13.4f}"
        )


if __name__ == "__main__":
    main()
