"""results/claims.html: status colours and legend, filters, sorting, figure links, no network."""

from __future__ import annotations

import re
import shutil
import subprocess
from html import escape
from html.parser import HTMLParser

import pandas as pd
import pytest

from privrisk.contract import claims, claims_page


def _ledger() -> pd.DataFrame:
    rows = [
        {c: "" for c in claims.COLUMNS}
        | {"paper": "thudi2022", "figure": f"fig{i}", "claim_id": f"c{i}", "status": s}
        for i, s in enumerate(claims_page.STATUSES)
    ]
    rows[1]["note"] = "long reason " * 30 + "<b>not markup</b>"
    rows[0]["ours"] = "0.731"
    return pd.DataFrame(rows, columns=claims.COLUMNS)


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.links = [], []

    def handle_starttag(self, tag, attrs):
        if tag == "tr" and "data-status" in dict(attrs):
            self.rows.append(dict(attrs))
        if tag == "a":
            self.links.append(dict(attrs)["href"])


def test_every_row_has_its_status_colour_filters_and_figure_link(tmp_path):
    (tmp_path / "thudi2022").mkdir()
    (tmp_path / "thudi2022" / "fig0.png").write_bytes(b"png")
    (tmp_path / "thudi2022" / "fig2.md").write_text("| table |")
    page = claims_page.render(_ledger(), tmp_path)
    parsed = _Rows()
    parsed.feed(page)
    assert [r["data-status"] for r in parsed.rows] == list(claims_page.STATUSES)
    assert parsed.rows[0] == {
        "data-paper": "thudi2022",
        "data-figure": "fig0",
        "data-status": "reproduced",
    }
    assert parsed.links == ["thudi2022/fig0.png", "thudi2022/fig2.md"]  # only figures that exist
    for status, (colour, meaning) in claims_page.STATUSES.items():
        assert f'background:{colour}">{status}</span>' in page  # the row's badge
        assert (
            f">{status}: 1</span>" in page and escape(meaning) in page
        )  # legend with counts, meanings
    for ident in ("f-paper", "f-figure", "f-status", "f-text"):
        assert f'id="{ident}"' in page
    assert "<details><summary>long reason" in page  # a long note is folded
    assert "&lt;b&gt;not markup&lt;/b&gt;" in page and "<b>not markup</b>" not in page
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", page)  # self-contained: no network


def test_write_replaces_the_page_whole(tmp_path):
    path = claims_page.write(_ledger(), tmp_path / "claims.html")
    assert path.read_text().startswith("<!doctype html>")
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.skipif(shutil.which("node") is None, reason="node checks the script's syntax")
def test_the_script_parses(tmp_path):
    page = claims_page.render(_ledger(), tmp_path)
    (script,) = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    (tmp_path / "page.js").write_text(script)
    proc = subprocess.run(["node", "--check", str(tmp_path / "page.js")], capture_output=True)
    assert proc.returncode == 0, proc.stderr
