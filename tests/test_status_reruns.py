"""Statuses measured on several runs (privrisk.contract.status, ``--replicates``): a claim whose
runs disagree is uninformative on the page and names what each run gave; the page made from
several runs passes ``--check`` against each of them and fails for a run outside what they gave.
Stated as properties over random statuses, not case by case."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from privrisk.contract import claims, status

#: ``holds`` of a qualitative claim → its status
HOLDS = {True: "qualitative-ok", False: "qualitative-fails", None: "uninformative"}


def _run(root: Path, holds: list[bool | None]) -> Path:
    """A results folder with one xu2022 figure and one qualitative claim per entry of ``holds``."""
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


def _claim_cells(page: Path) -> dict[str, str]:
    out = {}
    for line in page.read_text().splitlines():
        cells = status._cells(line)
        if cells and cells[1].startswith("`c"):
            out[cells[1].strip("`")] = cells[5].strip("*")
    return out


@pytest.mark.parametrize("seed", range(40))
def test_decided_on_the_page_iff_every_run_agrees_and_each_run_passes_the_check(tmp_path, seed):
    rnd = random.Random(seed)
    n_claims, n_runs = rnd.randint(1, 6), rnd.randint(2, 4)
    # a claim's runs agree with probability 1/2, else each run draws its own status
    truth = []
    for _ in range(n_claims):
        fixed = rnd.choice(list(HOLDS))
        same = rnd.random() < 0.5
        truth.append([fixed if same else rnd.choice(list(HOLDS)) for _ in range(n_runs)])
    runs = [_run(tmp_path / f"run{k}", [t[k] for t in truth]) for k in range(n_runs)]
    page = _page(tmp_path / "status.md")
    status.main(["--results", str(runs[0]), "--page", str(page), "--write", "--replicates",
                 *map(str, runs[1:])])  # fmt: skip
    cells = _claim_cells(page)
    for i, t in enumerate(truth):
        seen = {HOLDS[h] for h in t}
        if len(seen) == 1:
            assert cells[f"c{i}"] == seen.pop()  # decided (or undecided) on every run
        else:
            assert cells[f"c{i}"].startswith("uninformative (reruns: ")
            assert status.seen_in(cells[f"c{i}"]) == seen
    # the summary counts the page's statuses: a disagreeing claim is uninformative
    shown = ["uninformative" if status.seen_in(c) else c for c in cells.values()]
    row = next(x for x in page.read_text().splitlines() if x.startswith("| xu2022 |"))
    counts = [int(c) for c in status._cells(row)[3:]]
    assert counts == [shown.count(s) for s in claims.STATUSES]
    # every measured run passes the check against the page made from all of them
    for res in runs:
        assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 0
    # a run that gives a claim a status none of the runs gave fails, naming the claim
    for i, t in enumerate(truth):
        outside = [h for h in HOLDS if HOLDS[h] not in {HOLDS[x] for x in t}]
        if not outside:
            continue
        holds = [outside[0] if j == i else u[0] for j, u in enumerate(truth)]
        other = _run(tmp_path / f"other{i}", holds)
        block, _ = status.expected(status._split(page)[1], other)
        problems = status.check(page, block)
        assert any(p.startswith(f"xu2022/c{i}:") for p in problems), problems


def test_a_single_run_write_keeps_the_marks_it_is_among_and_drops_the_others(tmp_path, capsys):
    a = _run(tmp_path / "a", [True, True, None])
    b = _run(tmp_path / "b", [None, True, False])
    page = _page(tmp_path / "status.md")
    assert status.main(["--results", str(a), "--page", str(page), "--write",
                        "--replicates", str(b)]) == 0  # fmt: skip
    cells = _claim_cells(page)
    assert cells == {
        "c0": "uninformative (reruns: qualitative-ok, uninformative)",
        "c1": "qualitative-ok",
        "c2": "uninformative (reruns: qualitative-fails, uninformative)",
    }
    # rewritten from one run: c0's run is among its marks (kept); c2's is not (dropped, and the
    # check of that run against the page made from a and b names it)
    c = _run(tmp_path / "c", [None, True, True])
    assert status.main(["--results", str(c), "--page", str(page), "--check"]) == 1
    out = capsys.readouterr().out
    assert "xu2022/c2: status 'qualitative-ok' from the results is none of those" in out
    assert "xu2022/c0" not in out
    assert status.main(["--results", str(c), "--page", str(page), "--write"]) == 0
    assert _claim_cells(page) == {
        "c0": "uninformative (reruns: qualitative-ok, uninformative)",
        "c1": "qualitative-ok",
        "c2": "qualitative-ok",
    }


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
