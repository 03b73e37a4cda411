"""`privrisk docs --write / --check` (every generated doc) and the status page's per-paper update
(`privrisk status --write --paper KEY`) and structural check, on small synthetic results."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from privrisk.contract import claims, status
from privrisk.contract import status_data as D
from privrisk.core.discovery import paper_keys
from privrisk.pipeline import cli, docs
from tests.conftest import REPO

# --- synthetic results in the pipeline's layout ---------------------------------------------------


def _paper(res: Path, paper: str, rng: random.Random, *, scale: str = "quick") -> list:
    """One paper's results as ``snakemake KEY`` leaves them: provenance records, training records,
    the per-figure claims gathered into results/<paper>/claims.csv. Returns the claim rows."""
    ledger = claims.Ledger(paper)
    (res / paper / "intermediate").mkdir(parents=True, exist_ok=True)
    rows = []
    for f in range(rng.randint(1, 4)):
        fig = f"fig{f + 1}{rng.choice(['', 'a', 'b'])}"
        record = {
            "paper": paper,
            "figure": fig,
            "scale": scale,
            "data_sources": rng.choice([{}, {"mnist": "standin"}, {"mnist": "real"}]),
            "torch_threads": rng.choice([1, 2]),
        }
        (res / paper / f"{fig}.json").write_text(json.dumps(record))
        for c in range(rng.randint(0, 3)):
            cid = f"{fig}_c{c}"
            if rng.random() < 0.5:
                rows.append(
                    ledger.numeric(
                        figure=fig,
                        claim_id=cid,
                        claim="a number",
                        paper_value=0.5,
                        ours=rng.uniform(0.3, 0.7),
                        tolerance=0.1,
                        se=rng.choice([0.0, 0.01]),
                        data=rng.choice([None, "real"]),
                        note="why",
                    )
                )
            else:
                holds = rng.choice([True, False, None])
                rows.append(
                    ledger.qualitative(
                        figure=fig,
                        claim_id=cid,
                        claim="a statement",
                        holds=holds,
                        ours=f"held-out {rng.uniform(0, 1):.3f}",
                        note="estimate, null, half-width",
                        data=rng.choice([None, "real"]),
                        to_decide="40 runs" if holds is None else "",
                    )
                )
    for m in range(rng.randint(0, 2)):
        rec = {"data_source": "standin", "auc": {"d": rng.uniform(0.5, 1)}}
        (res / paper / "intermediate" / f"model{m}_record.json").write_text(json.dumps(rec))
    claims.write_claims(rows, res / paper / "claims.csv")
    return rows


def _run(root: Path, papers: list[str], seed: int = 0) -> Path:
    """A clean run of ``papers``: each paper's results and the gathered results/claims.csv."""
    res = root / "results"
    rng = random.Random(seed)
    rows = [r for p in papers for r in _paper(res, p, rng)]
    claims.write_claims(rows, res / "claims.csv")
    return res


def _page(root: Path, results: Path | None = None) -> Path:
    """A page (and its data, written from ``results`` when given)."""
    page = root / "status.md"
    page.write_text(f"# Status\n\n{status.BEGIN}\n{status.END}\n\nafter\n")
    if results is not None:
        status.write(page, D.from_run(results))
    return page


# --- the per-paper update agrees with the whole page by construction ------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_updating_paper_by_paper_in_any_order_gives_the_whole_page(tmp_path, seed):
    """The relation `--write --paper` promises: every paper's block and summary row come from its
    own results and the **all** row is their sum, so the page made paper by paper, in any order
    and over any earlier page, is the page a clean run makes."""
    rng = random.Random(seed)
    keys = paper_keys()
    papers = rng.sample(keys, rng.randint(1, len(keys)))
    res = _run(tmp_path, papers, seed)
    whole = D.from_run(res)
    data = None
    for key in rng.sample(papers, len(papers)):
        data = status.update(data, res, key)
    assert status.render(data) == status.render(whole)
    # over a page made from another run (other numbers, other figures): one update per paper
    other = _run(tmp_path / "other", papers, seed + 100)
    data = D.from_run(other)
    for key in papers:
        data = status.update(data, res, key)
    assert status.render(data) == status.render(whole)
    assert status.compare(whole, data) == ([], [])


