"""The one torch device setting (config key ``device``) and the threads a job may use.

Every torch model and tensor of a step goes to :func:`resolve` of the step's ``params["device"]``,
so a GPU run moves everything and a CPU run nothing; ``auto`` picks CUDA when it is present.
Steps that train on the CPU use the threads their rule declares (:func:`use_threads`), so two
jobs sharing a machine do not oversubscribe it.
"""

from __future__ import annotations

import re

import torch

SETTINGS = ("auto", "cpu", "cuda", "cuda:N", "mps")
_PATTERN = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")


class DeviceError(ValueError):
    """A device setting that is malformed or names hardware this machine lacks."""


def resolve(setting: str | torch.device = "auto") -> torch.device:
    """``auto`` -> ``cuda`` when available, else ``cpu``; an explicit device must exist."""
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
    """Let torch use the rule's declared threads (intra-op) on the CPU."""
    torch.set_num_threads(max(1, int(threads)))


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), or what ``platform`` knows elsewhere."""
    import platform
    from pathlib import Path

    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def thread_record() -> dict:
    """What a training record must say about the CPU work: torch's intra-op thread count (results
    of float reductions depend on it) and the CPU model."""
    return {"torch_threads": int(torch.get_num_threads()), "cpu": cpu_model()}
