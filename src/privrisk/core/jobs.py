"""What a running pipeline job does besides its work: die with its Snakemake, and say in the
terminal that it is still alive.

**Orphans.** Killed with SIGKILL, Snakemake cannot stop its jobs: they were re-parented to PID 1
and kept writing, so a rerun started meanwhile saw "Nothing to be done" and the orphan's files
appeared a minute later. :func:`die_with_parent` asks the kernel (Linux ``prctl(PR_SET_PDEATHSIG)``)
to SIGKILL the job the moment the process that started it (Snakemake, which spawns script jobs
as its direct children) dies, so nothing outlives the run that owns it; the rerun redoes the job
(the default profile's ``rerun-incomplete``). Elsewhere it does nothing.

**Progress.** A job's own progress goes to its log file; :func:`heartbeat` prints one line to
Snakemake's terminal every minute a job runs (its name, how long so far, the last line of its log),
so a long job is never ten silent minutes.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PR_SET_PDEATHSIG = 1
#: seconds between two progress lines of a running job
EVERY_S = 60.0


def die_with_parent() -> bool:
    """SIGKILL this process when its parent dies; True where the kernel supports it (Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if os.getppid() != parent:  # the parent died before the request took effect
        os.kill(os.getpid(), signal.SIGKILL)
    return True


def last_line(path: str | Path, limit: int = 100) -> str:
    """The last non-empty line of a (growing) text file, shortened to ``limit`` characters."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 4096))
            lines = [ln.strip() for ln in f.read().decode(errors="replace").splitlines()]
    except OSError:
        return ""
    text = next((ln for ln in reversed(lines) if ln), "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def progress_line(name: str, elapsed_s: float, log: str | Path) -> str:
    minutes = int(elapsed_s // 60)
    tail = last_line(log)
    return f"[{time.strftime('%H:%M:%S')}] {name}: running for {minutes} min" + (
        f"; log {log}: {tail}" if tail else f"; log {log}"
    )


def heartbeat(name: str, log: str | Path, every_s: float = EVERY_S) -> threading.Event:
    """Print :func:`progress_line` to the terminal (the process's original stderr, which the job
    log does not capture) every ``every_s`` seconds until the returned event is set or the
    process ends."""
    stop = threading.Event()
    start = time.monotonic()
    out = sys.__stderr__

    def beat() -> None:
        while not stop.wait(every_s):
            if out is not None:
                print(progress_line(name, time.monotonic() - start, log), file=out, flush=True)

    threading.Thread(target=beat, name="privrisk-heartbeat", daemon=True).start()
    return stop


# --- malformed intermediate files ---------------------------------------------------------------


class MalformedInput(ValueError):
    """An input file of a job (an intermediate artifact) is not what its rule wrote; names it."""


def _csv_problem(path: str, column: str | None) -> str | None:
    import pandas as pd

    try:
        header = list(pd.read_csv(path, nrows=5).columns)
    except (OSError, ValueError, UnicodeDecodeError) as err:  # pandas' parse errors are ValueErrors
        return f"{path} is not a readable CSV ({type(err).__name__}: {err})"
    if column is not None and column not in header:
        return f"{path} has no column {column!r} (its columns: {', '.join(map(str, header))})"
    return None


def _json_problem(path: str) -> str | None:
    import json

    try:
        json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        return f"{path} is not readable JSON ({err})"
    return None


def _as_written(path: str) -> bool | None:
    """Whether ``path`` holds the bytes its step wrote: True or False where the step's runner
    recorded their SHA-256 in a ``<path>.sha256`` sidecar (workflow/scripts/run.py), None where
    nothing was recorded. A file with the bytes its rule wrote is never blamed for an error, even
    when it lacks a column another input has lost."""
    from .checksums import changed, read_sidecar, sidecar

    side = sidecar(path)
    if not side.is_file():
        return None
    try:
        return not changed(read_sidecar(side), Path(path).parent)
    except OSError:
        return None


def _from_pandas(err: BaseException) -> bool:
    tb = err.__traceback__
    while tb is not None:
        if f"{os.sep}pandas{os.sep}" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


@contextmanager
def inputs_named_when_malformed(inputs: dict[str, str]) -> Iterator[None]:
    """Turn what a malformed intermediate file raises deep inside a step or figure (``KeyError:
    'draw'``, a pandas parse error, a JSON decode error) into one :class:`MalformedInput` naming
    the file and what is wrong with it; a file whose bytes are those its step wrote (its SHA-256
    sidecar) is never named. Errors no input explains pass unchanged."""
    import json

    try:
        yield
    except (KeyError, ValueError, UnicodeDecodeError) as err:
        if isinstance(err, MalformedInput):
            raise
        # only what reading a file raises: pandas (a missing column, a parse error) or json; a
        # KeyError of a dict in the code is a bug to show as it is, whatever columns the inputs have
        if not (isinstance(err, json.JSONDecodeError | UnicodeDecodeError) or _from_pandas(err)):
            raise
        column = err.args[0] if isinstance(err, KeyError) and err.args else None
        if column is not None and not isinstance(column, str):
            raise
        problems = []
        for path in inputs.values():
            intact = _as_written(path)
            if intact:  # the bytes its rule wrote: whatever columns it has, it is not to blame
                continue
            if path.endswith(".csv"):
                problems.append(_csv_problem(path, column))
            elif path.endswith(".json") and (
                column is None or isinstance(err, json.JSONDecodeError)
            ):
                problems.append(_json_problem(path))
        found = [p for p in problems if p]
        if not found:
            raise
        raise MalformedInput(
            "malformed input: "
            + "; ".join(found)
            + ". It was edited or truncated after its rule wrote it: delete it and run the same "
            "command again (Snakemake makes it anew)."
        ) from err
