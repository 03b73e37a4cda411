"""What the Slurm profile hands to sbatch: the registry's resources per scale, the GPU request of
the training rules at paper scale, and a retry of a failed job.

``sbatch`` and the Slurm query tools are replaced by fakes on PATH: the fake sbatch records its
arguments and refuses the job, so snakemake-executor-plugin-slurm reports a failed submission,
the profile's ``retries`` submits it once more, and the run stops. Nothing is computed; the real
cluster path (jobs that run and outputs equal to a local run) is workflow/profiles/slurm/ci_slice.sh.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from privrisk.pipeline import config, workflow
from tests.conftest import REPO, snakemake_exe

PROFILE = REPO / "workflow" / "profiles" / "slurm"
PAPER = ("config/config.yaml", "config/paper.yaml")
QUICK = ("config/config.yaml",)

FAKE_SBATCH = """#!/bin/sh
printf '%s\\n' "$*" >> "$FAKE_SLURM_CALLS"
echo "fake sbatch: refused" >&2
exit 1
"""
# the plugin asks these about partitions, accounts and job states; they know nothing
QUERY_TOOLS = ("sinfo", "squeue", "sacct", "sacctmgr", "scontrol", "sshare")


# the plugin is the `cluster` extra (.ci/run installs it); without it there is no sbatch call to check
needs_plugin = pytest.mark.skipif(
    importlib.util.find_spec("snakemake_executor_plugin_slurm") is None,
    reason="snakemake-executor-plugin-slurm not installed (pip install -e '.[cluster]')",
)


def test_profile_retries_and_recovers():
    prof = yaml.safe_load((PROFILE / "config.yaml").read_text())
    assert prof["executor"] == "slurm"
    assert prof["retries"] >= 1 and prof["rerun-incomplete"] is True
    assert "gpu" not in prof["default-resources"]  # a GPU only where a rule asks for one


def _xu2022_training_step(configfiles):
    cfg = config.load(*[REPO / c for c in configfiles])
    reg = workflow.load_registry("xu2022", cfg)
    step = next(s for s in reg.steps if s.name == "train_mnist_wgangp")
    return reg.rule_name(step), reg.step_outputs(step)["queries"], step


def _sbatch_calls(tmp_path: Path, target: str, configfiles) -> list[str]:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "sbatch").write_text(FAKE_SBATCH)
    for tool in QUERY_TOOLS:
        (fake / tool).write_text("#!/bin/sh\nexit 0\n")
    for f in fake.iterdir():
        f.chmod(0o755)
    calls = tmp_path / "sbatch_calls.txt"
    env = dict(
        os.environ,
        PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
        FAKE_SLURM_CALLS=str(calls),
        PYTHONPATH=str(REPO / "src"),
    )
    cmd = [
        *snakemake_exe(),
        target,
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(tmp_path / "work"),
        "--profile",
        str(PROFILE),
        "--configfile",
        *[str(REPO / c) for c in configfiles],
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "fake sbatch: refused" in out, out
    return calls.read_text().splitlines() if calls.is_file() else []


def _option(call: str, flag: str) -> str | None:
    m = re.search(rf"(?:^|\s){re.escape(flag)}[ =](\S+)", call)
    return m.group(1) if m else None


@pytest.mark.slow
@needs_plugin
@pytest.mark.parametrize("scale", ["paper", "quick"])
def test_sbatch_gets_the_registrys_resources_and_a_retry(tmp_path, scale):
    configfiles = PAPER if scale == "paper" else QUICK
    rule, target, step = _xu2022_training_step(configfiles)
    res = step.resources_for(scale)
    calls = _sbatch_calls(tmp_path, target, configfiles)
    # one submission, then one retry from the profile's `retries: 1`
    assert len(calls) == 2, calls
    for attempt, call in enumerate(calls, start=1):
        assert _option(call, "--comment") == f"rule_{rule}"
        assert _option(call, "--mem") == str(res.mem_mb)
        assert _option(call, "-t") == str(res.runtime)
        assert _option(call, "--cpus-per-task") == str(res.threads)
        assert f"--attempt {attempt}" in call
        if scale == "paper":
            assert res.gpu == 1 and _option(call, "--gpus") == "1", call
        else:
            assert res.gpu == 0 and "--gpus" not in call.split("--wrap")[0], call