def test_the_all_row_is_recomputed_from_the_paper_rows(tmp_path):
    keys = paper_keys()[:2]
    res = _run(tmp_path, keys)
    data = D.from_run(res)
    # a paper's new results move the summary's total
    _paper(res, keys[0], random.Random(7))
    new = status.render(status.update(data, res, keys[0]))
    rows = [line for line in new.splitlines() if line.startswith(tuple(f"| {k} |" for k in keys))]
    counts = [[int(c) for c in r.strip("|").split("|")[1:]] for r in rows]
    total = [sum(col) for col in zip(*counts, strict=True)]
    assert f"| **all** | {' | '.join(f'**{t}**' for t in total)} |" in new.splitlines()


# --- the command ----------------------------------------------------------------------------------


def test_a_new_figure_or_paper_is_one_line_naming_the_command_that_adds_it(tmp_path, capsys):
    keys = paper_keys()
    res = _run(tmp_path, keys[:2])
    page = _page(tmp_path, res)
    args = ["status", "--results", str(res), "--page", str(page)]
    assert cli.main([*args, "--check"]) == 0
    # `snakemake KEY` made a new figure of the first paper, and a new paper's results
    rec = {"paper": keys[0], "figure": "fig99", "scale": "quick", "data_sources": {}}
    (res / keys[0] / "fig99.json").write_text(json.dumps(rec))
    _paper(res, keys[2], random.Random(3))
    capsys.readouterr()
    assert cli.main([*args, "--check"]) == 1
    out = capsys.readouterr().out
    assert f"{keys[0]}/fig99 (output): not on the page; add it: " in out
    assert f"privrisk status --write --paper {keys[0]} after snakemake --cores 2 {keys[0]}" in out
    assert (
        f"{keys[2]}: not on the page; add it: privrisk status --write --paper {keys[2]} "
        f"after snakemake --cores 2 {keys[2]}"
    ) in out
    assert "Traceback" not in out
    # the named commands fix it, and the page is then what a clean run of the three papers gives
    assert cli.main([*args, "--write", "--paper", keys[0]]) == 0
    assert cli.main([*args, "--write", "--paper", keys[2]]) == 0
    assert cli.main([*args, "--check"]) == 0
    rows = [*claims.read(res / "claims.csv").itertuples(index=False)]
    rows += [*claims.read(res / keys[2] / "claims.csv").itertuples(index=False)]
    text = page.read_text()
    assert text.startswith("# Status\n\n") and text.endswith(f"{status.END}\n\nafter\n")
    assert f"| **all** | **{len(list(res.glob('*/*.json')))}** | **{len(rows)}** |" in text


def test_a_paper_on_the_page_without_results_is_not_checked_and_says_so(tmp_path, capsys):
    keys = paper_keys()
    res = _run(tmp_path, keys[:1])
    page = _page(tmp_path, res)
    assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 0
    out = capsys.readouterr().out
    assert f"not checked (no results): {', '.join(keys[1:])}" in out


def test_a_removed_output_is_named(tmp_path, capsys):
    keys = paper_keys()
    res = _run(tmp_path, keys[:1], seed=5)
    page = _page(tmp_path, res)
    fig = sorted(res.glob(f"{keys[0]}/*.json"))[0]
    fig.unlink()
    claims_csv = res / keys[0] / "claims.csv"
    df = claims.read(claims_csv)
    df[df.figure != fig.stem].to_csv(claims_csv, index=False)
    assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 1
    out = capsys.readouterr().out
    assert f"{keys[0]}/{fig.stem} (output): on the page, not in the results; drop it: " in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--write", "--paper", "nosuch2000"], "not a paper; choose from"),
        (["--check", "--paper", paper_keys()[0]], "--paper goes with --write"),
    ],
)
def test_bad_paper_arguments_exit_2_naming_the_argument(tmp_path, capsys, argv, said):
    page = _page(tmp_path)
    with pytest.raises(SystemExit) as exc:
        status.main(["--results", str(tmp_path / "results"), "--page", str(page), *argv])
    assert exc.value.code == 2
    assert said in capsys.readouterr().err


