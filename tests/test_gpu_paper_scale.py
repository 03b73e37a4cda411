"""benchmarks/gpu_paper_scale.sh: xu2022's models on one device within a budget. The planning
arithmetic (shards sized to the device's memory, predicted times, what fits), the budget that
stops running jobs (benchmarks/within_budget.sh), the install line, and the whole script on the
CPU at tiny size: probe, plan, the pipeline's own shards and pooling, the report, and files the
pipeline then finds up to date."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO, snakemake_exe

SCRIPT = REPO / "benchmarks" / "gpu_paper_scale.sh"
WITHIN = REPO / "benchmarks" / "within_budget.sh"


def _module():
    spec = importlib.util.spec_from_file_location(
        "gpu_paper_scale", REPO / "benchmarks" / "gpu_paper_scale.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_shards_are_sized_to_the_devices_memory_and_the_budget_takes_the_cheapest():
    g = _module()
    gib = 2**30
    probes = {
        "a": {"runs": 5, "s_per_step_batched": 0.01, "bytes_per_run": 2 * gib, "base_bytes": gib},
        "b": {"runs": 5, "s_per_step_batched": 0.02, "bytes_per_run": 10 * gib, "base_bytes": gib},
    }
    # 80 % of 80 GiB = 64 GiB: a fits 31 runs, b 6; every run of both models fits one shard
    assert g.runs_per_job(probes, 80 * gib) == 5
    # 40 GiB: b fits (32 - 1) // 10 = 3 runs per shard, so shards of 3
    assert g.runs_per_job(probes, 40 * gib) == 3
    assert g.runs_per_job(probes, 4 * gib) == 1  # never below one run
    assert g.runs_per_job(probes, None) == 5  # the CPU: no memory figure, every run in one job
    # two shards one after another, each at the batched rate
    assert g.predicted_s(probes["a"], 1000, 3) == pytest.approx(2 * 1000 * 0.01)
    chosen, left = g.choose({"x": 100.0, "y": 10.0, "z": 400.0}, budget_s=12 * 60)
    # y: 1.5·10 + 60 = 75; x: 210 (285); z: 660 would pass 720
    assert chosen == ["y", "x"] and left == ["z"]


def _alive(pid: int) -> bool:
    """A process that exists and is no zombie."""
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_the_budget_stops_running_jobs_not_only_new_ones(tmp_path):
    """Snakemake's spawned jobs sit in a process group of their own, so a signal to Snakemake
    alone leaves them running (plain `timeout` did): here a command whose child does the same is
    stopped at the budget, child and all."""
    child = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen(['sleep', '300'], process_group=0)\n"
        f"open({str(child)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(300)\n"
    )
    t0 = time.monotonic()
    proc = subprocess.run(
        ["bash", str(WITHIN), "2", "1", "--", sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 124, proc.stdout + proc.stderr
    assert time.monotonic() - t0 < 30  # not the 300 s the command would run
    pid = int(child.read_text())
    assert not _alive(pid), f"the job {pid} outlived the budget"
    assert f"killing what the command left running: {pid}" in proc.stderr
    # a command that finishes within the budget keeps its own status
    ok = subprocess.run(["bash", str(WITHIN), "30", "--", "bash", "-c", "exit 3"], timeout=60)
    assert ok.returncode == 3


def test_the_install_line_brings_the_pipeline_at_the_tested_versions():
    text = SCRIPT.read_text()
    assert 'python -m pip install -e ".[pipeline]" -c constraints.txt' in text
    assert 'bash benchmarks/within_budget.sh "$left"' in text and 'timeout "$left"' not in text
    pins = (REPO / "constraints.txt").read_text().splitlines()
    assert any(p.startswith("torch==") for p in pins)
    assert any(p.startswith("snakemake==") for p in pins)
    extras = (REPO / "pyproject.toml").read_text().split("pipeline = [", 1)[1].split("]", 1)[0]
    assert '"snakemake' in extras and '"torch' in extras


@pytest.mark.slow
def test_the_script_trains_sharded_models_on_the_cpu_and_the_pipeline_finds_them(tmp_path):
    runs = tmp_path / "runs.yaml"
    runs.write_text("xu2022:\n  models:\n    mnist_wgangp: {runs: 2}\n")
    configs = [str(REPO / "config/config.yaml"), str(REPO / "config/tiny.yaml"), str(runs)]
    work = tmp_path / "work"
    env = dict(
        os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"
    )
    cmd = [
        "bash",
        str(SCRIPT),
        "--configfile",
        *configs,
        "--models",
        "mnist_wgangp,skin_classifier",
    ]
    cmd += ["--runs-per-job", "1", "--budget-min", "8", "--workdir", str(work), "--cores", "2"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = work / "results" / "gpu_paper_scale"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs_per_job"] == 1 and summary["device"].startswith("CPU")
    wgan = summary["models"]["mnist_wgangp"]
    assert wgan["chosen"] and wgan["report"]["trained"] and wgan["report"]["runs"] == 2
    assert [j["runs"] for j in wgan["report"]["jobs"]] == [[0, 1], [1, 2]]  # two shard jobs
    assert set(wgan["report"]["job_s"]) == {
        "train_mnist_wgangp.runs0-0",
        "train_mnist_wgangp.runs1-1",
        "train_mnist_wgangp",
    }
    assert 0 <= wgan["report"]["auc"]["d"]["min"] <= wgan["report"]["auc"]["d"]["max"] <= 1
    assert wgan["probe"]["s_per_step_batched"] > 0 and wgan["steps_per_run"] > 0
    assert "mnist_wgangp" in (out / "summary.md").read_text()
    # the pipeline, given the same config files and the overlay, has nothing left to train
    dry = subprocess.run(
        [*snakemake_exe(), "-n", "-s", str(REPO / "Snakefile"), "-d", str(work),
         "results/xu2022/intermediate/mnist_wgangp_record.json",
         "--configfile", *configs, str(out / "overlay.yaml")],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout + dry.stderr
