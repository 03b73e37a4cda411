"""The status page (privrisk.contract.status): its data made from a run's results with one
rounding, written as docs/status.json beside the page, the page's block rendered from it, and the
check of a run against the data (an analytic change fails; an experimental row fails only on a
contradiction or a move its keep-probability calls unlikely)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privrisk.contract import claims, status
from privrisk.contract import status_data as D
from privrisk.core import records as rec
from privrisk.pipeline import cli

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _no_records(tmp_path_factory, monkeypatch):
    """The page's record columns come from an empty records folder here, not the checkout's
    (tests/test_status_records.py makes records of its own)."""
    monkeypatch.setenv(rec.ENV, str(tmp_path_factory.mktemp("no-records")))


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("0.73105858", "0.731"),
        (0.93233236, "0.932"),
        ("17.78", "17.8"),
        ("12131", "12131"),
        ("12131.4", "12131"),
        (1.0, "1"),
        ("1e-05", "1e-05"),
        ("0.000123456", "0.000123"),
        (-0.5, "-0.5"),
        ("inf", "∞"),
        ("", ""),
        (float("nan"), ""),
        ("stated", "stated"),
        ("at t = 0.167: 5 vs 0.846", "at t = 0.167: 5 vs 0.846"),  # text is never re-rounded
    ],
)
def test_one_rounding_for_every_number(value, shown):
    assert status.fmt(value) == shown


def _results(root: Path, *, ours: float = 0.93233236, adv: float = 0.31, threads: int = 1) -> Path:
    """A small results folder in the pipeline's layout: a ledger, provenance, a training record."""
    res = root / "results"
    ledger = claims.Ledger("thudi2022")
    rows = [
        ledger.numeric(
            figure="fig2",
            claim_id="erlingsson_eps2",
            claim="Erlingsson bound at ε = 2",
            paper_value=0.95,
            ours=ours,
            tolerance=0.005,
            note="paper erratum",
        ),
        ledger.qualitative(
            figure="fig2", claim_id="tighter", claim="ours is tighter", holds=True, ours="excess 0"
        ),
        claims.Ledger("xu2022").qualitative(
            figure="fig7",
            claim_id="nn_query",
            claim="NN query leaks",
            holds=None,
            ours="AUC 0.54 | 0.56",
            note="within half-width",
            data="standin",
            to_decide="40 runs",
        ),
        claims.Ledger("xu2022").numeric(
            figure="fig7",
            claim_id="adv_mc",
            claim="advantage at ε = 1",
            paper_value=0.3,
            ours=adv,
            tolerance=0.2,
            se=0.02,
            data="real",
        ),
    ]
    claims.write_claims(rows, res / "claims.csv")
    for paper, fig, sources in [
        ("thudi2022", "fig2", {}),
        ("thudi2022", "fig10", {}),
        ("thudi2022", "table1", {}),
        ("xu2022", "fig7", {"DermaMNIST": "standin"}),
    ]:
        (res / paper).mkdir(parents=True, exist_ok=True)
        record = {
            "paper": paper,
            "figure": fig,
            "scale": "quick",
            "data_sources": sources,
            "torch_threads": threads,
            "wall_time_s": 1.234,
            "git_commit": "abc",
        }
        (res / paper / f"{fig}.json").write_text(json.dumps(record))
    (res / "xu2022" / "intermediate").mkdir(exist_ok=True)
    (res / "xu2022" / "intermediate" / "skin_jsgan_record.json").write_text(
        json.dumps({"data_source": "standin", "auc": {"d0": 0.84412}, "wall_time_s": 9.1})
    )
    (res / "xu2022" / "intermediate" / "other_record.json").write_text(json.dumps({"n": 3}))
    # a model trained several times: each run's record holds its AUCs
    runs = [
        {"run": k, "auc": {"d": a, "nn[0]": 0.5 + k / 100}} for k, a in enumerate([0.8, 0.9, 0.7])
    ]
    (res / "xu2022" / "intermediate" / "cifar10_wgangp_record.json").write_text(
        json.dumps({"data_source": "standin", "runs": runs, "wall_time_s": 3.2})
    )
    return res


def _block(res: Path) -> str:
    return status.render(D.from_run(res))


