"""No silently stale output: a figure made from a step's old parameters is never left looking
current (issue 38).

The case measured: change a step parameter, run, kill the rerun's training job with SIGKILL (as
the OOM killer would), run the same command again. Snakemake deletes a job's outputs before the
job runs, and it does not remake a missing input of an output it deems current, so the third run
said "Nothing to be done" over a figure still holding the old parameter's numbers. Each rule now
carries the params, code and data of the steps it is made from (``Registry.upstream``,
workflow/rules/registry.smk), so the figure itself is out of date and the same command redoes
the step and the figure.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys

import pytest

from privrisk.core.declarations import Figure, Out, Registry, Step


def _step(name, reads=()):
    return Step(
        name=name,
        func=f"m:{name}",
        inputs={f"in{i}": Out(r, "out") for i, r in enumerate(reads)},
        outputs={"out": f"{name}.npz"},
    )


def test_upstream_is_every_step_a_rule_is_made_from():
    reg = Registry(
        "k",
        (_step("a"), _step("b", reads=("a",)), _step("c"), _step("d", reads=("b", "c"))),
        (
            Figure(name="fig1", func="m:f1", inputs={"x": Out("d", "out")}),
            Figure(name="fig2", func="m:f2", inputs={"x": Out("b", "out")}),
            Figure(name="fig3", func="m:f3"),
        ),
    )
    names = {d.name: [s.name for s in reg.upstream(d)] for d in (*reg.steps, *reg.figures)}
    assert names == {
        "a": [],
        "b": ["a"],
        "c": [],
        "d": ["a", "b", "c"],
        "fig1": ["a", "b", "c", "d"],
        "fig2": ["a", "b"],
        "fig3": [],
    }


# --- the measured case, on a real run -------------------------------------------------------------

TARGET = "results/swanberg2025/fig3.csv"
#: a step parameter of fig3_train that changes Figure 3's numbers (models per ε and prior)
CHANGE = "swanberg2025:\n  ngram_train:\n    trials: 31\n"


@pytest.mark.slow
def test_an_interrupted_rerun_after_a_parameter_change_is_redone_by_the_same_command(
    tmp_path_factory, tmp_path
):
    from tests.conftest import TINY, snakemake_exe
    from tests.test_resume import (
        TIMEOUT,
        _as_in_a_terminal,
        _env,
        catch_a_job,
        reference_hashes,
        repo_copy,
    )

    base = tmp_path_factory.getbasetemp()
    reference = reference_hashes(tmp_path_factory)  # the slice, run once per session
    root = repo_copy(base)
    # a finished run, metadata and all, beside the reference: its code inputs (paths relative to
    # the working directory) are then recorded as this run names them, as in a user's own folder
    work = base / "stale-outputs-work"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(base / "reference", work, symlinks=True)
    change = tmp_path / "change.yaml"
    change.write_text(CHANGE)
    cmd = [*snakemake_exe(), TARGET, "-s", str(root / "Snakefile"), "-d", str(work)]
    cmd += ["--cores", "2", "--configfile", *[str(root / c) for c in TINY], str(change)]

    def run(*extra):
        return subprocess.run(
            cmd + list(extra),
            cwd=root,
            env=_env(root),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    with open(tmp_path / "interrupted.log", "w") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=root,
            env=_env(root),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_as_in_a_terminal,
        )
        try:
            caught = catch_a_job(proc, work)
            assert caught.rule == "swanberg2025_fig3_train", caught.rule
            caught.process.kill()  # SIGKILL, as the OOM killer sends it
            assert proc.wait(TIMEOUT) != 0
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    # the old outputs of the step are gone (Snakemake deleted them before the job ran); the figure
    # still holds the old numbers, and is out of date, not "Nothing to be done"
    assert not any(o.exists() for o in caught.outputs)
    dry = run("-n")
    said = dry.stdout + dry.stderr
    assert dry.returncode == 0 and "Nothing to be done" not in said, said
    assert "rule swanberg2025_fig3:" in said and "rule swanberg2025_fig3_train:" in said, said
    complete = subprocess.run(
        [sys.executable, "-m", "privrisk", "complete", TARGET, "-s", str(root / "Snakefile")]
        + ["-d", str(work), "--configfile", *[str(root / c) for c in TINY], str(change)],
        cwd=root,
        env=_env(root),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert complete.returncode == 1, complete.stdout + complete.stderr
    assert "rule swanberg2025_fig3; params changed" in complete.stdout, complete.stdout
    assert "Run the same command again" in complete.stdout, complete.stdout
    # the same command redoes the step and the figure
    again = run()
    assert again.returncode == 0, again.stdout + again.stderr
    new = hashlib.sha256((work / TARGET).read_bytes()).hexdigest()
    assert new != reference[TARGET], "the figure still holds the old parameter's numbers"
    dry = run("-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout + dry.stderr
