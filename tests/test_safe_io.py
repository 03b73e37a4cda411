"""privrisk.core.safe_io: a user's file that would hang, fill memory or crash the parser is one
line naming it; an output that would destroy an input, a folder or a device is refused; a failed
write leaves the target as it was and no temporary file."""

from __future__ import annotations

import errno
import json
import os
import stat

import pytest

from privrisk.core import checksums, safe_io
from privrisk.core.safe_io import FileRefused


def _refused(call, *args, **kwargs) -> str:
    with pytest.raises(FileRefused) as info:
        call(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    return message


def test_a_regular_file_is_read_with_its_byte_order_mark_stripped(tmp_path):
    path = tmp_path / "card.json"
    path.write_bytes(b'\xef\xbb\xbf{"epsilon": 1}')  # as Windows editors save it
    assert safe_io.read_user_file(path, max_bytes=100, what="card") == '{"epsilon": 1}'
    assert safe_io.read_json(path, max_bytes=100, what="card") == {"epsilon": 1}
    assert safe_io.read_user_file(path, max_bytes=100, what="card", binary=True)[:3] == (
        b"\xef\xbb\xbf"
    )


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    message = _refused(safe_io.read_user_file, fifo, max_bytes=10, what="scores file")
    assert message == f"scores file {fifo}: is a named pipe (FIFO), not a regular file"
    assert "named pipe" in _refused(safe_io.check_input, fifo, what="-s")


def test_a_device_is_refused_before_anything_is_read():
    message = _refused(safe_io.read_user_file, "/dev/zero", max_bytes=10, what="config file")
    assert message == "config file /dev/zero: is a character device, not a regular file"


def test_a_folder_a_missing_file_and_a_file_over_the_limit(tmp_path):
    assert "is a directory" in _refused(
        safe_io.read_user_file, tmp_path, max_bytes=10, what="config file"
    )
    assert _refused(
        safe_io.read_user_file, tmp_path / "none.yaml", max_bytes=10, what="config file"
    ) == (f"config file {tmp_path / 'none.yaml'}: no such file")
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.truncate(3 << 20)  # sparse: nothing is written
    assert _refused(safe_io.read_user_file, big, max_bytes=1 << 20, what="scores file") == (
        f"scores file {big}: 3 MiB, over the 1 MiB limit"
    )
    (tmp_path / "latin1.csv").write_bytes(b"caf\xe9\n")
    assert "not UTF-8 text (byte 3)" in _refused(
        safe_io.read_user_file, tmp_path / "latin1.csv", max_bytes=100, what="scores file"
    )


def test_a_name_too_long_is_one_short_line(tmp_path):
    long = tmp_path / ("x" * 300 + ".json")
    message = _refused(safe_io.read_user_file, long, max_bytes=10, what="card")
    assert "is 305 characters long (at most 255)" in message and "…" in message
    assert "305 characters" in _refused(safe_io.check_output, long)
    assert "305 characters" in _refused(safe_io.check_folder, long, what="-d")


@pytest.mark.parametrize("deep", [65, 100_000])
def test_deep_json_is_refused_naming_the_limit(tmp_path, deep):
    path = tmp_path / "deep.json"
    path.write_text("[" * deep + "]" * deep)
    message = _refused(safe_io.read_json, path, max_bytes=1 << 20, what="card")
    assert message == f"card {path}: nested more than 64 levels deep"
    path.write_text("[" * 64 + "]" * 64)
    assert safe_io.depth(safe_io.read_json(path, max_bytes=1 << 20, what="card")) == 64
    path.write_text('{"a": [1, 2')
    assert "not valid JSON (line 1, column 12" in _refused(
        safe_io.read_json, path, max_bytes=100, what="card"
    )


def test_an_output_that_is_an_input_a_folder_or_a_device_is_refused(tmp_path):
    scores = tmp_path / "scores.csv"
    scores.write_text("score,member\n0.1,1\n")
    message = _refused(safe_io.write_output, scores, "{}", inputs=[scores], what="--out")
    assert message.startswith(f"--out {scores}: is an input of this command ({scores})")
    # the same file by another name
    os.link(scores, tmp_path / "alias.csv")
    _refused(safe_io.write_output, tmp_path / "alias.csv", "{}", inputs=[scores])
    assert scores.read_text() == "score,member\n0.1,1\n"
    assert "is a directory" in _refused(safe_io.write_output, tmp_path, "{}", what="--out")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "named pipe" in _refused(safe_io.write_output, fifo, "{}")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert "no folder" in _refused(safe_io.write_output, tmp_path / "no" / "x.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias.csv", "pipe", "scores.csv"]


def test_dev_full_is_never_replaced_by_a_regular_file():
    """As root, renaming a temporary file over /dev/full replaced the device node (the issue's
    probe); refused before anything is written, whoever runs it."""
    message = _refused(safe_io.write_output, "/dev/full", "{}", what="--out")
    assert (
        message == "--out /dev/full: is a character device, not a regular file; nothing was written"
    )
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_device_put_in_place_during_the_write_is_not_renamed_over(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    real_fsync = os.fsync

    def swap(fd):  # between the check and the rename, the target becomes a pipe
        real_fsync(fd)
        os.mkfifo(target)

    monkeypatch.setattr(os, "fsync", swap)
    assert "named pipe" in _refused(safe_io.write_output, target, "{}")
    assert stat.S_ISFIFO(os.stat(target).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_full_disk_leaves_the_target_unchanged_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "claims.csv"
    target.write_text("the old ledger\n")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    message = _refused(safe_io.write_output, target, "the new ledger\n", what="ledger")
    assert (
        message
        == f"ledger {target}: could not be written (no space left on device); it is unchanged"
    )
    assert target.read_text() == "the old ledger\n"
    assert [p.name for p in tmp_path.iterdir()] == ["claims.csv"]
    # a sidecar's write too (it left `<file>.sha256.part` before)
    _refused(checksums.write_sidecars, [target])
    assert [p.name for p in tmp_path.iterdir()] == ["claims.csv"]


def test_a_write_keeps_the_usual_permissions_and_replaces_a_regular_file(tmp_path):
    target = tmp_path / "report.json"
    target.write_text("old")
    safe_io.write_output(target, json.dumps({"a": 1}))
    assert json.loads(target.read_text()) == {"a": 1}
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    long = tmp_path / ("y" * 255)  # the longest name: the temporary file's name still fits
    safe_io.write_output(long, b"bytes")
    assert long.read_bytes() == b"bytes"
