"""The informed attacker's ceiling (swanberg2025 Figures 4-7): cost of the exact-posterior Gibbs
attack, its one-column field sampler against the general block sampler, and the RAP attack.

For one unknown column the full conditional of record i is a fixed linear term minus the field
Σ_j C(h_ij, 2)[x_j = v] of the other records, updated in O(n) per move; the block sampler
(several columns) gathers the residual a − C(X) on every marginal's sub-grid instead. On the ACS
stand-in BayNet (100 records, ε = 1, R draws × 2 chains) this times both samplers on the same
problems with the same random stream (they must draw the same chain), and the batched RAP attack
(the paper's, tuned setting Adam 0.003 × 100 steps) on the same draws, and prints seconds and ratios.

Run: python benchmarks/bench_rap_ceiling.py [--draws 40] [--sweeps 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from privrisk.attacks import posterior as po
from privrisk.attacks import rap
from privrisk.core import seeds
from privrisk.data import acs
from privrisk.mechanisms import marginals as mm
from privrisk.models import baynet


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=40)
    ap.add_argument("--sweeps", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    table = acs.standin(20000, seed=1)
    bn = baynet.fit_greedy(table.codes, table.domains, rng=seeds.rng(0))
    print(
        f"{'column':>8} {'K':>3} {'field s':>8} {'block s':>11} {'ratio':>6} {'RAP s':>6} {'same chain':>10}"
    )
    for name in ("SEX", "SCHL"):
        u = table.columns.index(name)
        recs, noisy = [], []
        for r in range(args.draws):
            x = bn.sample(100, seeds.rng(1, r))
            lay, nz, sigma = mm.release(
                x, bn.domains, [u], epsilon=1.0, delta=1e-5, rng=seeds.rng(2, r)
            )
            recs.append(x)
            noisy.append(nz)
        recs, noisy = np.stack(recs), np.stack(noisy)
        z0, _ = baynet.conditional_map(bn, recs.reshape(-1, bn.d), [u])
        out = []
        for path in ("field", "block"):
            x = np.repeat(recs, 2, axis=0)
            x[:, :, u] = np.repeat(z0.reshape(args.draws, 100), 2, axis=0)
            acc = np.zeros((2 * args.draws, 100, bn.domains[u]))
            prec = po._precisions(sigma, args.sweeps, args.sweeps // 3, 30.0)
            rng = np.random.default_rng(0)
            counts = np.repeat(noisy * 100, 2, axis=0)
            t = time.perf_counter()
            if path == "field":
                po._gibbs_one_column(bn, x, u, lay, counts, prec, args.sweeps // 3, [acc], rng)
            else:
                po._gibbs_blocks(bn, x, [u], lay, counts, prec, args.sweeps // 3, acc, rng)
            out.append((time.perf_counter() - t, x))
        init = [
            baynet.conditional_marginal(bn, recs.reshape(-1, bn.d), [u], u).reshape(
                args.draws, 100, -1
            )
        ]
        t = time.perf_counter()
        rap.rap_attack_batch(
            recs, bn.domains, [u], lay, noisy, init, checkpoints=[100], lr=0.003, noise_std=sigma
        )
        t_rap = time.perf_counter() - t
        same = bool(np.array_equal(out[0][1], out[1][1]))
        print(
            f"{name:>8} {bn.domains[u]:>3} {out[0][0]:>8.2f} {out[1][0]:>11.2f} "
            f"{out[1][0] / out[0][0]:>6.1f} {t_rap:>6.2f} {str(same):>10}"
        )


if __name__ == "__main__":
    main()
