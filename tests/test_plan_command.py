"""``privrisk plan``: the ledger's plans as a config overlay, a report and commands.

The outputs a user reads together (the report, the overlay file, the commands) agree by
construction; checked as a property over random ledgers: every planned row's key is in the
overlay with a value >= the row's count, every "never" row is listed with its reason and adds
nothing to the overlay, decided rows appear nowhere, and the overlay merged over
config/config.yaml passes the project's config validation. The plan texts are those of
:meth:`privrisk.contract.verdicts.Plan.text`, read back exactly.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from privrisk.contract import claims, verdicts
from privrisk.pipeline import config, plan
from tests.conftest import REPO

CONFIG = REPO / "config/config.yaml"
DECIDED = ("qualitative-ok", "qualitative-fails", "reproduced", "differs", "derived")


@pytest.fixture(scope="module")
def cfg():
    return config.load(CONFIG)


@pytest.fixture(scope="module")
def declared(cfg):
    """(paper, figure or claim id, declaration) of every PLAN_KEYS entry of the shipped papers."""
    out = []
    for paper in ("lowy2024", "swanberg2025", "xu2022"):
        for name, decl in plan.plan_keys(paper, cfg[paper]).items():
            out.append((paper, name, decl))
    return out


# --- the plan texts ------------------------------------------------------------------------------


def test_every_plan_text_of_the_verdicts_reads_back():
    """parse(Plan.text()) recovers the plan, for random plans of every form verdicts writes."""
    rng = np.random.default_rng(0)
    units = ("runs", "draws", "models", "samples")
    whys = ("", "and the gate must pass", "zero variance: every one gives the same result")
    for _ in range(400):
        unit, why = rng.choice(units), str(rng.choice(whys))
        form = rng.integers(4)
        if form == 0:
            p = verdicts.Plan(float(rng.integers(2, 10**6)), unit, why=why)
            need = plan.parse(p.text())
            assert (need.kind, need.unit, need.n, need.relative, need.why) == (
                "count",
                unit,
                p.n,
                False,
                why,
            )
        elif form == 1:
            p = verdicts.Plan(float(10 ** rng.uniform(-3, 9)), unit, why=why, relative=True)
            need = plan.parse(p.text())
            assert need.kind == "count" and need.relative and need.unit == unit
            # the ledger keeps three significant digits
            assert need.n == pytest.approx(p.n, rel=5e-3)
        elif form == 2:
            p = verdicts.Plan(float(verdicts.PLAN_MAX) * 10, unit, why=why)
            need = plan.parse(p.text())
            assert (need.kind, need.unit, need.why) == ("beyond", unit, why)
        else:
            p = verdicts.never(unit, why)
            need = plan.parse(p.text())
            assert (need.kind, need.unit, need.why) == ("never", unit, why)
    assert plan.parse("never by more data (no estimate to plan from)").kind == "never"
    assert plan.parse("run it again") is None


# --- the property over random ledgers ------------------------------------------------------------


def _row(paper, figure, claim_id, status, to_decide):
    return {
        "paper": paper,
        "figure": figure,
        "claim_id": claim_id,
        "claim": "c",
        "paper_value": "",
        "ours": "",
        "tolerance": "",
        "status": status,
        "data": "standin",
        "note": "n",
        "to_decide": to_decide,
    }


def _random_ledger(rng, declared) -> pd.DataFrame:
    rows = []
    for i in range(int(rng.integers(1, 30))):
        paper, name, decl = declared[rng.integers(len(declared))]
        # a claim id that names the declaration, or a figure that does
        figure, cid = (name, f"c{i}") if rng.random() < 0.5 else ("figX", name)
        if rng.random() < 0.1:  # no declaration at all
            figure, cid = "fig99", f"undeclared{i}"
        if rng.random() < 0.3:
            status = str(rng.choice(DECIDED))
            rows.append(_row(paper, figure, cid if cid != name else f"{name}_{i}", status, ""))
            continue
        unit = decl["unit"] if rng.random() < 0.85 else "widgets"
        why = str(rng.choice(["", "and the gate must pass", "in clusters of 3"]))
        kind = rng.choice(["abs", "abs", "rel", "never", "beyond"])
        if kind == "abs":
            p = verdicts.Plan(float(rng.integers(2, 20_000)), unit, why=why)
        elif kind == "rel":
            p = verdicts.Plan(float(rng.uniform(1.1, 30)), unit, why=why, relative=True)
        elif kind == "beyond":
            p = verdicts.Plan(float(verdicts.PLAN_MAX) * 2, unit)
        else:
            p = verdicts.never(unit, str(rng.choice(["zero variance", "gated: no leak"])))
        rows.append(_row(paper, figure, cid, "uninformative", p.text()))
    df = pd.DataFrame(rows, columns=claims.COLUMNS)
    return df.drop_duplicates(["paper", "claim_id"])


#: the fast tier checks the first 20 of the 60 random ledgers (the same seeded sequence; each
#: overlay merged and validated is most of the time), the slow tier all 60
@pytest.mark.parametrize("trials", [20, pytest.param(60, marks=pytest.mark.slow)])
def test_report_and_overlay_agree_with_the_plans_over_random_ledgers(
    cfg, declared, tmp_path, trials
):
    rng = np.random.default_rng(20221)
    bench = tmp_path / "benchmarks"
    kinds = set()
    for trial in range(trials):
        df = _random_ledger(rng, declared)
        p = plan.make(df, cfg)
        by_id = {(r.paper, r.claim_id): r for r in p.rows}
        for r in df.to_dict("records"):
            if r["status"] != "uninformative":
                assert (r["paper"], r["claim_id"]) not in by_id  # decided rows appear nowhere
        for r in p.rows:
            need = plan.parse(r.plan_text)
            kinds.add((r.kind, bool(r.extra)))
            if r.kind == "planned":
                n = need.n * r.current if need.relative else need.n
                assert r.value >= n - 1e-6 and p.overlay[r.key] >= r.value
                assert r.key.startswith(f"{r.paper}.") and need.unit == r.unit
                # draws in clusters raise the clusters' key with them (swanberg2025's worlds)
                assert bool(r.extra) == ("in clusters of" in r.plan_text)
            elif r.kind == "never":
                assert need.kind == "never" and r.why
            else:
                assert r.kind == "unplanned" and r.why
        # the overlay holds exactly the planned rows' keys (and the keys their model assumes: the
        # worlds of draws in clusters): nothing from a never or unplanned row
        assert set(p.overlay) == {
            k for r in p.rows if r.kind == "planned" for k in (r.key, *r.extra)
        }
        for r in p.rows:
            if r.kind == "planned":
                assert all(p.overlay[k] >= v for k, v in r.extra.items())
        text = plan.report(p, bench, [CONFIG], None)
        for r in p.rows:
            assert f"{r.paper}/{r.claim_id}:" in text
            if r.kind == "never":
                assert f"{r.paper}/{r.claim_id}: never by more {r.unit} ({r.why})" in text
        for r in df.to_dict("records"):
            if r["status"] != "uninformative":
                assert f"{r['paper']}/{r['claim_id']}:" not in text
        if not p.overlay:
            continue
        out = tmp_path / f"overlay{trial}.yaml"
        plan.write_atomic(out, plan.overlay_text(p, [CONFIG]))
        merged = config.load(CONFIG, out)  # raises ConfigError on an invalid overlay
        for key, v in p.overlay.items():
            node = merged
            for part in key.split("."):
                node = node[part]
            assert node == v
        assert yaml.safe_load(out.read_text()) == p.nested()
    # not vacuous: planned rows with and without a clusters' key, never and unplanned rows
    assert {("planned", False), ("planned", True), ("never", False), ("unplanned", False)} <= kinds


#: the fast tier the first 15 of the 40 random ledgers, the slow tier all 40
@pytest.mark.parametrize("trials", [15, pytest.param(40, marks=pytest.mark.slow)])
def test_decided_leaves_out_what_a_record_decided_as_if_never_in_the_ledger(cfg, declared, trials):
    """``make(..., decided=)``: the uninformative rows a run of record decided are neither planned
    nor priced (the plan is the plan of the ledger without them) and are listed with their
    record; decided rows of the ledger and rows of other papers are not listed; ``papers`` still
    limits. Over random ledgers and random choices of what the records decided."""
    rng = np.random.default_rng(46)
    for _ in range(trials):
        df = _random_ledger(rng, declared)
        keys = df.paper + "/" + df.claim_id
        chosen = keys[rng.random(len(df)) < 0.4]
        done = {k: str(rng.choice(["decide-1", "gpu-1"])) for k in chosen}
        done["nopaper/nothing"] = "decide-1"  # a record's claim the ledger does not have
        papers = None if rng.random() < 0.5 else [str(rng.choice(sorted(set(df.paper))))]
        got = plan.make(df, cfg, papers, decided=done)
        left = df[~(keys.isin(list(done)) & (df.status == "uninformative"))]
        want = plan.make(left, cfg, papers)
        assert got.rows == want.rows and got.overlay == want.overlay
        assert got.jobs == want.jobs and got.reruns == want.reruns
        listed = {k for k, _ in got.decided}
        assert listed == {
            k
            for k, r in zip(keys, df.to_dict("records"), strict=True)
            if k in done and r["status"] == "uninformative" and (not papers or r["paper"] in papers)
        }
        assert all(done[k] == rec for k, rec in got.decided)
        assert not {(r.paper + "/" + r.claim_id) for r in got.rows} & listed
        assert plan.make(df, cfg, papers).decided == []


def test_records_plan_passes_what_was_decided_as_an_option_not_a_patch():
    """``privrisk plan`` (records.plan_main) hands the records' decisions to plan.main as
    ``decided=``: nothing in the package swaps plan's functions at run time."""
    import inspect

    from privrisk.pipeline import records

    src = inspect.getsource(records)
    assert "plan.read_ledger" not in src and "decided=done" in src
    assert "decided" in inspect.signature(plan.make).parameters
    assert "decided" in inspect.signature(plan.main).parameters


