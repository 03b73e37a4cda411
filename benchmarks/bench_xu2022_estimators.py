"""xu2022 estimators: vectorised implementations vs straightforward references (prints ratios).

    python benchmarks/bench_xu2022_estimators.py

* W_N via one bincount over flat 2-d cell ids vs np.histogram2d per class.
* U_N via the factorised product-kernel grid (einsum) vs scipy.stats.gaussian_kde on the grid.
* The paired bootstrap of the cross-fitted AUC: all draws at once from cumulative weights vs a
  loop of ``scipy.stats.mannwhitneyu`` on resampled points; and the cost of one whole cross-fitted
  evaluation (5 folds, KDE, 400 draws) at quick and at capped paper size.
Timings on a shared 2-core machine are noisy; the ratio is what matters.
"""

import time

import numpy as np
from scipy import stats

from privrisk.estimators import crossfit, mace


def timed(f, reps=3):
    best = np.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main():
    rng = np.random.default_rng(0)
    a, b = rng.normal(1, 1, (7000, 2)), rng.normal(0, 1, (7000, 2))

    def ref_wn():
        pooled = np.vstack([a, b])
        rngs = [(pooled[:, j].min(), pooled[:, j].max()) for j in range(2)]
        ha, _, _ = np.histogram2d(a[:, 0], a[:, 1], bins=100, range=rngs)
        hb, _, _ = np.histogram2d(b[:, 0], b[:, 1], bins=100, range=rngs)
        return np.abs(0.5 * ha / len(a) - 0.5 * hb / len(b)).sum()

    t_ref, w_ref = timed(ref_wn)
    t_ours, w_ours = timed(lambda: mace.discrete_advantage(a, b, 0.5, bins=100))
    print(
        f"W_N 2-d, 7,000 per class: ours {t_ours * 1e3:.1f} ms, histogram2d {t_ref * 1e3:.1f} ms, "
        f"ratio {t_ref / t_ours:.2f}x, |diff| = {abs(w_ref - w_ours):.2e}"
    )

    x, y = a[:2000, 0], b[:2000, 0]
    h = mace.scott_bandwidth(np.r_[x, y])

    def ref_un():
        grid = np.linspace(min(x.min(), y.min()) - 5 * h[0], max(x.max(), y.max()) + 5 * h[0], 4096)
        kx = stats.gaussian_kde(x, bw_method=h[0] / x.std(ddof=1))
        ky = stats.gaussian_kde(y, bw_method=h[0] / y.std(ddof=1))
        return np.abs(0.5 * kx(grid) - 0.5 * ky(grid)).sum() * (grid[1] - grid[0])

    t_ref, u_ref = timed(ref_un, reps=1)
    t_ours, u_ours = timed(lambda: mace.kde_advantage(x, y, 0.5, bandwidth=h), reps=1)
    print(
        f"U_N 1-d, 2,000 per class: ours {t_ours * 1e3:.1f} ms, scipy gaussian_kde {t_ref * 1e3:.1f} ms, "
        f"ratio {t_ref / t_ours:.2f}x, |diff| = {abs(u_ref - u_ours):.2e}"
    )

    # the bootstrap of the AUC: 400 paired draws on 150 members and 4,850 hold-out points
    s_in, s_out = rng.normal(1, 1, 150), rng.normal(0, 1, 4850)
    boot = crossfit.Bootstrap(150, 4850, 400, np.random.default_rng(1))
    h = crossfit.Heldout(s_in, s_out, s_in > 0, s_out > 0)
    t_ours, (_, draws) = timed(lambda: boot.auc(h), reps=1)

    def ref_boot():
        out = []
        for w_in, w_out in zip(boot.w_in, boot.w_out, strict=True):
            a, b = np.repeat(s_in, w_in.astype(int)), np.repeat(s_out, w_out.astype(int))
            out.append(stats.mannwhitneyu(a, b).statistic / (len(a) * len(b)))
        return np.array(out)

    t_ref, ref = timed(ref_boot, reps=1)
    print(
        f"bootstrap AUC, 400 draws of 150 + 4,850 points: ours {t_ours * 1e3:.0f} ms, "
        f"mannwhitneyu loop {t_ref * 1e3:.0f} ms, ratio {t_ref / t_ours:.1f}x, "
        f"max |diff| = {np.abs(ref - draws).max():.1e}"
    )
    for label, n_in, n_out in (
        ("quick (150 + 4,850)", 150, 4850),
        ("paper, capped (5,000 + 5,000)", 7000, 63000),
    ):
        a, b = rng.normal(1, 1, (n_in, 1)), rng.normal(0, 1, (n_out, 1))
        t, _ = timed(
            lambda a=a, b=b: crossfit.evaluate(
                {"q": (a, b)},
                rng=np.random.default_rng(2),
                n_boot=400,
                max_points=5000,
                heuristics=("q",),
            ),
            reps=1,
        )
        print(
            f"one cross-fitted evaluation (KDE plug-in + heuristic, 5 folds, 400 draws), {label}: {t:.2f} s"
        )


if __name__ == "__main__":
    main()
