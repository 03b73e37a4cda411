"""Runs to decide: the planner of an undecided verdict (package docstring, "Runs to decide") and
the :class:`Plan` it returns, joined over the parts of a statement by :func:`combine`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .estimates import Estimate, Floor
from .levels import PLAN_MAX, POWER, Z, _fmt, alpha_of
from .ties import open_point

#: ``decide(estimate, z)``: a rule's decision on one point at ±z (True ok, False fails, None neither)
_Decide = Callable[[Estimate, float], bool | None]


@dataclass(frozen=True)
class Plan:
    """How much more of the same experiment would decide an undecided verdict: ``n`` units
    (``unit``: runs, draws, samples; ``relative``: ``n`` is a multiple of the current sample), or
    ``math.inf`` with ``why`` when no amount would (a gate, a shortfall, the boundary itself).
    ``leaning`` is the decision it would reach (True ok, False fails). ``power`` maps planned
    units to the probability of reaching it (``n`` units at every point; a point with more keeps
    its own) and ``base`` is the fewest units a point has now: :func:`combine` joins plans of the
    same unit into one."""

    n: float
    unit: str = "samples"
    leaning: bool | None = None
    why: str = ""
    relative: bool = False
    power: Callable[[np.ndarray], np.ndarray] | None = field(
        default=None, compare=False, repr=False
    )
    base: float | None = field(default=None, compare=False)

    @property
    def finite(self) -> bool:
        return math.isfinite(self.n)

    def text(self) -> str:
        if not self.finite:
            return f"never by more {self.unit or 'data'}" + (f" ({self.why})" if self.why else "")
        if self.relative:
            out = f"{self.n:.3g}× the current {self.unit}"
        elif self.n > PLAN_MAX:
            out = f"> {PLAN_MAX:.0e} {self.unit}"
        else:
            out = f"{int(self.n)} {self.unit}"
        return out + (f" ({self.why})" if self.why else "")


def never(unit: str, why: str) -> Plan:
    """The plan of a verdict no amount of the same experiment decides, saying why."""
    return Plan(math.inf, unit, why=why)


# --- the planner --------------------------------------------------------------------------------

#: planned units searched first (geometric, about 11 % apart), then refined between two of them
_GRID_ABS = np.unique(np.round(np.geomspace(1.0, PLAN_MAX, 200))).astype(float)
#: planned multiples of the current sample (estimates that do not say how many units they rest on)
_GRID_REL = np.geomspace(1e-4, 1e9, 280)

#: ``side(gap, lower)``: P(the interval's lower end clears a boundary ``gap`` below the estimate,
#: or its upper end one ``gap`` above it), per planned amount
Side = Callable[[float, bool], np.ndarray]
#: ``prob(value, lean, side)``: P(the rule decides as it leans) from the sides it needs
Prob = Callable[[float, bool, Side], np.ndarray]


def _sides(e: Estimate, z: float, scale: np.ndarray) -> Side:
    """The one-sided chances of :data:`Side` when the experiment is ``scale`` × as large, if the
    observed value and per-unit spread are the truth: a noncentral t with the df the larger
    experiment would have (n / cluster − 1), a normal without df, the tie bound (certain either
    way) for a zero-variance sample."""
    scale = np.asarray(scale, float)
    if not e.decidable or e.analytic:
        return lambda gap, lower: np.zeros_like(scale)
    if e.zero_variance:
        # the tie bound of :mod:`.ties` at the planned size: of unknown step, the open point (the
        # near-ties' limit, at any size); of a known step, the exact bound over the clusters (when
        # the range is stated) narrowed to the near-tie bound one step away
        if e.step is None:
            lo, hi = open_point(e.value)

            def limit(gap: float, lower: bool) -> np.ndarray:
                half = (e.value - lo) if lower else (hi - e.value)
                return np.full_like(scale, float(half < gap))

            return limit
        units = e.n * scale
        k = units / e.cluster
        q = np.full_like(units, np.inf)
        if e.bounds is not None:
            with np.errstate(divide="ignore"):
                q = -np.expm1(np.log(alpha_of(z) / 2.0) / np.maximum(k, 1e-300))
            q = np.where(k >= 1, q, 1.0)
        df = k - 1.0 if e.cluster > 1 else units - 1.0
        ok = df >= 1.0
        t = stats.t.isf(alpha_of(z) / 2.0, np.where(ok, df, 1.0))
        near = np.where(ok, e.step / np.maximum(units, 1e-300) * (1.0 + t), np.inf)
        a, b = e.bounds if e.bounds is not None else (-np.inf, np.inf)

        def tie(gap: float, lower: bool) -> np.ndarray:
            with np.errstate(invalid="ignore"):
                exact = np.where(
                    np.isfinite(q), q * ((e.value - a) if lower else (b - e.value)), np.inf
                )
            half = np.minimum(exact, near)
            return (half < gap).astype(float)

        return tie
    lo, hi = e.interval(Z)
    se_lo, se_hi = (e.se, e.se) if e.se is not None else ((e.value - lo) / Z, (hi - e.value) / Z)
    if e.df is None or e.n is None:

        def normal(gap: float, lower: bool) -> np.ndarray:
            se = (se_lo if lower else se_hi) / np.sqrt(scale)
            with np.errstate(divide="ignore", invalid="ignore"):
                return stats.norm.cdf(gap / se - z)

        return normal
    units = e.n * scale
    df = units / e.cluster - 1.0
    ok = df >= 1.0
    dfv = np.where(ok, df, 1.0)
    q = stats.t.isf(alpha_of(z) / 2.0, dfv)

    def t(gap: float, lower: bool) -> np.ndarray:
        se = (se_lo if lower else se_hi) / np.sqrt(scale)
        with np.errstate(divide="ignore", invalid="ignore"):
            # scipy's noncentral t returns nan far out in the tail (a spread of ~0): certain there
            delta = np.clip(np.nan_to_num(gap / se, nan=0.0, posinf=1e4, neginf=-1e4), -1e4, 1e4)
            return np.where(ok, stats.nct.sf(q, dfv, delta), 0.0)

    return t


def _search(power: Callable[[np.ndarray], np.ndarray], relative: bool) -> tuple[float | int, str]:
    """The smallest planned amount whose ``power`` reaches :data:`POWER` (a geometric grid, then
    bisection), or (inf, why) when none does."""
    grid = _GRID_REL if relative else _GRID_ABS
    p = np.nan_to_num(power(grid), nan=0.0)
    reach = np.flatnonzero(p >= POWER)
    if reach.size == 0:
        best = int(np.argmax(p))
        if p[-1] <= p[len(p) // 2] + 1e-6:  # flat: more data cannot help at the observed value
            return math.inf, (
                "more units give no better chance to decide: the observed value sits on the "
                "decision boundary"
            )
        if p[-1] >= p[best] - 1e-9:  # still rising at the end of the search
            return (float(grid[-1]) * 1.000001 if relative else PLAN_MAX + 1), ""
        amount = f"{grid[best]:.3g}×" if relative else f"{int(grid[best])}"
        return math.inf, (
            f"the chance to decide peaks at {p[best]:.0%} (at {amount}) and falls after it"
        )
    i = int(reach[0])
    if i == 0:
        return (float(grid[0]) if relative else int(grid[0])), ""
    lo, hi = float(grid[i - 1]), float(grid[i])
    # refine between the two grid points, 64 candidates at a time (the chance rises there)
    while (hi - lo > 1.0) if not relative else (hi / lo > 1.0 + 1e-9):
        if relative:
            cand = np.geomspace(lo, hi, 66)[1:-1]
        else:
            cand = np.unique(np.round(np.linspace(lo, hi, 66)[1:-1]))
            cand = cand[(cand > lo) & (cand < hi)]
            if cand.size == 0:
                break
        ok = np.flatnonzero(np.nan_to_num(power(cand), nan=0.0) >= POWER)
        if ok.size:
            hi = float(cand[ok[0]])
            lo = float(cand[ok[0] - 1]) if ok[0] > 0 else lo
        else:
            lo = float(cand[-1])
    return (hi if relative else int(hi)), ""


def _point_power(e: Estimate, lean: bool, z: float, prob: Prob, absolute: bool):
    """P(the rule decides ``e``'s point as it leans) per planned amount: units at every point
    (``absolute``; a point that has more keeps its own), or a multiple of the current sample."""

    def power(amount: np.ndarray) -> np.ndarray:
        amount = np.asarray(amount, float)
        scale = np.maximum(amount, e.n) / e.n if absolute else amount
        return np.clip(prob(e.value, lean, _sides(e, z, scale)), 0.0, 1.0)

    return power


def _unit_words(points: Sequence[Estimate], base: float | None) -> str:
    """What a planned n counts when the points differ in size or come in clusters."""
    parts = []
    if base is not None and len({e.n for e in points}) > 1:
        parts.append(f"at every point; a point with more {points[0].unit} keeps its own")
    clusters = {e.cluster for e in points if e.cluster > 1}
    if clusters:
        parts.append(f"in clusters of {', '.join(f'{c:g}' for c in sorted(clusters))}")
    return "; ".join(parts)


def _plan(
    points: Sequence[tuple[str, Estimate]],
    decide: _Decide,
    prob: Prob,
    *,
    zr: float,
    zk: float,
    floor: Floor | None,
) -> Plan | None:
    """The plan of an undecided statement over ``points`` (module docstring, "Runs to decide"):
    a point leaning to fails decides it by failing (the cheapest such point at the Bonferroni
    level; never where it leans below the theorem's floor), otherwise every point must hold, and
    the joint chance (the product over the points) must reach :data:`POWER` at the robust level."""
    exp = [(lab, e) for lab, e in points if not e.analytic]
    if not exp:
        return None
    unit = exp[0][1].unit
    undecidable = [lab or "the estimate" for lab, e in exp if not e.decidable]
    if undecidable:
        e0 = next(e for _, e in exp if not e.decidable)
        why = (
            "zero variance of a count whose size is not stated"
            if e0.zero_variance and (e0.n is None or e0.n >= 2)
            else "one unit: its spread is unknown"
        )
        return never(unit, f"{why} ({', '.join(undecidable)})")
    leans = {lab: decide(Estimate.exact(e.value), zr) for lab, e in exp}
    at_boundary = [lab or "the estimate" for lab, v in leans.items() if v is None]
    if at_boundary:
        return never(
            unit, f"the observed value sits on the decision boundary ({', '.join(at_boundary)})"
        )
    absolute = all(e.n is not None for _, e in exp)
    base = float(min(e.n for _, e in exp)) if absolute else None
    words = _unit_words([e for _, e in exp], base)
    failing = [(lab, e) for lab, e in exp if leans[lab] is False]
    if failing:
        best: Plan | None = None
        whys = []
        for _, e in failing:
            power = _point_power(e, False, zk, prob, absolute)
            n, why = _search(power, not absolute)
            whys.append(why)
            if math.isfinite(n):  # a rerun of the current size is the least a plan asks for
                n = max(n, int(base)) if absolute else max(n, 1.0)
            if math.isfinite(n) and (best is None or n < best.n):
                best = Plan(n, unit, False, words, not absolute, power, base)
        if best is not None:
            return best
        if floor is not None and any(e.value < floor.value for _, e in failing):
            return never(
                unit,
                f"the estimate leans below {_fmt(floor.value)}, though {floor.why}: a shortfall "
                "of the estimator, which more of the same cannot turn into evidence",
            )
        return never(unit, next((w for w in whys if w), "no amount reaches the power"))
    powers = [_point_power(e, True, zr, prob, absolute) for _, e in exp]

    def joint(amount: np.ndarray) -> np.ndarray:
        out = np.ones_like(np.asarray(amount, float))
        for f in powers:
            out = out * f(amount)
        return out

    n, why = _search(joint, not absolute)
    if not math.isfinite(n):
        return never(unit, why)
    n = max(n, int(base)) if absolute else max(n, 1.0)  # at least a rerun of the current size
    return Plan(n, unit, True, words, not absolute, joint, base)


def runs_to_decide(e: Estimate, gap: float, *, z: float, power: float = POWER) -> Plan:
    """The units (``e.unit``) at which an estimate whose true value sits ``gap`` from a
    one-sided decision boundary, with ``e``'s per-unit spread, has an interval at ±z that clears
    the boundary with probability ``power`` (the single-boundary case of the planner)."""
    if power != POWER:
        raise ValueError(f"the planner aims for POWER = {POWER}")
    if e.analytic:
        raise ValueError("an analytic estimate needs no plan")
    gap = abs(float(gap))
    if not e.decidable:
        return never(e.unit, "its spread is unknown (one unit)")
    if gap == 0 or not math.isfinite(gap):
        return never(e.unit, "no effect observed")
    base = float(e.n) if e.n is not None else None
    f = _point_power(e, True, z, lambda v, lean, side: side(gap, True), base is not None)
    n, why = _search(f, base is None)
    if not math.isfinite(n):
        return never(e.unit, why)
    return Plan(n, e.unit, None, "", base is None, f, base)


def combine(plans: Sequence[Plan | None]) -> Plan | None:
    """The plan of a statement made of parts: the cheapest part that would decide it by failing;
    else never if some part never holds; else every part must hold: the joint chance (product)
    of parts planned on the same base, the dearest part otherwise."""
    plans = [p for p in plans if p is not None]
    if not plans:
        return None
    failing = [p for p in plans if p.leaning is False and p.finite]
    if failing:
        return min(failing, key=lambda p: p.n)
    nevers = [p for p in plans if not p.finite]
    if nevers:
        return nevers[0]
    if len(plans) == 1:
        return plans[0]
    same = {(p.unit, p.relative) for p in plans}
    if len(same) == 1 and all(p.power is not None for p in plans):
        powers = [p.power for p in plans]

        def joint(amount: np.ndarray) -> np.ndarray:
            out = np.ones_like(np.asarray(amount, float))
            for f in powers:
                out = out * f(amount)
            return out

        n, why = _search(joint, plans[0].relative)
        if not math.isfinite(n):
            return never(plans[0].unit, why)
        whys = sorted({p.why for p in plans if p.why})
        return Plan(
            n, plans[0].unit, True, "; ".join(whys), plans[0].relative, joint, plans[0].base
        )
    return max(plans, key=lambda p: p.n)
