"""Reading the files a user names, and writing a command's outputs, so that nothing hangs,
exhausts memory or is destroyed.

A path given on the command line may be anything: a named pipe (reading it waits forever for a
writer), ``/dev/zero`` (reading it never ends), a folder, a 300-character name, a JSON nested
100,000 deep (Python's parser raises ``RecursionError``), or, as an output, the very file the
command reads (``--out scores.csv`` would overwrite the scores) or a device (as root, renaming a
temporary file over ``/dev/full`` replaces the device node). Every such case is a
:class:`FileRefused` here, a ``ValueError`` whose message is one line naming the file and why;
a command prints it and exits 2.

* :func:`read_user_file`: a regular file only (checked on the open file, without blocking on a
  pipe), at most ``max_bytes`` (the limit is in the message), UTF-8 with a byte-order mark
  stripped (Windows editors write one);
* :func:`read_json`: the same, parsed, nested at most ``max_depth`` levels;
* :func:`check_input`, :func:`check_folder`, :func:`check_output`: the same refusals before any
  work is done (an output that is an input of the command, a folder, a device, a pipe);
* :func:`write_output`: :func:`check_output`, then the bytes into a temporary file beside the
  target, renamed over it only if the target is still a regular file (or absent); the temporary
  file is removed whatever fails (a full disk included), and the target is then unchanged.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: the longest name one path component may have on the file systems we run on (Linux NAME_MAX)
NAME_MAX = 255
#: how deep a JSON file a user gives may nest (cards, reports and records nest a few levels)
MAX_DEPTH = 64
#: how much of a long path a message shows
SHOWN = 120


class FileRefused(ValueError):
    """A file a user named, or an output path, refused; the message is one line naming it."""


def shown(path: str | os.PathLike) -> str:
    """The path as a message shows it: a very long one cut in the middle."""
    text = os.fspath(path)
    return text if len(text) <= SHOWN else f"{text[: SHOWN // 2]}…{text[-SHOWN // 3 :]}"


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "an unknown kind of file"


def _long_name(path: str | os.PathLike) -> str | None:
    longest = max((len(part) for part in Path(path).parts), default=0)
    if longest > NAME_MAX:
        return f"a name in it is {longest} characters long (at most {NAME_MAX})"
    return None


def _why(err: OSError) -> str:
    return (err.strerror or type(err).__name__).lower()


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} bytes"


def read_user_file(
    path: str | os.PathLike, *, max_bytes: int, what: str, binary: bool = False
) -> Any:
    """The content of the regular file at ``path`` (text, BOM stripped; bytes with ``binary``);
    :class:`FileRefused` naming it as ``what`` when it is missing, not a regular file, larger
    than ``max_bytes``, or not UTF-8 text."""
    where = f"{what} {shown(path)}"
    check_input(path, what=what)  # not even opened when it is no regular file (some devices act)
    try:  # O_NONBLOCK: a pipe put there since the check is opened without waiting for a writer
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileRefused(f"{where}: no such file") from None
    except OSError as err:
        raise FileRefused(f"{where}: cannot be opened ({_why(err)})") from None
    mode, size = (st := os.fstat(fd)).st_mode, st.st_size  # of what was opened, not a name
    if not stat.S_ISREG(mode) or size > max_bytes:
        os.close(fd)
        if not stat.S_ISREG(mode):
            raise FileRefused(f"{where}: is {_kind(mode)}, not a regular file")
        raise FileRefused(f"{where}: {_size(size)}, over the {_size(max_bytes)} limit")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(max_bytes + 1)  # a file growing as it is read stops at the limit
        except OSError as err:
            raise FileRefused(f"{where}: cannot be read ({_why(err)})") from None
    if len(data) > max_bytes:
        raise FileRefused(f"{where}: over the {_size(max_bytes)} limit (it grew while read)")
    if binary:
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise FileRefused(f"{where}: not UTF-8 text (byte {err.start})") from None


def depth(value: Any) -> int:
    """Levels of lists and mappings in a parsed JSON value (an iterative walk: no recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        node, level = todo.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            deepest = max(deepest, level)
            todo += [(v, level + 1) for v in node]
    return deepest


def read_json(
    path: str | os.PathLike, *, max_bytes: int, what: str, max_depth: int = MAX_DEPTH
) -> Any:
    """A JSON file read with :func:`read_user_file`, parsed; nested more than ``max_depth``
    levels, or not JSON, is a :class:`FileRefused` naming it."""
    text = read_user_file(path, max_bytes=max_bytes, what=what)
    where = f"{what} {shown(path)}"
    try:
        value = json.loads(text)
    except RecursionError:
        raise FileRefused(f"{where}: nested more than {max_depth} levels deep") from None
    except json.JSONDecodeError as err:
        raise FileRefused(
            f"{where}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None
    if depth(value) > max_depth:
        raise FileRefused(f"{where}: nested more than {max_depth} levels deep")
    return value


def check_input(path: str | os.PathLike, *, what: str) -> Path:
    """``path`` if it is a regular file (not read); else :class:`FileRefused` naming it."""
    return _check_kind(path, what, stat.S_ISREG, "file", "a regular file")


def check_folder(path: str | os.PathLike, *, what: str) -> Path:
    """``path`` if it is a folder; else :class:`FileRefused` naming it (a missing one, a file, a
    name too long: ``Path.is_dir`` raises on that one)."""
    return _check_kind(path, what, stat.S_ISDIR, "folder", "a folder")


def _check_kind(path, what: str, is_kind, noun: str, wanted: str) -> Path:
    """``path`` if ``is_kind`` holds for its mode; else :class:`FileRefused`: a name too long, a
    missing ``noun``, one that cannot be read, or another kind than ``wanted``."""
    where = f"{what} {shown(path)}"
    if long := _long_name(path):
        raise FileRefused(f"{where}: {long}")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileRefused(f"{where}: no such {noun}") from None
    except OSError as err:
        raise FileRefused(f"{where}: cannot be read ({_why(err)})") from None
    if not is_kind(mode):
        raise FileRefused(f"{where}: is {_kind(mode)}, not {wanted}")
    return Path(path)


def check_output(
    path: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (), what: str = "output"
) -> Path:
    """``path`` if a command may write it: absent (in an existing folder) or a regular file, and
    none of the command's ``inputs``; else :class:`FileRefused` naming it. Called before the
    command does its work, so that nothing is computed for an output that would be refused."""
    path = Path(path)
    where = f"{what} {shown(path)}"
    if long := _long_name(path):
        raise FileRefused(f"{where}: {long}")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not os.path.isdir(path.parent):
            raise FileRefused(f"{where}: no folder {shown(path.parent)} to write it in") from None
        return path
    except OSError as err:
        raise FileRefused(f"{where}: cannot be written ({_why(err)})") from None
    if not stat.S_ISREG(mode):
        raise FileRefused(f"{where}: is {_kind(mode)}, not a regular file; nothing was written")
    for given in inputs:
        try:
            same = os.path.samefile(path, given)
        except (OSError, ValueError):
            continue  # an input that is not there cannot be overwritten
        if same:
            raise FileRefused(
                f"{where}: is an input of this command ({shown(given)}); writing it would "
                "destroy it: name another file"
            )
    return path


def write_output(
    path: str | os.PathLike,
    data: str | bytes,
    *,
    inputs: Iterable[str | os.PathLike] = (),
    what: str = "output",
) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` atomically after :func:`check_output`; any
    failure (a full disk, a device put there meanwhile) is a :class:`FileRefused`, with the
    target unchanged and no temporary file left."""
    inputs = list(inputs)
    path = check_output(path, inputs=inputs, what=what)
    raw = data.encode() if isinstance(data, str) else data
    # a name of its own beside the target (same file system, so the rename is atomic); short
    # enough for a target whose name is NAME_MAX long
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:64]}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())  # a full disk is told here, not after the rename
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as open() would have made it (mkstemp makes 0600)
        # again just before the rename: never rename over a folder, device or pipe put there
        check_output(path, inputs=inputs, what=what)
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise FileRefused(
                f"{what} {shown(path)}: could not be written ({_why(err)}); it is unchanged"
            ) from None
        raise
    return path
