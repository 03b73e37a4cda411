"""Reading an audit file into named columns: CSV, Parquet, NPZ (and JSON for importers).

A table is a dict of 1-D numpy arrays of equal length. Nothing here knows what the columns mean
(:mod:`.columns` checks them); this module only turns a file into columns or raises
:class:`AuditInputError` naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .errors import AuditInputError

SUFFIXES = (".csv", ".parquet", ".pq", ".npz", ".json")


def read(path: str | Path) -> tuple[str, dict]:
    """(kind of file, content): ``"table"`` with a dict of columns for CSV/Parquet/NPZ, or
    ``"json"`` with the parsed JSON document (LeakPro's results are JSON)."""
    p = Path(path)
    where = str(path)
    if not p.exists():
        raise AuditInputError(where, "no such file")
    if p.is_dir():
        raise AuditInputError(where, "is a directory, not a file")
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise AuditInputError(
            where,
            f"unknown file type {suffix or '(none)'!r}; expected one of {', '.join(SUFFIXES)}",
        )
    try:
        if suffix == ".csv":
            return "table", _csv(p)
        if suffix in (".parquet", ".pq"):
            return "table", _parquet(p, where)
        if suffix == ".npz":
            return "table", _npz(p, where)
        return "json", json.loads(p.read_text())
    except AuditInputError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise AuditInputError(where, f"cannot be read: {first}") from None


def _csv(p: Path) -> dict:
    import pandas as pd

    frame = pd.read_csv(p, skipinitialspace=True)
    return {str(c).strip(): frame[c].to_numpy() for c in frame.columns}


def _parquet(p: Path, where: str) -> dict:
    import pandas as pd

    try:
        frame = pd.read_parquet(p)
    except ImportError:
        raise AuditInputError(
            where, "reading Parquet needs pyarrow (pip install pyarrow), or give CSV/NPZ"
        ) from None
    return {str(c): frame[c].to_numpy() for c in frame.columns}


def _npz(p: Path, where: str) -> dict:
    with np.load(p, allow_pickle=False) as z:
        return {k: np.asarray(z[k]) for k in z.files}
