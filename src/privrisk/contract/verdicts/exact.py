"""Exact checks (analytic curves and closed forms).

A closed form or a deterministic computation (a grid search, an exact posterior) has no sampling
error: the statement about it is decided by a plain comparison, up to a stated numerical
tolerance, and is never uninformative. A paper computes the numbers; these functions make the
comparison that turns them into a status, so no paper writes a decision rule. Each returns a
Verdict whose note is empty when it holds and says why when it fails (``why``; with ``x``, the
first place it fails), for the ledger's note (:meth:`privrisk.contract.claims.Ledger.judged`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .verdict import Verdict


def _exact(holds: bool, why: str, where: str = "") -> Verdict:
    return Verdict(True, "") if holds else Verdict(False, " ".join(p for p in (why, where) if p))


def _first_at(bad: np.ndarray, x) -> str:
    if x is None or not bad.any():
        return ""
    xs = np.broadcast_to(np.asarray(x, float), bad.shape)
    return f"at x = {xs[np.nonzero(bad)][0]:g}"


def exact_below(
    values, bound, *, tol: float = 0.0, strict: bool = False, why: str = "", x=None
) -> Verdict:
    """Every value is at most ``bound + tol`` (below ``bound + tol`` when ``strict``); ``values``
    and ``bound`` broadcast (numbers or arrays). A NaN value fails."""
    v, b = np.broadcast_arrays(np.asarray(values, float), np.asarray(bound, float))
    ok = v < b + tol if strict else v <= b + tol
    return _exact(bool(np.all(ok)), why, _first_at(~ok, x))


def exact_above(
    values, bound, *, tol: float = 0.0, strict: bool = True, why: str = "", x=None
) -> Verdict:
    """Every value exceeds ``bound + tol`` (is at least ``bound + tol`` when not ``strict``); a
    NaN value fails. ``tol`` < 0 allows a numerical slack below the bound."""
    v, b = np.broadcast_arrays(np.asarray(values, float), np.asarray(bound, float))
    ok = v > b + tol if strict else v >= b + tol
    return _exact(bool(np.all(ok)), why, _first_at(~ok, x))


def exact_somewhere_below(values, bound, *, tol: float = 0.0, why: str = "") -> Verdict:
    """Some value lies strictly below ``bound − tol`` (e.g. "strictly tighter somewhere")."""
    v, b = np.broadcast_arrays(np.asarray(values, float), np.asarray(bound, float))
    return _exact(bool(np.any(v < b - tol)), why)


def exact_close(
    values, reference, *, atol: float = 0.0, rtol: float = 0.0, why: str = ""
) -> Verdict:
    """Every value equals the reference within ``atol + rtol·|reference|`` (``numpy.allclose``:
    a numerical search against its closed form)."""
    ok = np.allclose(np.asarray(values, float), np.asarray(reference, float), atol=atol, rtol=rtol)
    return _exact(bool(ok), why)


def exact_monotone(y, *, direction: int = 1, strict: bool = True, why: str = "") -> Verdict:
    """The curve ``y`` moves one way along its grid: up for ``direction=+1``, down for ``-1``,
    and for ``0`` the way its ends set (non-strict only; ends that are equal set no direction,
    so any such curve passes). ``strict``: every step moves (a flat step fails)."""
    d = np.diff(np.asarray(y, float))
    if direction == 0:
        if strict:
            raise ValueError("exact_monotone: direction 0 (set by the ends) is non-strict only")
        y = np.asarray(y, float)
        ok = np.all(d * np.sign(y[-1] - y[0]) >= 0)
    elif direction in (1, -1):
        ok = np.all(d * direction > 0) if strict else np.all(d * direction >= 0)
    else:
        raise ValueError(f"exact_monotone: direction {direction!r} is not -1, 0 or +1")
    return _exact(bool(ok), why)


def exact_all(
    parts: Mapping[str, Verdict], *, first: bool = False, why: str | None = None
) -> Verdict:
    """Several exact parts of one statement: holds when every part holds. The note of a failure
    joins the failing parts' reasons ("; "), only the first one's when ``first``, or is
    ``why: <names of the failing parts>`` when ``why`` is given."""
    if not parts:
        raise ValueError("exact_all needs at least one part")
    if any(v.holds is None for v in parts.values()):
        raise ValueError("exact_all combines exact verdicts (each ok or fails), not undecided ones")
    failing = [k for k, v in parts.items() if not v.holds]
    if not failing:
        return Verdict(True, "")
    if why is not None:
        return Verdict(False, f"{why}: {', '.join(failing)}")
    notes = [parts[k].note for k in failing if parts[k].note]
    return Verdict(False, notes[0] if first and notes else "; ".join(notes))


class _Undecidable(Verdict):
    """An analytic statement no computation decides: nothing to plan (the ledger's
    ``to_decide`` stays empty, as it may on an analytic row)."""

    __slots__ = ()

    @property
    def to_decide(self) -> str:
        return ""


def undecidable(why: str) -> Verdict:
    """A statement about exact numbers that no computation can decide (an undefined
    "significantly", a claim about every possible bound): uninformative with ``why`` (the
    estimate, the null, the half-width) as its note, and no plan, since neither more data nor
    more computation would decide it."""
    if not why.strip():
        raise ValueError("undecidable needs a note saying why (estimate, null, half-width)")
    return _Undecidable(None, why)