def test_a_paper_made_at_another_scale_is_refused(tmp_path, capsys):
    keys = paper_keys()
    res = _run(tmp_path, keys[:1])
    page = _page(tmp_path, res)
    before = page.read_text()
    _paper(res, keys[1], random.Random(1), scale="paper")
    rc = status.main(["--results", str(res), "--page", str(page), "--write", "--paper", keys[1]])
    assert rc == 1
    assert "made at scale paper, the page at quick" in capsys.readouterr().err
    assert page.read_text() == before  # nothing half-written


def test_a_paper_without_results_says_what_to_run(tmp_path, capsys):
    keys = paper_keys()
    page = _page(tmp_path)
    rc = status.main(
        ["--results", str(tmp_path / "results"), "--page", str(page), "--write", "--paper", keys[0]]
    )
    assert rc == 1
    assert f"run `snakemake --cores 2 {keys[0]}` first" in capsys.readouterr().err


# --- privrisk docs ----------------------------------------------------------------------------------
# Slow tier: each `privrisk docs --check` or `--write` regenerates every generated doc (about 20 s
# of CPU, the explain pages and the atlas figure among them); CI's lint step also runs it once.


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """The generated docs of this checkout, copied into a folder that the test runs in."""
    for g in [*docs.GENERATED]:
        (tmp_path / g.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / g.path, tmp_path / g.path)
    (tmp_path / "docs").mkdir(exist_ok=True)
    shutil.copy(REPO / status.STATUS_FILE, tmp_path / status.STATUS_FILE)
    shutil.copy(REPO / status.data_path(status.STATUS_FILE), tmp_path / "docs")
    if (REPO / "records").is_dir():  # the page shows the runs of record: they come with it
        shutil.copytree(REPO / "records", tmp_path / "records")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _without_remake(out: str) -> list[str]:
    """The output's lines less those naming a record whose step code changed since it was made
    (a line with its remake command, not a failure: docs/records.md)."""
    return [x for x in out.splitlines() if not (x.startswith("records/") and " stale (" in x)]


@pytest.mark.slow
def test_docs_check_passes_on_the_checkout_and_says_the_status_page_was_not_checked(
    checkout, capsys
):
    assert cli.main(["docs", "--check"]) == 0
    assert _without_remake(capsys.readouterr().out) == [
        "docs/status.md: not checked: it is made from a run's results and results/ holds none "
        "(after `snakemake --cores 2`: `privrisk docs --check`; after `snakemake --cores 2 KEY`: "
        "`privrisk status --write --paper KEY`, then this)",
        "generated docs current",
    ]


