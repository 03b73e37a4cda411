"""How long an audit takes, beside jax_privacy's auditor on the same scores; validity and
tightness figures at sizes too large for the fast tests.

1. An audit of 10⁶ scores (5·10⁵ members N(1, 1), 5·10⁵ non-members N(0, 1)) with a claimed
   guarantee: in-process from columns and end to end from an NPZ (read, ε and μ bounds, the claim's
   p-value, TPR at FPR, ROC band). Median of several runs, wall and CPU.
2. jax_privacy's ``CanaryScoreAuditor`` on the same scores, run in the same benchmark in a
   throwaway virtualenv (``JAXP_PYTHON``, default /tmp/venv-jaxp/bin/python; jax_privacy pulls jax,
   too heavy for the test extra): its ``epsilon_clopper_pearson`` (Bonferroni over every distinct
   score as a threshold) and ``epsilon_from_gdp``, timed inside that process; the ratio and both
   answers are printed. Skipped, and said so, when that interpreter is missing.
3. null scores at 20 per side (the small-sample case of jax_privacy PR #270): how often each
   estimator, ours and jax_privacy's, reports ε > 0.
4. ``--validity``: null audits at 10⁴ and 10⁵ canaries per side (fraction with ε̂ = 0, μ̂ = 0) and
   tightness at 10⁴ per side (median μ̂/μ, median ε̂/ε at δ = 10⁻⁵).

Run: python benchmarks/bench_audit.py [--validity]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from privrisk import accounting  # noqa: E402
from privrisk.audit import audit  # noqa: E402
from privrisk.audit import membership as mb  # noqa: E402

N_SIDE = 500_000
RUNS = 5
JAXP = os.environ.get("JAXP_PYTHON", "/tmp/venv-jaxp/bin/python")

JAXP_SCRIPT = r"""
import json, sys, time
import numpy as np
from jax_privacy.auditing import CanaryScoreAuditor
z = np.load(sys.argv[1])
inside, outside = z["in_canary_scores"], z["out_canary_scores"]
out = {}
t0 = time.process_time(); w0 = time.perf_counter()
a = CanaryScoreAuditor(inside, outside)
out["construct_s"] = time.perf_counter() - w0
w = time.perf_counter(); c = time.process_time()
out["epsilon_clopper_pearson"] = float(a.epsilon_clopper_pearson(significance=0.05, delta=0.0))
out["epsilon_clopper_pearson_s"] = time.perf_counter() - w
w = time.perf_counter()
out["epsilon_from_gdp"] = float(a.epsilon_from_gdp(significance=0.05, delta=1e-5))
out["epsilon_from_gdp_s"] = time.perf_counter() - w
out["total_wall_s"] = time.perf_counter() - w0
out["total_cpu_s"] = time.process_time() - t0
print(json.dumps(out))
"""


JAXP_NULL_SCRIPT = r"""
import json, sys, warnings
import numpy as np
from jax_privacy.auditing import CanaryScoreAuditor
warnings.simplefilter("ignore")
z = np.load(sys.argv[1])
m, x = z["members"], z["nonmembers"]
out = {"clopper_pearson": [], "from_gdp": [], "raw_counts": []}
for a, b in zip(m, x):
    aud = CanaryScoreAuditor(a, b)
    out["clopper_pearson"].append(float(aud.epsilon_clopper_pearson(significance=0.05)))
    out["from_gdp"].append(float(aud.epsilon_from_gdp(significance=0.05, delta=1e-5)))
    out["raw_counts"].append(float(aud.epsilon_raw_counts(min_count=1)))
