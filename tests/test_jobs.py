"""A job dies with the process that started it, and prints a progress line while it runs."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from privrisk.core import jobs
from tests.conftest import REPO

# a parent that starts a job (which asks to die with it) and then waits forever
PARENT = """
import subprocess, sys, time
job = subprocess.Popen([sys.executable, "-c", sys.argv[1]])
print(job.pid, flush=True)
time.sleep(600)
"""
JOB = """
from privrisk.core import jobs
import time
assert jobs.die_with_parent()
print("armed", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_job_dies_when_its_parent_is_killed():
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, JOB], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        job = psutil.Process(int(parent.stdout.readline()))
        # the job shares the parent's stdout: its line says it is past the prctl call
        assert parent.stdout.readline().strip() == "armed"
        assert job.is_running() and job.status() != psutil.STATUS_ZOMBIE
        job.suspend()  # even a stopped job: SIGKILL needs no cooperation
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        gone, alive = psutil.wait_procs([job], timeout=10)
        assert not alive, "the job outlived its parent"
    finally:
        parent.kill()


def test_progress_lines_name_the_job_time_and_last_log_line(tmp_path, monkeypatch):
    log = tmp_path / "job.log"
    log.write_text("step 1\nepoch 3/10 loss 0.52\n\n")
    line = jobs.progress_line("xu2022_train", 185.0, log)
    assert "xu2022_train: running for 3 min" in line and line.endswith("epoch 3/10 loss 0.52")
    assert jobs.progress_line("r", 5, tmp_path / "none.log").endswith("none.log")
    out = io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", out)
    stop = jobs.heartbeat("xu2022_train", log, every_s=0.05)
    time.sleep(0.3)
    stop.set()
    time.sleep(0.1)
    said = out.getvalue().splitlines()
    assert len(said) >= 2 and all("xu2022_train: running for 0 min" in s for s in said), said


def _read_draws(path):
    import pandas as pd

    return pd.read_csv(path)["draw"]


def test_a_malformed_intermediate_csv_is_named_not_a_key_error(tmp_path):
    good, bad = tmp_path / "attack.csv", tmp_path / "tuning.csv"
    good.write_text("draw,y\n0,1\n")
    bad.write_text("y\n1\n")  # the column the step reads is gone
    inputs = {"attack": str(good), "tuning": str(bad)}
    with pytest.raises(jobs.MalformedInput) as err:
        with jobs.inputs_named_when_malformed(inputs):
            _read_draws(bad)
    said = str(err.value)
    assert f"{bad} has no column 'draw' (its columns: y)" in said and str(good) not in said
    bad.write_bytes(b"\x00\xff garbage \x00\n\x01")
    with pytest.raises(jobs.MalformedInput, match=r"tuning\.csv is not a readable CSV"):
        with jobs.inputs_named_when_malformed(inputs):
            _read_draws(bad)
    record = tmp_path / "record.json"
    record.write_text('{"auc": 0.5')  # truncated
    with pytest.raises(jobs.MalformedInput, match=r"record\.json is not readable JSON"):
        with jobs.inputs_named_when_malformed({"record": str(record)}):
            import json

            json.loads(record.read_text())


def test_an_error_no_input_explains_passes_unchanged(tmp_path):
    good = tmp_path / "attack.csv"
    good.write_text("draw,y\n0,1\n")
    with pytest.raises(KeyError, match="epsilon"):
        with jobs.inputs_named_when_malformed({"attack": str(good)}):
            {}["epsilon"]
    with pytest.raises(ValueError, match="a bug"):
        with jobs.inputs_named_when_malformed({"attack": str(good)}):
            raise ValueError("a bug")


def test_an_intact_sibling_is_never_blamed(tmp_path):
    """A figure reads attack.csv (with a column `draw`) and tuning.csv (which never had one); the
    attack file loses `draw`. Both lack the column, but only the changed one is blamed: the
    tuning file still has the bytes its step wrote (its SHA-256 sidecar says so)."""
    from privrisk.core import checksums

    attack, tuning = tmp_path / "attack.csv", tmp_path / "tuning.csv"
    attack.write_text("draw,y\n0,1\n")
    tuning.write_text("lr,loss\n0.1,2\n")
    checksums.write_sidecars([attack, tuning])  # as the step runner records them
    attack.write_text("y\n1\n")  # edited after its step wrote it
    inputs = {"attack": str(attack), "tuning": str(tuning)}
    with pytest.raises(jobs.MalformedInput) as err:
        with jobs.inputs_named_when_malformed(inputs):
            _read_draws(attack)
    said = str(err.value)
    assert f"{attack} has no column 'draw'" in said and str(tuning) not in said, said
    # every input intact: the error is the code's, shown as it is
    checksums.write_sidecars([attack])
    with pytest.raises(KeyError):
        with jobs.inputs_named_when_malformed(inputs):
            _read_draws(attack)
