"""Statuses measured on several runs (privrisk.contract.status, ``--replicates``) and the check's
promise. A claim whose runs disagree is uninformative on the page and says which way its runs
lean; the page made from several runs passes ``--check`` against each of them; a run fails the
check only on a contradiction (ok ↔ fails) or on a move the page's keep-probability gives a
chance below 1 %, and a move it allows is printed with its probability. Stated as properties
over random statuses and keep-probabilities, not case by case."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from privrisk.contract import claims, status
from privrisk.contract import status_data as D
from privrisk.core import records as rec


@pytest.fixture(autouse=True)
def _no_records(tmp_path_factory, monkeypatch):
    """The page's record columns come from an empty records folder here, not the checkout's, as
    in tests/test_status.py: these pages show replicates, and reading the committed records (their
    code digests hashed again on every write and check) was a third of this module's time; the
    record columns are tested in tests/test_status_records.py."""
    monkeypatch.setenv(rec.ENV, str(tmp_path_factory.mktemp("no-records")))


#: ``holds`` of a qualitative claim → its status
HOLDS = {True: "qualitative-ok", False: "qualitative-fails", None: "uninformative"}


def _run(root: Path, holds: list[bool | None], keeps: list[float | None] | None = None) -> Path:
    """A results folder with one xu2022 figure and one qualitative claim per entry of ``holds``
    (with its keep-probability from ``keeps``)."""
    res = root / "results"
    ledger = claims.Ledger("xu2022")
    rows = [
        ledger.qualitative(
            figure="fig7",
            claim_id=f"c{i}",
            claim=f"claim {i}",
            holds=h,
            ours=f"t = {i}.5",
            note="t against the robust level",
            data="standin",
            to_decide=None if h is not None else "40 runs",
            keep=None if keeps is None else keeps[i],
        )
        for i, h in enumerate(holds)
    ]
    claims.write_claims(rows, res / "claims.csv")
    (res / "xu2022").mkdir(parents=True, exist_ok=True)
    record = {"paper": "xu2022", "figure": "fig7", "scale": "quick", "torch_threads": 1}
    (res / "xu2022" / "fig7.json").write_text(json.dumps(record))
    return res


def _page(path: Path) -> Path:
    path.write_text(f"# Status\n\n{status.BEGIN}\n{status.END}\n")
    return path


def _cells(page: Path) -> dict[str, str]:
    """Claim id → its status cell, from the page's data rendered (the data is the page)."""
    data = status.page_data(page)
    from privrisk.contract.status_page import status_cell

    return {c["claim_id"]: status_cell(c) for p in data["papers"] for c in p["claims"]}


OPPOSITE = {True: False, False: True, None: None}

#: the fast tier's 10 random cases per property (between them every branch: runs that agree and
#: disagree two and three ways; rows kept, contradicted, moved unlikely, moved with p printed and
#: with p unknown), the slow tier's 20 more
SEEDS = [*range(10), *(pytest.param(s, marks=pytest.mark.slow) for s in range(10, 30))]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_page_leans_with_its_runs_and_each_run_passes_the_check(tmp_path, seed):
    rnd = random.Random(seed)
    n_claims, n_runs = rnd.randint(1, 6), rnd.randint(2, 5)
    # a claim's runs agree with probability 1/2, else each run draws its own status
    truth = []
    for _ in range(n_claims):
        fixed = rnd.choice(list(HOLDS))
        same = rnd.random() < 0.5
        truth.append([fixed if same else rnd.choice(list(HOLDS)) for _ in range(n_runs)])
    keeps = [[rnd.random() for _ in truth] for _ in range(n_runs)]
    runs = [_run(tmp_path / f"run{k}", [t[k] for t in truth], keeps[k]) for k in range(n_runs)]
    page = _page(tmp_path / "status.md")
    status.main(["--results", str(runs[0]), "--page", str(page), "--write", "--replicates",
                 *map(str, runs[1:])])  # fmt: skip
    cells = _cells(page)
    for i, t in enumerate(truth):
        got = [HOLDS[h] for h in t]
        if len(set(got)) == 1:
            assert cells[f"c{i}"] == got[0]  # decided (or undecided) on every run
            continue
        # which way the runs lean: the most frequent status first, with its count
        top = max(set(got), key=lambda s: (got.count(s), -claims.STATUSES.index(s)))
        assert cells[f"c{i}"].startswith(
            f"uninformative (reruns: {top} on {got.count(top)} of {n_runs} runs"
        )
        for s in set(got) - {top}:
            assert f", {s} on {got.count(s)}" in cells[f"c{i}"]
    # the summary counts the page's statuses: a disagreeing claim is uninformative
    shown = [c if not c.startswith("uninformative") else "uninformative" for c in cells.values()]
    row = next(x for x in page.read_text().splitlines() if x.startswith("| xu2022 |"))
    counts = [int(c) for c in row.strip("|").split("|")[3:]]
    assert counts == [shown.count(s) for s in claims.STATUSES]
    # every measured run passes the check against the page made from all of them, silently
    for res in runs:
        problems, moves, _ = status.check_results(page, res)
        assert problems == [] and moves == []