@pytest.mark.parametrize("mode", ["--check", "--write"])
def test_a_results_folder_named_but_not_there_is_an_error_not_nothing_to_check(
    checkout, capsys, mode
):
    """`privrisk docs --check --results /nonexistent` said "not checked" and exited 0: a typo in
    CI would pass for ever. A folder named on purpose must exist (exit 2, one line); an empty
    one is a run with no results (the status page is said not checked, the other docs are: the
    next test, slow)."""
    assert cli.main(["docs", mode, "--results", "/nonexistent"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", "privrisk docs: --results /nonexistent: no such folder\n")
    (checkout / "a_file").write_text("x")
    assert cli.main(["docs", mode, "--results", "a_file"]) == 2
    assert capsys.readouterr().err == (
        "privrisk docs: --results a_file: is a regular file, not a folder\n"
    )


@pytest.mark.slow
def test_an_empty_results_folder_is_a_run_with_no_results(checkout, capsys):
    (checkout / "empty").mkdir()
    assert cli.main(["docs", "--check", "--results", "empty"]) == 0
    assert "empty/ holds none" in capsys.readouterr().out


def test_a_generated_doc_that_is_no_regular_file_is_refused_not_replaced(checkout, capsys):
    import os

    os.unlink("docs/config.md")
    os.mkfifo("docs/config.md")
    assert cli.main(["docs", "--write"]) == 2
    assert capsys.readouterr().err == (
        "privrisk docs: no docs/config.md here; run it in the checkout's root\n"
    )
    docs_made = {Path(g.path).name for g in docs.GENERATED if g.path.startswith("docs/")}
    assert Path("docs/config.md").is_fifo()
    # the status page and its data file (docs/status.json) come from `privrisk status --write`
    page = {Path(status.STATUS_FILE).name, status.data_path(status.STATUS_FILE).name}
    assert set(os.listdir("docs")) == docs_made | page  # no temp file


@pytest.mark.slow
def test_each_stale_doc_is_one_line_naming_the_command_that_fixes_it(checkout, capsys):
    for g in docs.GENERATED:  # a hand edit inside each generated part
        path = checkout / g.path
        text = path.read_text()
        marker = {
            "README.md": "| key | paper |",
            "docs/explain.md": "The three numbers to quote",
            "docs/atlas.svg": "<svg",
        }
        old = marker.get(g.path, "## ")
        assert old in text
        path.write_text(text.replace(old, old + " edited", 1))
    assert cli.main(["docs", "--check"]) == 1
    out = capsys.readouterr()
    lines = [x for x in out.out.splitlines() if "stale" in x and not x.startswith("records/")]
    assert len(lines) == len(docs.GENERATED)
    for g, line in zip(docs.GENERATED, lines, strict=True):
        assert line == f"{g.path}: stale ({g.what}); fix: privrisk docs --write (alone: {g.alone})"
    assert "Traceback" not in out.out + out.err
    assert cli.main(["docs", "--write"]) == 0
    capsys.readouterr()
    assert cli.main(["docs", "--check"]) == 0
    for g in docs.GENERATED:
        assert (checkout / g.path).read_text() == (REPO / g.path).read_text()


@pytest.mark.slow
def test_docs_check_and_write_the_status_page_from_results(checkout, capsys):
    keys = paper_keys()
    page = checkout / status.STATUS_FILE
    committed = page.read_text()
    # some papers' results: checked, not written (a block is rewritten on purpose, one by one)
    res = _run(checkout, keys[:2])
    assert cli.main(["docs", "--check"]) == 1  # the committed page is not these results'
    out = capsys.readouterr().out
    assert f"privrisk status --write --paper {keys[0]} after snakemake --cores 2 {keys[0]}" in out
    assert f"not checked for the papers without results in results/: {', '.join(keys[2:])}" in out
    assert cli.main(["docs", "--write"]) == 0
    out = capsys.readouterr().out
    assert (
        f"docs/status.md: not written: results/ holds only some papers' results ({', '.join(keys[:2])})"
        in out
    )
    assert page.read_text() == committed
    for key in keys[:2]:
        assert cli.main(["status", "--write", "--paper", key]) == 0
    capsys.readouterr()
    assert cli.main(["docs", "--check"]) == 0
    assert "docs/status.md: agrees with results/ (its papers)" in capsys.readouterr().out
    # the two papers' parts are the results'; the others are left as they were
    parts = {p["paper"]: p for p in status.page_data(page)["papers"]}
    fresh = {p["paper"]: p for p in D.from_run(res)["papers"]}
    before = {p["paper"]: p for p in status.page_data(REPO / status.STATUS_FILE)["papers"]}
    for key in keys[:2]:
        assert [D.shown(c) for c in parts[key]["claims"]] == [
            D.shown(c) for c in fresh[key]["claims"]
        ]
        assert parts[key]["outputs"] == fresh[key]["outputs"]
    for key in keys[2:]:
        assert parts[key] == before[key]
    # a clean run of every paper: --write writes the whole page, --check checks it all
    shutil.rmtree(res)
    res = _run(checkout, keys, seed=3)
    assert cli.main(["docs", "--write"]) == 0
    data = status.page_data(page)
    assert status._split(page)[1] == "\n" + status.render(data) + "\n"
    fresh = {p["paper"]: p for p in D.from_run(res)["papers"]}
    for part in data["papers"]:
        assert [D.shown(c) for c in part["claims"]] == [
            D.shown(c) for c in fresh[part["paper"]]["claims"]
        ]
    capsys.readouterr()
    assert cli.main(["docs", "--check"]) == 0
    assert _without_remake(capsys.readouterr().out) == [
        "docs/status.md: agrees with results/",
        "generated docs current",
    ]


def test_docs_outside_a_checkout_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["docs", "--check"]) == 2
    assert capsys.readouterr().err.strip() == (
        "privrisk docs: no docs/config.md here; run it in the checkout's root"
    )


@pytest.mark.slow
def test_the_old_entry_points_still_work(checkout, capsys):
    assert docs.main(["--check"]) == 0
    from privrisk.explain import docs as explain_docs

    assert explain_docs.main(["docs/explain.md", "--check"]) == 0