print(json.dumps(out))
"""


def jax_null(n: int = 20, trials: int = 200) -> None:
    """Null scores (both classes N(0, 1)): how often each estimator reports leakage."""
    rng = np.random.default_rng(20)
    m, x = rng.standard_normal((trials, n)), rng.standard_normal((trials, n))
    ours_e = mb.epsilon_lower(m, x, confidence=0.95)
    ours_mu = mb.mu_lower(m, x, confidence=0.95)
    print(
        f"null scores, {n} per side, {trials} trials: privrisk ε̂ > 0 in {np.mean(ours_e > 0):.3f}, "
        f"μ̂ > 0 in {np.mean(ours_mu > 0):.3f}"
    )
    if not Path(JAXP).exists():
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "null.npz"
        np.savez(path, members=m, nonmembers=x)
        proc = subprocess.run(
            [JAXP, "-c", JAXP_NULL_SCRIPT, str(path)], capture_output=True, text=True, check=False
        )
    if proc.returncode != 0:
        print("jax_privacy failed:", proc.stderr.strip().splitlines()[-1:])
        return
    j = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, vals in j.items():
        v = np.asarray(vals)
        print(
            f"  jax_privacy {name}: ε > 0 in {np.mean(v > 0):.3f}, median {np.median(v):.3f}, "
            f"max {v.max():.3f}"
        )


def timed(fn, runs=RUNS):
    walls, cpus, result = [], [], None
    for _ in range(runs):
        c, w = time.process_time(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), result


def speed() -> None:
    rng = np.random.default_rng(0)
    inside, outside = rng.normal(1.0, 1.0, N_SIDE), rng.normal(0.0, 1.0, N_SIDE)
    cols = {"score": np.r_[inside, outside], "member": np.r_[np.ones(N_SIDE), np.zeros(N_SIDE)]}
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    w, c, r = timed(lambda: audit(cols))
    print(f"audit of {2 * N_SIDE:,} scores, no claim:           wall {w:.3f} s, CPU {c:.3f} s")
    w1, c1, r1 = timed(lambda: audit(cols, epsilon=1, delta=1e-5))
    print(f"audit of {2 * N_SIDE:,} scores, claim (ε=1, δ=1e-5): wall {w1:.3f} s, CPU {c1:.3f} s")
    print(
        f"  epsilon_lower {r.epsilon_lower:.4f} (δ = 0), mu_lower {r.mu_lower:.4f} (true μ 1), "
        f"verdict {r1.verdict}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "canaries.npz"
        np.savez(path, in_canary_scores=inside, out_canary_scores=outside)
        wf, cf, _ = timed(lambda: audit(path, epsilon=1, delta=1e-5))
        print(f"audit from an NPZ file (read included):        wall {wf:.3f} s, CPU {cf:.3f} s")
        if not Path(JAXP).exists():
            print(f"jax_privacy: no interpreter at {JAXP}; ratio not measured")
            return
        proc = subprocess.run(
            [JAXP, "-c", JAXP_SCRIPT, str(path)], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            print("jax_privacy failed:", proc.stderr.strip().splitlines()[-1:])
            return
        j = json.loads(proc.stdout.strip().splitlines()[-1])
    ours_cp = audit(cols, delta=0.0)
    print(
        f"jax_privacy CanaryScoreAuditor: construct {j['construct_s']:.3f} s, "
        f"epsilon_clopper_pearson {j['epsilon_clopper_pearson_s']:.3f} s "
        f"(ε = {j['epsilon_clopper_pearson']:.4f}), epsilon_from_gdp "
        f"{j['epsilon_from_gdp_s']:.3f} s (ε = {j['epsilon_from_gdp']:.4f}); "
        f"total wall {j['total_wall_s']:.3f} s"
    )
    print(
        f"ratio jax_privacy total / privrisk audit (no claim, in-process): "
        f"{j['total_wall_s'] / w:.2f}x; privrisk ε at δ = 0: {ours_cp.epsilon_lower:.4f}, "
        f"ε from its μ at δ = 1e-5: {accounting.gaussian_epsilon(delta=1e-5, mu=ours_cp.mu_lower):.4f}"
    )


def validity() -> None:
    rng = np.random.default_rng(1)
    for n, chunk, trials in ((10_000, 50, 1000), (100_000, 10, 1000)):
        zero_e = zero_m = 0
        t = time.perf_counter()
        for _ in range(trials // chunk):
            m, x = rng.standard_normal((chunk, n)), rng.standard_normal((chunk, n))
            zero_e += int(np.sum(mb.epsilon_lower(m, x) == 0))
            zero_m += int(np.sum(mb.mu_lower(m, x) == 0))
        print(
            f"null, {n:,} per side, {trials} trials: ε̂ = 0 in {zero_e / trials:.3f}, "
            f"μ̂ = 0 in {zero_m / trials:.3f} ({time.perf_counter() - t:.0f} s)"
        )
    for mu in (0.5, 1.0, 2.0):
        m = rng.standard_normal((100, 10_000)) + mu
        x = rng.standard_normal((100, 10_000))
        lo = mb.mu_lower(m, x)
        e = mb.epsilon_lower(m, x, delta=1e-5)
        true_e = accounting.gaussian_epsilon(delta=1e-5, mu=mu)
        print(
            f"μ = {mu}: median μ̂/μ {np.median(lo) / mu:.3f}, μ̂ > μ in {np.mean(lo > mu):.3f}; "
            f"median ε̂/ε at δ = 1e-5 {np.median(e) / true_e:.3f} (ε = {true_e:.3f})"
        )


if __name__ == "__main__":
    speed()
    jax_null()
    if "--validity" in sys.argv:
        validity()
