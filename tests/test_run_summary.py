"""The lines a finished run ends with: outputs, the ledger's counts, rows changed since the last
run, next commands; a failed run says so."""

from __future__ import annotations

import pandas as pd
import pytest

from privrisk.pipeline import run_summary


def _ledger(rows):
    return pd.DataFrame(rows, columns=["paper", "figure", "claim_id", "status", "ours"])


def test_counts_and_changes_since_the_last_run(tmp_path):
    (tmp_path / "results" / "thudi2022").mkdir(parents=True)
    first = _ledger(
        [
            ("thudi2022", "fig1", "a", "reproduced", "0.5"),
            ("thudi2022", "fig1", "b", "reproduced", "0.7"),
            ("thudi2022", "fig2", "c", "differs", "3"),
        ]
    )
    first.to_csv(tmp_path / run_summary.LEDGER, index=False)
    said = run_summary.text(True, tmp_path)
    assert "results/thudi2022/" in said and "results/xu2022/" not in said
    assert "(3 claims): 2 reproduced, 1 differs" in said and "no earlier run" in said
    assert "privrisk complete" in said and "snakemake --report" in said
    second = _ledger(
        [
            ("thudi2022", "fig1", "a", "reproduced", "0.5"),
            ("thudi2022", "fig1", "b", "differs", "0.9"),
            ("thudi2022", "fig3", "d", "qualitative-ok", ""),
        ]
    )
    second.to_csv(tmp_path / run_summary.LEDGER, index=False)
    said = run_summary.text(True, tmp_path)
    assert "since the last run: 3 row(s) changed" in said
    assert "changed  thudi2022/fig1/b: reproduced -> differs (ours 0.7 -> 0.9)" in said
    assert "new      thudi2022/fig3/d: qualitative-ok" in said
    assert "gone     thudi2022/fig2/c" in said and "thudi2022/fig1/a" not in said
    assert "no row changed" in run_summary.text(True, tmp_path)


def test_a_failed_run_says_so_and_keeps_the_previous_ledger(tmp_path):
    said = run_summary.text(False, tmp_path)
    assert "Run FAILED" in said and "(none yet under results/)" in said
    (tmp_path / "results").mkdir()
    _ledger([("p", "f", "a", "reproduced", "1")]).to_csv(tmp_path / run_summary.LEDGER, index=False)
    run_summary.text(False, tmp_path)
    assert not (tmp_path / run_summary.PREVIOUS).exists()


def _log(tmp_path, *lines):
    path = tmp_path / "run.snakemake.log"
    path.write_text("\n".join(["Building DAG of jobs...", "Job stats:", *lines]) + "\n")
    return [str(path)]


def test_a_failed_run_names_the_failed_job_and_its_log(tmp_path):
    logs = _log(
        tmp_path,
        "Error in rule swanberg2025_fig3_train:",
        "    jobid: 4",
        "    output: results/swanberg2025/intermediate/fig3_ngram_runs.npz",
        "    log: results/logs/swanberg2025/fig3_train.log (check log file(s) for error details)",
        "Shutting down, this might take some time.",
    )
    said = run_summary.text(False, tmp_path, logs=logs)
    assert (
        "Run FAILED: 1 job(s) failed: swanberg2025_fig3_train "
        "(log results/logs/swanberg2025/fig3_train.log)" in said
    )


def test_a_stopped_or_interrupted_run_does_not_say_a_job_failed(tmp_path):
    """SIGTERM ended the run with "Run FAILED (the failed job's log is named above)" when no job
    had failed and no log was named."""
    sigterm = _log(tmp_path, "Will exit after finishing currently running jobs (scheduler).")
    said = run_summary.text(False, tmp_path, logs=sigterm)
    assert "Run STOPPED on request (SIGTERM): no job failed" in said
    assert "FAILED" not in said and "log is named" not in said
    sigint = _log(tmp_path, "Terminating processes on user request, this might take some time.")
    said = run_summary.text(False, tmp_path, logs=sigint)
    assert "Run INTERRUPTED (Ctrl-C): no job failed" in said and "FAILED" not in said
    said = run_summary.text(False, tmp_path, logs=_log(tmp_path, "MissingInputException ..."))
    assert "Snakemake's messages above say why" in said and "job's log" not in said
    # no log at all (file logging off): the same honest fallback
    assert "messages above say why" in run_summary.text(False, tmp_path, logs=[])


@pytest.mark.slow
def test_sigterm_on_a_real_run_is_reported_as_a_stop_not_a_failure(tmp_path_factory, tmp_path):
    """SIGTERM to Snakemake while a job runs: Snakemake finishes the running jobs and ends; its
    last lines say it was stopped with no job failing (they said "Run FAILED (the failed job's log
    is named above)")."""
    import os
    import signal

    from tests.test_resume import TIMEOUT, catch_a_job, repo_copy, started

    root = repo_copy(tmp_path_factory.getbasetemp())
    work = tmp_path / "sigterm"
    with started(root, work) as proc:
        caught = catch_a_job(proc, work)
        os.kill(proc.pid, signal.SIGTERM)  # Snakemake only, as `kill PID` or a scheduler sends it
        caught.resume()
        assert proc.wait(TIMEOUT) != 0
    said = (work.parent / f"{work.name}.log").read_text()
    assert "Run STOPPED on request (SIGTERM): no job failed" in said, said[-3000:]
    assert "Run FAILED" not in said and "Error in rule" not in said, said[-3000:]
