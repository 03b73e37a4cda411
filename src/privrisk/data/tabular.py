"""Categorical tables shared by the tabular datasets (ACS, FIRE).

A :class:`CategoricalTable` holds integer codes ``0..|D_j|-1`` per column with the column
names and domain sizes. Loaders map raw values to codes through fixed value lists (so the codes
do not depend on which values a file happens to contain) and raise :class:`DataFormatError`
naming the file and the column when a raw file is corrupt or mis-shaped.

The stand-ins are Bayesian networks with the real column domains (design.md §6): a fixed,
plausible degree-<=2 structure and seeded Dirichlet conditional tables around hand-shaped base
marginals, from which a "raw" table is sampled.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core import seeds
from . import sources


class DataFormatError(ValueError):
    """A raw data file is corrupt or mis-shaped (the message names file and column).

    A *missing* file is :class:`privrisk.data.sources.DataUnavailable`."""


@dataclass
class CategoricalTable:
    """Integer-coded categorical data.

    Attributes:
        codes: (rows, d) int array, column j in ``0..domains[j]-1``.
        columns: the d column names.
        domains: the d domain sizes.
        source: ``real``, ``real-unverified`` (:func:`privrisk.data.sources.label`) or
            ``standin``.
        info: provenance notes (file, rows read, subsampling).
    """

    codes: np.ndarray
    columns: list[str]
    domains: list[int]
    source: str
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.codes = np.asarray(self.codes, dtype=np.int64)
        if self.codes.ndim != 2 or self.codes.shape[1] != len(self.columns):
            raise ValueError(
                f"codes shape {self.codes.shape} does not match {len(self.columns)} columns"
            )
        if len(self.domains) != len(self.columns):
            raise ValueError("one domain size per column expected")
        dom = np.asarray(self.domains)
        if self.codes.size and (self.codes.min() < 0 or np.any(self.codes.max(axis=0) >= dom)):
            bad = [
                c
                for c, m, k in zip(self.columns, self.codes.max(axis=0), dom, strict=True)
                if m >= k
            ]
            raise ValueError(f"codes outside their domains in column(s) {bad}")

    @property
    def n_rows(self) -> int:
        return int(self.codes.shape[0])


def csv_header(path: str | Path) -> list[str]:
    """Column names of a CSV file; DataUnavailable if it is missing, DataFormatError if unreadable."""
    path = Path(path)
    if not path.is_file():
        raise sources.DataUnavailable(f"{path}: file not found")
    try:
        return list(pd.read_csv(path, nrows=0).columns)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise DataFormatError(f"{path}: not a readable CSV ({err})") from None


def read_csv_columns(
    path: str | Path, columns: Sequence[str], *, dtype=str, nrows: int | None = None
) -> pd.DataFrame:
    """Read ``columns`` of a CSV, raising DataFormatError naming the file and missing columns, or
    a file cut mid-row (:func:`check_last_row`)."""
    path = Path(path)
    header = csv_header(path)
    missing = [c for c in columns if c not in header]
    if missing:
        raise DataFormatError(
            f"{path}: missing column(s) {missing}; the file has {list(header)[:20]}"
        )
    check_last_row(path, len(header))
    try:
        return pd.read_csv(path, usecols=list(columns), dtype=dtype, nrows=nrows, low_memory=False)
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as err:
        raise DataFormatError(f"{path}: cannot parse columns {list(columns)} ({err})") from None


def check_last_row(path: str | Path, n_fields: int, *, tail_bytes: int = 1 << 16) -> None:
    """Refuse a CSV cut mid-row (an interrupted download or copy): pandas fills the missing
    fields of a short last row with blanks, which the coding then reads as missing values, so
    the cut would pass unnoticed. A file that does not end with a newline and whose last line
    has fewer fields than the header's ``n_fields`` is a DataFormatError naming the file."""
    path = Path(path)
    with open(path, "rb") as f:
        end = f.seek(0, 2)
        f.seek(max(0, end - tail_bytes))
        tail = f.read()
    if not tail or tail.endswith((b"\n", b"\r")):
        return
    last = tail.rsplit(b"\n", 1)[-1].decode("utf-8", errors="replace")
    fields = next(csv.reader([last]), [])
    if len(fields) < n_fields:
        raise DataFormatError(
            f"{path}: the file ends mid-row (its last line has {len(fields)} of the header's "
            f"{n_fields} fields and no line end): it was cut short, by an interrupted download "
            "or copy; obtain it again"
        )


def encode_fixed(
    values: pd.Series, domain: Sequence, *, path: str | Path, column: str
) -> np.ndarray:
    """Codes of ``values`` in the fixed value list ``domain``; unknown values raise naming the column."""
    lookup = {v: i for i, v in enumerate(domain)}
    codes = values.map(lookup)
    bad = codes.isna()
    if bad.any():
        examples = sorted({repr(v) for v in values[bad].head(5)})
        raise DataFormatError(
            f"{path}: column {column!r} has {int(bad.sum())} value(s) outside its domain "
            f"(e.g. {', '.join(examples)}); expected one of {list(domain)[:30]}"
        )
    return codes.to_numpy(dtype=np.int64)


