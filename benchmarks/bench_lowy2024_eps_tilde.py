"""ε̃(X) of the Gaussian mechanism (Lowy et al. Figures 4-6): vectorised solver vs per-point loop.

Both compute, for every trial, ε̃(X) = max_x min{ε : B_x(ε) <= δ} (Proposition 12's bound) on
the same populations and noise levels:

- vectorised: ``privrisk.mechanisms.gaussian.eps_tilde`` — all targets of all trials in one
  array computation (safeguarded Newton, each trial's most exposed target solved first, then
  one evaluation of every target at that value prunes the rest);
- loop: ``eps_tilde_loop`` — brentq on B_x for each target of each trial in turn, the
  straightforward implementation the spec timed (spec §8.4).

Usage: python benchmarks/bench_lowy2024_eps_tilde.py [--trials 10] [--loop-trials 2]
The loop runs on the first ``--loop-trials`` trials only and its time is scaled per trial.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from privrisk import accounting
from privrisk.data import synthetic
from privrisk.mechanisms import gaussian as gm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--loop-trials", type=int, default=2)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--d", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    t, n = args.trials, args.n
    x = synthetic.clip_rows(rng.standard_normal((t, 2 * n, args.d)), 50.0)
    delta = 1e-2
    # Figure 4 (global reading) at ε = 1 and 10; Figure 4 (ε(X) reading) at ε(X) = 10.
    cases = {
        "global eps=1": np.full(t, 2 * 50 / n / accounting.gdp_mu(epsilon=1.0, delta=delta)),
        "global eps=10": np.full(t, 2 * 50 / n / accounting.gdp_mu(epsilon=10.0, delta=delta)),
        "eps(X)=10": gm.pairwise_distances(x).max(axis=(1, 2))
        / n
        / accounting.gdp_mu(epsilon=10.0, delta=delta),
    }
    print(
        f"population 2n = {2 * n}, d = {args.d}, δ = {delta}; vectorised over {t} trials, "
        f"loop over {args.loop_trials} (times per trial)"
    )
    for name, s in cases.items():
        t0 = time.perf_counter()
        vec = gm.eps_tilde(x, n=n, s=s, delta=delta)
        tv = (time.perf_counter() - t0) / t
        k = args.loop_trials
        t0 = time.perf_counter()
        ref = gm.eps_tilde_loop(x[:k], n=n, s=s[:k], delta=delta)
        tl = (time.perf_counter() - t0) / k
        err = float(np.max(np.abs(vec[:k] - ref)))
        print(
            f"{name:>14}: vectorised {tv * 1e3:8.1f} ms/trial, loop {tl * 1e3:8.1f} ms/trial, "
            f"ratio {tl / tv:6.1f}x, max |Δε̃| = {err:.1e}"
        )


if __name__ == "__main__":
    main()