def test_table_from_results(tmp_path):
    block = _block(_results(tmp_path))
    lines = block.splitlines()
    assert "Made at scale quick with `torch_threads: 1`; measured on 1 run;" in block
    assert "| thudi2022 | 3 | 2 | 0 | 1 | 1 | 0 | 0 | 0 | 0 |" in lines
    assert "| xu2022 | 1 | 2 | 1 | 0 | 0 | 0 | 1 | 0 | 0 |" in lines
    assert (
        "| **all** | **4** | **4** | **1** | **1** | **1** | **0** | **1** | **0** | **0** |"
        in lines
    )
    # outputs in natural order (fig2 before fig10), with their data and claims by status
    fig_rows = [line for line in lines if line.startswith(("| fig", "| table"))]
    assert fig_rows[:3] == [
        "| fig2 | analytic | 1 differs, 1 qualitative-ok |",
        "| fig10 | analytic | no claims |",
        "| table1 | analytic | no claims |",
    ]
    assert "| fig2 | `erlingsson_eps2` | 0.95 | 0.932 |  | **differs** |  | analytic |" in lines
    assert (
        "| fig7 | `nn_query` | stated | AUC 0.54 \\| 0.56 |  | uninformative |  | standin |"
        in lines
    )
    # an experimental number states its uncertainty (2 × s.e.) and its keep-probability:
    # |0.31 − 0.3| = 0.01 against 0.2 + 0.04, a rerun's sd √2 · 0.02: certain to 3 decimals
    assert "| fig7 | `adv_mc` | 0.3 | 0.31 | 0.04 | reproduced | 1.00 | real |" in lines
    # the training record's AUC; no figure records a held-out one for it
    assert "| skin_jsgan | standin | 1 | d0 0.844 | — |" in lines
    # every run's AUCs: their mean and range over the runs, per query
    assert "| cifar10_wgangp | standin | 3 | d 0.8 (0.7–0.9), nn[0] 0.51 (0.5–0.52) | — |" in lines
    assert "other" not in block  # a record without an AUC
    for unstable in ("1.234", "9.1", "abc", str(tmp_path)):  # wall times, commits, paths
        assert unstable not in block


def _figure(res: Path, fig: str, inputs: list[str], heldout: dict | None) -> None:
    record = {"paper": "xu2022", "figure": fig, "scale": "quick", "data_sources": {}}
    record["inputs_sha256"] = {f"intermediate/{name}": "0" * 64 for name in inputs}
    if heldout is not None:
        record["heldout_estimates"] = heldout
    (res / "xu2022" / f"{fig}.json").write_text(json.dumps(record))


def test_models_show_the_heldout_auc_of_the_figures_that_read_them(tmp_path):
    res = _results(tmp_path)
    inter = res / "xu2022" / "intermediate"
    (inter / "skin_jsgan_corrupted_record.json").write_text(
        json.dumps({"data_source": "standin", "auc": {"d": 0.5}})
    )
    # fig1b reads skin_jsgan: its gate AUCs per query (the advantage "D" is not an AUC)
    _figure(
        res,
        "fig1b",
        ["skin_jsgan_queries.npz"],
        {"D": [0.1, 0.2], "auc_D": [0.7, 0.9], "auc_NN": [0.5, 0.52]},
    )
    # fig2b reads it too: both figures are shown, in natural order
    _figure(res, "fig2b", ["skin_jsgan_queries.npz"], {"auc_hybrid": [0.8, 0.84]})
    # fig4b reads the corrupted model (the longest name its input starts with), a bare "auc"
    _figure(res, "fig4b", ["skin_jsgan_corrupted_queries.npz"], {"auc": [0.75, 0.85]})
    # fig3 reads two models: whose its AUCs are it cannot say, so neither gets them
    _figure(
        res,
        "fig3",
        ["cifar10_wgangp_queries.npz", "skin_jsgan_queries.npz"],
        {"auc": [0.99, 0.99]},
    )
    # fig5 reads cifar10_wgangp but records no held-out estimates
    _figure(res, "fig5", ["cifar10_wgangp_queries.npz"], None)
    xu = next(p for p in D.from_run(res)["papers"] if p["paper"] == "xu2022")
    held = {m["name"]: m["heldout"] for m in xu["models"]}
    assert held == {
        "cifar10_wgangp": "—",
        "skin_jsgan": "fig1b: D 0.8 (0.7–0.9), NN 0.51 (0.5–0.52); fig2b: hybrid 0.82 (0.8–0.84)",
        "skin_jsgan_corrupted": "fig4b: 0.8 (0.75–0.85)",
    }
    lines = status.render(D.from_run(res)).splitlines()
    assert "| skin_jsgan_corrupted | standin | 1 | d 0.5 | fig4b: 0.8 (0.75–0.85) |" in lines
    assert "| cifar10_wgangp | standin | 3 | d 0.8 (0.7–0.9), nn[0] 0.51 (0.5–0.52) | — |" in lines
    # a page's data written before the column renders it as "—"
    data = D.from_run(res)
    for part in data["papers"]:
        for m in part["models"]:
            del m["heldout"]
    assert "| skin_jsgan_corrupted | standin | 1 | d 0.5 | — |" in status.render(data).splitlines()


