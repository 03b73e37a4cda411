"""Snakemake's between-workflow output cache (`--cache`, SNAKEMAKE_OUTPUT_CACHE; docs/running.md):
a second checkout of the same code and params fetches a step's outputs instead of computing
them again, and a changed parameter or a changed library file the step imports misses the cache.
Snakemake keys an entry by the rule's script, params and the checksums of the inputs no job
writes (the `code` and `data` inputs of workflow/rules/registry.smk), so the code an edit of
which reruns a rule is also the code that keys its cache entry."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, TINY, snakemake_exe

pytestmark = pytest.mark.slow

# a step of a few seconds at tiny scale, with library code beside its paper's (models/baynet.py)
STEP = "results/swanberg2025/intermediate/marginals_acs_dataset.npz"
LIBRARY_FILE = "src/privrisk/models/baynet.py"
HIT = f"Output file {STEP} will be obtained from global between-workflow cache."
MISS = f"Output file {STEP} will be written to global between-workflow cache."


def _checkout(dest: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for d in ("src", "workflow", "config", "profiles"):
        shutil.copytree(REPO / d, dest / d, ignore=ignore)
    shutil.copy2(REPO / "Snakefile", dest / "Snakefile")
    return dest


def _smk(root: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [*snakemake_exe(), STEP, "--cores", "1", "--cache", *extra, "--configfile", *TINY]
    env = dict(os.environ, PYTHONPATH=str(root / "src"), SNAKEMAKE_OUTPUT_CACHE=str(cache))
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _dry(root: Path, cache: Path, *extra: str) -> str:
    proc = _smk(root, cache, "-n", *extra)
    return proc.stdout + proc.stderr


def test_a_cached_step_is_reused_only_for_the_same_code_and_params(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    first = _checkout(tmp_path / "first")
    assert MISS in _dry(first, cache)
    _smk(first, cache)
    entries = sorted(p.name for p in cache.iterdir())
    # the step's two named outputs, npz and json, and their digest sidecars
    assert len(entries) == 4, entries

    # a second checkout of the same code: the step's outputs come from the cache, not a run
    second = _checkout(tmp_path / "second")
    assert HIT in _dry(second, cache)
    _smk(second, cache)
    for f in (STEP, f"{STEP}.sha256"):  # it arrives vouched for, not `unverified`
        assert (second / f).read_bytes() == (first / f).read_bytes()
    # the step did not run: Snakemake leaves its log empty (a run's log has the job's lines),
    # and the outputs are links into the cache (read-only: Snakemake's local cache)
    log = "results/logs/swanberg2025/marginals_dataset_acs.log"
    assert (first / log).read_text() and not (second / log).read_text()
    assert (second / STEP).is_symlink() and (second / STEP).resolve().parent == cache
    assert sorted(p.name for p in cache.iterdir()) == entries

    # another value of a parameter the step reads: a different key
    assert MISS in _dry(second, cache, "--config", "swanberg2025={marginals: {n_records: 101}}")

    # an edit of a library module the step imports (not of its paper's code): a different key
    edited = _checkout(tmp_path / "edited")
    lib = edited / LIBRARY_FILE
    original = lib.read_text()
    lib.write_text(original + "\n# an edit\n")
    assert MISS in _dry(edited, cache)
    # and the edit undone hits again: the miss was the edit's
    lib.write_text(original)
    assert HIT in _dry(edited, cache)
