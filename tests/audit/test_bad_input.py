"""Bad input (issue 31, item 5): one line naming the file, column or argument; exit 2; nothing
written (``--out`` is not created); no traceback."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from privrisk.audit import command
from tests.conftest import REPO

N = 30


def _csv(tmp_path, text, name="s.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _scores(members=N, nonmembers=N, score="1.0"):
    rows = ["score,member"]
    rows += [f"{score if i == 0 else i * 0.1},1" for i in range(members)]
    rows += [f"{i * 0.1},0" for i in range(nonmembers)]
    return "\n".join(rows) + "\n"


def _run(capsys, tmp_path, args):
    out = tmp_path / "report.json"
    rc = command.main([*map(str, args), "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 2
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1, cap.err
    assert lines[0].startswith("privrisk audit: error: ")
    assert "Traceback" not in cap.err
    assert cap.out == ""
    assert not out.exists()
    return lines[0]


def test_one_class_only(capsys, tmp_path):
    p = _csv(tmp_path, _scores(nonmembers=0))
    line = _run(capsys, tmp_path, [p])
    assert f"{p}: column 'member'" in line and "both classes" in line


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", ""])
def test_nan_or_infinite_scores(capsys, tmp_path, bad):
    p = _csv(tmp_path, _scores(score=bad))
    line = _run(capsys, tmp_path, [p])
    assert "column 'score'" in line and "NaN, infinite or empty" in line and "row 1" in line


def test_non_numeric_scores(capsys, tmp_path):
    p = _csv(tmp_path, _scores(score="high"))
    assert "column 'score'" in _run(capsys, tmp_path, [p])


@pytest.mark.parametrize("value", ["2", "-1", "0.5"])
def test_member_not_0_or_1(capsys, tmp_path, value):
    p = _csv(tmp_path, _scores().replace("\n0.1,1\n", f"\n0.1,{value}\n"))
    line = _run(capsys, tmp_path, [p])
    assert "column 'member'" in line and "must be 0 or 1" in line


def test_too_few_canaries(capsys, tmp_path):
    p = _csv(tmp_path, _scores(members=4, nonmembers=50))
    line = _run(capsys, tmp_path, [p])
    assert "column 'member'" in line and "at least 10" in line


@pytest.mark.parametrize("prior", ["0", "1.5", "-0.2", "nan"])
def test_prior_outside_0_1(capsys, tmp_path, prior):
    rows = ["hit,prior"] + [f"{i % 2},0.3" for i in range(20)] + [f"1,{prior}"]
    p = _csv(tmp_path, "\n".join(rows) + "\n")
    assert "column 'prior'" in _run(capsys, tmp_path, [p])


def test_hit_not_0_or_1(capsys, tmp_path):
    rows = ["hit,prior"] + [f"{i % 3},0.3" for i in range(20)]
    p = _csv(tmp_path, "\n".join(rows) + "\n")
    assert "column 'hit'" in _run(capsys, tmp_path, [p])


def test_duplicate_ids(capsys, tmp_path):
    rows = ["id,score,member"] + [f"c{i},{i},{i % 2}" for i in range(40)] + ["c3,1.0,1"]
    p = _csv(tmp_path, "\n".join(rows) + "\n")
    line = _run(capsys, tmp_path, [p])
    assert "column 'id'" in line and "'c3'" in line


def test_unknown_importer(capsys, tmp_path):
    p = _csv(tmp_path, _scores())
    line = _run(capsys, tmp_path, [p, "--importer", "privacy-raven"])
    assert "--importer" in line and "privacy-raven" in line


def test_missing_columns(capsys, tmp_path):
    p = _csv(tmp_path, "loss,label\n1,0\n")
    line = _run(capsys, tmp_path, [p])
    assert str(p) in line and "'score' and 'member'" in line


def test_missing_file_and_unknown_type(capsys, tmp_path):
    assert "no such file" in _run(capsys, tmp_path, [tmp_path / "nope.csv"])
    p = _csv(tmp_path, "x", name="s.txt")
    assert "unknown file type" in _run(capsys, tmp_path, [p])


def test_unreadable_npz(capsys, tmp_path):
    p = tmp_path / "s.npz"
    p.write_bytes(b"not a zip")
    assert "cannot be read" in _run(capsys, tmp_path, [p])


def test_leakpro_json_without_fields(capsys, tmp_path):
    p = _csv(tmp_path, json.dumps({"tpr": [0, 1]}), name="r.json")
    assert "not a LeakPro MIAResult file" in _run(capsys, tmp_path, [p])


@pytest.mark.parametrize(
    "args,where",
    [
        (["--confidence", "1.5"], "--confidence"),
        (["--confidence", "x"], "--confidence"),
        (["--epsilon", "-1"], "--epsilon"),
        (["--epsilon", "1", "--mu", "1"], "--mu"),
        (["--delta", "1"], "--delta"),
        (["--noise-multiplier", "1", "--sample-rate", "0.01"], "--steps"),
        (["--adjacency", "add-remove"], "--adjacency"),
        (["--guesses", "10"], "--guesses"),
    ],
)
def test_bad_arguments(capsys, tmp_path, args, where):
    p = _csv(tmp_path, _scores())
    line = _run(capsys, tmp_path, [p, *args])
    assert f"error: {where}:" in line


def test_bad_guesses_in_a_one_run_audit(capsys, tmp_path):
    p = _csv(tmp_path, _scores())
    assert "--guesses" in _run(capsys, tmp_path, [p, "--one-run", "--guesses", "1000"])


def test_one_run_with_groups(capsys, tmp_path):
    rows = ["score,member,group"] + [f"{i},{i % 2},{'ab'[i % 4 // 2]}" for i in range(80)]
    p = _csv(tmp_path, "\n".join(rows) + "\n")
    assert "column 'group'" in _run(capsys, tmp_path, [p, "--one-run"])


def test_unwritable_out_writes_nothing(capsys, tmp_path):
    p = _csv(tmp_path, _scores())
    rc = command.main([str(p), "--out", str(tmp_path / "missing-dir" / "r.json")])
    cap = capsys.readouterr()
    assert rc == 2 and cap.out == "" and "--out" in cap.err


@pytest.mark.parametrize("guesses", ["abc", "2.5", "1e1", "-3", "0"])
def test_one_run_guesses_not_a_whole_number(capsys, tmp_path, guesses):
    p = _csv(tmp_path, _scores())
    line = _run(capsys, tmp_path, [p, "--one-run", "--guesses", guesses])
    assert "error: --guesses: must be a whole number" in line and repr(guesses) in line


def test_truncated_and_corrupt_npz(capsys, tmp_path):
    import io
    import zipfile

    import numpy as np

    buf = io.BytesIO()
    np.savez(buf, score=np.arange(100.0), member=np.arange(100) % 2)
    whole = buf.getvalue()
    p = tmp_path / "t.npz"
    p.write_bytes(whole[: len(whole) // 2])
    assert "cannot be read" in _run(capsys, tmp_path, [p])
    # a valid zip whose member is not an array
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("score.npy", b"\x93NUMPY garbage")
    assert "cannot be read" in _run(capsys, tmp_path, [p])


def _bomb(path, inflated: int) -> None:
    """An NPZ whose one entry declares ``inflated`` bytes: a small real zip whose size fields (local
    header and central directory) are set to what a 1.5 MB bomb of zeros declares."""
    import struct
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("score.npy", bytes(2**20))
    data = bytearray(path.read_bytes())
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    data[local + 22 : local + 26] = struct.pack("<I", inflated)
    data[central + 24 : central + 28] = struct.pack("<I", inflated)
    path.write_bytes(bytes(data))


def test_npz_bomb_is_refused_by_its_declared_size(capsys, tmp_path):
    """A file declaring 1.6 GB once inflated: refused before anything is inflated."""
    p = tmp_path / "bomb.npz"
    _bomb(p, 1_600_000_000)
    line = _run(capsys, tmp_path, [p])
    assert "declares 1,600,000,000 bytes" in line and "refused" in line


@pytest.mark.slow
def test_a_real_npz_bomb_is_refused(capsys, tmp_path):
    """1.5 MB of deflated zeros inflating to 1.6 GB, made the slow way."""
    import zipfile

    p = tmp_path / "bomb.npz"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("score.npy", "w", force_zip64=True) as f:
            block = bytes(2**24)
            for _ in range(96):  # 1.6 GB of zeros
                f.write(block)
    assert p.stat().st_size < 3 * 2**20
    line = _run(capsys, tmp_path, [p])
    assert "declares" in line and "refused" in line


def test_header_only_file_has_no_rows(capsys, tmp_path):
    p = _csv(tmp_path, "score,member\n")
    assert "has no rows" in _run(capsys, tmp_path, [p])
    q = _csv(tmp_path, "", name="empty.csv")
    assert "is empty" in _run(capsys, tmp_path, [q])


def test_messages_print_plain_numbers(capsys, tmp_path):
    import numpy as np

    p = tmp_path / "s.npz"
    s = np.r_[np.nan, np.arange(59.0)]
    np.savez(p, score=s, member=np.arange(60) % 2)
    line = _run(capsys, tmp_path, [p])
    assert "np.float64" not in line and "row 1: nan" in line


def test_out_onto_the_scores_file_is_refused_and_the_file_unchanged(capsys, tmp_path):
    """Issue 50: `privrisk audit scores.csv --out scores.csv` overwrote the scores."""
    p = _csv(tmp_path, _scores())
    before = p.read_bytes()
    assert command.main([str(p), "--out", str(p)]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err == (
        f"privrisk audit: error: --out {p}: is an input of this command ({p}); writing it would "
        "destroy it: name another file\n"
    )
    assert p.read_bytes() == before


def test_out_onto_a_device_is_refused_and_the_device_untouched(capsys, tmp_path):
    """As root, `--out /dev/full` replaced the device node with a regular file."""
    p = _csv(tmp_path, _scores())
    assert command.main([str(p), "--out", "/dev/full"]) == 2
    assert capsys.readouterr().err == (
        "privrisk audit: error: --out /dev/full: is a character device, not a regular file; "
        "nothing was written\n"
    )
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_a_pipe_or_dev_zero_as_the_scores_file_is_one_line_at_once(tmp_path, kind):
    """In a process of its own, with a timeout: a FIFO hung the audit, /dev/zero grew memory."""
    if kind == "fifo":
        os.mkfifo(path := tmp_path / "scores.csv")
        why = "is a named pipe (FIFO), not a regular file"
    else:
        path, why = "/dev/zero", "is a character device, not a regular file"
    proc = subprocess.run(
        [sys.executable, "-m", "privrisk", "audit", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src")),
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"privrisk audit: error: {path}: {why}\n"


def test_a_name_too_long_is_one_line(capsys, tmp_path):
    line = _run(capsys, tmp_path, [tmp_path / ("n" * 300 + ".csv")])
    assert "304 characters long (at most 255)" in line  # the name with its .csv


def test_lira_keep_shorter_than_the_scores_is_one_line(capsys, tmp_path):
    for i in range(3):
        e = tmp_path / "lira" / f"experiment-{i}"
        (e / "scores").mkdir(parents=True)
        np.save(e / "scores" / "0001.npy", np.zeros((20, 1)))
        np.save(e / "keep.npy", np.arange(20 if i else 19) % 2 == 0)
    line = _run(capsys, tmp_path, [tmp_path / "lira"])
    assert "experiment-0: keep.npy has 19 entries but 0001.npy scores 20 examples" in line


# --- issue 50, item 5: ambiguity is an error, not a guess ------------------------------------


@pytest.mark.parametrize(
    ("header", "row", "needle"),
    [
        ("score,member,score", "{s},{m},{neg}", "column 'score' appears 2 times: ambiguous"),
        ("score,member, member", "{s},{m},{flip}", "column 'member' appears 2 times: ambiguous"),
        ("score,member,hit,prior", "{s},{m},{m},0.3", "both membership columns"),
    ],
    ids=["duplicate-score", "duplicate-member", "two-layouts"],
)
def test_an_ambiguous_table_is_refused(capsys, tmp_path, header, row, needle):
    rows = [header] + [
        row.format(s=i * 0.1, m=i % 2, neg=-i * 0.1, flip=1 - i % 2) for i in range(40)
    ]
    p = _csv(tmp_path, "\n".join(rows) + "\n")
    line = _run(capsys, tmp_path, [p])
    assert line.startswith(f"privrisk audit: error: {p}: ") and needle in line


def test_complex_scores_are_refused(capsys, tmp_path):
    p = tmp_path / "s.npz"
    np.savez(p, score=np.arange(40) * 0.1 + 1j, member=np.arange(40) % 2)
    line = _run(capsys, tmp_path, [p])
    assert line == (
        f"privrisk audit: error: {p}: column 'score': must be real numbers, got the complex 1j"
    )


def test_blank_group_cells_are_refused(capsys, tmp_path):
    rows = ["score,member,group"] + [f"{i * 0.1},{i % 2},{'a' if i % 3 else ''}" for i in range(60)]
    p = _csv(tmp_path, "\n".join(rows) + "\n")
    line = _run(capsys, tmp_path, [p])
    assert line.endswith(
        "column 'group': row 1 is blank (20 blank cell(s)): every canary needs its group"
    )


@pytest.mark.parametrize("confidence", ["1e-300", "0.4", "0.9999999", "1"])
def test_a_confidence_outside_half_to_1_minus_1e6_is_refused(capsys, tmp_path, confidence):
    p = _csv(tmp_path, _scores())
    line = _run(capsys, tmp_path, [p, "--confidence", confidence])
    assert line == (
        f"privrisk audit: error: --confidence: must be in [0.5, 0.999999], got {confidence!r}"
    )


def test_a_scores_file_given_as_rdp_is_refused(capsys, tmp_path):
    p = _csv(tmp_path, _scores())
    line = _run(capsys, tmp_path, [p, "--rdp", p])
    assert line.startswith("privrisk audit: error: --rdp")
