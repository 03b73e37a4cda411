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
import pandas as pd
import pytest

from privrisk.contract import claims, figure
from privrisk.core import checksums
from privrisk.pipeline import completeness
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


def test_an_edited_record_and_a_consistently_edited_claims_file_are_caught(tmp_path):
    """The provenance record vouches for itself (an edited parameter or source) and for the
    figure's claims rows (an edit consistent enough to pass `claims --check` and flow into the
    ledger passed `privrisk complete` before)."""
    _figure(tmp_path)
    outs = ["f.csv", "f.json", "f.pdf", "f.png", "claims/f.csv"]
    assert completeness.edited(tmp_path, outs) == []
    record_text = (tmp_path / "f.json").read_text()
    record = json.loads(record_text)
    record["data_sources"] = {"mnist": "real"}  # a claim about the data the numbers do not bear
    (tmp_path / "f.json").write_text(json.dumps(record, indent=2))
    (problem,) = completeness.edited(tmp_path, outs)
    assert (problem.kind, problem.path) == ("edited", "f.json") and "itself" in problem.detail
    # re-indenting (the same content) is no edit
    (tmp_path / "f.json").write_text(json.dumps(json.loads(record_text), indent=4))
    assert completeness.edited(tmp_path, outs) == []
    rows = tmp_path / "claims" / "f.csv"
    df = pd.read_csv(rows, dtype=str, keep_default_na=False)
    df.loc[0, ["paper_value", "ours"]] = ["2.0", "2.0"]  # still "reproduced": consistent
    df.to_csv(rows, index=False)
    assert claims.check(claims.read(rows)) == []
    (problem,) = completeness.edited(tmp_path, outs)
    assert (problem.kind, problem.path) == ("edited", "claims/f.csv")


def test_a_figure_made_from_a_missing_or_replaced_input_is_stale(tmp_path):
    inputs = tmp_path / "intermediate"
    inputs.mkdir()
    (inputs / "runs.npz").write_bytes(b"the step's numbers")
    figure.write_outputs(
        _result(),
        paper="p",
        figure="f",
        prefix=tmp_path / "f",
        claims_path=tmp_path / "claims" / "f.csv",
        params={},
        scale="tiny",
        wall_time_s=0.0,
        inputs={"runs": str(inputs / "runs.npz")},
    )
    record = json.loads((tmp_path / "f.json").read_text())
    assert list(record[checksums.INPUTS_KEY]) == ["intermediate/runs.npz"]
    outs = ["f.csv", "f.json"]
    assert completeness.stale(tmp_path, outs) == []
    (inputs / "runs.npz").write_bytes(b"another parameter's numbers")
    (problem,) = completeness.stale(tmp_path, outs)
    assert (problem.kind, problem.path) == ("stale", "f.csv") and "earlier" in problem.detail
    (inputs / "runs.npz").unlink()
    (problem,) = completeness.stale(tmp_path, outs)
    assert problem.detail == "made from intermediate/runs.npz, which is missing now"


def test_the_report_names_the_command_that_fixes_it(tmp_path, monkeypatch, capsys):
    """Planned work: the same command again. Stale or edited outputs Snakemake plans nothing for:
    that command with --forcerun and their rules (targets first: --configfile would swallow them)."""
    _figure(tmp_path)
    rows = [
        {"output_file": f, "rule": "p_f", "status": "ok", "plan": "no update"}
        for f in ("f.csv", "f.json", "f.pdf", "f.png", "claims/f.csv")
    ]
    monkeypatch.setattr(completeness, "summary", lambda workdir, args: rows)
    args = ["t1", "-d", str(tmp_path), "--configfile", "a.yaml", "--config", "seed=3"]
    (tmp_path / "a.yaml").write_text("seed: 1\n")
    monkeypatch.chdir(tmp_path)
    assert completeness.main(args) == 0
    capsys.readouterr()
    (tmp_path / "f.csv").write_text("series,x,y\n")
    assert completeness.main(args) == 1
    out = capsys.readouterr().out
    assert f"snakemake --cores all t1 --forcerun p_f -d {tmp_path} --configfile a.yaml" in out
    rows[0].update(status="params changed", plan="update pending")
    (tmp_path / "f.csv").unlink()
    assert completeness.main(args) == 1
    out = capsys.readouterr().out
    assert "Run the same command again" in out and "--forcerun" not in out