@dataclass(frozen=True)
class StandinSpec:
    """A plausible Bayesian network used to generate a stand-in "raw" table.

    Attributes:
        parents: column -> its parents (at most 2, all listed earlier in ``columns`` order).
        base: column -> base marginal shape (unnormalised; length = domain size).
        concentration: column -> Dirichlet concentration around the base (small = strong dependence).
    """

    parents: Mapping[str, tuple[str, ...]]
    base: Mapping[str, Sequence[float]]
    concentration: Mapping[str, float]


def sample_standin(
    columns: Sequence[str], domains: Sequence[int], spec: StandinSpec, n_rows: int, seed: int
) -> np.ndarray:
    """Sample ``n_rows`` coded rows from the stand-in network (deterministic given ``seed``).

    Root columns follow their base marginal exactly; a child's conditional row for each parent
    configuration is Dirichlet(concentration * base), so children vary with their parents around
    a plausible marginal shape.
    """
    rng = seeds.rng(seed)
    index = {c: j for j, c in enumerate(columns)}
    order = _topological(columns, spec.parents)
    out = np.zeros((n_rows, len(columns)), dtype=np.int64)
    for col in order:
        j = index[col]
        base = np.asarray(spec.base[col], dtype=float)
        if base.shape != (domains[j],):
            raise ValueError(
                f"stand-in base of {col!r} has {base.size} entries, domain is {domains[j]}"
            )
        base = base / base.sum()
        pas = [index[p] for p in spec.parents.get(col, ())]
        if not pas:
            out[:, j] = rng.choice(domains[j], size=n_rows, p=base)
            continue
        pa_dims = [domains[p] for p in pas]
        n_cfg = int(np.prod(pa_dims))
        alpha = np.maximum(spec.concentration.get(col, 2.0) * base * domains[j], 1e-3)
        table = rng.dirichlet(alpha, size=n_cfg)  # (configs, |child|)
        cfg = np.ravel_multi_index(tuple(out[:, p] for p in pas), pa_dims)
        # Inverse-CDF sampling of every row at once.
        cdf = np.cumsum(table[cfg], axis=1)
        u = rng.random(n_rows)[:, None]
        out[:, j] = np.minimum((u > cdf).sum(axis=1), domains[j] - 1)
    return out


def _topological(columns: Sequence[str], parents: Mapping[str, tuple[str, ...]]) -> list[str]:
    done: list[str] = []
    todo = list(columns)
    while todo:
        progressed = False
        for c in list(todo):
            if all(p in done for p in parents.get(c, ())):
                done.append(c)
                todo.remove(c)
                progressed = True
        if not progressed:
            raise ValueError(f"stand-in network has a cycle among {todo}")
    return done


def geometric(k: int, ratio: float, start: int = 0) -> list[float]:
    """A skewed base shape: ratio**|i - start| (mode at ``start``)."""
    return [ratio ** abs(i - start) for i in range(k)]


def subsample_rows(df: pd.DataFrame, n: int | None, seed: int) -> pd.DataFrame:
    """At most ``n`` rows drawn without replacement (all rows, in order, if n is None or larger)."""
    if n is None or len(df) <= n:
        return df
    rng = seeds.rng(seed)
    keep = np.sort(rng.choice(len(df), size=n, replace=False))
    return df.iloc[keep]


def load_table(
    name: str,
    block: Mapping[str, Any],
    *,
    seed: int,
    read_real: Callable[..., CategoricalTable],
    standin: Callable[[int, int], CategoricalTable],
    default_path: Path,
) -> CategoricalTable:
    """The raw table of dataset ``name`` for a data block ``{source, path, standin_size, raw_rows}``:
    the real file (``read_real(path, raw_rows=..., seed=...)``) or the stand-in, as
    :func:`privrisk.data.sources.resolve` decides."""
    if sources.resolve(name, block) == "real":
        path = Path(block.get("path", default_path))
        table = validate_real(read_real(path, raw_rows=block.get("raw_rows"), seed=seed), path)
        table.source = sources.label(name, block)  # real or real-unverified
        return table
    return standin(int(block.get("standin_size", 20_000)), seed)


#: fewest usable rows of a real table: the BayNet is fitted to it and the private dataset
#: (100 records in the paper) is sampled from that network; fewer rows cannot support a
#: degree-2 network over 10-16 columns (also the schema's minimum of ``raw_rows``).
MIN_ROWS = 100


def validate_real(
    table: CategoricalTable, path: str | Path, *, min_rows: int = MIN_ROWS
) -> CategoricalTable:
    """Reject a real table the pipeline cannot model: fewer than ``min_rows`` usable rows, or a
    modelled column holding a single value (a constant column carries no information to infer
    and usually means a mis-shaped or filtered file). Raises DataFormatError naming the file
    (and the column)."""
    if table.n_rows < min_rows:
        raise DataFormatError(
            f"{path}: only {table.n_rows} usable rows; at least {min_rows} are needed to fit "
            "the Bayesian network"
        )
    for j, col in enumerate(table.columns):
        if np.unique(table.codes[:, j]).size < 2:
            raise DataFormatError(
                f"{path}: column {col!r} holds a single value in all {table.n_rows} usable rows; "
                "a modelled column needs at least two"
            )
    return table
