"""A copied or moved checkout (results and .snakemake included) schedules nothing: every rule's
inputs, its library code among them, are recorded relative to the working directory, so a new
location records the same inputs. Absolute code paths made a copy rerun every job (issue 32)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, TINY, snakemake_exe

pytestmark = pytest.mark.slow

TARGETS = ("results/pankova2022/fig_eps_vs_advantage.csv", "results/thudi2022/fig1.csv")


def _dry_run(root: Path) -> subprocess.CompletedProcess:
    return _smk(root, "-n")


def _smk(root: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [*snakemake_exe(), *TARGETS, "--cores", "1", *extra, "--configfile", *TINY]
    env = dict(os.environ, PYTHONPATH=str(root / "src"))
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=900)


def test_a_copied_and_a_moved_checkout_run_nothing(tmp_path):
    first = tmp_path / "first"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for d in ("src", "workflow", "config", "profiles"):
        shutil.copytree(REPO / d, first / d, ignore=ignore)
    shutil.copy2(REPO / "Snakefile", first / "Snakefile")
    done = _smk(first)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Nothing to be done" in _dry_run(first).stdout
    copied = tmp_path / "copied"
    shutil.copytree(first, copied, symlinks=True)  # cp -a: contents and times
    proc = _dry_run(copied)
    assert proc.returncode == 0 and "Nothing to be done" in proc.stdout, proc.stdout + proc.stderr
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    first.rename(moved)
    proc = _dry_run(moved)
    assert proc.returncode == 0 and "Nothing to be done" in proc.stdout, proc.stdout + proc.stderr
