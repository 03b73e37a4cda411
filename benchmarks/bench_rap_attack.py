"""Cost of the RAP-based M-AI attack (swanberg2025 Figures 4-7) as the number of marginals grows.

For the ACS stand-in (16 columns, 100 records) and d' = 1, 2, 4, 7, 10, 13 unknown columns
(m = C(16,3) - C(16-d',3) = 105 ... 559 noisy 3-way marginals) this times one attack step of
  (a) the vectorised objective used by privrisk.attacks.rap (one gather + index_add for the
      marginals with a known column, one GEMM per column pair for the all-unknown ones), and
  (b) a naive per-marginal loop (one einsum per marginal over the full relaxed rows),
and prints seconds per step and the ratio (b)/(a). It also times one full single-column attack
(the issue's speed target: < 10 s for 100 records and 105 marginals).

Run: python benchmarks/bench_rap_attack.py [--steps 20]
"""

from __future__ import annotations

import argparse
import time

import torch

from privrisk.attacks import rap
from privrisk.core import seeds
from privrisk.data import acs
from privrisk.mechanisms import marginals as mm
from privrisk.models import baynet


def naive_loss(probs_all, lay, target):
    """Per-marginal loop over full relaxed rows (known columns as fixed one-hot rows)."""
    loss = 0.0
    for ti, t in enumerate(lay.triples):
        q = torch.einsum(
            "ia,ib,ic->abc", probs_all[t[0]], probs_all[t[1]], probs_all[t[2]]
        ).reshape(-1)
        q = q / probs_all[0].shape[0]
        loss = loss + ((q - target[lay.offsets[ti] : lay.offsets[ti + 1]]) ** 2).sum()
    return loss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    table = acs.standin(20000, seed=1)
    bn = baynet.fit_greedy(table.codes, table.domains, rng=seeds.rng(0))
    records = bn.sample(100, seeds.rng(1))
    print(
        f"{'d_unknown':>9} {'m':>4} {'cells':>7} {'vectorised s/step':>18} {'naive s/step':>13} {'ratio':>6}"
    )
    for k in (1, 2, 4, 7, 10, 13):
        unknown = bn.order[-k:]
        lay, noisy, sigma = mm.release(
            records, bn.domains, unknown, epsilon=3.0, delta=1e-5, rng=seeds.rng(2)
        )
        init = [baynet.conditional_marginal(bn, records, unknown, u) for u in unknown]
        rap.rap_attack(records, bn.domains, unknown, lay, noisy, init, steps=2)  # warm-up
        t0 = time.perf_counter()
        rap.rap_attack(
            records, bn.domains, unknown, lay, noisy, init, steps=args.steps, noise_std=sigma
        )
        vec = (time.perf_counter() - t0) / args.steps
        target = torch.as_tensor(noisy, dtype=torch.float32)
        logits = {
            u: torch.log(torch.as_tensor(p, dtype=torch.float32)).requires_grad_(True)
            for u, p in zip(unknown, init, strict=True)
        }
        onehot = {
            v: torch.nn.functional.one_hot(torch.from_numpy(records[:, v]), bn.domains[v]).float()
            for v in range(bn.d)
            if v not in unknown
        }
        opt = torch.optim.Adam(list(logits.values()), lr=0.1)
        n_naive = max(2, args.steps // 4)
        t0 = time.perf_counter()
        for _ in range(n_naive):
            opt.zero_grad()
            probs_all = [
                torch.softmax(logits[v], 1) if v in logits else onehot[v] for v in range(bn.d)
            ]
            naive_loss(probs_all, lay, target).backward()
            opt.step()
        naive = (time.perf_counter() - t0) / n_naive
        print(
            f"{k:>9} {len(lay.triples):>4} {lay.n_cells:>7} {vec:>18.4f} {naive:>13.4f} {naive / vec:>6.1f}"
        )
    j = table.columns.index("SEX")
    lay, noisy, sigma = mm.release(
        records, bn.domains, [j], epsilon=1.0, delta=1e-5, rng=seeds.rng(3)
    )
    init = [baynet.conditional_marginal(bn, records, [j], j)]
    t0 = time.perf_counter()
    rap.rap_attack(records, bn.domains, [j], lay, noisy, init, steps=150, noise_std=sigma)
    print(
        f"one single-column ACS attack (SEX, m = {len(lay.triples)}, 150 steps): {time.perf_counter() - t0:.2f} s"
    )


if __name__ == "__main__":
    main()
