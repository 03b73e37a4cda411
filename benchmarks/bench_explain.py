"""How long a risk card, its explorer page and the reverse question take, in a fresh process as a
user runs them (DP-SGD accounting included), and one PLD step in numpy against dp-accounting's.

Times ``python -m privrisk explain ...`` (median of several runs, wall and CPU) for: a pure-ε card,
the docs' DP-SGD card, a zCDP card, a DP-SGD run of 10⁶ steps, a μ-GDP card with 10⁴ targets, the
reverse question at 10⁶ steps, and the HTML explorer of a pure-ε card and of the 10⁶-step run
(target: at most 5 s); beside the start-up floor every card pays (importing numpy, scipy and the
bounds). Then, in this process, one PLD step at the 10⁶-step run's discretisation, built by
:func:`privrisk.accounting.subsampled_gaussian_pmf` and by dp-accounting, with their masses.

Run: python benchmarks/bench_explain.py   (prints the machine's load: timings on a shared machine
are wall-clock inflated; the CPU column is the less noisy one)
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))  # this checkout's privrisk, as in the timed processes
ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}
OUT = Path(tempfile.mkdtemp(prefix="bench_explain_"))
MILLION = ["--noise-multiplier", "0.8", "--sample-rate", "0.001", "--steps", "1000000",
           "--delta", "1e-6"]  # fmt: skip

CASES = {
    "start-up floor (import numpy, scipy, the bounds)": ([
        "-c", "import privrisk.bounds.reconstruction, privrisk.bounds.membership, "
        "privrisk.bounds.attribute, privrisk.accounting"], 5),
    "card, pure ε (--epsilon 3 --prior 0.1)": (
        ["-m", "privrisk", "explain", "--epsilon", "3", "--prior", "0.1"], 5),
    "card, DP-SGD (docs example, 6,000 steps)": ([
        "-m", "privrisk", "explain", "--noise-multiplier", "1.1", "--sample-rate", "0.01",
        "--steps", "6000", "--delta", "1e-5", "--values", "10"], 5),
    "card, ρ-zCDP (--rho 0.1)": (["-m", "privrisk", "explain", "--rho", "0.1"], 5),
    "card, DP-SGD at 10⁶ steps (q = 10⁻³, σ = 0.8)": (["-m", "privrisk", "explain", *MILLION], 3),
    "card, μ-GDP with 10⁴ targets": (
        ["-m", "privrisk", "explain", "--mu", "1", "--targets", "10000"], 3),
    "--max-risk at 10⁶ steps (membership.tpr_at_fpr_0.01=0.2)": ([
        "-m", "privrisk", "explain", *MILLION, "--max-risk",
        "membership.tpr_at_fpr_0.01=0.2"], 3),
    "explorer page, pure ε (--html)": ([
        "-m", "privrisk", "explain", "--epsilon", "3", "--prior", "0.1", "--html",
        str(OUT / "eps.html")], 3),
    "explorer page, DP-SGD at 10⁶ steps (--html; target <= 5 s)": ([
        "-m", "privrisk", "explain", *MILLION, "--html", str(OUT / "dpsgd.html")], 3),
}  # fmt: skip


def timed(args: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], env=ENV, cwd=REPO, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def one_step() -> str:
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    from privrisk import accounting

    nm, q, interval = 0.8, 1e-3, 1.3e-4
    t0 = time.process_time()
    masses = []
    for direction in ("remove", "add"):
        _, probs, inf = accounting.subsampled_gaussian_pmf(
            noise_multiplier=nm, sample_rate=q, direction=direction, interval=interval
        )
        masses.append(probs.sum() + inf - 1)
    t1 = time.process_time()
    ref = pld_lib.from_gaussian_mechanism(
        nm, sampling_prob=q, value_discretization_interval=interval, use_connect_dots=True,
        neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE,
    )  # fmt: skip
    t2 = time.process_time()
    add = ref._pmf_add.to_dense_pmf()
    ref_mass = add._probs.sum() + add._infinity_mass - 1
    return (
        f"one PLD step (σ = {nm}, q = {q}, Δ = {interval:g}, both directions): numpy "
        f"{t1 - t0:.3f} s CPU (mass − 1: {masses[0]:+.1e}, {masses[1]:+.1e}); dp-accounting "
        f"{t2 - t1:.3f} s ({(t2 - t1) / (t1 - t0):.0f}×; add direction's mass − 1: {ref_mass:+.1e},"
        f" i.e. {1e6 * ref_mass:.3g} over 10⁶ steps)"
    )


def main() -> None:
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} cores")
    results = {}
    for name, (args, runs) in CASES.items():
        timed(args)  # warm the file cache
        walls, cpus = zip(*(timed(args) for _ in range(runs)), strict=True)
        results[name] = (statistics.median(walls), statistics.median(cpus))
        print(f"{name:62s} wall {results[name][0]:6.2f} s   cpu {results[name][1]:6.2f} s")
    floor = results[next(iter(CASES))]
    print(f"(the start-up floor is {floor[1]:.2f} s of CPU in every row)")
    print(one_step())
    print(f"load average after: {os.getloadavg()}")
    for f in OUT.iterdir():
        f.unlink()
    OUT.rmdir()


if __name__ == "__main__":
    main()
