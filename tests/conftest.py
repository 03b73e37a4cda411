"""Shared fixtures: the repository paths, a helper that runs the pipeline in a temp dir, and the
output-contract check every end-to-end test uses (built on the registry, so no test types a
figure list)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from privrisk.contract import claims
from privrisk.contract.figure import check_outputs
from privrisk.pipeline import config, workflow

# Python's bytecode cache on for the tests and every Python they start, even where the environment
# turns it off (PYTHONDONTWRITEBYTECODE: some containers and CI images set it). Without it every
# xdist worker and each of the few hundred `privrisk`/Snakemake subprocesses compiled the package's
# sources again, and pytest rewrote every test module's asserts on each run: 7.2 s of a worker's
# 9.6 s collection was that (2.7 s with the cache). A tree where nothing can be written still runs:
# Python skips a cache it cannot write.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

REPO = Path(__file__).resolve().parents[1]
TINY = ("config/config.yaml", "config/tiny.yaml")


def snakemake_exe() -> list[str]:
    exe = shutil.which("snakemake", path=os.path.dirname(sys.executable)) or shutil.which(
        "snakemake"
    )
    if exe is None:
        pytest.skip("snakemake is not installed")
    return [exe]


#: The test being run (set by the hook below), so that run_pipeline can see its markers.
_CURRENT: pytest.Item | None = None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    global _CURRENT
    _CURRENT = item


#: Slurm's query tools that answer nothing, put first on PATH for every test (below)
NO_CONTROLLER = "#!/bin/sh\necho 'no Slurm controller in the tests' >&2\nexit 1\n"


@pytest.fixture(scope="session", autouse=True)
def _no_slurm_controller_wait(tmp_path_factory):
    """Every Snakemake start loads the installed executor plugins, and the Slurm plugin runs
    ``scontrol show config`` at import. Where Slurm's client is installed but no controller
    answers (CI, after its Slurm stage stops the local cluster; a laptop with slurm-client),
    scontrol waits 9 s before failing: 9 s of every Snakemake start, most of the slow tier. The
    tests never use a real cluster (tests/test_slurm_profile.py puts its own fakes first; the real
    one is workflow/profiles/slurm/ci_slice.sh), so a scontrol that fails at once stands in."""
    fake = tmp_path_factory.mktemp("no-slurm-controller")
    (fake / "scontrol").write_text(NO_CONTROLLER)
    (fake / "scontrol").chmod(0o755)
    patch = pytest.MonkeyPatch()
    patch.setenv("PATH", f"{fake}{os.pathsep}{os.environ.get('PATH', '')}")
    yield
    patch.undo()


def _only_in_the_slow_tier() -> None:
    """Plain ``pytest`` is the fast tier (under 2 minutes on 2 cores): a test that runs Snakemake,
    even a dry run (seconds of start-up and DAG), belongs to the slow tier."""
    if _CURRENT is not None and _CURRENT.get_closest_marker("slow") is None:
        raise AssertionError(
            f"{_CURRENT.nodeid} runs Snakemake: mark it @pytest.mark.slow (README, Tests and CI)"
        )


def run_pipeline(
    workdir: Path, *targets: str, configfiles=TINY, extra_args=(), check=True, config_overrides=()
) -> subprocess.CompletedProcess:
    """Run the real Snakefile with ``workdir`` as working directory (results land there).
    Only from a test marked slow."""
    _only_in_the_slow_tier()
    cmd = [
        *snakemake_exe(),
        *targets,
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--cores",
        "2",
        *extra_args,
        "--configfile",
        *[str(REPO / c) for c in configfiles],
    ]
    if config_overrides:
        cmd += ["--config", *config_overrides]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture
def pipeline():
    return run_pipeline


def assert_contract(workdir: Path, paper: str, configfiles=TINY) -> pd.DataFrame:
    """Every figure the registry declares for ``paper`` has its files, a tidy CSV, a provenance
    record and claims rows; the paper's ledger is consistent. Returns the paper's claims."""
    cfg = config.load(*[REPO / c for c in configfiles])
    problems = check_outputs(workdir, workflow.load_registry(paper, cfg))
    assert not problems, "\n".join(problems)
    return claims.read(workdir / "results" / paper / "claims.csv")
