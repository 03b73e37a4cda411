"""A rerun's chances: the probability that an independent run at the same scale gives each status.

A decided status is robust (package docstring) but not certain: a true effect near a decision
boundary decides one way on one run and not on the next, whatever the threshold. What a run can
say is how likely a rerun is to give the same status, its **keep-probability** (the issue of the
page's promise: the status check fails on a contradiction, ok ↔ fails, or on a move this
probability calls unlikely, and only prints a move it allows).

One point. A rerun's estimate differs from this run's by the noise of both runs: if the truth is
this run's estimate give or take its standard error ``s``, and the rerun has the same ``s``, then
``v' − v ~ N(0, 2 s²)``. The rule's decision is a function of the estimate's position: shifting the
estimate by ``t · s`` (its interval with it: :meth:`Estimate.shift`) and asking the rule at that
shift maps out where each status holds (a grid of shifts, each change of decision refined by
bisection), and each status's chance is the normal mass of its shifts, ``t ~ N(0, 2)``. At the
boundary itself (an interval that just clears the margin) the chance to keep is ½; one reported
standard error past it, Φ(1/√2) = 76 %; three, Φ(3/√2) = 98.3 %. An analytic number keeps its
status with certainty; an estimate that bounds nothing (one unit) never decides.

A statement over k points holds when every point holds (chances multiplied, the points taken as
independent) and fails when some point fails at the Bonferroni level (1 − Π(1 − fᵢ)); the rest of
the mass is uninformative. Parts of a statement (:func:`~privrisk.contract.verdicts.all_of`,
the trend and the steps of a monotone curve) combine the same way. A verdict without an estimate
(a gate, a hand-made verdict, an exact check) has no chances (None).

Approximations, each on the side of calling a row a boundary row rather than a firm one: the
rerun's s.e. is taken as this run's; points of one statement are independent (a shared model
makes them move together, which keeps a joint status more often than the product says); a tie's
scale is its interval's half-width in base-z standard errors (a tie of unknown step: the open
point's, so it keeps its status as its nearest near-ties do, unless it sits on the boundary).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from scipy import stats

from .estimates import Estimate

#: rows whose keep-probability is below this are boundary rows (pre-registered with the promise,
#: docs/verdicts.md "What the status check promises")
BOUNDARY = 0.9
#: a move a row's keep-probability gives less than this chance fails the status check
UNLIKELY = 0.01

#: shifts (in the point's standard errors) searched for a change of decision: far enough that the
#: normal mass beyond (sd √2) is below 1e-12
_REACH = 10.0
_STEP = 0.25
_SD = math.sqrt(2.0)


@dataclass(frozen=True)
class Rerun:
    """The chances that a rerun gives ``ok`` and ``fails`` (the rest: uninformative)."""

    ok: float
    fails: float

    def __post_init__(self) -> None:
        ok, fails = (min(1.0, max(0.0, float(x))) for x in (self.ok, self.fails))
        object.__setattr__(self, "ok", ok)
        object.__setattr__(self, "fails", min(fails, 1.0 - ok))

    @property
    def undecided(self) -> float:
        return max(0.0, 1.0 - self.ok - self.fails)

    def of(self, holds: bool | None) -> float:
        """The chance a rerun gives the status ``holds`` (True ok, False fails, None neither)."""
        return {True: self.ok, False: self.fails, None: self.undecided}[holds]


#: a certain rerun of each status
CERTAIN = {True: Rerun(1.0, 0.0), False: Rerun(0.0, 1.0), None: Rerun(0.0, 0.0)}


def _mass(lo: float, hi: float) -> float:
    """P(lo < t < hi) for t ~ N(0, 2)."""
    return float(stats.norm.cdf(hi / _SD) - stats.norm.cdf(lo / _SD))


def chance(e: Estimate, yes: Callable[[Estimate], bool]) -> float:
    """The chance that a rerun's estimate (this one shifted by ``t · s``, t ~ N(0, 2)) satisfies
    ``yes``: the normal mass of the shifts where it does (a grid of shifts, each change refined
    by bisection to 1e-4 s.e.)."""
    if e.analytic:
        return float(bool(yes(e)))
    if not e.decidable:
        return 0.0
    s = e.half_se()
    if not (math.isfinite(s) and s > 0):
        return float(bool(yes(e)))

    def at(t: float) -> bool:
        return bool(yes(e.shift(t * s)))

    n = int(round(2 * _REACH / _STEP))
    grid = [-_REACH + i * _STEP for i in range(n + 1)]
    marks = [at(t) for t in grid]
    edges = [-math.inf]
    for i in range(n):
        if marks[i] != marks[i + 1]:
            lo, hi = grid[i], grid[i + 1]
            while hi - lo > 1e-4:
                mid = 0.5 * (lo + hi)
                if at(mid) == marks[i]:
                    lo = mid
                else:
                    hi = mid
            edges.append(0.5 * (lo + hi))
    edges.append(math.inf)
    # segment j lies between edges[j] and edges[j + 1]; its decision is that of a grid point in it
    total, state = 0.0, marks[0]
    for j in range(len(edges) - 1):
        if state:
            total += _mass(edges[j], edges[j + 1])
        state = not state
    return min(1.0, max(0.0, total))


def points_chances(
    estimates: Sequence[Estimate],
    holds: Callable[[Estimate], bool],
    fails: Callable[[Estimate], bool],
) -> Rerun:
    """The chances of a statement over ``estimates``: it holds when every point ``holds``, fails
    when some point ``fails`` (the rule's tests at the robust and the Bonferroni level)."""
    ok, none_fails = 1.0, 1.0
    for e in estimates:
        ok *= chance(e, holds)
        none_fails *= 1.0 - chance(e, fails)
    return Rerun(ok, 1.0 - none_fails)


def joint(parts: Iterable[Rerun | None]) -> Rerun | None:
    """Parts of one statement: ok when every part is ok, fails when some part fails (None when a
    part's chances are unknown)."""
    ok, none_fails = 1.0, 1.0
    for p in parts:
        if p is None:
            return None
        ok *= p.ok
        none_fails *= 1.0 - p.fails
    return Rerun(ok, 1.0 - none_fails)


def trend(overall: Rerun | None, steps: Rerun | None) -> Rerun | None:
    """A strict monotone curve: fails when a step or the overall change fails, holds when the
    overall change holds and no step fails."""
    if overall is None or steps is None:
        return None
    return Rerun(
        overall.ok * (1.0 - steps.fails), 1.0 - (1.0 - overall.fails) * (1.0 - steps.fails)
    )
