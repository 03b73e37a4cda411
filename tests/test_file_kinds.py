"""privrisk.core.file_kinds: a file's kind named only on clear evidence (a header, a signature, a
JSON schema); a file without one is left to the flag's own reader."""

import pytest

from privrisk.core.file_kinds import EXPECTED, mismatch, sniff


@pytest.mark.parametrize(
    ("content", "kind", "what"),
    [
        ("score,member\n0.1,1\n", "attack", "membership scores"),
        ("\ufeffid, score , member\n1,0.1,1\n", "attack", "membership scores"),  # BOM, spaces
        ('"hit";"prior"\n1;0.5\n', "attack", "reconstruction outcomes"),
        ("# a comment\norder,rdp\n2,0.2\n", "rdp", "an RDP curve"),
        ("alpha\tepsilon\n2\t0.2\n", "rdp", "an RDP curve"),
        ("eps delta\n0 0.3\n", "profile", "a privacy profile"),
        ("prior\n0.1\n", "priors", "per-target priors"),
        ('{"schema": "privrisk.riskcard", "schema_version": 3}', "card", "a saved risk card"),
        ('{"card": {}, "audit": {}}', "card", "a saved risk card with its audit"),
        ('{"schema": "privrisk.audit/3", "kind": "membership"}', "report", "an audit report"),
        ("<!DOCTYPE html>\n<html>", "html", "an HTML page"),
        (b"PK\x03\x04rest", "archive", "an NPZ (zip) archive"),
        (b"PAR1rest", "parquet", "a Parquet table"),
    ],
)
def test_a_kind_is_named_from_its_evidence(content, kind, what):
    found = sniff(content)
    assert (found.kind, found.what) == (kind, what)


@pytest.mark.parametrize(
    "content",
    [
        "",
        "2,0.2\n4,0.4\n",
        "0.1\n0.2\n",
        "a,b\n1,2\n",
        "[1, 2]",
        '{"x": 1}',
        "x" * 100,
        b"\xff\xfe",
    ],
)
def test_no_clear_evidence_names_no_kind(content):
    assert sniff(content) is None
    assert all(mismatch(content, k) is None for k in EXPECTED)


def test_the_mismatch_message_names_what_it_found_and_what_was_expected():
    assert mismatch("score,member\n1,1\n", "rdp") == (
        "looks like membership scores (columns score, member), expected an RDP curve (two "
        "columns, order α and ε_α)"
    )
    assert mismatch("order,rdp\n2,0.2\n", "rdp") is None  # the kind the flag takes
    assert mismatch(b"PK\x03\x04", "attack", also=("archive",)) is None  # another it takes


def test_a_long_json_is_named_by_its_schema_from_its_head():
    text = '{"schema": "privrisk.riskcard", "rows": [' + ", ".join(["1"] * 50_000) + "]}"
    assert len(text) > 64 << 10 and sniff(text.encode()).kind == "card"
