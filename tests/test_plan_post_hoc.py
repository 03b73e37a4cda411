"""Post-hoc changes are reported (docs/plan.md, "Post-hoc changes"): every ``# post_hoc:`` comment
of a config file names a key whose value in that file is the changed one, and the docs' table and
the comments list the same changes."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.conftest import REPO

COMMENT = re.compile(
    r"#\s*post_hoc:\s*(?P<key>[\w.]+):\s*(?P<before>[\d,.]+)\s*->\s*(?P<after>[\d,.]+)\s*"
    r"\((?P<when>\d{4}-\d\d-\d\d)\):\s*\S"
)
ROW = re.compile(
    r"^\| `(?P<key>[\w.]+)` \| (?P<before>[\d,.]+) → (?P<after>[\d,.]+) \| (?P<when>[\d-]+) \|"
    r"(?P<seen>[^|]+)\|(?P<status>[^|]+)\|$"
)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def comments(text: str) -> dict[str, tuple[float, float, str]]:
    out = {}
    for line in text.splitlines():
        if "post_hoc:" not in line:
            continue
        m = COMMENT.search(line)
        assert m, f"a post_hoc comment not in the convention's form: {line.strip()}"
        out[m["key"]] = (_number(m["before"]), _number(m["after"]), m["when"])
    return out


def table(text: str) -> dict[str, tuple[float, float, str]]:
    section = text.split("## Post-hoc changes", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        if m := ROW.match(line):
            assert m["seen"].strip() and m["status"].strip(), line
            out[m["key"]] = (_number(m["before"]), _number(m["after"]), m["when"])
    return out


def _value(cfg: dict, dotted: str):
    node = cfg
    for part in dotted.split("."):
        node = node[part]
    return node


def test_the_convention_reads_a_comment_and_a_row():
    line = "  # post_hoc: swanberg2025.fig4b.draws: 30 -> 60 (2026-11-27): raised after seeing it"
    assert comments(line) == {"swanberg2025.fig4b.draws": (30.0, 60.0, "2026-11-27")}
    with pytest.raises(AssertionError, match="convention"):
        comments("# post_hoc: fig4b draws went up")
    doc = (
        "## Post-hoc changes\n\n| key | a | b | c | d |\n|---|---|---|---|---|\n"
        "| `x.y.epochs` | 1,200 → 1,000 | 2026-11-27 | seen | not computed |\n\n## Next\n"
        "| `z.w` | 1 → 2 | 2026-11-27 | outside the section | x |\n"
    )
    assert table(doc) == {"x.y.epochs": (1200.0, 1000.0, "2026-11-27")}


def test_every_post_hoc_comment_names_its_value_and_is_reported_in_the_docs():
    reported = table((REPO / "docs/plan.md").read_text())
    noted: dict[str, tuple[float, float, str]] = {}
    for path in sorted((REPO / "config").glob("*.yaml")):
        text = path.read_text()
        found = comments(text)
        cfg = yaml.safe_load(text)
        for key, (_, after, _) in found.items():
            assert _value(cfg, key) == after, f"{path.name}: {key} is not {after:g}"
        noted |= found
    assert noted, "the known post-hoc changes carry their comments"
    assert noted == reported
