"""The one torch device setting (config key ``device``), torch's thread count (``torch_threads``)
and the record of both that training records and figure provenance carry.

Every torch model and tensor of a step goes to :func:`resolve` of the step's ``params["device"]``,
so a GPU run moves everything and a CPU run nothing; ``auto`` picks CUDA when it is present.

Torch's results depend on its intra-op thread count (a reduction split over 2 threads adds in
another order than over 1), so the count is a config setting, ``torch_threads``, the same for
every step whatever ``--cores`` is; the step runner ``workflow/scripts/run.py`` applies it once
per job (:func:`set_torch_threads`) before the step runs, and steps never set it themselves.
:func:`thread_record` says what was used and on which CPU.

torch is imported only where a function needs it: figure jobs import this module (through
provenance) and never load torch for it.
"""

from __future__ import annotations

import platform
import re
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

SETTINGS = ("auto", "cpu", "cuda", "cuda:N", "mps")
_PATTERN = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")

#: This process's ``torch_threads`` once :func:`set_torch_threads` has applied it.
_TORCH_THREADS: int | None = None


class DeviceError(ValueError):
    """A device setting that is malformed or names hardware this machine lacks."""


def resolve(setting: str | torch.device = "auto") -> torch.device:
    """``auto`` -> ``cuda`` when available, else ``cpu``; an explicit device must exist."""
    import torch

    if isinstance(setting, torch.device):
        return setting
    if not isinstance(setting, str) or not _PATTERN.match(setting):
        raise DeviceError(f"config key device: {setting!r} is not one of {', '.join(SETTINGS)}")
    if setting == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if setting.startswith("cuda"):
        if not torch.cuda.is_available():
            raise DeviceError(
                f"config key device: {setting!r} requested but CUDA is not available here "
                "(use device: auto or cpu)"
            )
        index = int(setting.split(":")[1]) if ":" in setting else 0
        if index >= torch.cuda.device_count():
            raise DeviceError(
                f"config key device: {setting!r} but only {torch.cuda.device_count()} GPU(s)"
            )
    if setting == "mps" and not torch.backends.mps.is_available():
        raise DeviceError("config key device: 'mps' requested but not available here")
    return torch.device(setting)


def use_threads(threads: int) -> None:
    """Let torch use ``threads`` intra-op threads on the CPU (:func:`set_torch_threads` applies
    the config's ``torch_threads`` with it)."""
    import torch

    torch.set_num_threads(max(1, int(threads)))


def check_torch_threads(value: Any) -> int:
    """``torch_threads`` as an int >= 1, or a DeviceError naming the key."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DeviceError(f"config key torch_threads: {value!r} is not an integer >= 1")
    return value


def set_torch_threads(threads: int, *, load_torch: bool = True) -> None:
    """Apply the config's ``torch_threads`` to this process (and remember it for the records).

    ``load_torch=False`` (figure jobs, which do not train) applies it only if torch is already
    loaded, so that a job that never uses torch does not pay for importing it.
    """
    global _TORCH_THREADS
    _TORCH_THREADS = check_torch_threads(threads)
    if load_torch or "torch" in sys.modules:
        use_threads(_TORCH_THREADS)


@cache
def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; platform.processor() elsewhere), or ``unknown``."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def thread_record() -> dict[str, Any]:
    """``{"torch_threads": n, "cpu": model}`` for a training record or a provenance record.

    ``n`` is torch's thread count in this process when torch is loaded, else the ``torch_threads``
    this job was given (None outside a pipeline job that never loaded torch).
    """
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else _TORCH_THREADS
    return {"torch_threads": threads, "cpu": cpu_model()}