@pytest.mark.parametrize("seed", SEEDS)
def test_a_run_fails_only_on_a_contradiction_or_an_unlikely_move(tmp_path, seed):
    rnd = random.Random(1000 + seed)
    n = rnd.randint(1, 5)
    holds = [rnd.choice(list(HOLDS)) for _ in range(n)]
    # keep-probabilities on both sides of 0.99: a move with p = 1 − keep below 1 % fails
    keeps = [rnd.choice([None, rnd.uniform(0.5, 0.98), rnd.uniform(0.991, 1.0)]) for _ in holds]
    page = _page(tmp_path / "status.md")
    assert status.main(["--results", str(_run(tmp_path / "a", holds, keeps)), "--page",
                        str(page), "--write"]) == 0  # fmt: skip
    other = [rnd.choice(list(HOLDS)) for _ in holds]
    problems, moves, _ = status.check_results(page, _run(tmp_path / "b", other))
    for i, (h, o, k) in enumerate(zip(holds, other, keeps, strict=True)):
        name = f"xu2022/fig7/c{i}"
        failed = [p for p in problems if p.startswith(name + ":")]
        printed = [m for m in moves if f"({name}:" in m]
        if o == h:
            assert not failed and not printed
        elif None not in (h, o):  # ok ↔ fails
            assert len(failed) == 1 and "contradiction" in failed[0] and not printed
        elif k is not None and 1 - k < 0.01:
            assert len(failed) == 1 and "gives p = " in failed[0] and not printed
        else:
            assert not failed and len(printed) == 1
            p = "unknown" if k is None else f"{1 - k:.2g}"
            assert printed[0].startswith(f"boundary row moved: p = {p}" if k is not None else
                                         "boundary row moved: p unknown")  # fmt: skip
    # the command's exit status follows: 1 exactly when some row fails
    rc = status.main(["--results", str(tmp_path / "b" / "results"), "--page", str(page),
                      "--check"])  # fmt: skip
    assert rc == (1 if problems else 0)


def test_a_hand_edited_contradiction_fails(tmp_path, capsys):
    res = _run(tmp_path / "a", [True, None], [0.95, 0.5])
    page = _page(tmp_path / "status.md")
    assert status.main(["--results", str(res), "--page", str(page), "--write"]) == 0
    assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 0
    path = tmp_path / "status.json"
    data = json.loads(path.read_text())
    data["papers"][0]["claims"][0]["runs"][0]["status"] = "qualitative-fails"  # ok → fails
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 1
    assert "xu2022/fig7/c0: contradiction: 'qualitative-ok' from the results" in (
        capsys.readouterr().out
    )