def test_an_unreadable_configfile_is_a_one_line_refusal(tmp_path, capsys):
    """`privrisk complete --configfile missing.yaml` printed Snakemake's traceback."""
    assert completeness.main(["--configfile", str(tmp_path / "missing.yaml")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"privrisk complete: config file {tmp_path / 'missing.yaml'}: no such file"
    (tmp_path / "dup.yaml").write_text("seed: 1\nseed: 2\n")
    assert completeness.main(["--configfile", str(tmp_path / "dup.yaml")]) == 2
    assert "duplicate key 'seed'" in capsys.readouterr().err


def test_a_ledger_sidecar_catches_an_edit(tmp_path):
    ledger = tmp_path / "claims.csv"
    ledger.write_text("paper,status\np,reproduced\n")
    checksums.write_sidecars([ledger])
    assert (tmp_path / "claims.csv.sha256").read_text().endswith("  claims.csv\n")
    assert completeness.edited(tmp_path, ["claims.csv"]) == []
    ledger.write_text("paper,status\np,differs\n")
    assert [p.path for p in completeness.edited(tmp_path, ["claims.csv"])] == ["claims.csv"]


def _ledger(root: Path) -> list[dict[str, str]]:
    """A finished run's figure, per-paper ledger, global ledger and page, each with its digests,
    and Snakemake's summary rows for them (all final)."""
    results = root / "results"
    (results / "p").mkdir(parents=True)
    _figure(results / "p")
    rows = "paper,claim_id,status\np,a,differs\np,b,reproduced\n"
    for rel in ("results/p/claims.csv", "results/claims.csv", "results/claims.md"):
        (root / rel).write_text(rows)
    (results / "claims.html").write_text("<html><table></table></html>\n")
    ledgers = ["results/p/claims.csv", "results/claims.csv", "results/claims.md"]
    checksums.write_sidecars([root / f for f in (*ledgers, "results/claims.html")])
    fig = [f"results/p/f.{x}" for x in ("csv", "json", "pdf", "png")] + ["results/p/claims/f.csv"]
    rule = {**dict.fromkeys(fig, "p_f"), "results/p/claims.csv": "gather_paper_claims"}
    return [
        {"output_file": f, "rule": rule.get(f, "gather_all_claims"), "status": "ok",
         "plan": "no update"}
        for f in (*fig, *ledgers, "results/claims.html")
    ]  # fmt: skip


def test_every_generated_file_needs_its_digest(tmp_path):
    """A result no provenance record covers (a ledger, the claims page, a step's artifact) is
    ``unverified`` without its sidecar, or with one that does not name it; an edited page is
    ``edited``."""
    rows = _ledger(tmp_path)
    outs = [r["output_file"] for r in rows]
    assert completeness.edited(tmp_path, outs) == []
    page = tmp_path / "results/claims.html"
    page.write_text("<html><script>alert(1)</script></html>\n")
    (problem,) = completeness.edited(tmp_path, outs)
    assert (problem.kind, problem.path) == ("edited", "results/claims.html")
    checksums.sidecar(page).unlink()
    (problem,) = completeness.edited(tmp_path, outs)
    assert (problem.kind, problem.path) == ("unverified", "results/claims.html")
    assert "no claims.html.sha256 beside it" in problem.detail
    checksums.sidecar(page).write_text(f"{'0' * 64}  other.html\n")
    (problem,) = completeness.edited(tmp_path, outs)
    assert problem.kind == "unverified" and "records no digest of it" in problem.detail
    # a figure's files are vouched for by its record, a data marker outside results/ by itself
    assert not (tmp_path / "results/p/f.csv.sha256").exists()
    (tmp_path / "data/prepared").mkdir(parents=True)
    (tmp_path / "data/prepared/mnist.json").write_text("{}")
    assert completeness.edited(tmp_path, ["data/prepared/mnist.json", *outs[:5]]) == []


def test_the_laundering_path_is_refused(tmp_path, monkeypatch, capsys):
    """Edit a row of a paper's ledger and delete its sidecar: the file is ``unverified`` and the
    printed fix makes it again from the figures' rows (``--forcerun gather_paper_claims``), not
    "run again", which would gather the forged row into results/claims.csv with fresh digests."""
    rows = _ledger(tmp_path)
    monkeypatch.setattr(completeness, "summary", lambda workdir, args: rows)
    args = ["-d", str(tmp_path)]
    assert completeness.main(args) == 0
    capsys.readouterr()
    paper = tmp_path / "results/p/claims.csv"
    paper.write_text(paper.read_text().replace("p,a,differs", "p,a,reproduced"))
    checksums.sidecar(paper).unlink()
    # Snakemake sees the global ledger as older than its input now: it plans to gather again
    rows[-3].update(status="updated input files", plan="update pending")
    assert completeness.main(args) == 1
    out = capsys.readouterr().out
    assert "unverified results/p/claims.csv: no claims.csv.sha256 beside it" in out
    assert "stale      results/claims.csv" in out
    assert "Run the same command again" not in out
    assert f"snakemake --cores all --forcerun gather_paper_claims -d {tmp_path}" in out


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


@pytest.mark.slow
def test_the_laundering_path_is_refused_on_a_real_run(tmp_path):
    """A real run of one paper's ledger: edit a row of results/<key>/claims.csv and delete its
    sidecar; `privrisk complete` names it unverified, and the fix it prints makes the ledger
    again from the figures' own rows (the forged row is gone, the run complete again)."""
    import shutil

    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for d in ("src", "workflow", "config", "profiles"):
        shutil.copytree(REPO / d, tmp_path / d, ignore=ignore)
    shutil.copy2(REPO / "Snakefile", tmp_path / "Snakefile")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "src"))
    ledger = "results/pankova2022/claims.csv"
    run = [*snakemake_exe(), ledger, "--cores", "2", "--configfile", *TINY]
    done = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr

    def complete() -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "privrisk", "complete", ledger, "--configfile", *TINY]
        return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)

    assert complete().returncode == 0
    path = tmp_path / ledger
    honest = path.read_text()
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    row = df.index[df.status != "reproduced"][0]
    df.loc[row, "status"] = "reproduced"  # the forged row
    df.to_csv(path, index=False)
    checksums.sidecar(path).unlink()
    proc = complete()
    assert proc.returncode == 1 and f"unverified {ledger}" in proc.stdout, proc.stdout
    fix = proc.stdout.strip().splitlines()[-1].strip()
    assert fix.startswith("snakemake ") and "--forcerun gather_paper_claims" in fix, fix
    done = subprocess.run(
        fix.replace("--cores all", "--cores 2"),
        shell=True,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert path.read_text() == honest
    assert complete().returncode == 0
