"""A failed job's log holds its traceback; the streams come back; the exception still propagates."""

import logging
import sys

import pytest

from privrisk.contract.joblog import job_log


def test_failure_traceback_lands_in_the_log(tmp_path):
    log = tmp_path / "logs" / "job.log"
    saved = sys.stdout, sys.stderr
    with pytest.raises(ZeroDivisionError), job_log(log):
        print("starting")
        logging.getLogger("step").info("progress 1/2")
        _ = 1 / 0
    text = log.read_text()
    assert "starting" in text and "progress 1/2" in text
    assert "Traceback (most recent call last)" in text and "ZeroDivisionError" in text
    assert (sys.stdout, sys.stderr) == saved


def test_success_leaves_a_plain_log(tmp_path):
    with job_log(tmp_path / "ok.log"):
        print("done")
    assert (tmp_path / "ok.log").read_text() == "done\n"