def test_shared_keys_take_the_largest_count_and_never_lower_the_config(cfg):
    df = pd.DataFrame(
        [
            _row("xu2022", "fig3", "fig3_mnist_am_comparable", "uninformative", "41 runs"),
            _row("xu2022", "fig3", "fig3_cifar10_am_comparable", "uninformative", "67 runs"),
            _row("xu2022", "fig1a", "fig1a_discrete_ge_kde", "uninformative", "33 runs (why)"),
            _row("xu2022", "fig8", "fig8_whitebox_gt_blackbox", "uninformative", "4 runs"),
            # 4.03 × 1000 is 4030.0000000000005 in floats: the plan rounds up to 4030, not 4031
            _row("lowy2024", "fig2", "fig2_x", "uninformative", "4.03× the current samples"),
            _row("xu2022", "fig6", "fig6_max", "uninformative", "26.2× the current samples"),
        ],
        columns=claims.COLUMNS,
    )
    p = plan.make(df, cfg)
    # each seed's count: one run's 67 (41) at 80 % is 89 (54) at the per-seed 92.8 %
    assert p.overlay["xu2022.models.cifar10_wgangp.runs"] == 89
    assert p.overlay["xu2022.models.mnist_wgangp.runs"] == 54
    assert {r.claim_id: r.single for r in p.rows}["fig3_mnist_am_comparable"] == 41
    # 4 runs would decide Fig 8, but the config already trains 10: the overlay keeps 10
    assert p.overlay["xu2022.models.skin_classifier.runs"] == 10
    assert cfg["lowy2024"]["fig2"]["trials"] == 1000
    # 4.03× at one run is 4.03 · 1.3499× per seed (a normal's ((3 + 1.4634) / (3 + 0.8416))²)
    assert p.overlay["lowy2024.fig2.trials"] == 5441
    (fig6,) = [r for r in p.rows if r.claim_id == "fig6_max"]
    assert fig6.kind == "unplanned" and "no config key declared for its samples" in fig6.why


