"""A job's log file: what the workflow scripts write, including the traceback of a failure."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def job_log(path: str | Path) -> Iterator[TextIO]:
    """Send stdout, stderr and logging to ``path`` for the duration of a job.

    An exception is written to the log with its traceback *before* the file closes (Snakemake
    tells the user to read this file), then re-raised with the real streams restored, so it also
    reaches Snakemake's own output.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    saved = sys.stdout, sys.stderr
    with open(path, "w") as log:
        sys.stdout = sys.stderr = log
        logging.basicConfig(
            stream=log, level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", force=True
        )
        try:
            yield log
        except BaseException:
            traceback.print_exc(file=log)
            log.flush()
            raise
        finally:
            sys.stdout, sys.stderr = saved
            logging.basicConfig(stream=sys.stderr, level=logging.INFO, force=True)
