"""Reading an audit file into named columns: CSV, Parquet, NPZ (and JSON for importers).

A table is a dict of 1-D numpy arrays of equal length. Nothing here knows what the columns mean
(:mod:`.columns` checks them); this module only turns a file into columns or raises
:class:`AuditInputError` naming the file.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from pathlib import Path

import numpy as np

from privrisk.core.file_kinds import mismatch
from privrisk.core.safe_io import FileRefused, check_input, read_user_file, shown

from .errors import AuditInputError

#: the largest file of attack results read (10⁸ rows of a score and a 0/1 column in CSV)
MAX_BYTES = 4 << 30
SUFFIXES = (".csv", ".parquet", ".pq", ".npz", ".json")
#: an NPZ may declare at most this many times its own size once inflated …
NPZ_MAX_RATIO = 20
#: … unless it declares less than this (small, very compressible audits stay readable)
NPZ_MIN_LIMIT = 256 * 2**20


def read(path: str | Path) -> tuple[str, dict, str]:
    """(kind of file, content, SHA-256 of the file): ``"table"`` with a dict of columns for
    CSV/Parquet/NPZ, or ``"json"`` with the parsed JSON document (LeakPro's results are JSON).
    The file is read once: the hash and the parser share the bytes."""
    p = Path(path)
    where = shown(path)
    try:  # a regular file (a pipe would hang, /dev/zero never end), name not too long
        check_input(p, what="")
    except FileRefused as err:
        raise AuditInputError(where, str(err).strip().removeprefix(f"{where}: ")) from None
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise AuditInputError(
            where,
            f"unknown file type {suffix or '(none)'!r}; expected one of {', '.join(SUFFIXES)}",
        )
    try:  # checked again on the open file, and at most MAX_BYTES read
        data = read_user_file(p, max_bytes=MAX_BYTES, what="", binary=True)
    except FileRefused as err:
        raise AuditInputError(where, str(err).strip().removeprefix(f"{where}: ")) from None
    if why := mismatch(data, "attack", also=("archive", "parquet")):  # an RDP curve, a card …
        raise AuditInputError(where, why)
    digest = hashlib.sha256(data).hexdigest()
    try:
        if suffix == ".csv":
            return "table", _csv(data, where), digest
        if suffix in (".parquet", ".pq"):
            return "table", _parquet(data, where), digest
        if suffix == ".npz":
            return "table", _npz(data, where), digest
        return "json", json.loads(data.decode("utf-8")), digest
    except AuditInputError:
        raise
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        EOFError,
        zipfile.BadZipFile,
        zlib.error,
    ) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise AuditInputError(where, f"cannot be read ({type(err).__name__}): {first}") from None


def _csv(data: bytes, where: str) -> dict:
    if not data.strip():
        raise AuditInputError(where, "is empty: no header and no rows")
    try:  # pyarrow's reader is several times faster on millions of rows
        import pyarrow.csv as pa_csv

        table = pa_csv.read_csv(io.BytesIO(data))
        names = [str(c).strip() for c in table.column_names]
        _unique(names, where)
        return {n: table.column(i).to_numpy() for i, n in enumerate(names)}
    except AuditInputError:
        raise
    except Exception:  # no pyarrow, or a file it refuses (spaces, mixed types): pandas says why
        pass
    import csv

    import pandas as pd

    head = data.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].decode("utf-8", "replace")
    _unique([c.strip() for c in next(csv.reader([head]), [])], where)  # pandas renames a twin
    frame = pd.read_csv(io.BytesIO(data), skipinitialspace=True)
    return {str(c).strip(): frame[c].to_numpy() for c in frame.columns}


def _unique(names: list[str], where: str) -> None:
    """A column named twice: which one is meant would be a guess (the first was used)."""
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise AuditInputError(
            where,
            f"column {twice[0]!r} appears {names.count(twice[0])} times: ambiguous; keep one",
        )


def _parquet(data: bytes, where: str) -> dict:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise AuditInputError(
            where, "reading Parquet needs pyarrow (pip install pyarrow), or give CSV/NPZ"
        ) from None
    try:
        table = pq.read_table(io.BytesIO(data))
    except Exception as err:  # pyarrow's own errors (ArrowInvalid …) are not ValueErrors
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise AuditInputError(where, f"cannot be read as Parquet: {first}") from None
    return {str(c): table.column(c).to_numpy() for c in table.column_names}


def _npz(data: bytes, where: str) -> dict:
    """The arrays of an NPZ, refusing one whose entries declare more than :data:`NPZ_MAX_RATIO`
    times the file's size (and more than :data:`NPZ_MIN_LIMIT`) once inflated: a decompression
    bomb is refused by its declared size, before anything is inflated."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        declared = sum(i.file_size for i in z.infolist())
    limit = max(NPZ_MIN_LIMIT, NPZ_MAX_RATIO * len(data))
    if declared > limit:
        raise AuditInputError(
            where,
            f"declares {declared:,} bytes once inflated from {len(data):,} bytes (more than "
            f"{NPZ_MAX_RATIO} times its size): refused unread (save it with np.savez, not "
            "compressed, if it is a real audit)",
        )
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {k: np.asarray(z[k]) for k in z.files}