def test_cost_is_scaled_from_the_jobs_benchmarks_or_says_no_measurement(cfg, tmp_path):
    df = pd.DataFrame(
        [_row("xu2022", "fig3", "fig3_mnist_am_comparable", "uninformative", "40 runs")],
        columns=claims.COLUMNS,
    )
    p = plan.make(df, cfg)
    text = plan.report(p, tmp_path, [CONFIG], None)
    assert "no measurement (no benchmark of train_mnist_wgangp)" in text
    (tmp_path / "xu2022").mkdir()
    (tmp_path / "xu2022/train_mnist_wgangp.tsv").write_text(
        "s\th:m:s\tmax_rss\tcpu_time\n800\t0:13:20\t300\t250.0\n"
    )
    c = plan.cost(tmp_path, "xu2022", ("train_mnist_wgangp",), 10, 40)
    assert c.per_seed == pytest.approx(1000.0) and c.measured == 250.0
    text = plan.report(p, tmp_path, [CONFIG], None)
    # one run's 40 runs at 80 % are 53 per seed at 92.8 %: 250 s × 53 / 10 per seed
    assert "53 runs (one run: 40)" in text
    assert "≈ 22 min CPU per seed, 66 min in all (scaled from 4 min measured at 10 runs)" in text
    assert "× 3 seeds (20221, 1, 2)" in text


