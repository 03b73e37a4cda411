"""``privrisk records``: a tiny record made from a tiny run of swanberg2025's Figure 3 (its n-gram
models trained in this process, no Snakemake), then checked: clean, with one per-run value
edited, with the rules changed; and what ``claims``, ``plan`` and the status page's reader see.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from privrisk.contract import plotting
from privrisk.core import records as rec
from privrisk.pipeline import config, records, records_check, records_make, workflow
from privrisk.pipeline.records_run import run_job

REPO = Path(__file__).resolve().parents[1]
TINY = [REPO / "config/config.yaml", REPO / "config/tiny.yaml"]
SEED = 20221
PAPER, FIG = "swanberg2025", "fig3"
NPZ = f"{rec.seed_dir(SEED)}/{PAPER}/intermediate/fig3_ngram_runs.npz"
ROWS = f"{rec.seed_dir(SEED)}/{PAPER}/claims/{FIG}.csv"


def tiny_run(workdir: Path, paper: str, figures: list[str], files=TINY, seed=SEED) -> Path:
    """The figures and the steps they read, run in this process under ``workdir/results`` as
    Snakemake would (each job's benchmark file too); returns the results folder."""
    cfg = config.load(*files)
    cfg["seed"] = seed
    reg = workflow.load_registry(paper, cfg)
    need = set(figures)
    for f in reg.figures:
        if f.name in figures:
            need |= {s.name for s in reg.upstream(f)}
    for job in workflow.jobs(reg, cfg, "quick"):
        if job.name in need:
            t0, w0 = time.process_time(), time.perf_counter()
            run_job(job, workdir, paper=paper, scale="tiny")
            bench = workdir / job.benchmark
            bench.parent.mkdir(parents=True, exist_ok=True)
            wall, cpu = time.perf_counter() - w0, time.process_time() - t0
            bench.write_text(f"s\th:m:s\tcpu_time\n{wall:.2f}\t0:00:00\t{cpu:.2f}\n")
    return workdir / "results"


@pytest.fixture(scope="module", autouse=True)
def _images_not_drawn():
    """The figures' PDF and PNG written as stand-in bytes, not rendered. A record never keeps
    them (its files: per-run values, claims rows, the tidy CSV, provenance) and ``--check``
    compares only claims rows and CSVs, so rendering them was two thirds of this module's time
    (about 1.5 s a figure run, a dozen runs) for nothing these tests look at; the drawing itself
    is tested where figures are (tests/test_figure.py; every paper's figures in the slow tier's
    pipeline runs)."""

    def save(fig, prefix, **_):
        for ext in ("pdf", "png"):
            Path(f"{prefix}.{ext}").write_bytes(b"not drawn in tests/test_records.py\n")
        plt.close(fig)

    patch = pytest.MonkeyPatch()
    patch.setattr(plotting, "save", save)
    yield
    patch.undo()


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory):
    """Figure 3 and the step it reads, run at tiny scale at one seed: the results folder."""
    return tiny_run(tmp_path_factory.mktemp("run"), PAPER, [FIG])


@pytest.fixture(scope="module")
def made(tiny_results, tmp_path_factory):
    """A record ``tiny`` of Figure 3 at one seed, under its own root; returns the root."""
    results = tiny_results
    root = tmp_path_factory.mktemp("records")
    records_make.make(
        "tiny",
        [results],
        configfiles=TINY,
        figures=[f"{PAPER}/{FIG}"],
        root=root,
        log=lambda _: None,
    )
    return root


@pytest.fixture
def record(made, tmp_path, monkeypatch):
    """A fresh copy of the made record (a test may edit it); PRIVRISK_RECORDS points at it."""
    root = tmp_path / "records"
    shutil.copytree(made, root)
    monkeypatch.setenv(rec.ENV, str(root))
    return root


