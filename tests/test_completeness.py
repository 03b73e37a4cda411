"""privrisk complete: its verdict from the lock folder, Snakemake's summary rows and the recorded
digests (fast), and on a real run: complete, an output missing, a CSV edited, a lock held (slow)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from privrisk import completeness, figure
from privrisk.core import checksums
from tests.conftest import REPO, TINY, snakemake_exe
from tests.test_figure import _result


def _figure(folder: Path) -> Path:
    figure.write_outputs(
        _result(),
        paper="p",
        figure="f",
        prefix=folder / "f",
        claims_path=folder / "claims" / "f.csv",
        params={"a": np.int64(2)},
        scale="tiny",
        wall_time_s=0.1,
    )
    return folder / "f.json"


def test_a_figure_records_the_sha256_of_every_file_it_wrote(tmp_path):
    record = json.loads(_figure(tmp_path).read_text())[checksums.PROVENANCE_KEY]
    assert sorted(record) == ["claims/f.csv", "f.csv", "f.pdf", "f.png"]
    for name, digest in record.items():
        assert digest == "sha256:" + hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()


def test_edited_names_a_changed_csv_and_an_unrecorded_record(tmp_path):
    _figure(tmp_path)
    outs = ["f.csv", "f.json", "f.pdf", "f.png"]
    assert completeness.edited(tmp_path, outs) == []
    with open(tmp_path / "f.csv", "a") as f:
        f.write("garbage\n")
    (problem,) = completeness.edited(tmp_path, outs)
    assert (problem.kind, problem.path) == ("edited", "f.csv") and "SHA-256" in problem.detail
    record = json.loads((tmp_path / "f.json").read_text())
    del record[checksums.PROVENANCE_KEY]
    (tmp_path / "f.json").write_text(json.dumps(record))
    assert [p.kind for p in completeness.edited(tmp_path, outs)] == ["unverified"]


def test_a_ledger_sidecar_catches_an_edit(tmp_path):
    ledger = tmp_path / "claims.csv"
    ledger.write_text("paper,status\np,reproduced\n")
    checksums.write_sidecars([ledger])
    assert (tmp_path / "claims.csv.sha256").read_text().endswith("  claims.csv\n")
    assert completeness.edited(tmp_path, ["claims.csv"]) == []
    ledger.write_text("paper,status\np,differs\n")
    assert [p.path for p in completeness.edited(tmp_path, ["claims.csv"])] == ["claims.csv"]


def test_pending_groups_snakemake_summary_rows_by_rule_and_reason():
    row = {"rule": "r", "status": "ok", "plan": "no update"}
    rows = [
        {**row, "output_file": "a.csv"},
        {**row, "output_file": "b.csv", "status": "missing", "plan": "update pending"},
        {**row, "output_file": "b.json", "status": "missing", "plan": "update pending"},
        {**row, "output_file": "c.csv", "status": "params changed", "plan": "update pending"},
    ]
    got = [(p.kind, p.path, p.detail) for p in completeness.pending(rows)]
    assert got == [
        ("missing", "b.csv and 1 more", "rule r; missing"),
        ("stale", "c.csv", "rule r; params changed"),
    ]


def test_a_lock_file_is_reported_and_decides_the_exit_code(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(completeness, "summary", lambda workdir, args: [])
    assert completeness.main(["-d", str(tmp_path)]) == 0
    assert "complete: 0 outputs" in capsys.readouterr().out
    (tmp_path / ".snakemake" / "locks").mkdir(parents=True)
    (tmp_path / ".snakemake" / "locks" / "0.input.lock").write_text("x")
    assert completeness.main(["-d", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "NOT complete" in out and ".snakemake/locks/0.input.lock" in out and "--unlock" in out


# --- on a real run -------------------------------------------------------------------------------

TARGET = "results/pankova2022/fig_eps_vs_advantage.csv"


def _complete(root: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "privrisk", "complete", TARGET, "--configfile", *TINY]
    env = dict(os.environ, PYTHONPATH=str(root / "src"))
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_exit_code_on_a_real_run(tmp_path):
    import shutil

    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for d in ("src", "workflow", "config", "profiles"):
        shutil.copytree(REPO / d, tmp_path / d, ignore=ignore)
    shutil.copy2(REPO / "Snakefile", tmp_path / "Snakefile")
    proc = _complete(tmp_path)
    assert proc.returncode == 1 and "missing" in proc.stdout and TARGET in proc.stdout, proc.stdout
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "src"))
    run = [*snakemake_exe(), TARGET, "--cores", "1", "--configfile", *TINY]
    done = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    proc = _complete(tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("complete: 5 outputs"), proc.stdout
    csv = tmp_path / TARGET
    kept = csv.read_bytes()
    csv.write_bytes(kept.replace(b"0.", b"9.", 1))  # garbage in one number; newer than its inputs
    proc = _complete(tmp_path)
    assert proc.returncode == 1 and f"edited     {TARGET}" in proc.stdout, proc.stdout
    csv.write_bytes(kept)
    lock = tmp_path / ".snakemake" / "locks" / "0.output.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(str(tmp_path / TARGET))  # as a running (or killed) Snakemake leaves it
    proc = _complete(tmp_path)
    assert proc.returncode == 1 and "lock       .snakemake/locks/0.output.lock" in proc.stdout
    lock.unlink()
    (tmp_path / "results/pankova2022/fig_eps_vs_advantage.png").unlink()
    proc = _complete(tmp_path)
    assert proc.returncode == 1 and "missing    results/pankova2022/fig_eps_vs_advantage" in (
        proc.stdout
    ), proc.stdout
