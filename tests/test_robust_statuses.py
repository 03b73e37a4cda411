"""Verdicts that no CPU or seed can contradict (design.md §4, "Verdicts"; privrisk.contract.verdicts,
"Robust decisions"): a small xu2022 configuration (tiny scale) run normally, with the kernels
limited as on an older CPU, and with another seed never turns an ok into a fails (or reproduced
into differs), and the status page's data made from one run passes ``privrisk status --check``
against the others (a boundary row may move where its keep-probability allows it).

``ATEN_CPU_CAPABILITY=default ONEDNN_MAX_CPU_ISA=SSE41 MKL_ENABLE_INSTRUCTIONS=SSE4_2`` makes
torch, oneDNN and MKL take their baseline code paths: the trained weights (and so every
experimental float) move as they do on another machine, which is what the rule must survive.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from privrisk.contract import claims, status
from privrisk.contract import status_data as D
from tests.conftest import REPO, TINY, snakemake_exe

pytestmark = pytest.mark.slow

LIMITED = {
    "ATEN_CPU_CAPABILITY": "default",
    "ONEDNN_MAX_CPU_ISA": "SSE41",
    "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
}
TIMEOUT = 1200  # seconds for one tiny xu2022 run (53 s on 2 idle cores; 30 min at load 17)


def _run(workdir: Path, *, env: dict[str, str] | None = None, seed: int = 0) -> Path:
    cmd = [
        *snakemake_exe(),
        "xu2022",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--cores",
        "2",
        "--configfile",
        *[str(REPO / c) for c in TINY],
        "--config",
        f"seed={seed}",
    ]
    full = dict(os.environ, PYTHONPATH=str(REPO / "src"), **(env or {}))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full, cwd=REPO, timeout=TIMEOUT)
    assert proc.returncode == 0, f"snakemake failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return workdir / "results"


def _statuses(results: Path) -> dict[str, str]:
    df = claims.read(results / "xu2022" / "claims.csv")
    assert claims.check(df) == []
    return dict(zip(df.claim_id, df.status, strict=True))


def _same_table(a: Path, b: Path) -> list[str]:
    """``privrisk status --check`` of b's results against the page's data made from a's: no
    contradiction and no move a's keep-probabilities call unlikely."""
    (a / "claims.csv").write_bytes((a / "xu2022" / "claims.csv").read_bytes())
    (b / "claims.csv").write_bytes((b / "xu2022" / "claims.csv").read_bytes())
    problems, _moves = status.compare(D.from_run(a), D.from_run(b))
    return problems


#: statuses that contradict each other: what no rerun may do to a decided row
CONTRADICTS = {("qualitative-ok", "qualitative-fails"), ("reproduced", "differs")}


def _contradictions(a: dict[str, str], b: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {
        k: (a[k], b[k]) for k in a if (a[k], b[k]) in CONTRADICTS or (b[k], a[k]) in CONTRADICTS
    }


@pytest.fixture(scope="module")
def normal(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("normal"))


def test_statuses_survive_another_cpus_kernels(normal, tmp_path):
    limited = _run(tmp_path / "limited", env=LIMITED)
    a, b = _statuses(normal), _statuses(limited)
    assert a.keys() == b.keys()
    moved = _contradictions(a, b)
    assert not moved, f"statuses contradicted with the limited kernels: {moved}"
    assert _same_table(normal, limited) == []


def test_statuses_survive_another_seed(normal, tmp_path):
    reseeded = _run(tmp_path / "seed1", seed=1)
    a, b = _statuses(normal), _statuses(reseeded)
    assert a.keys() == b.keys()
    moved = _contradictions(a, b)
    assert not moved, f"statuses contradicted with seed 1: {moved}"
    assert _same_table(normal, reseeded) == []
