"""The one on-disk format of a model's query values (xu2022 Experiment 2 reads it).

A training step trains a model ``runs`` times (one seed each: its own training split, initial
weights and batches) and saves, for every run and every point of the dataset, the values of the
model's queries Q_S(z):

* ``<name>_queries.npz``: ``member`` (runs, N) bool — z in that run's training set S; one array
  ``q_<query>`` (runs, N, d) per query (d columns, e.g. (D_1, D_2) of privGAN or one column per
  synthetic-set size of the nearest-neighbour distance); any further arrays (masks, images) as
  they are;
* ``<name>_record.json`` beside it: what was trained (data source, sizes, settings, per-run seeds,
  membership AUCs, wall time, threads).

:func:`save` writes both atomically (a temporary name, then a rename), :func:`load` reads them
into :class:`Queries`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

PREFIX = "q_"


def record_path(path: str | Path) -> Path:
    """The record JSON next to a ``*_queries.npz``."""
    p = Path(path)
    return p.with_name(p.name.replace("_queries.npz", "_record.json"))


@dataclass(frozen=True)
class Queries:
    """Query values of every run of one model: ``member`` (runs, N), ``values[q]`` (runs, N, d)."""

    member: np.ndarray
    values: Mapping[str, np.ndarray]
    arrays: Mapping[str, np.ndarray] = field(default_factory=dict)
    record: Mapping[str, Any] = field(default_factory=dict)

    @property
    def runs(self) -> int:
        return int(self.member.shape[0])

    def split(
        self, query: str, run: int, columns: int | slice | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(members' values, hold-out points' values) of one query in one run, shape (n, d)."""
        if query not in self.values:
            raise KeyError(f"no query {query!r}; saved: {', '.join(self.values)}")
        q = self.values[query][run]
        if columns is not None:
            q = q[:, columns]
            q = q[:, None] if q.ndim == 1 else q
        m = self.member[run]
        return q[m], q[~m]


def _check(member: np.ndarray, values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    if member.ndim != 2 or member.dtype != bool:
        raise ValueError(
            f"member must be a (runs, N) bool array, got {member.dtype} {member.shape}"
        )
    out = {}
    for k, v in values.items():
        v = np.asarray(v, dtype=np.float64)
        v = v[..., None] if v.ndim == 2 else v
        if v.ndim != 3 or v.shape[:2] != member.shape:
            raise ValueError(f"query {k!r} has shape {v.shape}, expected {member.shape} + (d,)")
        if not np.isfinite(v).all():
            raise ValueError(f"query {k!r} has non-finite values")
        out[k] = v
    if not (member.any(1) & (~member).any(1)).all():
        raise ValueError("every run needs members and hold-out points")
    return out


def save(
    path: str | Path,
    *,
    member: np.ndarray,
    values: Mapping[str, np.ndarray],
    record: Mapping[str, Any],
    **arrays: np.ndarray,
) -> None:
    """Write the queries npz and its record JSON (each under a temporary name first)."""
    member = np.asarray(member, dtype=bool)
    checked = _check(member, values)
    clash = [k for k in arrays if k == "member" or k.startswith(PREFIX)]
    if clash:
        raise ValueError(f"array names {clash} are reserved")
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, member=member, **{PREFIX + k: v for k, v in checked.items()}, **arrays)
    os.replace(tmp, path)
    rec, rec_tmp = record_path(path), record_path(path).with_suffix(".json.tmp")
    rec_tmp.write_text(json.dumps(record, indent=2, default=_json) + "\n")
    os.replace(rec_tmp, rec)


def _json(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return float(o)


def load(path: str | Path) -> Queries:
    """A ``*_queries.npz`` and its record (``{}`` when the JSON is absent)."""
    with np.load(path) as z:
        member = z["member"].astype(bool)
        values = {k[len(PREFIX) :]: z[k] for k in z.files if k.startswith(PREFIX)}
        arrays = {k: z[k] for k in z.files if k != "member" and not k.startswith(PREFIX)}
    rec = record_path(path)
    record = json.loads(rec.read_text()) if rec.is_file() else {}
    return Queries(member, _check(member, values), arrays, record)
