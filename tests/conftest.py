"""Shared fixtures: the repository paths and a helper that runs the pipeline in a temp dir."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def snakemake_exe() -> list[str]:
    exe = shutil.which("snakemake", path=os.path.dirname(sys.executable)) or shutil.which("snakemake")
    if exe is None:
        pytest.skip("snakemake is not installed")
    return [exe]


def run_pipeline(workdir: Path, *targets: str, configfiles=("config/config.yaml", "config/tiny.yaml"),
                 extra_args=(), check=True) -> subprocess.CompletedProcess:
    """Run the real Snakefile with ``workdir`` as working directory (results land there)."""
    cmd = [
        *snakemake_exe(), *targets, "-s", str(REPO / "Snakefile"), "-d", str(workdir),
        "--cores", "2", *extra_args, "--configfile", *[str(REPO / c) for c in configfiles],
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture
def pipeline():
    return run_pipeline
