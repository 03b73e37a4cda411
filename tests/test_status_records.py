"""The status page's record columns: a run of record (``records/<name>/``, docs/records.md) shown
beside the quick run for every row it covers, counted in the summary, named stale with the command
that refreshes it when the code that derived its statuses changed, and left to ``privrisk records
--check`` by the status check (which only asks that the page shows what ``records/`` holds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privrisk.contract import status
from privrisk.core import records as rec
from tests.conftest import REPO
from tests.test_status import _results

#: a file whose digest the synthetic record's statuses were derived with
CODE = "privrisk/contract/verdicts/keep.py"


def _record(root: Path, name: str = "decide-1", *, stale: bool = False, seeds=(20221, 1, 2)):
    """A synthetic record in the layout ``privrisk records make`` writes (only the two files the
    page reads): xu2022's adv_mc at 3 seeds, differs at every seed (the quick run: reproduced),
    and nn_query measured at 2 of the 3 (a partial record)."""
    folder = root / name
    folder.mkdir(parents=True)
    man = {
        "format": rec.FORMAT,
        "seeds": list(seeds),
        "complete": False,
        "files": {},
        "planned": {"xu2022/adv_mc": {"n": 113, "unit": "runs"}},
    }
    (folder / rec.MANIFEST).write_text(json.dumps(man))
    digest = rec.sha256(rec.SRC / CODE)
    der = {
        "format": rec.FORMAT,
        "derived_by": "recorded",
        "code": {CODE: "sha256:" + "0" * 64 if stale else digest},
        "claims": {
            "xu2022/adv_mc": {"statuses": {str(s): "differs" for s in seeds}},
            "xu2022/nn_query": {"statuses": {"20221": "uninformative", "1": "uninformative"}},
        },
    }
    (folder / rec.STATUSES).write_text(json.dumps(der))
    return root


@pytest.fixture
def page(tmp_path, monkeypatch):
    """An empty page and the records folder its columns come from (empty until a test makes one)."""
    root = tmp_path / "records"
    root.mkdir()
    monkeypatch.setenv(rec.ENV, str(root))
    page = tmp_path / "status.md"
    page.write_text(f"{status.BEGIN}\n{status.END}\n")
    return page


def test_a_record_shows_as_a_column_and_is_counted(page, tmp_path):
    res = _results(tmp_path)
    _record(tmp_path / "records")
    assert status.main(["--results", str(res), "--page", str(page), "--write"]) == 0
    data = json.loads(page.with_suffix(".json").read_text())
    (col,) = data["records"]
    assert col["name"] == "decide-1" and col["seeds"] == [20221, 1, 2] and col["stale"] == []
    assert col["claims"]["xu2022/adv_mc"] == {
        "status": "differs",
        "statuses": {"20221": "differs", "1": "differs", "2": "differs"},
        "runs": "3 seeds, 113 runs",
        "every_seed": True,
    }
    lines = page.read_text().splitlines()
    # xu2022's claim table has the column; thudi2022's (no row covered) does not
    assert "| figure | claim | paper | ours | ± | status | keep | data | at decide-1 |" in lines
    assert lines.count("| figure | claim | paper | ours | ± | status | keep | data |") == 1
    assert (
        "| fig7 | `adv_mc` | 0.3 | 0.31 | 0.04 | reproduced | 1.00 | real | "
        "differs; 3 seeds, 113 runs |" in lines
    )
    assert (
        "| fig7 | `nn_query` | stated | AUC 0.54 \\| 0.56 |  | uninformative |  | standin | "
        "uninformative; 2 seeds (partial) |" in lines
    )
    text = "\n".join(lines)
    assert (
        "Run of record `records/decide-1` (column *at decide-1*; docs/records.md): 3 seeds "
        "(20221, 1, 2), partial; covers 2 rows, decides 1 at every seed;" in text
    )
    # the summary counted again with the record: adv_mc moves reproduced -> differs; the quick
    # summary (the **all** row) stays as it was
    assert "| xu2022 | 1 | 2 | 1 → 0 | 0 → 1 | 0 | 0 | 1 | 0 | 0 |" in lines
    assert (
        "| **all, with decide-1** | **4** | **4** | **1 → 0** | **1 → 2** | **1** | **0** | "
        "**1** | **0** | **0** |" in lines
    )
    assert (
        "| **all** | **4** | **4** | **1** | **1** | **1** | **0** | **1** | **0** | **0** |"
        in lines
    )


def test_a_stale_record_is_named_with_its_refresh_command(page, tmp_path):
    res = _results(tmp_path)
    _record(tmp_path / "records", stale=True)
    assert status.main(["--results", str(res), "--page", str(page), "--write"]) == 0
    text = page.read_text()
    assert (
        f"**Stale**: its statuses were derived by code changed since ({CODE}); refresh: "
        "`privrisk records --check decide-1 --refresh`." in text
    )
    assert "| differs; 3 seeds, 113 runs (stale) |" in text


def test_the_check_leaves_record_columns_to_records_check(page, tmp_path, capsys):
    """The run is not compared with the record (a record saying differs where the run says
    reproduced is no problem of the status check); a page whose columns are not what records/
    holds is named with the command that rewrites only them."""
    res = _results(tmp_path)
    assert status.main(["--results", str(res), "--page", str(page), "--write"]) == 0
    _record(tmp_path / "records")
    capsys.readouterr()
    assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 1
    out = capsys.readouterr().out
    assert (
        "records/decide-1: its column on the page is not what records/ holds (made, remade or "
        "refreshed since); fix: privrisk status --write --records" in out
    )
    # rewriting only the columns needs no results
    assert (
        status.main(
            ["--results", str(tmp_path / "none"), "--page", str(page), "--write", "--records"]
        )
        == 0
    )
    assert "record columns updated from records/" in capsys.readouterr().out
    assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 0
    # stale code alone is privrisk docs --check's to name, not a difference of the columns
    der = json.loads((tmp_path / "records/decide-1" / rec.STATUSES).read_text())
    der["code"][CODE] = "sha256:" + "0" * 64
    (tmp_path / "records/decide-1" / rec.STATUSES).write_text(json.dumps(der))
    assert status.main(["--results", str(res), "--page", str(page), "--check"]) == 0


def test_records_goes_with_write_alone(page, capsys):
    with pytest.raises(SystemExit) as err:
        status.main(["--page", str(page), "--check", "--records"])
    assert err.value.code == 2
    assert "--records goes with --write alone" in capsys.readouterr().err


def test_docs_check_names_a_page_that_does_not_show_a_record(page, tmp_path):
    """Without results to check the page against, ``privrisk docs`` still checks (and writes) the
    record columns: they come from records/, not from a run."""
    from privrisk.pipeline import docs

    res = _results(tmp_path)
    assert status.main(["--results", str(res), "--page", str(page), "--write"]) == 0
    _record(tmp_path / "records")
    assert docs._record_columns(page, write=False) == (
        [
            f"{page}: records/decide-1: its column on the page is not what records/ holds; "
            "fix: privrisk status --write --records"
        ],
        True,
    )
    assert docs._record_columns(page, write=True)[0] == [
        f"{page}: record columns updated from records/"
    ]
    assert docs._record_columns(page, write=False) == ([], False)
    assert "| differs; 3 seeds, 113 runs |" in page.read_text()


def test_the_records_doc_quotes_the_pages_counts_with_the_record():
    """docs/records.md says how decide-1 moves the page's summary in words; the numbers must be
    those of the generated page's row *all, with decide-1* (written by `privrisk status --write
    --records`, checked by CI), so a refreshed record cannot leave the prose behind."""
    import re

    page = (REPO / "docs/status.md").read_text(encoding="utf-8").splitlines()
    header = next(line for line in page if line.startswith("| paper | outputs | claims |"))
    row = next(line for line in page if line.startswith("| **all, with decide-1** |"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    cells = [c.strip().strip("*") for c in row.strip("|").split("|")]
    on_page = {k: cells[cols.index(f"qualitative-{k}" if k != "uninformative" else k)]
               for k in ("ok", "fails", "uninformative")}  # fmt: skip
    text = " ".join((REPO / "docs/records.md").read_text(encoding="utf-8").split())
    said = re.search(
        r"the record moves ok (\d+ → \d+), fails (\d+ → \d+), uninformative (\d+ → \d+)", text
    )
    assert said, "docs/records.md no longer says how decide-1 moves the summary"
    assert dict(zip(("ok", "fails", "uninformative"), said.groups(), strict=True)) == on_page
