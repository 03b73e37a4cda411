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
