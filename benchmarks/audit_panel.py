"""The audit panel's methods side by side (issue 48, item 3): on null files, how often each
reports leakage; on Gaussian canaries (each canary's score N(μ·included, 1), included with
probability ½, so that both the threshold test's and the one-run audits' assumptions hold), the
median bound of each method over files, against the truth.

    python benchmarks/audit_panel.py [--files N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from privrisk import accounting
from privrisk.audit import panel as pn

DELTA = 1e-5


def _file(rng, m, mu):
    inc = rng.random(m) < 0.5
    return {"score": rng.normal(mu * inc, 1), "member": inc.astype(int)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=20)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(48)
    t0 = time.process_time()
    print("| canaries | μ | method | files with ε̂ > 0 or μ̂ > 0 (null) | median ε̂ | ε̂/ε | "
          "median μ̂ | μ̂/μ |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for m in (1000, 5000):
        null = dict.fromkeys(pn.METHODS, 0)
        for _ in range(args.files):
            for r in pn.panel(_file(rng, m, 0.0), delta=DELTA).rows:
                null[r.method] += bool(r.report.epsilon_lower > 0 or (r.report.mu_lower or 0) > 0)
        for mu in (1.0, 2.0):
            eps = accounting.gaussian_epsilon(delta=DELTA, mu=mu)
            got = {k: ([], []) for k in pn.METHODS}
            for _ in range(args.files):
                for r in pn.panel(_file(rng, m, mu), delta=DELTA).rows:
                    got[r.method][0].append(r.report.epsilon_lower)
                    got[r.method][1].append(r.report.mu_lower)
            for k, (e, u) in got.items():
                me = float(np.median(e))
                mu_hat = None if u[0] is None else float(np.median(u))
                mus = "—" if mu_hat is None else f"{mu_hat:.3g} | {mu_hat / mu:.2f}"
                print(
                    f"| {m:,} | {mu:g} | {k} | {null[k]} of {args.files} | {me:.3g} | "
                    f"{me / eps:.2f} | {mus if mu_hat is not None else '— | —'} |"
                )
    print(f"\n{time.process_time() - t0:.0f} s of CPU time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
