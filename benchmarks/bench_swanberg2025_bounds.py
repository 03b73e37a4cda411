"""Vectorised MMC (one bisection over an (ε, K) grid) vs a per-point scipy brentq loop.

Prints both wall times, the ratio and the largest difference. Run: python benchmarks/bench_swanberg2025_bounds.py
"""

import math
import time

import numpy as np
from scipy import optimize

from privrisk.bounds import reconstruction as rb


def mmc_loop(eps, delta, K):
    def g(x):
        binv = max(0.0, (x - delta) * math.exp(-eps), 1 - delta - math.exp(eps) * (1 - x))
        return x + (K - 1) * binv - 1.0

    return optimize.brentq(g, 0.0, 1.0, xtol=1e-14, rtol=1e-14)


eps = np.linspace(0.1, 10, 60)[:, None]
K = np.arange(2, 202)[None, :]
t0 = time.perf_counter()
vec = rb.mmc_fdp(epsilon=eps, delta=1e-5, K=K)
t1 = time.perf_counter()
loop = np.array([[mmc_loop(float(e), 1e-5, int(k)) for k in K[0]] for e in eps[:, 0]])
t2 = time.perf_counter()
print(
    f"grid {vec.size} points: vectorised {t1 - t0:.4f} s, loop {t2 - t1:.4f} s, "
    f"ratio loop/vectorised = {(t2 - t1) / (t1 - t0):.1f}, max |diff| = {np.max(np.abs(vec - loop)):.2e}"
)