def test_a_sharded_model_costs_its_shards_plus_the_pool(tmp_path):
    """With runs_per_job, train_<model>.tsv is the pooling job's; the runs are in the shards'."""
    head = "s\th:m:s\tcpu_time\n"
    d = tmp_path / "xu2022"
    d.mkdir()
    (d / "train_m.tsv").write_text(head + "2\t0:00:02\t1.0\n")  # the pool
    (d / "train_m.runs0-4.tsv").write_text(head + "60\t0:01:00\t50.0\n")
    c = plan.cost(tmp_path, "xu2022", ("train_m",), 10, 20, runs_per_job=5)
    assert c.per_seed is None and c.missing == ("train_m",)  # a shard not measured
    (d / "train_m.runs5-9.tsv").write_text(head + "60\t0:01:00\t49.0\n")
    c = plan.cost(tmp_path, "xu2022", ("train_m",), 10, 20, runs_per_job=5)
    assert c.measured == pytest.approx(100.0) and c.per_seed == pytest.approx(200.0)
    # unsharded (runs_per_job null): the step's own file trained every run
    assert plan.cost(tmp_path, "xu2022", ("train_m",), 10, 20).measured == 1.0


# --- the command ---------------------------------------------------------------------------------


@pytest.fixture
def ledger(tmp_path):
    df = pd.DataFrame(
        [
            _row("xu2022", "fig3", "fig3_mnist_am_comparable", "uninformative", "41 runs"),
            _row("swanberg2025", "fig4b", "fig4b_attack_ge_prior", "uninformative", "67 draws"),
            _row(
                "swanberg2025",
                "fig4a",
                "fig4a_attack_ge_prior",
                "uninformative",
                "never by more draws (zero variance)",
            ),
            _row("swanberg2025", "fig5a", "fig5a_ok", "qualitative-ok", ""),
        ],
        columns=claims.COLUMNS,
    )
    path = tmp_path / "claims.csv"
    df.to_csv(path, index=False)
    return path


