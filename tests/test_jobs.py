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
        time.sleep(1.0)  # past the prctl call (the import takes a moment)
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
