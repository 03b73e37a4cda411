"""Run one pipeline job in this process, under a folder of its own, as ``workflow/scripts/run.py``
runs it under Snakemake; and describe the machine a run is made on (its CPU and kernels).

``privrisk records --check`` uses it to recompute a record's figures from its per-run values and
to rerun one of its jobs; the tests use it to make a small run without Snakemake.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

# figures draw only to files: the non-interactive backend, as in run.py
os.environ.setdefault("MPLBACKEND", "Agg")

from ..core import checksums, device  # noqa: E402
from ..core.declarations import shard_groups  # noqa: E402
from ..core.paths import figure_outputs  # noqa: E402
from .workflow import Job  # noqa: E402

#: environment variables that pick torch's, oneDNN's and MKL's kernels (CI's "another CPU" stage)
KERNEL_ENV = (
    "ATEN_CPU_CAPABILITY",
    "ONEDNN_MAX_CPU_ISA",
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_CBWR",
)


def run_job(
    job: Job,
    root: str | Path,
    *,
    paper: str,
    scale: str,
    torch_threads: int = 1,
    params: dict[str, Any] | None = None,
) -> None:
    """Run ``job`` with every path (``results/...``) under ``root``: a step writes its outputs
    (and their ``.sha256`` sidecars), a figure its output contract and claims rows. ``params``
    replaces the job's own (a figure recomputed with the params its provenance recorded)."""
    from ..contract.figure import resolve, run_figure

    root = Path(root)
    inputs = {k: str(root / v) for k, v in job.inputs.items()}
    outputs = {k: str(root / v) for k, v in job.outputs.items()}
    for p in outputs.values():
        Path(p).parent.mkdir(parents=True, exist_ok=True)
    prm = job.params if params is None else params
    device.set_torch_threads(torch_threads, load_torch=job.kind != "figure")
    if job.kind == "pool":
        resolve(job.func)(prm, shard_groups(inputs), outputs)
    elif job.kind in ("step", "shard"):
        resolve(job.func)(prm, inputs, outputs)
    else:
        out = figure_outputs(paper, job.name, table=getattr(job.decl, "table", False))
        run_figure(
            job.func,
            paper=paper,
            figure=job.name,
            params=prm,
            prefix=str(root / out["csv"]).removesuffix(".csv"),
            claims_path=root / out["claims"],
            scale=scale,
            inputs=inputs or None,
        )
        return
    checksums.write_sidecars(p for p in outputs.values() if Path(p).is_file())


def kernels() -> dict[str, Any]:
    """torch's ATen CPU capability (the vector kernels it dispatches to) and the environment
    variables that restrict kernels, as set in this process."""
    import torch

    return {
        "aten_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "env": {k: os.environ[k] for k in KERNEL_ENV if k in os.environ},
    }


def machine() -> dict[str, Any]:
    """This machine: CPU model, logical cores, platform, torch's kernels."""
    return {
        "cpu": device.cpu_model(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "kernels": kernels(),
    }


def same_machine(recorded: dict[str, Any], packages: dict[str, str]) -> tuple[bool, str]:
    """Whether this machine computes as the record's did (same CPU model, kernels and versions of
    the packages its numbers depend on), and if not, what differs."""
    from ..contract.provenance import package_versions

    here = machine()
    diffs = []
    if recorded.get("cpu") != here["cpu"]:
        diffs.append(f"CPU {here['cpu']!r} (record: {recorded.get('cpu')!r})")
    if recorded.get("kernels") != here["kernels"]:
        diffs.append(f"kernels {here['kernels']} (record: {recorded.get('kernels')})")
    now = package_versions()
    diffs += [
        f"{name} {now.get(name)} (record: {v})"
        for name, v in sorted(packages.items())
        if now.get(name) != v
    ]
    return not diffs, "; ".join(diffs)