def test_make_writes_per_run_values_claims_and_a_manifest_that_hashes_them(record):
    folder = record / "tiny"
    man = rec.manifest("tiny", record)
    assert man["figures"] == [f"{PAPER}/{FIG}"] and man["seeds"] == [SEED]
    assert man["complete"] is True and man["missing"] == [] and man["left_out"] == []
    # the per-run values Figure 3 reads, its claims rows, its CSV and provenance; nothing else
    assert sorted(man["files"]) == sorted(
        [NPZ, ROWS] + [f"{rec.seed_dir(SEED)}/{PAPER}/{FIG}.{e}" for e in ("csv", "json")]
    )
    for rel, digest in man["files"].items():
        assert rec.sha256(folder / rel) == digest
    # the jobs' measured times, the machine and kernels, the code that made the values
    assert set(man["jobs"][str(SEED)]) == {f"{PAPER}/fig3", f"{PAPER}/fig3_train"}
    assert man["jobs"][str(SEED)][f"{PAPER}/fig3_train"]["cpu_s"] >= 0
    assert man["machine"]["kernels"]["aten_cpu_capability"]
    assert "privrisk/papers/swanberg2025/steps_fig3.py" in man["code"]["steps"] or any(
        k.startswith("privrisk/papers/swanberg2025/") for k in man["code"]["steps"]
    )
    assert man["config"]["files"][1]["text"] == TINY[1].read_text()
    # statuses.json: the run's own rows, as made
    rows = pd.read_csv(folder / ROWS)
    der = rec.derived("tiny", record)
    assert der["derived_by"] == "recorded"
    assert {k: v["statuses"][str(SEED)] for k, v in der["claims"].items()} == {
        f"{PAPER}/{r.claim_id}": r.status for r in rows.itertuples()
    }


