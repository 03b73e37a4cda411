"""How long a risk card takes, in a fresh process as a user runs it (DP-SGD accounting included).

Times `python -m privrisk explain ...` for a pure-ε card, the docs' DP-SGD card, a zCDP card and
a DP-SGD run of 10⁶ steps (median of several runs, wall and CPU; target: a card under 1 s), beside
the start-up floor that every card pays (importing numpy, scipy and the bounds) and what
`import torch` alone would cost; then the HTML explorer once; then, in this process, the adaptive
PLD accounting (accounting.dpsgd_pld, with its stated error) against dp-accounting's default grid
(10⁻⁴).

Run: python benchmarks/bench_explain.py   (prints the machine's load: timings on a shared machine
are wall-clock inflated; the CPU column is the less noisy one)
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))  # this checkout's privrisk, as in the timed processes
ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}
RUNS = 7

CASES = {
    "card, pure ε (--epsilon 3 --prior 0.1)": [
        "-m", "privrisk", "explain", "--epsilon", "3", "--prior", "0.1",
    ],
    "card, DP-SGD (docs example 1)": [
        "-m", "privrisk", "explain", "--noise-multiplier", "1.1", "--sample-rate", "0.01",
        "--steps", "6000", "--delta", "1e-5", "--values", "10",
    ],
    "card, ρ-zCDP (--rho 0.1)": ["-m", "privrisk", "explain", "--rho", "0.1"],
    "card, DP-SGD at 10⁶ steps (q = 10⁻³, σ = 0.8)": [
        "-m", "privrisk", "explain", "--noise-multiplier", "0.8", "--sample-rate", "0.001",
        "--steps", "1000000", "--delta", "1e-6",
    ],
    "start-up floor (import numpy, scipy, the bounds)": [
        "-c", "import privrisk.bounds.reconstruction, privrisk.bounds.membership, "
        "privrisk.bounds.attribute, privrisk.accounting",
    ],
    "import torch (what the card avoids)": ["-c", "import torch"],
}  # fmt: skip


def timed(args: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], env=ENV, cwd=REPO, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def pld_grids() -> str:
    from dp_accounting import dp_event, pld

    from privrisk import accounting

    nm, q, t, delta = 1.1, 0.01, 6000, 1e-5
    t0 = time.perf_counter()
    acct = accounting.dpsgd_pld(noise_multiplier=nm, sample_rate=q, steps=t, delta=delta)
    ours = acct.epsilon
    t1 = time.perf_counter()
    acc = pld.PLDAccountant()
    acc.compose(
        dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(nm)), t
        )
    )
    ref = acc.get_epsilon(delta)
    t2 = time.perf_counter()
    return (
        f"PLD, docs DP-SGD run: adaptive grid {t1 - t0:.3f} s (ε = {ours:.4f}, interval "
        f"{acct.interval:.2g}, stated error {100 * acct.relative_error:.2f} %), dp-accounting "
        f"default grid {t2 - t1:.3f} s (ε = {ref:.4f}): {(t2 - t1) / (t1 - t0):.1f}× faster, "
        f"ε {100 * (ours / ref - 1):+.2f} % (pessimistic)"
    )


def main() -> None:
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} cores")
    results = {}
    for name, args in CASES.items():
        timed(args)  # warm the file cache
        walls, cpus = zip(*(timed(args) for _ in range(RUNS)), strict=True)
        results[name] = (statistics.median(walls), statistics.median(cpus))
        print(f"{name:52s} wall {results[name][0]:.3f} s   cpu {results[name][1]:.3f} s")
    names = list(CASES)
    floor = results[names[4]]
    for name in names[:4]:
        print(
            f"{name}: {results[name][0] / floor[0]:.2f}× the start-up floor (wall), "
            f"{results[name][1] / floor[1]:.2f}× (cpu)"
        )
    out = Path("/tmp") / f"bench_explain_{os.getpid()}.html"
    wall, cpu = timed(["-m", "privrisk", "explain", "--epsilon", "3", "--html", str(out)])
    print(f"{'HTML explorer, pure ε (--html)':52s} wall {wall:.3f} s   cpu {cpu:.3f} s")
    out.unlink(missing_ok=True)
    print(pld_grids())
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
