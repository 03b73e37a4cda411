"""Kill a multi-job run and finish it: the outputs equal an uninterrupted run's, byte for byte.

A slice of the pipeline at tiny scale — two analytic papers' figures plus swanberg2025's
step-and-figure chain (the DP-SGD training step, then Figure 3) — runs in a copy of the
repository (src, workflow, config, profiles, Snakefile), each scenario in its own working
directory. Three interruptions, each followed by the recovery the README gives:

- Ctrl-C: SIGINT to Snakemake's process group while a job runs, then the same command again
  (the default profile's ``rerun-incomplete`` redoes the interrupted jobs);
- one job killed with SIGKILL, then the same command again;
- Snakemake itself killed with SIGKILL: its running job dies with it (no orphan keeps writing),
  the next run is refused (the directory stays locked, and ``privrisk complete`` says so),
  ``snakemake --unlock``, then the same command again.

No race: each interruption comes while a job is *caught*: stopped (SIGSTOP) inside its body, its
log open, none of its outputs written. That state lasts until the test continues the job, however
loaded the machine, so the interruption cannot come too late. Afterwards the test checks what a
user should check, not only the exit code: a dry run schedules the caught job again, and after
the recovery every CSV equals the uninterrupted run's.

What Snakemake 9.27 returns after SIGINT to its process group (measured on a 6-job workflow, the
signal sent every 0.2 s and at the moment each output appeared; README "If a run is interrupted"):

- before its first job starts (parsing, DAG): exit 1 or killed by the signal; nothing written;
- while a job runs, or after a job wrote its output but before Snakemake registered it: exit 1
  ("Terminating processes on user request"); those jobs stay marked incomplete and the next run
  redoes them;
- after its last job, while it shuts down: exit 0, or killed by the signal; every output complete;
- started with SIGINT ignored (``nohup``, ``cmd &`` in a script without job control, some CI
  runners; the disposition is inherited): Ctrl-C does nothing, the run finishes, exit 0. That,
  not a race of the signal, made this test see exit 0; the runs here reset SIGINT to its default,
  as a terminal has it.

So exit 0 after Ctrl-C means the run finished, and a non-zero exit may come with complete outputs:
``snakemake -n`` tells which ("Nothing to be done", or the jobs that will run).

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
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from privrisk.pipeline import config, workflow
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


def _as_in_a_terminal() -> None:
    """In the child, before Snakemake starts: SIGINT's default disposition, as a terminal's
    foreground job has it. A pytest started with SIGINT ignored (nohup, ``&`` in a script) would
    hand that on, and a Snakemake ignoring SIGINT shrugs off Ctrl-C and finishes with exit 0."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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
            preexec_fn=_as_in_a_terminal,
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


@dataclass(frozen=True)
class Caught:
    """A job stopped inside its body with none of its outputs written."""

    process: psutil.Process
    rule: str
    outputs: tuple[Path, ...]

    def resume(self) -> None:
        try:
            self.process.resume()
        except psutil.NoSuchProcess:
            pass


def _declared_outputs(workdir: Path) -> dict[Path, tuple[str, tuple[Path, ...]]]:
    """Each job of the slice's papers by its log file: its rule name and output files."""
    cfg = config.load(*[REPO / c for c in TINY])
    jobs = {}
    for paper in workflow.PAPERS:
        reg = workflow.load_registry(paper, cfg)
        for decl in (*reg.steps, *reg.figures):
            outs = (
                reg.step_outputs(decl)
                if isinstance(decl, workflow.Step)
                else workflow.figure_outputs(paper, decl.name, table=decl.table)
            )
            jobs[workdir / workflow.log_path(paper, decl.name)] = (
                reg.rule_name(decl),
                tuple(workdir / f for f in outs.values()),
            )
    return jobs


def _caught(job: psutil.Process, jobs: dict[Path, tuple[str, tuple[Path, ...]]]) -> Caught | None:
    """``job`` (already stopped) if it is inside its body (its log open) with no output written."""
    try:
        files = {Path(f.path) for f in job.open_files()}
    except psutil.Error:
        return None
    for log in files & set(jobs):
        rule, outputs = jobs[log]
        if not any(o.exists() for o in outputs):
            return Caught(job, rule, outputs)
    return None


