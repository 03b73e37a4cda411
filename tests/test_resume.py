"""Kill a multi-job run and finish it: the outputs equal an uninterrupted run's, byte for byte.

A slice of the pipeline at tiny scale — two analytic papers' figures plus swanberg2025's
step-and-figure chain (the DP-SGD training step, then Figure 3) — runs in a copy of the
repository (src, workflow, config, profiles, Snakefile), each scenario in its own working
directory. Three interruptions, each followed by the recovery the README gives:

- Ctrl-C: SIGINT to Snakemake's process group while a job runs, then the same command again
  (the default profile's ``rerun-incomplete`` redoes the interrupted jobs);
- one job killed with SIGKILL, then the same command again;
- Snakemake itself killed with SIGKILL: the next run is refused (the directory stays locked),
  ``snakemake --unlock``, then the same command again.

The helpers are shared with tests/test_determinism.py (one uninterrupted reference run per
pytest session).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from tests.conftest import REPO, TINY, snakemake_exe

pytestmark = pytest.mark.slow

# Two analytic papers' figures and one step -> figure chain of an experimental paper.
SLICE = (
    "results/thudi2022/fig1.csv",
    "results/pankova2022/fig_eps_vs_advantage.csv",
    "results/swanberg2025/fig3.csv",
)
STOCHASTIC = "results/swanberg2025/fig3.csv"  # depends on the seed; the other two are analytic
TIMEOUT = 900  # seconds for one run (generous: CI machines are shared)


def repo_copy(base: Path) -> Path:
    """A copy of the parts of the repository a run needs, made once under ``base``."""
    root = base / "repo"
    if not (root / "Snakefile").is_file():
        ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
        for d in ("src", "workflow", "config", "profiles"):
            shutil.copytree(REPO / d, root / d, ignore=ignore)
        shutil.copy(REPO / "Snakefile", root / "Snakefile")
    return root


def command(root: Path, workdir: Path, *extra: str) -> list[str]:
    # no --configfile swallowing: the targets come first (see README)
    return [
        *snakemake_exe(),
        *SLICE,
        "-s",
        str(root / "Snakefile"),
        "-d",
        str(workdir),
        "--cores",
        "2",
        *extra,
        "--configfile",
        *[str(root / c) for c in TINY],
    ]


def _env(root: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(root / "src"))


def run(root: Path, workdir: Path, *extra: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        command(root, workdir, *extra),
        capture_output=True,
        text=True,
        cwd=root,
        env=_env(root),
        timeout=TIMEOUT,
    )
    if check:
        assert proc.returncode == 0, (
            f"snakemake failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return proc


@contextmanager
def started(root: Path, workdir: Path) -> Iterator[subprocess.Popen]:
    """The slice in the background, in its own session (its own process group, as a terminal's);
    whatever of it still runs when the block ends (a failed assertion) is killed."""
    workdir.mkdir(parents=True, exist_ok=True)
    with open(workdir.parent / f"{workdir.name}.log", "w") as out:
        proc = subprocess.Popen(
            command(root, workdir),
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=root,
            env=_env(root),
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the group outlives a killed Snakemake
            except ProcessLookupError:
                pass
            proc.wait()


def csv_hashes(workdir: Path) -> dict[str, str]:
    """sha256 of every CSV the run wrote (figures' numbers, claims rows, ledgers)."""
    return {
        str(p.relative_to(workdir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((workdir / "results").rglob("*.csv"))
    }


def job_processes(snakemake_pid: int) -> list[psutil.Process]:
    """The running jobs of a Snakemake process: the Python processes of its rules' scripts."""
    try:
        children = psutil.Process(snakemake_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    jobs = []
    for p in children:
        try:
            # the Python process itself, not the `bash -c "set -euo pipefail; python …"` around it
            if "python" in p.name() and any(".snakemake/scripts/" in a for a in p.cmdline()):
                jobs.append(p)
        except psutil.Error:
            continue
    return jobs


def wait_for_a_job(proc: subprocess.Popen, timeout: float = TIMEOUT) -> list[psutil.Process]:
    """Block until Snakemake is running at least one job; fail if it ends first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before any job could be interrupted"
        jobs = job_processes(proc.pid)
        if jobs:
            return jobs
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("no job started in time")


def reference_hashes(tmp_path_factory) -> dict[str, str]:
    """CSV hashes of one uninterrupted run of the slice (made once per pytest session)."""
    base = tmp_path_factory.getbasetemp()
    cache = base / "reference_hashes.json"
    if not cache.is_file():
        root = repo_copy(base)
        run(root, base / "reference")
        hashes = csv_hashes(base / "reference")
        assert set(SLICE) <= set(hashes), sorted(hashes)
        cache.write_text(json.dumps(hashes))
    return json.loads(cache.read_text())


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return reference_hashes(tmp_path_factory)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return repo_copy(tmp_path_factory.getbasetemp())


def _interrupted(workdir: Path) -> None:
    """The interruption really cut the run short: at least one target is missing."""
    missing = [t for t in SLICE if not (workdir / t).is_file()]
    assert missing, (
        "every target was already written: the interruption came too late to test anything"
    )


def test_ctrl_c_then_rerun(root, reference, tmp_path):
    work = tmp_path / "ctrl_c"
    with started(root, work) as proc:
        wait_for_a_job(proc)
        os.killpg(
            proc.pid, signal.SIGINT
        )  # what Ctrl-C in a terminal sends: Snakemake and its jobs
        assert proc.wait(TIMEOUT) != 0
    _interrupted(work)
    run(root, work)  # the same command; the default profile has rerun-incomplete
    assert csv_hashes(work) == reference


def test_one_job_killed_then_rerun(root, reference, tmp_path):
    work = tmp_path / "job_killed"
    with started(root, work) as proc:
        job = wait_for_a_job(proc)[0]
        job.kill()  # SIGKILL: no traceback, no clean-up inside the job
        assert proc.wait(TIMEOUT) != 0  # Snakemake reports the failed job, ends the others, stops
    _interrupted(work)
    run(root, work)
    assert csv_hashes(work) == reference


def test_snakemake_killed_then_unlock_and_rerun(root, reference, tmp_path):
    work = tmp_path / "snakemake_killed"
    with started(root, work) as proc:
        jobs = wait_for_a_job(proc)
        os.kill(proc.pid, signal.SIGKILL)  # Snakemake only: its running jobs are orphaned
        proc.wait(TIMEOUT)
        psutil.wait_procs(jobs, timeout=TIMEOUT)  # let the orphans end before anything reruns
    _interrupted(work)
    refused = run(root, work, check=False)
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0 and ("LockException" in said or "cannot be locked" in said), said
    run(root, work, "--unlock")
    run(root, work)
    assert csv_hashes(work) == reference