def test_missing_results_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    assert plan.main([str(tmp_path / "nothing.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and "snakemake" in err
    assert plan.main([str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_paper_filter_and_a_bad_key(ledger, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    assert plan.main([str(ledger), "--paper", "swanberg2025"]) == 0
    out = capsys.readouterr().out
    assert "swanberg2025/fig4b_attack_ge_prior: 89 draws (one run: 67)" in out
    assert "xu2022" not in out
    assert "swanberg2025/fig4a_attack_ge_prior: never by more draws (zero variance)" in out
    assert "fig5a_ok" not in out
    assert plan.main([str(ledger), "--paper", "nopaper"]) == 2
    err = capsys.readouterr().err
    assert "'nopaper'" in err and "swanberg2025" in err and err.count("\n") == 1


def test_write_is_atomic_and_an_unwritable_path_exits_2(ledger, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    out = tmp_path / "plan.yaml"
    assert plan.main([str(ledger), "--write", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"overlay written to {out}" in text
    assert f"--configfile config/config.yaml {out} --config seed=$s" in text
    assert "--profile workflow/profiles/slurm" in text and "device=cuda" in text
    assert "--runs-per-job N adds runs_per_job=N" in text
    assert plan.main([str(ledger), "--runs-per-job", "4"]) == 0
    assert "--config seed=$s runs_per_job=4 device=cuda" in capsys.readouterr().out
    assert plan.main([str(ledger), "--runs-per-job", "0"]) == 2
    assert "--runs-per-job 0" in capsys.readouterr().err
    overlay = yaml.safe_load(out.read_text())
    assert overlay == {
        "swanberg2025": {"fig4b": {"draws": 89}},
        "xu2022": {"models": {"mnist_wgangp": {"runs": 54}}},
    }
    config.load(CONFIG, out)
    for bad in (tmp_path / "no/such/folder/plan.yaml", tmp_path):
        assert plan.main([str(ledger), "--write", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--write {bad}" in err
    assert not (tmp_path / "no").exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_write_where_even_root_cannot_exits_2(ledger, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    assert plan.main([str(ledger), "--write", "/proc/self/plan.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--write /proc/self/plan.yaml: cannot write it" in err


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root writes anywhere")
def test_write_into_a_read_only_folder_exits_2_leaving_nothing(
    ledger, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(REPO)
    readonly = tmp_path / "ro"
    readonly.mkdir()
    readonly.chmod(0o500)
    try:
        assert plan.main([str(ledger), "--write", str(readonly / "plan.yaml")]) == 2
        assert "cannot write it" in capsys.readouterr().err
        assert list(readonly.iterdir()) == []
    finally:
        readonly.chmod(0o700)


def test_piped_into_head_ends_quietly(tmp_path):
    """A long report (thousands of claims) cut by ``head``: no traceback, exit 0."""
    rows = [
        _row("xu2022", "fig3", f"fig3_c{i}", "uninformative", f"{i + 2} runs") for i in range(3000)
    ]
    path = tmp_path / "claims.csv"
    pd.DataFrame(rows, columns=claims.COLUMNS).to_csv(path, index=False)
    cmd = f"set -o pipefail; {sys.executable} -m privrisk plan {path} | head -n 1"
    res = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=REPO, check=False)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert res.stdout.startswith("3000 uninformative claims")


def test_draws_in_clusters_raise_the_clusters_key_and_price_its_reruns(cfg, tmp_path):
    """swanberg2025's draws come 3 to a stand-in world: the overlay raises marginals.worlds with
    the draws (each world one more BayNet fit per dataset), and the report prices the fits and
    the marginals figures that rerun; a unit in clusters with no clusters key is not planned."""
    df = pd.DataFrame(
        [
            _row(
                "swanberg2025", "fig6b", "fig6b_x", "uninformative", "3205 draws (in clusters of 3)"
            ),
            _row(
                "swanberg2025", "fig7b", "fig7b_x", "uninformative", "1607 draws (in clusters of 3)"
            ),
            _row(
                "xu2022",
                "fig3",
                "fig3_mnist_am_comparable",
                "uninformative",
                "41 runs (in clusters of 3)",
            ),
        ],
        columns=claims.COLUMNS,
    )
    p = plan.make(df, cfg)
    rows = {r.claim_id: r for r in p.rows}
    assert rows["fig3_mnist_am_comparable"].kind == "unplanned"
    assert "clusters of 3" in rows["fig3_mnist_am_comparable"].why
    draws = p.overlay["swanberg2025.fig6b.draws"]
    assert draws == plan.for_every_seed(3205, cluster=3)
    assert p.overlay["swanberg2025.marginals.worlds"] == math.ceil(draws / 3)
    assert rows["fig7b_x"].extra == {
        "swanberg2025.marginals.worlds": math.ceil(p.overlay["swanberg2025.fig7b.draws"] / 3)
    }
    d = tmp_path / "swanberg2025"
    d.mkdir()
    head = "s\th:m:s\tcpu_time\n"
    for job, cpu in [("marginals_dataset_acs", 10.0), ("marginals_dataset_fire", 20.0)]:
        (d / f"{job}.tsv").write_text(head + f"1\t0:00:01\t{cpu}\n")
    for fig in ("fig4a", "fig4b", "fig5a", "fig5b", "fig6a", "fig6b", "fig7a", "fig7b"):
        (d / f"{fig}_attack.tsv").write_text(head + "1\t0:00:01\t60.0\n")
    text = plan.report(p, tmp_path, [CONFIG], None)
    worlds = p.overlay["swanberg2025.marginals.worlds"]
    fits = 30.0 * worlds / 10
    assert f"swanberg2025.marginals.worlds: 10 -> {worlds}" in text
    assert f"≈ {plan._duration(fits)} CPU per seed" in text
    # the six figures not planned rerun at their measured size (6 × 60 s); the two planned ones
    # are priced at their planned draws already
    assert "reruns at their current size: fig4a_attack, fig4b_attack, fig5a_attack, " in text
    assert "fig6b_attack" not in text.split("reruns at their current size:")[1].split("\n")[0]
    assert "(≈ 6 min CPU per seed)" in text
