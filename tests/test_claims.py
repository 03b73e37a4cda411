"""The claims ledger: statuses decided on the stored numbers, the consistency check, the CLI."""

import math
import os
from pathlib import Path

import pandas as pd
import pytest

from privrisk.contract import claims, provenance

L = claims.Ledger("p")


def _num(**kw):
    base = dict(figure="f", claim_id="c", claim="x", paper_value=0.5, ours=0.5, tolerance=1e-3)
    return L.numeric(**(base | kw))


def test_numeric_statuses():
    assert _num(ours=0.5004).status == "reproduced"
    bad = _num(paper_value=0.95, ours=0.93, note_if_differs="erratum")
    assert bad.status == "differs" and "erratum" in bad.note
    st = _num(
        paper_value=0.65, ours=0.6, tolerance=0.05, data="standin", standin_note="stand-in ACS"
    )
    assert st.status == "standin" and st.data == "standin" and "stand-in ACS" in st.note
    der = _num(derived=True, ours=12130.85, paper_value=12130.85)
    assert der.status == "derived" and der.note
    assert _num(paper_value=math.inf, ours=math.inf).status == "reproduced"
    assert _num(paper_value=1.0, ours=math.nan).status == "differs"


def test_sampling_error_widens_tolerance_and_is_stored():
    c = _num(paper_value=0.10, ours=0.13, tolerance=0.01, se=0.011)
    assert c.status == "reproduced" and c.tolerance == pytest.approx(0.032)
    assert "s.e." in c.note
    assert _num(paper_value=0.10, ours=0.13, tolerance=0.01, se=0.005).status == "differs"


def test_status_decided_on_the_stored_rounded_number():
    # ours differs from the paper value by 5e-10 before rounding to 8 significant digits; the
    # stored value equals it, so the row reads as (and is) reproduced at tolerance 1e-12.
    c = _num(paper_value=math.log(2), ours=math.log(2) + 5e-10, tolerance=1e-12)
    df = claims.to_frame([c]).astype(str)
    assert claims.check(df) == []
    # ... and a row whose stored numbers contradict its status is caught.
    off = _num(paper_value=0.7, ours=0.7000001, tolerance=1e-12)
    assert off.status == "differs" and claims.check(claims.to_frame([off]).astype(str)) == []


def test_qualitative_and_uninformative():
    ok = L.qualitative(figure="f", claim_id="q", claim="c", holds=True, ours="yes")
    fails = L.qualitative(figure="f", claim_id="r", claim="c", holds=False, ours="no")
    un = L.qualitative(
        figure="f",
        claim_id="s",
        claim="c",
        holds=None,
        ours="0.63",
        note="estimate 0.628, null 0.639, half-width 0.05",
    )
    assert (ok.status, fails.status, un.status) == (
        "qualitative-ok",
        "qualitative-fails",
        "uninformative",
    )
    assert fails.note
    with pytest.raises(ValueError, match="needs a note"):
        L.qualitative(figure="f", claim_id="t", claim="c", holds=None, ours="?")


def test_to_decide_column_from_a_verdict():
    from privrisk.contract import verdicts as V

    e = V.Estimate(0.1, se=0.1, n=100, unit="draws", empirical=True)
    row = L.judged(
        figure="f", claim_id="u", claim="c", verdict=V.greater(e), ours="0.1", data="real"
    )
    assert row.status == "uninformative" and row.to_decide.endswith(" draws")
    assert f"to decide: {row.to_decide}" in row.note
    n = int(row.to_decide.split()[0])
    assert n == V.greater(e).plan.n > 100
    decided = L.judged(
        figure="f", claim_id="v", claim="c", verdict=V.greater(V.Estimate.exact(1.0)), ours="1"
    )
    assert decided.to_decide == ""
    frame = claims.to_frame([row, decided])
    assert list(frame.columns)[-2:] == ["to_decide", "keep"] and frame.to_decide[0] == row.to_decide
    assert claims.check(frame.astype(str)) == []
    assert "to_decide" in claims.to_markdown(frame.astype(str)) and row.to_decide in (
        claims.to_markdown(frame.astype(str))
    )
    # an uninformative experimental row must say what would decide it
    with pytest.raises(ValueError, match="needs to_decide"):
        L.qualitative(
            figure="f", claim_id="w", claim="c", holds=None, ours="?", note="n", data="real"
        )
    with pytest.raises(ValueError, match="only uninformative"):
        claims.Claim("p", "f", "x", "c", "stated", "y", "", "qualitative-ok", to_decide="3 runs")


