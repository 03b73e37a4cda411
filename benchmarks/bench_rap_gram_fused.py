"""Fused vs per-marginal Gram objective of the batched RAP attack (swanberg2025 Figures 4-7).

The batched attack minimises ‖Q(X') − a‖² in Gram form. Its former implementation looped over
the marginal keys (one small batched mat-vec per pair and per all-unknown triple: at ACS d' = 13
that is 78 pairs and 286 triples, ~2,000 tiny kernels per step); privrisk.attacks.rap_gram lays
the coefficients out once so that every term is a few large operations (one GEMM per unknown
column). On the ACS and FIRE stand-in BayNets (100 records, ε = 3, B batch elements) this times
forward + backward of both forms for the Fig 6 column sets (the last d' columns of the visit
order), checks that they agree, and prints CPU seconds per step and the ratio loop / fused.

Run: python benchmarks/bench_rap_gram_fused.py [--steps 5] [--batch 24]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np
import torch

from privrisk.attacks import rap_gram
from privrisk.core import seeds
from privrisk.data import acs, fire
from privrisk.mechanisms import marginals as mm
from privrisk.mechanisms.marginals import Layout
from privrisk.models import baynet


def loop_plan(
    records: np.ndarray,
    domains: Sequence[int],
    unknown: Sequence[int],
    lay: Layout,
    noisy: np.ndarray,
):
    """The former per-marginal-key form (one small op per key)."""
    x = np.asarray(records, dtype=np.int64)
    b, n, d = x.shape
    pos = {int(u): j for j, u in enumerate(unknown)}
    known = [c for c in range(d) if c not in pos]
    h = (x[:, :, None, known] == x[:, None, :, known]).sum(axis=3).astype(float)
    singles: dict = {}
    pairs: dict = {}
    triples: dict = {}
    for key, g in rap_gram.marginal_coefficients(x, domains, pos, lay, noisy):
        target = {1: singles, 2: pairs, 3: triples}[len(key)]
        target[key] = target[key] + g if key in target else g.copy()
    return h, singles, pairs, triples, (noisy**2).sum(axis=1)


def loop_loss(probs: Sequence[torch.Tensor], plan) -> torch.Tensor:
    """The former per-marginal-key form (one small op per key)."""
    h, singles, pairs, triples, const = plan
    n = probs[0].shape[1]
    quad = rap_gram.quadratic(probs, h)  # the quadratic term is the same in both forms
    lin = sum((probs[j] * a).sum(dim=(1, 2)) for (j,), a in singles.items())
    for (j, k), a in pairs.items():
        # batched mat-vec: (a_i p_ik) · p_ij without materialising the outer product
        av = torch.matmul(a, probs[k].unsqueeze(-1)).squeeze(-1)  # (B, n, K_j)
        lin = lin + (av * probs[j]).sum(dim=(1, 2))
    for (j, k, m), a in triples.items():
        # a (B, K_j, K_k, K_m) contracted with p_m for every record: one GEMM per element,
        # then two mat-vecs with p_k and p_j
        bsz, kj, kk, km = a.shape
        am = torch.bmm(a.reshape(bsz, kj * kk, km), probs[m].transpose(1, 2))  # (B, K_j K_k, n)
        am = am.transpose(1, 2).reshape(bsz, n, kj, kk)
        av = torch.matmul(am, probs[k].unsqueeze(-1)).squeeze(-1)  # (B, n, K_j)
        lin = lin + (av * probs[j]).sum(dim=(1, 2))
    return quad / n**2 - 2 * lin / n + const


def _time(loss_fn, plan, logits, steps):
    t0 = time.process_time()
    for _ in range(steps):
        probs = [torch.softmax(z, dim=2) for z in logits]
        value = loss_fn(probs, plan)
        torch.autograd.grad(value.sum(), logits)
    return (time.process_time() - t0) / steps, value.detach()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"{'data':>5} {'d_unknown':>9} {'m':>4} {'loop s/step':>12} {'fused s/step':>13} {'ratio':>6} {'max rel diff':>13}"
    )
    for mod, ks in ((acs, (1, 5, 9, 13)), (fire, (1, 4, 7))):
        table = mod.standin(20000, seed=1)
        bn = baynet.fit_greedy(table.codes, table.domains, rng=seeds.rng(0))
        for k in ks:
            unknown = list(bn.order[-k:])
            recs, noisy = [], []
            for r in range(args.batch):
                x = bn.sample(100, seeds.rng(1, r))
                lay, nz, _ = mm.release(
                    x, bn.domains, unknown, epsilon=3.0, delta=1e-5, rng=seeds.rng(2, r)
                )
                recs.append(x)
                noisy.append(nz)
            recs, noisy = np.stack(recs), np.stack(noisy)
            flat = recs.reshape(-1, recs.shape[2])
            init = [
                baynet.conditional_marginal(bn, flat, unknown, u).reshape(args.batch, 100, -1)
                for u in unknown
            ]
            logits = [
                torch.log(
                    torch.as_tensor(np.clip(p, 1e-6, None), dtype=torch.float32)
                ).requires_grad_(True)
                for p in init
            ]
            f32 = lambda a: torch.as_tensor(a, dtype=torch.float32)  # noqa: E731
            h, s1, s2, s3, c = loop_plan(recs, bn.domains, unknown, lay, noisy)
            lplan = (
                f32(h),
                {q: f32(v) for q, v in s1.items()},
                {q: f32(v) for q, v in s2.items()},
                {q: f32(v) for q, v in s3.items()},
                f32(c),
            )
            fplan = rap_gram.gram_plan(recs, bn.domains, unknown, lay, noisy, torch.float32)
            t_loop, v_loop = _time(loop_loss, lplan, logits, args.steps)
            t_fused, v_fused = _time(rap_gram.gram_loss, fplan, logits, args.steps)
            rel = float(((v_loop - v_fused).abs() / v_loop.abs()).max())
            print(
                f"{mod.NAME:>5} {k:>9} {len(lay.triples):>4} {t_loop:>12.4f} {t_fused:>13.4f} "
                f"{t_loop / t_fused:>6.1f} {rel:>13.1e}"
            )


if __name__ == "__main__":
    main()