def test_check_passes_on_the_record_as_made_and_reruns_one_job_byte_for_byte(record, capsys):
    code = records.main(["--check", "tiny", "--rerun-seed", "7"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"seed {SEED} {PAPER}/{FIG}: recomputed" in out
    # the only job that makes recorded values within the limit: the training step
    assert "rerun: swanberg2025/fig3_train at seed 20221" in out and "--rerun-seed 7" in out
    assert "byte-identical to the record" in out
    assert out.strip().splitlines()[-1].startswith("records/tiny: ok")


def test_an_edited_per_run_value_fails_the_check_naming_the_file(record, capsys):
    path = record / "tiny" / NPZ
    runs = dict(np.load(path))
    runs["guess"] = runs["target"].copy()  # every attack now guesses right
    np.savez(path, **runs)
    assert records.main(["--check", "tiny", "--no-rerun"]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {path}: its bytes differ from the manifest's SHA-256" in out
    # and with its hash forged too, the recomputed decisions give it away, claim by claim
    man = json.loads((record / "tiny" / rec.MANIFEST).read_text())
    man["files"][NPZ] = rec.sha256(path)
    (record / "tiny" / rec.MANIFEST).write_text(json.dumps(man))
    assert records.main(["--check", "tiny", "--no-rerun"]) == 1
    out = capsys.readouterr().out
    assert "its bytes differ" not in out
    assert (
        "FAIL seed 20221 swanberg2025/fig3_password_eps1: recorded reproduced, recomputed differs under the same code"
        in out
    )


def test_a_status_moved_by_changed_rules_is_reported_not_failed(record, capsys):
    """The rules changed: the statuses were derived by other code (another digest) and the
    recorded row says what that code said. The check names the move and passes; --refresh
    rewrites statuses.json from today's code, after which nothing is stale."""
    folder = record / "tiny"
    rows = pd.read_csv(folder / ROWS, keep_default_na=False)
    i = rows.index[rows.claim_id == "fig3_password_eps1"][0]
    rows.loc[i, "status"] = "differs"  # what the old rules said
    rows.to_csv(folder / ROWS, index=False)
    man = json.loads((folder / rec.MANIFEST).read_text())
    man["files"][ROWS] = rec.sha256(folder / ROWS)
    some = sorted(man["code"]["figures"])[0]
    man["code"]["figures"][some] = "sha256:" + "0" * 64  # the run's figure code was other
    (folder / rec.MANIFEST).write_text(json.dumps(man))
    der = json.loads((folder / rec.STATUSES).read_text())
    der["code"][some] = "sha256:" + "0" * 64
    der["claims"][f"{PAPER}/fig3_password_eps1"]["statuses"][str(SEED)] = "differs"
    (folder / rec.STATUSES).write_text(json.dumps(der))
    assert [s.kind for s in rec.stale(record)] == ["verify"]
    assert rec.stale(record)[0].line().endswith("fix: privrisk records --check tiny --refresh")
    assert records.main(["--check", "tiny", "--no-rerun"]) == 1  # statuses.json is not today's
    out = capsys.readouterr().out
    assert (
        "seed 20221 swanberg2025/fig3_password_eps1: differs -> reproduced (rules changed)" in out
    )
    assert "fix: privrisk records --check tiny --refresh" in out
    assert records.main(["--check", "tiny", "--no-rerun", "--refresh"]) == 0
    assert rec.stale(record) == []
    # refreshed, the record checks clean; the recorded row stays what the old rules said
    capsys.readouterr()
    assert records.main(["--check", "tiny", "--no-rerun"]) == 0
    assert "differs -> reproduced (rules changed)" in capsys.readouterr().out
    entry = rec.statuses(record)[f"{PAPER}/fig3_password_eps1"][0]
    assert entry["status"] == "reproduced" and entry["derived_by"] == "recomputed"


def test_statuses_combine_seeds_and_name_disagreement():
    assert rec.combined({"1": "qualitative-ok", "2": "qualitative-ok"}) == "qualitative-ok"
    assert (
        rec.combined({"1": "qualitative-ok", "2": "uninformative"})
        == "uninformative (reruns: qualitative-ok, uninformative)"
    )


def test_statuses_for_the_page(record):
    got = rec.statuses()
    rows = pd.read_csv(record / "tiny" / ROWS)
    assert set(got) == {f"{PAPER}/{c}" for c in rows.claim_id}
    (entry,) = got[f"{PAPER}/fig3_password_eps1"]
    assert entry["record"] == "tiny" and entry["seeds"] == [SEED]
    assert entry["statuses"] == {str(SEED): "reproduced"} and entry["status"] == "reproduced"
    assert entry["complete"] and entry["every_seed"] and entry["stale"] == []
    assert entry["runs"] == "1 seed"


def test_plan_leaves_out_what_a_record_decided(record, tmp_path, capsys, monkeypatch):
    """A ledger where the record's decided claim is still uninformative with a plan: plan skips
    it (saying so), --no-records plans it."""
    from privrisk.contract import claims

    rows = pd.read_csv(record / "tiny" / ROWS, keep_default_na=False)
    row = rows[rows.claim_id == "fig3_password_eps1"].iloc[0].to_dict()
    row |= {"status": "uninformative", "note": "quick", "to_decide": "400 models"}
    ledger = tmp_path / "claims.csv"
    claims.write_claims([claims.Claim(**row)], ledger)
    monkeypatch.chdir(REPO)
    args = [str(ledger), "--benchmarks", str(tmp_path)]
    assert records.plan_main(args) == 0
    out = capsys.readouterr().out
    assert "decided at records/tiny, not planned: swanberg2025/fig3_password_eps1" in out
    assert out.splitlines()[1].startswith("0 uninformative claims")
    assert records.plan_main([*args, "--no-records"]) == 0
    assert "1 that more evidence can decide" in capsys.readouterr().out


def test_claims_shows_a_record_beside_the_ledger(record, tmp_path, capsys):
    assert records.claims_main([str(tmp_path / "none.csv"), "--record", "tiny"]) == 0
    out = capsys.readouterr().out
    assert "at tiny (1 seed, complete)" in out
    assert "swanberg2025/fig3_password_eps1" in out and "at tiny: reproduced" in out
    assert records.claims_main(["--record", "nope"]) == 2
    # beside a ledger (the quick run's), filtered by the claims command's own options
    from privrisk.contract import claims

    rows = pd.read_csv(record / "tiny" / ROWS, keep_default_na=False)
    ledger = tmp_path / "claims.csv"
    claims.write_claims([claims.Claim(**r) for r in rows.to_dict("records")], ledger)
    capsys.readouterr()
    assert records.claims_main(["--status", "standin", str(ledger), "--record", "tiny"]) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("  swanberg2025/fig3_password_eps1 ")]
    assert "quick reproduced" in line and "at tiny: reproduced" in line


def test_make_refuses_bad_input_in_one_line_and_writes_nothing(
    made, tiny_results, tmp_path, capsys
):
    root = tmp_path / "r"
    assert (
        records.main(
            ["make", "x", "--results", str(tmp_path), "--figures", "a/b", "--root", str(root)]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--results {tmp_path}: not a results folder" in err
    assert not root.exists() or not any(root.iterdir())
    assert records.main(["make", "tiny", "--results", str(tmp_path), "--root", str(made)]) == 2
    capsys.readouterr()
    # results of another seed than the one named: the provenance's params give it away
    results = tiny_results
    args = ["make", "y", "--results", str(results), "--seeds", "3", "--figures", f"{PAPER}/{FIG}"]
    args += [f"--configfile={f}" for f in TINY] + ["--root", str(root)]
    assert records.main(args) == 2
    err = capsys.readouterr().err
    assert "was made with other parameters than the config + overlay at seed 3 (seed)" in err
    assert not (root / "y").exists() and not list(root.glob(".y.*"))
    assert records.main(["--check", "nope", "--root", str(made)]) == 2
    assert "no record 'nope'" in capsys.readouterr().err


def test_covered_figures_follow_from_the_overlay():
    base = config.load(*TINY)
    over = config.load(*TINY)
    over["swanberg2025"]["ngram_train"]["trials"] += 10
    over["lowy2024"]["fig2"]["trials"] += 1
    got = records_make.covered_figures(base, over)
    # Figure 5 of lowy2024 recomputes Figure 2's curves; the audit figure reads Figure 3's models
    assert got == {"lowy2024": ["fig2", "fig5"], "swanberg2025": ["fig3", "audit_fig3"]}
    assert records_make.covered_figures(base, base) == {}


def test_contradictions():
    assert records_check._contradicts("qualitative-ok", "qualitative-fails")
    assert records_check._contradicts("reproduced", "differs")
    assert not records_check._contradicts("qualitative-ok", "uninformative")


# slow tier: three full `privrisk docs --check` runs (about 20 s of CPU each)
@pytest.mark.slow
def test_docs_check_names_a_stale_record_with_its_fix(record, tmp_path, capsys, monkeypatch):
    from privrisk.pipeline import docs

    monkeypatch.chdir(REPO)
    # the committed page does not show this test's record (tests/test_status_records.py checks
    # that docs --check names that): here only the staleness is looked at
    monkeypatch.setattr(docs, "_record_columns", lambda *_, **__: ([], False))
    assert docs.docs_main(["--check", "--results", str(tmp_path)]) == 0
    capsys.readouterr()
    der = json.loads((record / "tiny" / rec.STATUSES).read_text())
    some = sorted(der["code"])[0]
    der["code"][some] = "sha256:" + "0" * 64
    (record / "tiny" / rec.STATUSES).write_text(json.dumps(der))
    assert docs.docs_main(["--check", "--results", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"records/tiny: stale (its statuses were derived by code changed since: {some})" in out
    assert "fix: privrisk records --check tiny --refresh" in out
    # step code changed since the values were made: named with the remake command, not failed
    der["code"][some] = rec.sha256(rec.SRC / some)
    (record / "tiny" / rec.STATUSES).write_text(json.dumps(der))
    man = json.loads((record / "tiny" / rec.MANIFEST).read_text())
    step_file = sorted(man["code"]["steps"])[0]
    man["code"]["steps"][step_file] = "sha256:" + "1" * 64
    (record / "tiny" / rec.MANIFEST).write_text(json.dumps(man))
    assert docs.docs_main(["--check", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "its per-run values were made by step code changed since" in out
    assert "privrisk records make tiny --force" in out


def test_decided_needs_the_same_deciding_status_at_every_seed(tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    man = {"format": rec.FORMAT, "seeds": [1, 2], "complete": False, "files": {}}
    (folder / rec.MANIFEST).write_text(json.dumps(man))
    ok = "qualitative-ok"
    claims = {
        "p/a": {"statuses": {"1": ok, "2": ok}},
        "p/b": {"statuses": {"1": ok}},  # seed 2 missing: a partial record decides nothing
        "p/c": {"statuses": {"1": ok, "2": "uninformative"}},
        "p/d": {"statuses": {"1": "uninformative", "2": "uninformative"}},
    }
    der = {"format": rec.FORMAT, "derived_by": "recorded", "code": {}, "claims": claims}
    (folder / rec.STATUSES).write_text(json.dumps(der))
    assert records.decided(tmp_path) == {"p/a": "r"}
    got = rec.statuses(tmp_path)
    assert got["p/c"][0]["status"] == "uninformative (reruns: qualitative-ok, uninformative)"
    assert [got[f"p/{k}"][0]["every_seed"] for k in "abcd"] == [True, False, True, True]


def test_a_record_short_of_its_planned_seeds_is_partial_and_decides_nothing(tiny_results, tmp_path):
    """A run of record committed after its first seed (the others still running): the manifest
    names the seeds not run yet, and no claim counts as decided until every planned seed has."""
    root = tmp_path / "records"
    records_make.make(
        "part",
        [tiny_results],
        planned_seeds=[SEED, SEED + 1, SEED + 2],
        configfiles=TINY,
        figures=[f"{PAPER}/{FIG}"],
        root=root,
        log=lambda _: None,
    )
    man = rec.manifest("part", root)
    assert not man["complete"] and man["planned_seeds"] == [SEED, SEED + 1, SEED + 2]
    assert {f"seed {SEED + 1}: not run yet", f"seed {SEED + 2}: not run yet"} <= set(man["missing"])
    got = rec.statuses(root)
    assert got and all(not e["every_seed"] for entries in got.values() for e in entries)
    assert records.decided(root) == {}


def test_make_takes_only_what_finished_jobs_vouch_for(tiny_results, tmp_path):
    """A file still being written (its digest not the one its job recorded when it finished) is
    missing from the record, which says it is partial."""
    run = tmp_path / "run"
    shutil.copytree(tiny_results.parent, run)
    npz = run / "results" / PAPER / "intermediate" / "fig3_ngram_runs.npz"
    npz.write_bytes(npz.read_bytes()[:-10])
    rows = run / "results" / PAPER / "claims" / f"{FIG}.csv"
    rows.write_text(rows.read_text() + "\n")
    records_make.make(
        "p",
        [run / "results"],
        configfiles=TINY,
        figures=[f"{PAPER}/{FIG}"],
        root=tmp_path / "r",
        log=lambda _: None,
    )
    man = rec.manifest("p", tmp_path / "r")
    assert man["complete"] is False
    assert man["missing"] == [
        f"seed {SEED}: results/{PAPER}/claims/{FIG}.csv",
        f"seed {SEED}: results/{PAPER}/intermediate/fig3_ngram_runs.npz",
    ]
    assert NPZ not in man["files"] and ROWS not in man["files"]


def test_rerun_on_another_machine_compares_decisions_not_bytes(record, capsys, monkeypatch):
    """Elsewhere (another CPU, kernels or versions) the rerun job's values feed the figures that
    read them, and their statuses must not contradict the record's; a contradiction fails."""
    from privrisk.pipeline import records_run

    monkeypatch.setattr(records_run, "same_machine", lambda *_: (False, "CPU 'elsewhere'"))
    assert records.main(["--check", "tiny", "--rerun-seed", "7"]) == 0
    out = capsys.readouterr().out
    assert (
        "rerun swanberg2025/fig3_train seed 20221: not byte-comparable (another machine, "
        "CPU 'elsewhere')" in out
    )
    assert "none contradicts the record" in out
    # the record's derived statuses say the opposite of what the job's values give: it fails
    der = json.loads((record / "tiny" / rec.STATUSES).read_text())
    der["claims"][f"{PAPER}/fig3_password_eps1"]["statuses"][str(SEED)] = "differs"
    (record / "tiny" / rec.STATUSES).write_text(json.dumps(der))
    assert records.main(["--check", "tiny", "--rerun-seed", "7"]) == 1
    out = capsys.readouterr().out
    assert "contradicts the record: swanberg2025/fig3_password_eps1: differs -> reproduced" in out
