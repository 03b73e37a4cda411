"""How long an audit takes and how tight it is, beside jax_privacy's auditor on the same scores.

1. ``files``: 10⁷ scores (5·10⁶ members N(1, 1), 5·10⁶ non-members N(0, 1)) as NPZ, Parquet and
   CSV, audited end to end by the command (``python -m privrisk audit FILE``: start-up, one read,
   ε̂, μ̂, TPR at FPR, ROC band), median wall and CPU of 3 runs; the issue's targets are 3 s (NPZ,
   Parquet) and 6 s (CSV) wall.
2. ``speed``: 10⁶ scores in-process (no claim; a claim), from an NPZ, and jax_privacy 2.0.0's
   ``CanaryScoreAuditor`` on the same scores in the same run (``epsilon_clopper_pearson`` —
   Bonferroni over its ROC hull —, ``epsilon_from_gdp``): times, ratio and both answers.
3. ``tightness``: median ε̂ (δ = 0) over trials on randomized response at ε = 1 (10³ and 10⁴ a
   side), integer scores (Binomial(8, 0.6) against (8, 0.4)) and Gaussian μ = 1 scores: ours,
   the all-thresholds reference of the tests (``tests/audit/reference.py``) and jax_privacy's
   ``epsilon_clopper_pearson`` itself; and the one-run bounds (ours, jax_privacy's
   ``epsilon_one_run`` and ``epsilon_one_run_fdp``) on one one-run file.
4. null scores at 20 per side (the small-sample case of jax_privacy PR #270): how often each
   estimator, ours and jax_privacy's, reports ε > 0.
5. ``--validity``: null audits at 10⁴ and 10⁵ per side and coverage/tightness on Gaussian scores.

jax_privacy runs in a subprocess: the interpreter ``JAXP_PYTHON`` (default: this one if it
imports jax_privacy, else /tmp/venv-jaxp/bin/python — ``pip install jax-privacy==2.0.0`` there;
it pulls jax, too heavy for the test extra). Without one the jax_privacy columns say so.

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


def _jaxp_default() -> str:
    try:
        import jax_privacy  # noqa: F401

        return sys.executable
    except ImportError:
        return "/tmp/venv-jaxp/bin/python"


JAXP = os.environ.get("JAXP_PYTHON") or _jaxp_default()
FILE_SIDE = 5_000_000

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
    """The issue's validity simulations at full size: eleven null shapes (1,000 audits each) and
    the true-DP files (randomized response, Gaussian canaries), with the median tightness."""
    sys.path.insert(0, str(REPO))
    from tests.audit.test_validity import NULL_SHAPES, _null

    for name in NULL_SHAPES:
        t = time.perf_counter()
        chunk = 20 if "10000" in name else 200
        e_pos = m_pos = c_ref = 0
        for i in range(1000 // chunk):
            m, x = _null(name, chunk, seed=7000 + i)
            e = mb.epsilon_lower(m, x)
            mu = mb.mu_lower(m, x)
            e_pos += int(np.sum(e > 0))
            m_pos += int(np.sum(mu > 0))
            c_ref += int(np.sum(e > 0.1))
        print(
            f"null {name:13s} 1,000 audits: ε̂ > 0 in {e_pos / 1000:.3f}, μ̂ > 0 in "
            f"{m_pos / 1000:.3f}, ε = 0.1 refuted in {c_ref / 1000:.3f} "
            f"({time.perf_counter() - t:.0f} s)"
        )
    rng = np.random.default_rng(1)
    q = 1 / (1 + np.exp(-1.0))
    for n in (1000, 10_000):
        over, med = 0, []
        for _ in range(5):
            m, x = (rng.random((20, n)) < q) * 1.0, (rng.random((20, n)) < 1 - q) * 1.0
            e = mb.epsilon_lower(m, x)
            over += int(np.sum(e > 1.0))
            med += list(e)
        print(
            f"randomized response ε = 1, {n:,} a side, 100 audits: ε̂ > 1 in {over / 100:.3f}, "
            f"median ε̂ {np.median(med):.3f}"
        )
    for mu in (0.5, 1.0, 2.0):
        for n in (1000, 10_000):
            lo, e = [], []
            for _ in range(5):
                m = rng.standard_normal((20, n)) + mu
                x = rng.standard_normal((20, n))
                lo += list(mb.mu_lower(m, x))
                e += list(mb.epsilon_lower(m, x, delta=1e-5))
            lo, e = np.asarray(lo), np.asarray(e)
            true_e = accounting.gaussian_epsilon(delta=1e-5, mu=mu)
            print(
                f"Gaussian μ = {mu}, {n:,} a side, 100 audits: μ̂ > μ in {np.mean(lo > mu):.3f}, "
                f"ε̂ > ε in {np.mean(e > true_e):.3f}; median μ̂/μ {np.median(lo) / mu:.3f}, "
                f"median ε̂/ε at δ = 1e-5 {np.median(e) / true_e:.3f} (ε = {true_e:.3f})"
            )


def _cli(path: Path, *args: str) -> tuple[float, float]:
    """Wall and CPU (children's user + system) of one ``python -m privrisk audit`` run."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "privrisk", "audit", str(path), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=REPO,
    )
    wall = time.perf_counter() - w
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def files() -> None:
    import pandas as pd

    rng = np.random.default_rng(7)
    score = np.r_[rng.normal(1.0, 1.0, FILE_SIDE), rng.normal(0.0, 1.0, FILE_SIDE)]
    member = np.r_[np.ones(FILE_SIDE, np.int8), np.zeros(FILE_SIDE, np.int8)]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"NPZ": Path(tmp) / "s.npz", "Parquet": Path(tmp) / "s.parquet"}
        paths["CSV"] = Path(tmp) / "s.csv"
        np.savez(paths["NPZ"], score=score, member=member)
        frame = pd.DataFrame({"score": score, "member": member})
        frame.to_parquet(paths["Parquet"])
        frame.to_csv(paths["CSV"], index=False, float_format="%.7g")
        for name, path in paths.items():
            for args in ((), ("--epsilon", "1")):
                runs = [_cli(path, *args) for _ in range(3)]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                what = "no claim" if not args else "claim ε = 1"
                print(
                    f"{2 * FILE_SIDE:,} scores from {name} ({path.stat().st_size / 1e6:.0f} MB), "
                    f"{what}: wall {wall:.2f} s, CPU {cpu:.2f} s (command, start-up included)"
                )