def test_claim_validation():
    with pytest.raises(ValueError, match="status"):
        claims.Claim("p", "f", "x", "c", 1, 1, 0, "fine")
    with pytest.raises(ValueError, match="needs a note"):
        claims.Claim("p", "f", "x", "c", 1, 2, 0, "differs")
    with pytest.raises(ValueError, match="data"):
        claims.Claim("p", "f", "x", "c", 1, 1, 0, "reproduced", "made-up")
    with pytest.raises(ValueError, match="stand-in"):
        claims.Claim("p", "f", "x", "c", 1, 1, 0, "reproduced", "standin")


def _row(**kw):
    base = dict(
        paper="p",
        figure="f",
        claim_id="c",
        claim="x",
        paper_value="0.5",
        ours="0.5",
        tolerance="0.01",
        status="reproduced",
        data="analytic",
        note="",
        to_decide="",
    )
    return base | kw


@pytest.mark.parametrize(
    "row,needle",
    [
        (_row(ours="0.6"), "status reproduced but"),
        (_row(status="differs", note="n"), "status differs but"),
        (_row(status="differs"), "without a note"),
        (
            _row(status="uninformative", paper_value="stated", ours="?", tolerance=""),
            "without a note",
        ),
        (_row(data="standin"), "stand-in"),
        (_row(status="great"), "unknown status"),
        (_row(data="web"), "unknown data"),
        (_row(ours="n/a"), "numeric"),
        (
            _row(
                status="uninformative",
                paper_value="stated",
                ours="?",
                tolerance="",
                data="real",
                note="undecided",
            ),
            "needs to_decide",
        ),
        (
            _row(
                status="qualitative-ok",
                paper_value="stated",
                ours="yes",
                tolerance="",
                to_decide="40 runs",
            ),
            "only uninformative rows",
        ),
    ],
)
def test_check_finds_inconsistent_rows(row, needle):
    problems = claims.check(pd.DataFrame([row], columns=claims.COLUMNS))
    assert problems and needle in problems[0]


def test_check_passes_consistent_rows_and_flags_duplicate_ids():
    rows = [
        _row(),
        _row(claim_id="d", status="qualitative-ok", paper_value="stated", ours="yes", tolerance=""),
    ]
    assert claims.check(pd.DataFrame(rows, columns=claims.COLUMNS)) == []
    assert (
        "more than once" in claims.check(pd.DataFrame([_row(), _row()], columns=claims.COLUMNS))[0]
    )