def test_a_single_run_write_replaces_the_first_run_and_keeps_the_others_it_is_among(
    tmp_path, capsys
):
    a = _run(tmp_path / "a", [True, True, None])
    b = _run(tmp_path / "b", [None, True, False])
    page = _page(tmp_path / "status.md")
    assert status.main(["--results", str(a), "--page", str(page), "--write",
                        "--replicates", str(b)]) == 0  # fmt: skip
    assert _cells(page) == {
        "c0": "uninformative (reruns: qualitative-ok on 1 of 2 runs, uninformative on 1)",
        "c1": "qualitative-ok",
        "c2": "uninformative (reruns: qualitative-fails on 1 of 2 runs, uninformative on 1)",
    }
    # rewritten from one run: c0's run is among its runs' statuses (their records kept); c2's
    # is not (dropped), and the check of that run against the page made from a and b names it
    c = _run(tmp_path / "c", [None, True, True])
    assert status.main(["--results", str(c), "--page", str(page), "--check"]) == 1
    out = capsys.readouterr().out
    assert "xu2022/fig7/c2: contradiction: 'qualitative-ok' from the results" in out
    assert "xu2022/fig7/c0" not in out
    assert status.main(["--results", str(c), "--page", str(page), "--write"]) == 0
    # c takes a's place as the page's first run: c0's runs are now c's and b's, both undecided
    assert _cells(page) == {
        "c0": "uninformative",
        "c1": "qualitative-ok",
        "c2": "qualitative-ok",
    }
    data = status.page_data(page)
    assert len(data["measured"]["runs"]) == 2  # the page still records its two runs
    assert [len(c["runs"]) for c in data["papers"][0]["claims"]] == [2, 2, 2]


def test_earlier_marks_without_counts_are_listed(tmp_path):
    claim = {"figure": "f", "claim_id": "x", "paper": "stated", "data": "real",
             "runs": [{"status": "qualitative-ok", "ours": "", "pm": "", "keep": 0.7}],
             "earlier": ["qualitative-ok", "uninformative"]}  # fmt: skip
    from privrisk.contract.status_page import status_cell

    assert status_cell(claim) == "uninformative (reruns: qualitative-ok, uninformative)"
    assert D.page_status(claim) == "uninformative"


def test_replicates_only_with_write_and_existing_folders(tmp_path, capsys):
    res = _run(tmp_path / "a", [True])
    page = _page(tmp_path / "status.md")
    with pytest.raises(SystemExit) as e:
        status.main(["--results", str(res), "--page", str(page), "--check", "--replicates",
                     str(res)])  # fmt: skip
    assert e.value.code == 2
    assert "--replicates goes with --write" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        status.main(["--results", str(res), "--page", str(page), "--write", "--replicates",
                     str(tmp_path / "nowhere")])  # fmt: skip
    assert e.value.code == 2
    assert "no such results folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # a checkout instead of its results/: said, not ignored
        status.main(["--results", str(res), "--page", str(page), "--write", "--replicates",
                     str(tmp_path / "a")])  # fmt: skip
    assert e.value.code == 2
    assert "holds no paper's results" in capsys.readouterr().err
    assert "c0" not in page.read_text()  # nothing written
    assert not (tmp_path / "status.json").exists()


def test_the_page_states_predicted_against_observed_moves(tmp_path):
    # c0 decided with keep 0.8 on the first run, moved on one of the two others; c1 with keep 0.95
    # held on both: predicted 2 × 0.2 + 2 × 0.05 = 0.5 moves, observed 1
    a = _run(tmp_path / "a", [True, False], [0.8, 0.95])
    b = _run(tmp_path / "b", [None, False])
    c = _run(tmp_path / "c", [True, False])
    page = _page(tmp_path / "status.md")
    assert status.main(["--results", str(a), "--page", str(page), "--write", "--replicates",
                        str(b), str(c)]) == 0  # fmt: skip
    from privrisk.contract.status_page import calibration

    cal = calibration(status.page_data(page))
    assert cal["rows"] == 2 and cal["boundary"] == 1
    assert cal["predicted"] == pytest.approx(0.5) and cal["observed"] == 1
    text = page.read_text()
    assert "2 decided rows from data carry a keep-probability" in text
    assert "1 are boundary rows (below 0.9)" in text
    assert "they predict 0.5 moves; 1 were observed." in text
