"""Provenance records written beside every figure (``results/<key>/<fig>.json``)."""

from __future__ import annotations

import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from ..core import device as _device

# Packages whose versions matter for the numbers; missing ones are simply skipped.
TRACKED_PACKAGES = (
    "privrisk",
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "torch",
    "opacus",
    "dp-accounting",
    "scikit-learn",
    "pgmpy",
    "snakemake",
)

#: ``real``: real files a checksummed preparation made (:mod:`privrisk.data.verified`);
#: ``real-unverified``: real files nothing vouches for (placed by hand, trusted on first use,
#: changed since preparation); ``bundled-real``: a real sample shipped in a package;
#: ``standin``: a deterministic stand-in; ``simulated``: no dataset, synthetic data the run draws
#: or trains on (a population, canaries), so its numbers are experimental: another CPU's kernels
#: move them; ``analytic``: no data, numbers from closed forms.
DATA_SOURCES = ("real", "real-unverified", "bundled-real", "standin", "simulated", "analytic")


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


#: The checkout this package was imported from (src/privrisk/contract/ -> the repository).
CHECKOUT = Path(__file__).resolve().parents[3]


def git_commit(cwd: str | Path | None = None) -> str:
    """The commit of the code that runs (``cwd`` defaults to the checkout this package was imported
    from, not the working directory, which may be elsewhere with ``snakemake -d``), with ``-dirty``
    if tracked files have changes; ``unknown`` outside a git checkout."""
    cwd = CHECKOUT if cwd is None else cwd
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def make_record(
    *,
    paper: str,
    figure: str,
    caption: str,
    scale: str,
    parameters: dict[str, Any],
    seeds: dict[str, int] | None = None,
    data_sources: dict[str, str] | None = None,
    data_fallbacks: dict[str, str] | None = None,
    wall_time_s: float | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble a provenance record; ``data_sources`` maps dataset name -> one of DATA_SOURCES,
    ``data_fallbacks`` dataset -> why its ``auto`` block fell back, or why its real data is
    ``real-unverified`` (as :func:`privrisk.data.sources.fallback_reason` says; omitted when
    empty)."""
    for name, src in (data_sources or {}).items():
        if src not in DATA_SOURCES:
            raise ValueError(f"data source of {name!r} is {src!r}; expected one of {DATA_SOURCES}")
    return {
        "paper": paper,
        "figure": figure,
        "caption": caption,
        "scale": scale,
        "parameters": parameters,
        "seeds": seeds or {},
        "data_sources": data_sources or {"all": "analytic"},
        # why an `auto` data block fell back to a bundled sample or stand-in
        **({"data_fallbacks": dict(data_fallbacks)} if data_fallbacks else {}),
        "wall_time_s": None if wall_time_s is None else round(float(wall_time_s), 3),
        "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        # torch's numbers depend on its thread count; the CPU says where they were made
        **_device.thread_record(),
        "packages": package_versions(),
        **(extra or {}),
    }