JAXP_TIGHT = r"""
import json, sys, warnings
import numpy as np
from jax_privacy.auditing import CanaryScoreAuditor
warnings.simplefilter("ignore")
z = np.load(sys.argv[1])
out = {}
for name in [k[:-2] for k in z.files if k.endswith("_m")]:
    m, x = z[name + "_m"], z[name + "_x"]
    out[name] = [float(CanaryScoreAuditor(a, b).epsilon_clopper_pearson(significance=0.05,
                 one_sided=False)) for a, b in zip(m, x)]
if "one_run_s" in z.files:
    s, inc = z["one_run_s"], z["one_run_in"].astype(bool)
    a = CanaryScoreAuditor(s[inc], s[~inc])
    out["one_run"] = float(a.epsilon_one_run(significance=0.05, delta=1e-5))
    out["one_run_fdp"] = float(a.epsilon_one_run_fdp(significance=0.05, delta=1e-5))
print(json.dumps(out))
"""


def tightness() -> None:
    sys.path.insert(0, str(REPO))
    from tests.audit.reference import epsilon_all_thresholds

    rng = np.random.default_rng(36)
    q = 1 / (1 + np.exp(-1.0))
    cases = {
        "rr_1e3": ((rng.random((30, 1000)) < q) * 1.0, (rng.random((30, 1000)) < 1 - q) * 1.0),
        "rr_1e4": ((rng.random((30, 10**4)) < q) * 1.0, (rng.random((30, 10**4)) < 1 - q) * 1.0),
        "integer_1e4": (
            rng.binomial(8, 0.6, (30, 10**4)) * 1.0,
            rng.binomial(8, 0.4, (30, 10**4)) * 1.0,
        ),
        "gauss_1e4": (rng.normal(1, 1, (20, 10**4)), rng.normal(0, 1, (20, 10**4))),
    }
    # one one-run file: 1,000 canaries, each included with probability 1/2, members N(2, 1)
    inc = rng.random(1000) < 0.5
    s1 = rng.normal(0, 1, 1000) + 2.0 * inc
    ours_one = audit({"score": s1, "member": inc}, one_run=True, delta=1e-5).epsilon_lower
    jax = {}
    if Path(JAXP).exists():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.npz"
            arrays = {f"{k}_m": v[0] for k, v in cases.items()}
            arrays |= {f"{k}_x": v[1] for k, v in cases.items()}
            np.savez(path, one_run_s=s1, one_run_in=inc, **arrays)
            proc = subprocess.run(
                [JAXP, "-c", JAXP_TIGHT, str(path)], capture_output=True, text=True, check=False
            )
        if proc.returncode == 0:
            jax = json.loads(proc.stdout.strip().splitlines()[-1])
        else:
            print("jax_privacy failed:", proc.stderr.strip().splitlines()[-1:])
    print("median ε̂ at δ = 0 (95 %): ours | all-thresholds reference | jax_privacy CP")
    for name, (m, x) in cases.items():
        ours = float(np.median(mb.epsilon_lower(m, x)))
        ref = float(np.median([epsilon_all_thresholds(a, b) for a, b in zip(m, x, strict=True)]))
        j = f"{np.median(jax[name]):.3f}" if name in jax else "n/a"
        print(f"  {name:12s} {ours:.3f} | {ref:.3f} | {j}   (ours / reference {ours / ref:.3f})")
    j1 = jax.get("one_run", float("nan"))
    j2 = jax.get("one_run_fdp", float("nan"))
    print(
        f"one-run, 1,000 canaries, μ = 2, δ = 1e-5: ours {ours_one:.3f} | jax_privacy "
        f"epsilon_one_run {j1:.3f} | epsilon_one_run_fdp {j2:.3f}"
    )


if __name__ == "__main__":
    files()
    speed()
    tightness()
    jax_null()
    if "--validity" in sys.argv:
        validity()