def catch_a_job(proc: subprocess.Popen, workdir: Path, timeout: float = TIMEOUT) -> Caught:
    """Stop one job of the run in a state the interruption cannot miss: its process alive inside
    its body (its log open) and none of its outputs written. Jobs found in another state (still
    importing, or already writing) are continued at once. Fails if the run ends first."""
    jobs = _declared_outputs(workdir)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before any job could be caught"
        for job in job_processes(proc.pid):
            try:
                job.suspend()
            except psutil.NoSuchProcess:
                continue
            caught = _caught(job, jobs)
            if caught is not None:
                return caught
            try:
                job.resume()
            except psutil.NoSuchProcess:
                pass
        time.sleep(0.02)
    raise AssertionError("no job was caught in time")


def assert_scheduled_again(root: Path, workdir: Path, caught: Caught) -> None:
    """What a user checks after an interruption: a dry run of the same command lists the job
    that was interrupted (its outputs are missing or marked incomplete), so the next run redoes it."""
    dry = run(root, workdir, "-n")
    said = dry.stdout + dry.stderr
    assert f"rule {caught.rule}:" in said, f"{caught.rule} would not run again:\n{said}"
    assert "Nothing to be done" not in said, said


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


def test_ctrl_c_then_rerun(root, reference, tmp_path):
    work = tmp_path / "ctrl_c"
    with started(root, work) as proc:
        caught = catch_a_job(proc, work)
        os.killpg(
            proc.pid, signal.SIGINT
        )  # what Ctrl-C in a terminal sends: Snakemake and its jobs
        caught.resume()  # the pending SIGINT ends it before it writes anything
        # a job died of the signal, so Snakemake cannot report success (see the module docstring)
        assert proc.wait(TIMEOUT) != 0
    assert_scheduled_again(root, work, caught)
    run(root, work)  # the same command; the default profile has rerun-incomplete
    assert csv_hashes(work) == reference


def test_one_job_killed_then_rerun(root, reference, tmp_path):
    work = tmp_path / "job_killed"
    with started(root, work) as proc:
        caught = catch_a_job(proc, work)
        caught.process.kill()  # SIGKILL: no traceback, no clean-up inside the job
        assert proc.wait(TIMEOUT) != 0  # Snakemake reports the failed job, ends the others, stops
    assert not any(o.exists() for o in caught.outputs)
    assert_scheduled_again(root, work, caught)
    run(root, work)
    assert csv_hashes(work) == reference


def test_snakemake_killed_then_unlock_and_rerun(root, reference, tmp_path):
    """SIGKILL to Snakemake alone: its running job dies with it (prctl PR_SET_PDEATHSIG in the
    job runner, privrisk.core.jobs), even stopped, so no orphan writes outputs after the run is
    gone; `privrisk complete` names the lock the dead run left; unlock and rerun redo the job."""
    work = tmp_path / "snakemake_killed"
    with started(root, work) as proc:
        caught = catch_a_job(proc, work)
        jobs = job_processes(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)  # Snakemake only, not its process group
        proc.wait(TIMEOUT)
        gone, alive = psutil.wait_procs(jobs, timeout=30)  # the caught job is still stopped
        assert not alive, f"orphaned jobs survive their Snakemake: {alive}"
    assert not any(o.exists() for o in caught.outputs)
    complete = subprocess.run(
        [sys.executable, "-m", "privrisk", "complete", *SLICE, "-s", str(root / "Snakefile")]
        + ["-d", str(work), "--configfile", *[str(root / c) for c in TINY]],
        cwd=root,
        env=_env(root),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert complete.returncode == 1 and "lock       .snakemake/locks/" in complete.stdout, (
        complete.stdout + complete.stderr
    )
    refused = run(root, work, check=False)
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0 and ("LockException" in said or "cannot be locked" in said), said
    run(root, work, "--unlock")
    assert_scheduled_again(root, work, caught)
    run(root, work)
    assert csv_hashes(work) == reference