def test_gather_markdown_and_cli(tmp_path, capsys):
    claims.write_claims(
        [L.qualitative(figure="f", claim_id="q", claim="c", holds=False, ours="no")],
        tmp_path / "a.csv",
    )
    claims.write_claims([], tmp_path / "b.csv")
    df = claims.gather([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "all.csv")
    assert (
        len(df) == 1
        and df.status.item() == "qualitative-fails"
        and list(df.columns) == claims.COLUMNS
    )
    md = claims.to_markdown(df)
    assert "qualitative-fails: 1" in md
    assert claims.main([str(tmp_path / "all.csv"), "--markdown", str(tmp_path / "c.md")]) == 0
    assert (tmp_path / "c.md").read_text() == md
    assert claims.main([str(tmp_path / "all.csv"), "--check"]) == 0
    with pytest.raises(SystemExit):  # an unknown status is refused, not an empty table
        claims.main([str(tmp_path / "all.csv"), "--status", "reproducd"])
    assert claims.main([str(tmp_path / "all.csv"), "--paper", "nope"]) == 2
    bad = pd.read_csv(tmp_path / "all.csv", dtype=str, keep_default_na=False)
    bad.loc[0, "status"] = "reproduced"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    assert claims.main([str(tmp_path / "bad.csv"), "--check"]) == 1
    assert "problem" in capsys.readouterr().out


def test_a_number_with_a_monte_carlo_se_is_simulated_not_analytic():
    ledger = claims.Ledger("thudi2022")
    mc = ledger.numeric(
        figure="f", claim_id="a", claim="c", paper_value=1.0, ours=1.01, tolerance=0.05, se=0.01
    )
    closed = ledger.numeric(
        figure="f", claim_id="b", claim="c", paper_value=1.0, ours=1.01, tolerance=0.05
    )
    assert (mc.data, closed.data) == ("simulated", "analytic")
    assert "simulated" in claims.DATA and "simulated" in provenance.DATA_SOURCES


# --- the command on bad input: one line, exit 2, nothing half-written (issue 38) -----------------


def _ledger(path, n=1):
    rows = [
        L.numeric(figure="f", claim_id=f"c{i}", claim="c", paper_value=1.0, ours=1.0, tolerance=0.0)
        for i in range(n)
    ]
    claims.write_claims(rows, path)
    return path


def _refused(capsys, argv, needle):
    assert claims.main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith("privrisk claims: error:") and needle in err, captured
    assert "\n" not in err and "Traceback" not in err and captured.out == ""


def test_a_binary_file_or_a_directory_is_no_ledger(tmp_path, capsys):
    binary = tmp_path / "claims.csv"
    binary.write_bytes(bytes(range(256)) * 8)
    _refused(capsys, [str(binary)], "not UTF-8 text")
    _refused(capsys, [str(tmp_path)], "is a directory")
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    _refused(capsys, [str(other)], "is not a claims ledger")
    _refused(capsys, [str(tmp_path / "none.csv")], "does not exist")


def test_an_unwritable_markdown_target_is_refused_and_nothing_is_left(
    tmp_path, capsys, monkeypatch
):
    ledger = _ledger(tmp_path / "claims.csv")
    _refused(capsys, [str(ledger), "--markdown", str(tmp_path)], "is a directory")
    _refused(capsys, [str(ledger), "--markdown", str(tmp_path / "no" / "x.md")], "no folder")
    _refused(capsys, [str(ledger), "--markdown", str(ledger / "x.md")], "no folder")

    def denied(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # a folder we may not write in (we run as root): the rename is refused, the .part removed
    monkeypatch.setattr(os, "replace", denied)
    _refused(capsys, [str(ledger), "--markdown", str(tmp_path / "x.md")], "permission denied")
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.csv"]
    assert claims.main([str(ledger), "--markdown", str(tmp_path / "x.md")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.csv", "x.md"]


def test_a_reader_that_stops_early_ends_the_listing_quietly(tmp_path):
    """`privrisk claims | head`: the closed pipe raised BrokenPipeError with a traceback."""
    import os
    import subprocess
    import sys

    ledger = _ledger(tmp_path / "claims.csv", n=5000)
    proc = subprocess.Popen(
        [sys.executable, "-m", "privrisk", "claims", str(ledger)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(Path(claims.__file__).parents[2])),  # src/
    )
    proc.stdout.readline()  # `head -1`
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 0 and err == "", err


def test_a_fifo_or_dev_zero_is_no_ledger_and_markdown_onto_a_device_is_refused(tmp_path, capsys):
    """Issue 50: a pipe hung the reader, /dev/zero filled memory; a device was renamed over."""
    os.mkfifo(fifo := tmp_path / "claims.csv")
    _refused(capsys, [str(fifo)], "is a named pipe (FIFO), not a regular file")
    _refused(capsys, ["/dev/zero"], "is a character device, not a regular file")
    ledger = _ledger(tmp_path / "ledger.csv")
    _refused(capsys, [str(ledger), "--markdown", "/dev/full"], "is a character device")
    _refused(capsys, [str(ledger), "--markdown", str(ledger)], "is an input of this command")
    assert claims.read(ledger).shape[0] > 0  # unchanged: still a ledger
