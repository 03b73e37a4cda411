"""The rules for experimental estimates: greater, at least, equivalent, below a bound at one point
or at several (:func:`_judge`: robust level, Bonferroni over the points, saturated and vacuous
points left out, a theorem's floor), and monotone curves."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .estimates import Estimate, Floor
from .keep import CERTAIN, Rerun, points_chances, trend
from .levels import POWER, ROBUST, Z, _fmt, bonferroni_z
from .plans import Plan, Prob, Side, _Decide, _plan, combine, never
from .verdict import Verdict


def _points(
    estimates: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
) -> list[tuple[str, Estimate]]:
    if isinstance(estimates, Estimate):
        return [("", estimates)]
    if isinstance(estimates, Mapping):
        return [(str(k), e) for k, e in estimates.items()]
    return [(f"#{i}", e) for i, e in enumerate(estimates)]


def _robust(e: Estimate, decide: _Decide, zz: float) -> bool | None:
    """One point decided robustly at ±zz (module docstring): an estimate whose interval bounds
    nothing (one unit, an unbounded zero-variance sample) decides nothing; an analytic number is
    exact."""
    if not e.decidable:
        return None
    return decide(e, zz)


SATURATED = "every method at the top of the scale in every draw"
VACUOUS = "the margin is larger than the levels compared, so it decides nothing"


def _judge(
    estimates,
    decide: _Decide,
    prob: Prob,
    *,
    z: float,
    statement: str,
    what: str,
    floor: Floor | None = None,
    saturated: Sequence[str] = (),
    vacuous: Sequence[str] = (),
) -> Verdict:
    """Apply ``decide(estimate, z)`` at every point at the robust level ``ROBUST · z``: holds if it
    holds everywhere, fails if it fails somewhere at the Bonferroni level (a failure below the
    theorem's ``floor`` is the estimator's shortfall: uninformative), else uninformative with the
    plan that would decide it (``prob``: the chance the rule decides a point as it leans, from
    the one-sided chances of its interval). Points in ``saturated`` (every method at the top of
    the scale: nothing to tell apart) and in ``vacuous`` (the margin is larger than the levels
    compared: it decides nothing) are left out, and the note says which."""
    points = _points(estimates)
    if not points:
        raise ValueError(f"{statement}: no estimates to judge")
    why_out = {str(s): SATURATED for s in saturated} | {str(s): VACUOUS for s in vacuous}
    unknown = set(why_out) - {lab for lab, _ in points}
    if unknown:
        raise ValueError(f"left-out points {sorted(unknown)} are not among the points")
    left = {}
    for lab, _ in points:
        if lab in why_out:
            left.setdefault(why_out[lab], []).append(lab)
    points = [(lab, e) for lab, e in points if lab not in why_out]
    left_text = "".join(f"; left out ({why}): {', '.join(labs)}" for why, labs in left.items())
    if not points:
        unit = _points(estimates)[0][1].unit
        return Verdict(
            None,
            f"undecided: {statement}: no point left to judge{left_text}",
            never(
                unit,
                "every point is left out (" + "; ".join(left) + "): none can decide the statement",
            ),
            rerun=CERTAIN[None],
        )
    k = len(points)
    zr = ROBUST * z
    zk = bonferroni_z(zr, k)
    at_z = [_robust(e, decide, zr) for _, e in points]
    at_zk = [_robust(e, decide, zk) for _, e in points]
    short = [
        lab
        for lab, e in points
        if floor is not None and e.decidable and e.interval(zk)[1] < floor.value
    ]
    failed = [
        lab for (lab, _), d in zip(points, at_zk, strict=True) if d is False and lab not in short
    ]
    undecided = [lab for (lab, _), d in zip(points, at_z, strict=True) if d is not True]

    def show(lab: str, e: Estimate) -> str:
        return f"{lab}: {e.text(z)}" if lab else e.text(z)

    numbers = f"{what} " + "; ".join(show(lab, e) for lab, e in points)
    experimental = any(not e.analytic for _, e in points)
    level = f"±{z:g} s.e." + (
        f", decided at ±{zr:g} s.e. (robust)" if experimental and zr != z else ""
    )
    level += f", fails judged at ±{zk:.3g} s.e. (Bonferroni over {k})" if k > 1 else ""
    tail = f"{numbers}; {level}{left_text}"
    unit = points[0][1].unit

    def fails_at(e: Estimate) -> bool:
        if _robust(e, decide, zk) is not False:
            return False
        return floor is None or not e.decidable or e.interval(zk)[1] >= floor.value

    def rerun() -> Rerun:
        return points_chances(
            [e for _, e in points], lambda e: _robust(e, decide, zr) is True, fails_at
        )

    if failed:
        where = f" at {', '.join(failed)}" if failed != [""] else ""
        return Verdict(False, f"fails{where}: {statement} [{tail}]", rerun=rerun)
    if short:
        where = f" at {', '.join(short)}" if short != [""] else ""
        return Verdict(
            None,
            f"uninformative: the estimate lies below {_fmt(floor.value)}{where}, though "
            f"{floor.why}: a shortfall of the estimator, not evidence against the statement "
            f"({statement}) [{tail}]",
            never(
                unit,
                f"the estimate falls below {_fmt(floor.value)}, though {floor.why}: a better "
                f"estimator is needed, not more {unit}",
            ),
            rerun=rerun,
        )
    if not undecided:
        return Verdict(True, f"{statement} [{tail}]", rerun=rerun)
    where = f" at {', '.join(undecided)}" if undecided != [""] else ""

    def to_decide(plan: Plan | None) -> str:
        if plan is None:
            return ""
        at = f" at the observed effect ({POWER:.0%} power at the robust level)"
        return f"; to decide: {plan.text()}" + (at if plan.finite else "")

    return Verdict(
        None,
        f"undecided{where}: {statement} within the uncertainty [{tail}]",
        lambda: _plan(points, decide, prob, zr=zr, zk=zk, floor=floor),
        suffix=to_decide,
        rerun=rerun,
    )


def _below_floor(side: Side, v: float, boundary: float, floor: Floor | None) -> np.ndarray:
    """P(the upper end falls below the theorem's floor, where it is below ``boundary`` too): the
    part of a planned failure that would read as the estimator's shortfall."""
    if floor is None:
        return 0.0
    return side(min(floor.value, boundary) - v, False)


def greater(
    diff: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
    *,
    margin: float = 0.0,
    z: float = Z,
    what: str = "A − B",
    floor: Floor | None = None,
    saturated: Sequence[str] = (),
    vacuous: Sequence[str] = (),
) -> Verdict:
    """ "A > B + margin", from the estimate(s) of A − B: holds when the interval lies above the
    margin, fails when it lies at or below it, else uninformative. A margin > 0 states "much
    larger": a precise small difference then fails. ``floor``: a theorem's lower limit on the
    true difference (a query against a function of itself): an estimate robustly below it is the
    estimator's shortfall, never a failure."""

    def decide(e: Estimate, zz: float) -> bool | None:
        lo, hi = e.interval(zz)
        return True if lo > margin else (False if hi <= margin else None)

    def prob(v: float, lean: bool, side: Side) -> np.ndarray:
        if lean:
            return side(v - margin, True)
        return side(margin - v, False) - _below_floor(side, v, margin, floor)

    return _judge(
        diff,
        decide,
        prob,
        z=z,
        statement=f"{what} > {_fmt(margin)}",
        what=what,
        floor=floor,
        saturated=saturated,
        vacuous=vacuous,
    )


def at_least(
    diff: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
    *,
    margin: float = 0.0,
    z: float = Z,
    what: str = "A − B",
    floor: Floor | None = None,
    saturated: Sequence[str] = (),
    vacuous: Sequence[str] = (),
) -> Verdict:
    """Non-inferiority "A ≥ B − margin", from the estimate(s) of A − B (symmetric margin): holds
    when the interval lies above −margin, fails when it lies below −margin, else uninformative.
    With margin 0 an exact tie (analytic numbers) holds; a tie in every draw of a bounded outcome
    holds as far as its exact bound reaches (:func:`tie_share`). ``floor`` as in :func:`greater`."""

    def decide(e: Estimate, zz: float) -> bool | None:
        if e.analytic:
            return bool(e.value >= -margin)
        lo, hi = e.interval(zz)
        return True if lo > -margin else (False if hi < -margin else None)

    def prob(v: float, lean: bool, side: Side) -> np.ndarray:
        if lean:
            return side(v + margin, True)
        return side(-margin - v, False) - _below_floor(side, v, -margin, floor)

    return _judge(
        diff,
        decide,
        prob,
        z=z,
        statement=f"{what} ≥ −{_fmt(margin)}",
        what=what,
        floor=floor,
        saturated=saturated,
        vacuous=vacuous,
    )


def equivalent(
    diff: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
    *,
    margin: float,
    z: float = Z,
    what: str = "A − B",
    floor: Floor | None = None,
    saturated: Sequence[str] = (),
    vacuous: Sequence[str] = (),
) -> Verdict:
    """ "|A − B| ≤ margin" as two one-sided tests: holds when the interval lies inside
    [−margin, margin], fails when it lies wholly outside, else uninformative. A margin of 0
    between experimental estimates can never hold; give the margin the statement means.
    ``floor`` as in :func:`greater` (a failure below it is the estimator's shortfall)."""
    if not margin >= 0:
        raise ValueError(f"equivalence margin {margin!r} must be >= 0")

    def decide(e: Estimate, zz: float) -> bool | None:
        lo, hi = e.interval(zz)
        if -margin <= lo and hi <= margin:
            return True
        if lo > margin or hi < -margin:
            return False
        return None

    def prob(v: float, lean: bool, side: Side) -> np.ndarray:
        if lean:  # both ends inside: at least P(lo inside) + P(hi inside) − 1
            return side(v + margin, True) + side(margin - v, False) - 1.0
        # disjoint: above the margin, or below it without reading as a shortfall
        below = side(-margin - v, False) - _below_floor(side, v, -margin, floor)
        return side(v - margin, True) + below

    return _judge(
        diff,
        decide,
        prob,
        z=z,
        statement=f"|{what}| ≤ {_fmt(margin)}",
        what=what,
        floor=floor,
        saturated=saturated,
        vacuous=vacuous,
    )


def below(
    estimate: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
    bound: float | Sequence[float] | Mapping[str, float],
    *,
    z: float = Z,
    what: str = "estimate",
) -> Verdict:
    """ "The estimate stays at or below the bound" (an attack against its theoretical bound): fails
    when the interval lies above the bound, holds when it lies at or below it, else uninformative.
    ``bound`` is one number or one per point (same order or keys as ``estimate``)."""
    points = _points(estimate)
    if isinstance(bound, Mapping):
        bounds = [float(bound[lab]) for lab, _ in points]
    elif np.ndim(bound) == 0:
        bounds = [float(bound)] * len(points)
    else:
        bounds = [float(b) for b in bound]
        if len(bounds) != len(points):
            raise ValueError(f"{len(bounds)} bounds for {len(points)} estimates")
    # judge estimate − bound <= 0, so that the common machinery does the multiplicity
    shifted = {lab or "": e.shift(-b) for (lab, e), b in zip(points, bounds, strict=True)}

    def decide(e: Estimate, zz: float) -> bool | None:
        lo, hi = e.interval(zz)
        return True if hi <= 0 else (False if lo > 0 else None)

    def prob(v: float, lean: bool, side: Side) -> np.ndarray:
        return side(-v, False) if lean else side(v, True)

    bound_text = ", ".join(_fmt(b) for b in bounds) if len(set(bounds)) > 1 else _fmt(bounds[0])
    inner = shifted[""] if list(shifted) == [""] else shifted
    return _judge(
        inner,
        decide,
        prob,
        z=z,
        statement=f"{what} ≤ bound ({bound_text})",
        what=f"{what} − bound",
    )


# --- curves -------------------------------------------------------------------------------------


def _steps(curve, x: Sequence, pair=None, bounds=None) -> tuple[dict[str, Estimate], Estimate]:
    """Step differences and the overall (last − first) difference of a curve given as a sequence
    of independent Estimates, as draws × points (the same draws at every point: paired), or by
    ``pair(j, i)``, the caller's estimate of point j − point i (``curve`` then unused)."""
    if pair is not None:
        if len(x) < 2:
            raise ValueError("a curve needs at least 2 points")
        steps = {f"{x[i]:g}→{x[i + 1]:g}": pair(i + 1, i) for i in range(len(x) - 1)}
        return steps, pair(len(x) - 1, 0)
    if isinstance(curve, np.ndarray) or (
        isinstance(curve, Sequence) and curve and not isinstance(curve[0], Estimate)
    ):
        arr = np.asarray(curve, float)
        diff = None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])
        if arr.ndim != 2 or arr.shape[1] < 2:
            raise ValueError("a paired curve is an array of draws × points (at least 2 points)")
        steps = {
            f"{x[i]:g}→{x[i + 1]:g}": Estimate.paired(arr[:, i + 1], arr[:, i], bounds=diff)
            for i in range(arr.shape[1] - 1)
        }
        return steps, Estimate.paired(arr[:, -1], arr[:, 0], bounds=diff)
    pts = list(curve)
    if len(pts) < 2:
        raise ValueError("a curve needs at least 2 points")
    steps = {f"{x[i]:g}→{x[i + 1]:g}": pts[i + 1].minus(pts[i]) for i in range(len(pts) - 1)}
    return steps, pts[-1].minus(pts[0])