def test_the_data_records_each_run_and_how_the_page_was_measured(tmp_path):
    res = _results(tmp_path)
    page = tmp_path / "status.md"
    page.write_text(f"{status.BEGIN}\n{status.END}\n")
    assert status.main(["--results", str(res), "--page", str(page), "--write"]) == 0
    data = json.loads((tmp_path / "status.json").read_text())
    assert data["format"] == 1 and data["records"] == []  # the hook for the runs of record
    (run,) = data["measured"]["runs"]
    assert run["folder"] == str(res) and run["scales"] == ["quick"] and run["commits"] == ["abc"]
    assert data["measured"]["command"].startswith("privrisk status --results")
    assert data["measured"]["when"]  # the date of the write
    xu = next(p for p in data["papers"] if p["paper"] == "xu2022")
    adv = next(c for c in xu["claims"] if c["claim_id"] == "adv_mc")
    assert adv["runs"] == [{"status": "reproduced", "ours": "0.31", "pm": "0.04", "keep": 1.0}]
    # the page is its data rendered: nothing is read back from the Markdown
    assert status._split(page)[1] == "\n" + status.render(data) + "\n"


def test_write_then_check_and_a_changed_number_fails_the_check(tmp_path, capsys):
    res = _results(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"# t\n\n## Status\n\n{status.BEGIN}\nOLD TABLE\n{status.END}\n\n## Next\n")
    assert status.main(["--results", str(res), "--readme", str(readme), "--check"]) == 1
    assert "README.json does not exist" in capsys.readouterr().err
    assert status.main(["--results", str(res), "--readme", str(readme), "--write"]) == 0
    text = readme.read_text()
    assert text.startswith("# t\n\n## Status\n\n") and text.endswith(f"{status.END}\n\n## Next\n")
    assert "OLD TABLE" not in text and "0.932" in text
    assert status.main(["--results", str(res), "--readme", str(readme), "--check"]) == 0
    before = (tmp_path / "README.json").read_text()
    assert status.write(readme, D.from_run(res)) is False  # idempotent, the date kept
    assert (tmp_path / "README.json").read_text() == before

    _results(tmp_path / "rerun", ours=0.9351)  # the same claim, another number
    capsys.readouterr()
    rc = status.main(
        ["--results", str(tmp_path / "rerun/results"), "--readme", str(readme), "--check"]
    )
    said = capsys.readouterr().out
    assert rc == 1
    # an analytic number is compared exactly, and the mismatch names the row
    assert "thudi2022/fig2/erlingsson_eps2: analytic value '0.932' on the page, '0.935'" in said
    assert "privrisk status --write" in said


def test_a_change_below_the_rounding_passes_the_check(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"{status.BEGIN}\n{status.END}\n")
    status.write(readme, D.from_run(_results(tmp_path / "a", ours=0.93233236)))
    assert status.check(readme, D.from_run(_results(tmp_path / "b", ours=0.9321))) == ([], [])


@pytest.mark.parametrize(
    "text", ["no markers\n", f"{status.END}\n{status.BEGIN}\n", f"{status.BEGIN}\n{status.BEGIN}\n"]
)
def test_malformed_readme_is_an_error_naming_the_file(tmp_path, capsys, text):
    readme, res = tmp_path / "README.md", str(_results(tmp_path))
    readme.write_text(text)
    assert status.main(["--results", res, "--readme", str(readme)]) == 0  # printing needs no README
    for mode in ("--check", "--write"):
        assert status.main(["--results", res, "--readme", str(readme), mode]) == 1
        assert "README.md: needs exactly one" in capsys.readouterr().err
    assert readme.read_text() == text
    assert not (tmp_path / "README.json").exists()  # nothing half-written


def test_missing_results_say_what_to_run(tmp_path, capsys):
    assert cli.main(["status", "--results", str(tmp_path / "results")]) == 1
    assert "run `snakemake --cores 2` first" in capsys.readouterr().err


def test_the_committed_page_is_its_data_rendered():
    page = Path(__file__).resolve().parents[1] / status.STATUS_FILE
    _, body, _ = status._split(page)
    assert body.strip().startswith("<!-- Generated by `privrisk status --write`")
    data = status.page_data(page)
    assert data is not None
    # the record columns are those of the checkout's records/ (none until a record is committed)
    assert D.records_differ(data["records"], D.record_columns(REPO / "records")) == []
    assert body == "\n" + status.render(data) + "\n"


def _checked(tmp_path, committed: dict, rerun: dict) -> list[str]:
    tmp_path.mkdir(parents=True)
    readme = tmp_path / "README.md"
    readme.write_text(f"{status.BEGIN}\n{status.END}\n")
    status.write(readme, D.from_run(_results(tmp_path / "a", **committed)))
    return status.check(readme, D.from_run(_results(tmp_path / "b", **rerun)))[0]


def test_experimental_numbers_are_shown_not_compared(tmp_path):
    # the status carries the decision: 0.31 ± 0.04 and 0.37 ± 0.04 are both reproduced
    assert _checked(tmp_path / "1", {"adv": 0.31}, {"adv": 0.37}) == []
    # 0.31 reproduced vs 0.60 differs: a contradiction, named
    problems = _checked(tmp_path / "2", {"adv": 0.31}, {"adv": 0.60})
    assert len(problems) == 1 and problems[0].startswith("xu2022/fig7/adv_mc: contradiction")
    # another thread count in the header is not a disagreement
    assert _checked(tmp_path / "3", {}, {"threads": 2}) == []
