"""The audit's columns, checked: membership scores or reconstruction outcomes.

Every check raises :class:`AuditInputError` naming the file and the column, so that the command
can print one line and write nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import AuditInputError

#: fewest canaries per side (members, non-members) or targets: below it no bound is informative
#: and a typo (a file of five rows) is likelier than an audit
MIN_PER_SIDE = 10

MEMBERSHIP = ("score", "member")
RECONSTRUCTION = ("hit", "prior")


@dataclass(frozen=True)
class Canaries:
    """One canary set's scores (higher = member) split by membership."""

    members: np.ndarray
    nonmembers: np.ndarray


@dataclass(frozen=True)
class Targets:
    """Reconstruction outcomes: ``hit`` (0/1) and the attacker's ``prior`` success per target."""

    hits: np.ndarray
    priors: np.ndarray


def kind_of(columns: dict, where: str) -> str:
    names = set(columns)
    if set(RECONSTRUCTION) <= names and set(MEMBERSHIP) <= names:  # which one is meant: a guess
        raise AuditInputError(
            where,
            "has both membership columns ('score', 'member') and reconstruction columns ('hit', "
            "'prior'): ambiguous; keep the columns of one audit",
        )
    if set(RECONSTRUCTION) <= names:
        return "reconstruction"
    if set(MEMBERSHIP) <= names:
        return "membership"
    raise AuditInputError(
        where,
        "needs columns 'score' and 'member' (membership scores) or 'hit' and 'prior' "
        f"(reconstruction outcomes); found {', '.join(repr(c) for c in sorted(names)) or 'none'}",
    )


def _lengths(columns: dict, where: str) -> int:
    sizes = {k: np.asarray(v).reshape(-1).size for k, v in columns.items()}
    if len(set(sizes.values())) > 1:
        raise AuditInputError(
            where,
            "columns of different lengths: " + ", ".join(f"{k} {n}" for k, n in sizes.items()),
        )
    return next(iter(sizes.values()), 0)


def plain(v) -> str:
    """A value as a user wrote it: numpy scalars as Python's (``nan``, not ``np.float64(nan)``)."""
    if isinstance(v, np.generic):
        v = v.item()
    return repr(v) if isinstance(v, str) else str(v)


def _numbers(columns: dict, name: str, where: str) -> np.ndarray:
    raw = np.asarray(columns[name]).reshape(-1)
    if raw.dtype == bool:
        return raw.astype(float)
    if np.iscomplexobj(raw):  # dropping the imaginary part would be a guess at what was meant
        bad = next((v for v in raw if np.imag(v) != 0), raw[0] if raw.size else None)
        raise AuditInputError(
            f"{where}: column {name!r}", f"must be real numbers, got the complex {plain(bad)}"
        )
    try:
        x = np.asarray(raw, dtype=float)  # no copy when the column is already float64
    except (TypeError, ValueError):
        bad = next((v for v in raw if not _is_number(v)), raw[0] if raw.size else None)
        raise AuditInputError(
            f"{where}: column {name!r}", f"must be numbers, got {plain(bad)}"
        ) from None
    if not np.isfinite(x).all():
        nan = np.flatnonzero(~np.isfinite(x))
        i = int(nan[0])
        raise AuditInputError(
            f"{where}: column {name!r}",
            f"{nan.size} value(s) are NaN, infinite or empty (first at row {i + 1}: "
            f"{plain(raw[i])})",
        )
    return x


def _is_number(v) -> bool:
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def _binary(columns: dict, name: str, where: str) -> np.ndarray:
    raw = np.asarray(columns[name]).reshape(-1)
    if raw.dtype == bool:
        return raw
    if raw.dtype.kind in "iu":  # integers: no float copy of a large column
        ok = (raw == 0) | (raw == 1)
        if ok.all():
            return raw.astype(bool)
    x = _numbers(columns, name, where)
    bad = np.flatnonzero((x != 0) & (x != 1))
    if bad.size:
        i = int(bad[0])
        raise AuditInputError(
            f"{where}: column {name!r}", f"must be 0 or 1, got {x[i]:g} at row {i + 1}"
        )
    return x.astype(bool)


def _unique_ids(columns: dict, where: str) -> None:
    if "id" not in columns:
        return
    ids = np.asarray(columns["id"]).reshape(-1).astype(str)
    uniq, counts = np.unique(ids, return_counts=True)
    dup = uniq[counts > 1]
    if dup.size:
        raise AuditInputError(
            f"{where}: column 'id'",
            f"{dup.size} duplicate id(s), e.g. {dup[0]!r}: each canary or target is one row",
        )


def _rows(columns: dict, where: str) -> int:
    n = _lengths(columns, where)
    if n == 0:
        raise AuditInputError(where, "has no rows (a header only?): an audit needs canaries")
    return n


def membership(columns: dict, where: str) -> dict[str, Canaries]:
    """Canary sets by group (one set ``"all"`` without a ``group`` column)."""
    _rows(columns, where)
    _unique_ids(columns, where)
    scores = _numbers(columns, "score", where)
    member = _binary(columns, "member", where)
    if "group" in columns:
        raw = np.asarray(columns["group"], dtype=object).reshape(-1)
        blank = [i for i, v in enumerate(raw) if v is None or str(v).strip() in ("", "nan")]
        if blank:  # an extra group of the blanks, or the blanks in no group: either a guess
            raise AuditInputError(
                f"{where}: column 'group'",
                f"row {blank[0] + 1} is blank ({len(blank)} blank cell(s)): every canary needs "
                "its group",
            )
        groups = raw.astype(str)
        uniq, first = np.unique(groups, return_index=True)
        names = uniq[np.argsort(first)].tolist()  # first-seen order
        selections = [(g, groups == g) for g in names]
    else:
        selections = [("all", None)]  # one set: no per-row group strings for a million scores
    out = {}
    for g, sel in selections:
        if sel is None:
            m, n = scores[member], scores[~member]
        else:
            m, n = scores[sel & member], scores[sel & ~member]
        label = "" if sel is None else f" (group {g!r})"
        if m.size == 0 or n.size == 0:
            raise AuditInputError(
                f"{where}: column 'member'",
                f"only {'non-members (0)' if m.size == 0 else 'members (1)'}{label}: an audit "
                "needs canaries of both classes",
            )
        if min(m.size, n.size) < MIN_PER_SIDE:
            raise AuditInputError(
                f"{where}: column 'member'",
                f"{m.size} member(s) and {n.size} non-member(s){label}: at least "
                f"{MIN_PER_SIDE} of each are needed",
            )
        out[g] = Canaries(members=m, nonmembers=n)
    return out


def reconstruction(columns: dict, where: str) -> Targets:
    n = _rows(columns, where)
    _unique_ids(columns, where)
    hits = _binary(columns, "hit", where)
    priors = _numbers(columns, "prior", where)
    bad = np.flatnonzero((priors <= 0) | (priors > 1))
    if bad.size:
        i = int(bad[0])
        raise AuditInputError(
            f"{where}: column 'prior'",
            f"must be a probability in (0, 1], got {priors[i]:g} at row {i + 1}",
        )
    if n < MIN_PER_SIDE:
        raise AuditInputError(where, f"{n} target(s): at least {MIN_PER_SIDE} are needed")
    return Targets(hits=hits, priors=priors)