def monotone(
    curve: Sequence[Estimate] | np.ndarray | None,
    x: Sequence[float],
    *,
    direction: int = +1,
    strict: bool = True,
    margin: float = 0.0,
    z: float = Z,
    what: str = "the curve",
    pair: Callable[[int, int], Estimate] | None = None,
    bounds: tuple[float, float] | None = None,
) -> Verdict:
    """ "The curve increases (direction +1) or decreases (−1) with x".

    ``strict`` (a trend: "increases with ε"): holds when the overall change from the first to the
    last point is beyond noise in the direction and no step reverses by more than ``margin``
    beyond noise; fails when some step reverses beyond ``margin`` (Bonferroni over the steps) or
    the overall change lies against the direction; else uninformative.

    Not ``strict`` ("non-decreasing"): holds when every step's reversal is within ``margin``
    (each step's interval of the change in the direction lies above −margin), fails when some
    step reverses beyond ``margin``; else uninformative. Give a margin: with 0 it demands that
    every step moves in the direction beyond noise.

    ``curve`` is a sequence of independent :class:`Estimate` (one per x) or an array of draws ×
    points when the same draws are measured at every x (then steps are paired differences,
    :meth:`Estimate.paired`). When the caller knows better how point j and point i are paired
    (a few training runs, each with its own bootstrap), ``pair(j, i)`` gives the estimate of
    point j − point i and ``curve`` may be None. ``bounds``: the range of one draw's value at a
    point (an array curve of a bounded outcome), so that a step tied in every draw gets its exact
    bound.
    """
    if direction not in (+1, -1):
        raise ValueError(f"direction must be +1 or -1, got {direction!r}")
    steps, overall = _steps(curve, x, pair, bounds)
    sign = float(direction)

    def oriented(e: Estimate) -> Estimate:
        return e if sign > 0 else e.negated()

    word = "increases" if direction > 0 else "decreases"
    step_v = at_least(
        {k: oriented(e) for k, e in steps.items()},
        margin=margin,
        z=z,
        what=f"step of {what} in the direction",
    )
    if not strict:
        return Verdict(
            step_v.holds,
            f"{what} never reverses by more than {_fmt(margin)}: {step_v.note}",
            step_v.plan,
            rerun=lambda: step_v.rerun,
        )
    overall_v = greater(oriented(overall), z=z, what=f"overall change of {what}")
    if step_v.holds is False or overall_v.holds is False:
        holds: bool | None = False
    elif overall_v.holds is True and step_v.holds is not False:
        # steps may be undecided (a plateau within noise): the trend still holds
        holds = True
    else:
        holds = None

    def plan() -> Plan | None:
        # the overall change decides the trend either way; a step decides it only by failing
        parts = [overall_v.plan] if overall_v.holds is None else []
        if step_v.holds is None and step_v.plan is not None and step_v.plan.leaning is False:
            parts.append(step_v.plan)
        return combine(parts) or step_v.plan

    return Verdict(
        holds,
        f"{what} {word} with x (steps reverse by at most {_fmt(margin)}): overall: {overall_v.note}; "
        f"steps: {step_v.note}",
        plan if holds is None else None,
        rerun=lambda: trend(overall_v.rerun, step_v.rerun),
    )
