"""The subsampled-Gaussian RDP curve at small noise multipliers: the fractional orders by the
quadrature (what :func:`privrisk.accounting.dpsgd_rdp` did at every σ before issue 49) against
opacus' series (what it does now below σ ≈ 0.045), with opacus' and dp-accounting's RDP
accountants beside them, in one run, and the ratio.

At σ = 0.01 the quadrature's grid has millions of points per order (its step resolves the
integrand's kink, of width σ, over a range of α/σ); the series' terms fall by e^{(2j − 1)/2σ²}
from one to the next, so a few settle each order.

Run: python benchmarks/bench_rdp_small_noise.py

Measured (2026-11-28, 2 shared cores, loaded by a test run beside it; the quadrature at σ = 0.01
took 12.9 s on the same machine less loaded), the 99 fractional orders of DPSGD_RDP_ORDERS:

     σ       q  quadrature    series   ratio  dpsgd_rdp   opacus   dp-acc  max rel diff
  0.01    0.01     118.83s    0.032s   3721×     0.069s   0.146s   0.108s       6.3e-16
  0.02   0.001      34.64s    0.052s    669×     0.095s   0.167s   0.153s       7.8e-16
  0.04     0.1      10.85s    0.052s    210×     0.046s   0.155s   0.156s       4.5e-16
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from privrisk import accounting  # noqa: E402
from privrisk.accounting import rdp  # noqa: E402

CASES = [(0.01, 0.01), (0.02, 1e-3), (0.04, 0.1)]


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as dpa
    from opacus.accountants.analysis import rdp as opacus_rdp

    logging.getLogger("absl").setLevel(logging.ERROR)
    orders = accounting.DPSGD_RDP_ORDERS
    frac = orders[orders != np.floor(orders)]
    print(f"{'σ':>6} {'q':>7} {'quadrature':>11} {'series':>9} {'ratio':>7} {'dpsgd_rdp':>10} "
          f"{'opacus':>8} {'dp-acc':>8} {'max rel diff':>13}")  # fmt: skip
    for sig, q in CASES:
        t_quad, quad = timed(lambda sig=sig, q=q: rdp._log_a_fractional(frac, sig, q))
        t_series, series = timed(lambda sig=sig, q=q: rdp._log_a_series(frac, sig, q))
        rdp._one_step_rdp.cache_clear()
        t_ours, _ = timed(
            lambda sig=sig, q=q: accounting.dpsgd_rdp(noise_multiplier=sig, sample_rate=q, steps=1)
        )
        t_opacus, _ = timed(
            lambda sig=sig, q=q: opacus_rdp.compute_rdp(
                q=q, noise_multiplier=sig, steps=1, orders=[float(a) for a in orders[:200]]
            )
        )

        def dp_acc(sig=sig, q=q):
            a = dpa.RdpAccountant()
            a.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sig)))
            return a.get_epsilon(1e-5)

        t_dpa, _ = timed(dp_acc)
        diff = float(np.max(np.abs(series - quad) / np.abs(quad)))
        print(f"{sig:>6g} {q:>7g} {t_quad:>10.2f}s {t_series:>8.3f}s {t_quad / t_series:>6.0f}× "
              f"{t_ours:>9.3f}s {t_opacus:>7.3f}s {t_dpa:>7.3f}s {diff:>13.1e}")  # fmt: skip


if __name__ == "__main__":
    main()
