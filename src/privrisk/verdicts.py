"""One set of decision rules for every qualitative claim of every paper (design.md §4, "Verdicts").

A paper states "A is larger than B", "at least the prior", "comparable within 0.05", "increases
with ε", "below the bound". Each rule here decides such a statement on an :class:`Estimate` *with
its uncertainty* and returns a :class:`Verdict`: ``holds`` is True (``qualitative-ok``), False
(``qualitative-fails``) or None (``uninformative``: the data cannot decide), with the numbers for
the ledger note. Papers' ``claims`` modules are thin users of these rules; none re-implements one.

Conventions (one for all papers):

* An estimate's uncertainty is a standard error (the interval is value ± z·se) or an explicit
  interval ``[lo, hi]`` at the base level (bootstrap, McDiarmid, Clopper–Pearson). An analytic
  number has ``se=0``: every rule then decides it exactly. A mean over a few independent runs
  (:meth:`Estimate.across_runs`: training runs of a model) or over draws (:meth:`Estimate.from_draws`,
  :meth:`Estimate.paired`) carries its degrees of freedom ``df``,
  and its interval uses Student's t at the same level as ±z (with 3 runs, ±2 s.e. of a normal
  would cover about 82 %, not 95 %).
* ``z = 2`` by default (two standard errors, ≈ 95.4 % two-sided, α ≈ 0.046), the level of the
  error bars the figures draw and of the ledger's numeric tolerance (``tolerance + 2·se``).
* **Paired where a paired baseline exists**: when A and B are measured on the same draws, pass the
  estimate of the per-draw difference (:meth:`Estimate.paired`); its s.e. is the paired one.
  :meth:`Estimate.minus` is the unpaired difference (independent estimates).
* **Multiplicity**: a statement judged at k points ("A ≥ B at every ε") holds only if it holds at
  every point, each at the base level (an intersection–union test needs no correction); it fails
  if it fails at some point, each point then judged at the Bonferroni level z_k = Φ⁻¹(1 − α/2k)
  (a union of k tests). In between it is uninformative.
* **Symmetric margins**: a rule with a margin uses the same margin on the ok and the fails side:
  "A ≥ B − m" holds when the interval of A − B lies above −m and fails when it lies below −m.

**Robust decisions** (a decided status must survive another seed, thread count and CPU):

* Analytic numbers (``se = 0`` from a closed form, :meth:`Estimate.exact`) are decided exactly.
* An *experimental* estimate (any with a positive s.e. or an interval) decides only when its
  interval at the **robust level** ``ROBUST · z`` (±3 s.e. at the default z = 2, two-sided
  α ≈ 0.0027; Student's t at that level when it has ``df``) clears the threshold or margin. The
  note still shows the interval at the reported ±z. The reason: at ±z a decision on a t statistic
  just past z flips under a reseeded or re-kernelled rerun about half the time; at ±1.5 z the
  rerun's estimate must move by a whole reported half-width before the decision can change, and
  an ok ↔ fails flip needs a move of more than twice that.
* **Runs are pooled, not counted.** A model trained k times is judged on its across-run t
  interval (:meth:`Estimate.across_runs`): one outlying run widens it. An earlier rule also
  asked 90 % of the runs to reach the decision each on its own; that is a count of a binomial,
  and it flipped between seeds whenever about one run in ten fell past the margin (xu2022 Fig. 3's
  CIFAR-10 accuracy: 9 of 10 runs at seed 0, 8 of 10 at seed 1, the pooled interval inside the
  margin both times). Leaving one run out with the pooled s.e. withheld decisions every run
  supported (nine runs at 0.3 and one at 1.15 "not above 0"). Where two runs decide *opposite*
  ways each at the robust level, a paper's claims module may withhold the decision (xu2022 does).
* **Zero variance is never exact evidence**: an empirical estimate (draws, runs) whose sample
  variance is 0 (every draw made the same guess) decides nothing (uninformative), unlike an
  analytic number with ``se = 0``. Estimates made from data carry ``empirical=True``.

**Runs to decide** (a power planner): every uninformative verdict on an experimental estimate
carries a :class:`Plan`, the number of runs / draws / samples (the estimate's ``unit``) at which,
if the observed effect and per-unit spread are the truth, the same rule decides at the robust level
with probability ``POWER`` (80 %): a noncentral t (or normal) power calculation on the gap between
the estimate and the decision boundary it leans towards (:func:`runs_to_decide`). It is in the note
(``to decide: …``) and in :attr:`Verdict.to_decide` (the ledger's ``to_decide`` column).

Every rule has a test where it says ok, one where it fails and one where it cannot decide
(``tests/test_verdicts.py``), and simulation tests that its error rates stay within α and that
the planned n decides in about the intended fraction of repeated experiments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

#: default half-width of an interval in standard errors (the reported level)
Z = 2.0
#: an experimental estimate decides at ROBUST · z (module docstring, "Robust decisions")
ROBUST = 1.5
#: the probability of deciding that the runs-to-decide planner aims for
POWER = 0.8
#: the planner reports "more than" this many units rather than searching further
PLAN_MAX = 10**9


def alpha_of(z: float) -> float:
    """Two-sided level of a ±z interval: 2(1 − Φ(z))."""
    return float(2.0 * stats.norm.sf(z))


def bonferroni_z(z: float, k: int) -> float:
    """The z of each of k tests whose union keeps the level of one ±z test."""
    if k <= 1:
        return z
    return float(stats.norm.isf(alpha_of(z) / (2.0 * k)))


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "nan")
    return f"{x:.4g}"


@dataclass(frozen=True)
class Estimate:
    """A number with its uncertainty: a standard error ``se`` or an interval ``[lo, hi]`` at the
    base level ``z = Z`` (widened by z/Z on each side when a rule asks for another z)."""

    value: float
    se: float | None = None
    lo: float | None = None
    hi: float | None = None
    #: degrees of freedom of ``se`` (None: known or large-sample; the interval is then ±z·se)
    df: float | None = None
    #: made from data (draws, runs): with ``se = 0`` it is a zero-variance sample, not exact
    empirical: bool = False
    #: how many units (``unit``: draws, runs, samples) the uncertainty rests on (for the planner)
    n: int | None = None
    unit: str = "samples"

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", float(self.value))
        if self.n is not None and not self.n >= 1:
            raise ValueError(f"n {self.n!r} must be >= 1")
        if self.se is None and (self.lo is None or self.hi is None):
            raise ValueError("an Estimate needs se or both lo and hi")
        if self.df is not None and (self.se is None or not self.df > 0):
            raise ValueError(f"df {self.df!r} needs a standard error and must be > 0")
        if self.se is not None:
            se = float(self.se)
            if not se >= 0:  # also refuses NaN
                raise ValueError(f"standard error {self.se!r} must be >= 0")
            object.__setattr__(self, "se", se)
        if self.lo is not None and self.hi is not None:
            lo, hi = float(self.lo), float(self.hi)
            if lo > hi:
                raise ValueError(f"interval [{lo}, {hi}] has lo > hi")
            object.__setattr__(self, "lo", lo)
            object.__setattr__(self, "hi", hi)

    # --- construction ----------------------------------------------------------------------------

    @classmethod
    def exact(cls, value: float) -> Estimate:
        """An analytic number (no sampling error)."""
        return cls(value, se=0.0)

    @property
    def analytic(self) -> bool:
        """An exact number: s.e. 0 and not a zero-variance sample."""
        return self.se == 0 and not self.empirical

    @property
    def zero_variance(self) -> bool:
        """A sample whose spread is 0: it decides nothing (module docstring)."""
        return self.se == 0 and self.empirical

    def _like(self, value: float, **kw) -> Estimate:
        """A derived estimate keeping the provenance (empirical, n, unit)."""
        base = {"empirical": self.empirical, "n": self.n, "unit": self.unit}
        return Estimate(value, **(base | kw))

    @classmethod
    def from_draws(cls, draws: Sequence[float] | np.ndarray) -> Estimate:
        """Mean of independent draws with its standard error (sd / √n) and n − 1 degrees of
        freedom: with ten draws (a few repeated attacks) a normal ±2 s.e. would cover about 92 %,
        the t interval the intended 95.4 %; with thousands of draws t and z agree. One draw has an
        infinite s.e., so nothing can be decided from it."""
        x = np.asarray(draws, float).ravel()
        if x.size == 0:
            raise ValueError("no draws")
        prov = {"empirical": True, "n": int(x.size), "unit": "draws"}
        if x.size == 1:
            return cls(float(x[0]), se=math.inf, **prov)
        return cls(
            float(x.mean()), se=float(x.std(ddof=1) / math.sqrt(x.size)), df=x.size - 1, **prov
        )

    @classmethod
    def across_runs(
        cls,
        values: Sequence[float] | np.ndarray,
        within_se: Sequence[float] | np.ndarray | None = None,
    ) -> Estimate:
        """Mean over k independent runs (e.g. a model trained with k seeds), judged as a one-sample
        t statistic: s.e. = sd / √k with k − 1 degrees of freedom.

        ``within_se`` (each run's own standard error, e.g. from a bootstrap of its evaluation
        points) floors the spread: sd >= the root mean square of the within-run s.e., so three runs
        that happen to agree closely do not claim more precision than each run has. One run gives
        that run's value with its own s.e. (nothing is known about the spread between runs)."""
        x = np.asarray(values, float).ravel()
        if x.size == 0:
            raise ValueError("no runs")
        w = None if within_se is None else np.asarray(within_se, float).ravel()
        if w is not None and w.shape != x.shape:
            raise ValueError(f"{x.size} runs but {w.size} within-run standard errors")
        floor = float(np.sqrt(np.mean(w**2))) if w is not None else 0.0
        prov = {"empirical": True, "n": int(x.size), "unit": "runs"}
        if x.size == 1:
            return cls(float(x[0]), se=floor if w is not None else math.inf, **prov)
        sd = max(float(x.std(ddof=1)), floor)
        return cls(float(x.mean()), se=sd / math.sqrt(x.size), df=x.size - 1, **prov)

    @classmethod
    def paired_runs(
        cls,
        a: Sequence[float] | np.ndarray,
        b: Sequence[float] | np.ndarray,
        within_se: Sequence[float] | np.ndarray | None = None,
    ) -> Estimate:
        """A − B over the same runs (:meth:`across_runs` of the per-run differences;
        ``within_se`` is each run's s.e. of its difference)."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape:
            raise ValueError(f"paired runs need equal shapes, got {a.shape} and {b.shape}")
        return cls.across_runs(a - b, within_se)

    @classmethod
    def paired(cls, a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> Estimate:
        """A − B from measurements on the same draws (the paired difference's mean and s.e.)."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape:
            raise ValueError(f"paired draws need equal shapes, got {a.shape} and {b.shape}")
        return cls.from_draws(a - b)

    # --- arithmetic ------------------------------------------------------------------------------

    def quantile(self, z: float = Z) -> float:
        """Half-width in standard errors at the level of ±z: z itself, or Student's t with
        ``df`` degrees of freedom at the same two-sided level."""
        if self.df is None:
            return z
        return float(stats.t.isf(alpha_of(z) / 2.0, self.df))

    def interval(self, z: float = Z) -> tuple[float, float]:
        if self.se is not None:
            q = self.quantile(z) if self.se > 0 else z
            return self.value - q * self.se, self.value + q * self.se
        scale = z / Z
        return (
            self.value - scale * (self.value - self.lo),
            self.value + scale * (self.hi - self.value),
        )

    def minus(self, other: Estimate) -> Estimate:
        """The unpaired difference of two independent estimates (s.e. added in quadrature; explicit
        intervals add their half-widths, which is conservative)."""
        empirical = self.empirical or other.empirical
        ns = [e.n for e in (self, other) if e.n is not None]
        prov = {
            "empirical": empirical,
            "n": min(ns) if ns else None,
            "unit": self.unit if self.n is not None else other.unit,
        }
        if self.se is not None and other.se is not None:
            # the fewer degrees of freedom (conservative; Welch–Satterthwaite would give more)
            dfs = [d for d in (self.df, other.df) if d is not None]
            return Estimate(
                self.value - other.value,
                se=math.hypot(self.se, other.se),
                df=min(dfs) if dfs else None,
                **prov,
            )
        lo1, hi1 = self.interval()
        lo2, hi2 = other.interval()
        return Estimate(self.value - other.value, lo=lo1 - hi2, hi=hi1 - lo2, **prov)

    def shift(self, c: float) -> Estimate:
        """The estimate of value + c (c exact)."""
        if self.se is not None:
            return self._like(self.value + c, se=self.se, df=self.df)
        return self._like(self.value + c, lo=self.lo + c, hi=self.hi + c)

    def negated(self) -> Estimate:
        """The estimate of −value."""
        if self.se is not None:
            return self._like(-self.value, se=self.se, df=self.df)
        return self._like(-self.value, lo=-self.hi, hi=-self.lo)

    def scaled(self, c: float) -> Estimate:
        """The estimate of c · value (c exact)."""
        if self.se is not None:
            return self._like(c * self.value, se=abs(c) * self.se, df=self.df)
        lo, hi = sorted((c * self.lo, c * self.hi))
        return self._like(c * self.value, lo=lo, hi=hi)

    def half_se(self) -> float:
        """The standard error, or the interval's half-width in base-z standard errors."""
        if self.se is not None:
            return self.se
        return (self.hi - self.lo) / (2.0 * Z)

    def text(self, z: float = Z) -> str:
        if self.analytic:
            return _fmt(self.value)
        if self.zero_variance:
            return f"{_fmt(self.value)} (zero variance over {self.n or '?'} {self.unit})"
        lo, hi = self.interval(z)
        t = f" (t, {self.df:g} df)" if self.df is not None else ""
        return f"{_fmt(self.value)} [{_fmt(lo)}, {_fmt(hi)}]{t}"


@dataclass(frozen=True)
class Plan:
    """How much more of the same experiment would decide an undecided verdict: ``n`` units
    (``unit``: runs, draws, samples; ``relative``: ``n`` is a multiple of the current sample), or
    ``math.inf`` with ``why`` when no amount would (zero variance, no observed effect, a gate).
    ``leaning`` is the decision it would reach (True ok, False fails)."""

    n: float
    unit: str = "samples"
    leaning: bool | None = None
    why: str = ""
    relative: bool = False

    def text(self) -> str:
        if math.isinf(self.n):
            return f"never by more {self.unit or 'data'}" + (f" ({self.why})" if self.why else "")
        if self.relative:
            out = f"{self.n:.3g}× the current {self.unit}"
        elif self.n > PLAN_MAX:
            out = f"> {PLAN_MAX:.0e} {self.unit}"
        else:
            out = f"{int(self.n)} {self.unit}"
        return out + (f" ({self.why})" if self.why else "")


def combine(plans: Sequence[Plan]) -> Plan | None:
    """The plan of a statement made of parts: the cheapest part that would decide it fails, else
    the dearest part (every part must hold)."""
    plans = [p for p in plans if p is not None]
    if not plans:
        return None
    failing = [p for p in plans if p.leaning is False]
    if failing:
        return min(failing, key=lambda p: p.n)
    return max(plans, key=lambda p: p.n)


def runs_to_decide(e: Estimate, gap: float, *, z: float, power: float = POWER) -> Plan:
    """The number of units (``e.unit``) at which an estimate whose true value sits ``gap`` from
    the decision boundary, with ``e``'s per-unit spread (s.e. · √n), has an interval at ±z
    (Student's t with n − 1 df when ``e`` has df) that clears the boundary with probability
    ``power``: a noncentral-t (or normal) power calculation. ``z`` is the level the rule decides
    at (the robust level, Bonferroni where it applies)."""
    gap = abs(float(gap))
    unit = e.unit
    if e.zero_variance:
        return Plan(math.inf, unit, why="zero variance: every one gives the same result")
    se = e.half_se()
    if gap == 0 or not math.isfinite(gap):
        return Plan(math.inf, unit, why="no effect observed")
    if not math.isfinite(se):
        return Plan(math.inf, unit, why="one unit: its spread is unknown")
    if se == 0:
        raise ValueError("an analytic estimate needs no plan")
    zp = float(stats.norm.isf(1.0 - power))
    if e.n is None:
        # how much smaller the s.e. must be, as a multiple of the current sample size
        return Plan(((z + zp) * se / gap) ** 2, unit, relative=True)
    sigma = se * math.sqrt(e.n)
    if e.df is None:
        return Plan(max(math.ceil(((z + zp) * sigma / gap) ** 2), 1), unit)
    alpha = alpha_of(z)

    def reached(n: int) -> bool:
        q = stats.t.isf(alpha / 2.0, n - 1)
        return bool(stats.nct.sf(q, n - 1, gap * math.sqrt(n) / sigma) >= power)

    lo, hi = 1, 2
    while not reached(hi):
        lo, hi = hi, hi * 2
        if hi > PLAN_MAX:
            return Plan(PLAN_MAX + 1, unit)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reached(mid) else (mid, hi)
    return Plan(hi, unit)


@dataclass(frozen=True)
class Verdict:
    """ok (``holds`` True), fails (False) or uninformative (None), with the numbers as ``note``
    and, when uninformative, the :class:`Plan` that would decide it."""

    holds: bool | None
    note: str
    plan: Plan | None = None

    @property
    def status(self) -> str:
        return {True: "ok", False: "fails", None: "uninformative"}[self.holds]

    @property
    def to_decide(self) -> str:
        """The runs / draws / samples that would decide an uninformative verdict ('' if decided or
        analytic)."""
        if self.holds is not None:
            return ""
        if self.plan is None:  # made by hand without an estimate (e.g. "no finite ε in this run")
            return "never by more data (no estimate to plan from)"
        return self.plan.text()

    def kwargs(self) -> dict:
        """Keyword arguments ``holds``, ``note`` and ``to_decide`` for
        :meth:`privrisk.claims.Ledger.qualitative`."""
        return {"holds": self.holds, "note": self.note, "to_decide": self.to_decide}

    def gated(self, *reasons: str, unit: str = "runs") -> Verdict:
        """Uninformative when any reason is given (a precondition failed: the model does not leak,
        the control shows nothing), keeping the numbers; unchanged when all reasons are empty. An
        undecided verdict keeps its plan (the gate must pass too); a decided one cannot be decided
        by more of the same: its plan says so."""
        why = [r for r in reasons if r]
        if not why:
            return self
        gate = "; ".join(why)
        if self.holds is None and self.plan is not None:
            p = self.plan
            plan = Plan(
                p.n, p.unit, p.leaning, _join_why(p.why, "and the gate must pass"), p.relative
            )
        else:
            unit = self.plan.unit if self.plan is not None else unit
            plan = Plan(math.inf, unit, why=f"gated: {gate}")
        return Verdict(None, "uninformative: " + gate + f" [{self.note}]", plan)


def _join_why(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def all_of(verdicts: Mapping[str, Verdict] | Sequence[Verdict]) -> Verdict:
    """Several parts of one statement: fails if a part fails, holds if every part holds."""
    items = list(verdicts.items()) if isinstance(verdicts, Mapping) else list(enumerate(verdicts))
    if not items:
        raise ValueError("all_of needs at least one verdict")
    holds = [v.holds for _, v in items]
    overall = False if False in holds else (True if all(h is True for h in holds) else None)
    note = "; ".join(
        (f"{k}: " if isinstance(k, str) else "") + f"{v.status} ({v.note})" for k, v in items
    )
    plan = combine([v.plan for _, v in items if v.holds is None]) if overall is None else None
    return Verdict(overall, note, plan)


# --- one point ----------------------------------------------------------------------------------

_Decide = Callable[[Estimate, float], bool | None]
_Gap = Callable[[float], float]


def _points(
    estimates: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
) -> list[tuple[str, Estimate]]:
    if isinstance(estimates, Estimate):
        return [("", estimates)]
    if isinstance(estimates, Mapping):
        return [(str(k), e) for k, e in estimates.items()]
    return [(f"#{i}", e) for i, e in enumerate(estimates)]


def _robust(e: Estimate, decide: _Decide, zz: float) -> bool | None:
    """One point decided robustly at ±zz (module docstring): zero variance decides nothing; an
    analytic number is exact."""
    if e.zero_variance:
        return None
    return decide(e, zz)


def _judge(
    estimates, decide: _Decide, gap: _Gap, *, z: float, statement: str, what: str
) -> Verdict:
    """Apply ``decide(estimate, z)`` at every point at the robust level ``ROBUST · z``: holds if it
    holds everywhere, fails if it fails somewhere at the Bonferroni level, else uninformative with
    the plan that would decide it. ``gap(value)`` is the distance from a value to the decision
    boundary it leans towards (module docstring)."""
    points = _points(estimates)
    if not points:
        raise ValueError(f"{statement}: no estimates to judge")
    k = len(points)
    zr = ROBUST * z
    zk = bonferroni_z(zr, k)
    at_z = [_robust(e, decide, zr) for _, e in points]
    at_zk = [_robust(e, decide, zk) for _, e in points]
    failed = [lab for (lab, _), d in zip(points, at_zk, strict=True) if d is False]
    undecided = [lab for (lab, _), d in zip(points, at_z, strict=True) if d is not True]

    def show(lab: str, e: Estimate) -> str:
        return f"{lab}: {e.text(z)}" if lab else e.text(z)

    numbers = f"{what} " + "; ".join(show(lab, e) for lab, e in points)
    experimental = any(not e.analytic for _, e in points)
    level = f"±{z:g} s.e." + (
        f", decided at ±{zr:g} s.e. (robust)" if experimental and zr != z else ""
    )
    level += f", fails judged at ±{zk:.3g} s.e. (Bonferroni over {k})" if k > 1 else ""
    if failed:
        where = f" at {', '.join(failed)}" if failed != [""] else ""
        return Verdict(False, f"fails{where}: {statement} [{numbers}; {level}]")
    if not undecided:
        return Verdict(True, f"{statement} [{numbers}; {level}]")
    plans = []
    for (_, e), d in zip(points, at_z, strict=True):
        if d is True or e.analytic:
            continue
        lean = decide(Estimate.exact(e.value), zr)
        plans.append(
            Plan(math.inf, e.unit, why="at the boundary")
            if lean is None
            else replace(runs_to_decide(e, gap(e.value), z=zr if lean else zk), leaning=bool(lean))
        )
    plan = combine(plans)
    where = f" at {', '.join(undecided)}" if undecided != [""] else ""
    to_decide = (
        f"; to decide: {plan.text()} at the observed effect ({POWER:.0%} power at the robust level)"
        if plan is not None
        else ""
    )
    return Verdict(
        None,
        f"undecided{where}: {statement} within the uncertainty [{numbers}; {level}]" + to_decide,
        plan,
    )


def greater(
    diff: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
    *,
    margin: float = 0.0,
    z: float = Z,
    what: str = "A − B",
) -> Verdict:
    """ "A > B + margin", from the estimate(s) of A − B: holds when the interval lies above the
    margin, fails when it lies at or below it, else uninformative. A margin > 0 states "much
    larger": a precise small difference then fails."""

    def decide(e: Estimate, zz: float) -> bool | None:
        lo, hi = e.interval(zz)
        return True if lo > margin else (False if hi <= margin else None)

    return _judge(
        diff, decide, lambda v: v - margin, z=z, statement=f"{what} > {_fmt(margin)}", what=what
    )


def at_least(
    diff: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
    *,
    margin: float = 0.0,
    z: float = Z,
    what: str = "A − B",
) -> Verdict:
    """Non-inferiority "A ≥ B − margin", from the estimate(s) of A − B (symmetric margin): holds
    when the interval lies above −margin, fails when it lies below −margin, else uninformative.
    With margin 0 an exact tie (analytic numbers) holds."""

    def decide(e: Estimate, zz: float) -> bool | None:
        lo, hi = e.interval(zz)
        if e.se == 0:
            return bool(e.value >= -margin)
        return True if lo > -margin else (False if hi < -margin else None)

    return _judge(
        diff, decide, lambda v: v + margin, z=z, statement=f"{what} ≥ −{_fmt(margin)}", what=what
    )


def equivalent(
    diff: Estimate | Sequence[Estimate] | Mapping[str, Estimate],
    *,
    margin: float,
    z: float = Z,
    what: str = "A − B",
) -> Verdict:
    """ "|A − B| ≤ margin" as two one-sided tests: holds when the interval lies inside
    [−margin, margin], fails when it lies wholly outside, else uninformative."""
    if not margin >= 0:
        raise ValueError(f"equivalence margin {margin!r} must be >= 0")

    def decide(e: Estimate, zz: float) -> bool | None:
        lo, hi = e.interval(zz)
        if -margin <= lo and hi <= margin:
            return True
        if lo > margin or hi < -margin:
            return False
        return None

    return _judge(
        diff,
        decide,
        lambda v: abs(margin - abs(v)),
        z=z,
        statement=f"|{what}| ≤ {_fmt(margin)}",
        what=what,
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

    bound_text = ", ".join(_fmt(b) for b in bounds) if len(set(bounds)) > 1 else _fmt(bounds[0])
    inner = shifted[""] if list(shifted) == [""] else shifted
    return _judge(
        inner,
        decide,
        lambda v: v,
        z=z,
        statement=f"{what} ≤ bound ({bound_text})",
        what=f"{what} − bound",
    )


# --- curves -------------------------------------------------------------------------------------


def _steps(curve, x: Sequence, pair=None) -> tuple[dict[str, Estimate], Estimate]:
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
        if arr.ndim != 2 or arr.shape[1] < 2:
            raise ValueError("a paired curve is an array of draws × points (at least 2 points)")
        steps = {
            f"{x[i]:g}→{x[i + 1]:g}": Estimate.paired(arr[:, i + 1], arr[:, i])
            for i in range(arr.shape[1] - 1)
        }
        return steps, Estimate.paired(arr[:, -1], arr[:, 0])
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
    point j − point i and ``curve`` may be None.
    """
    if direction not in (+1, -1):
        raise ValueError(f"direction must be +1 or -1, got {direction!r}")
    steps, overall = _steps(curve, x, pair)
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
        )
    overall_v = greater(oriented(overall), z=z, what=f"overall change of {what}")
    if step_v.holds is False or overall_v.holds is False:
        holds: bool | None = False
    elif overall_v.holds is True and step_v.holds is not False:
        # steps may be undecided (a plateau within noise): the trend still holds
        holds = True
    else:
        holds = None
    plan = None
    if holds is None:
        # the overall change decides the trend either way; a step decides it only by failing
        parts = [overall_v.plan] if overall_v.holds is None else []
        if step_v.holds is None and step_v.plan is not None and step_v.plan.leaning is False:
            parts.append(step_v.plan)
        plan = combine(parts) or step_v.plan
    return Verdict(
        holds,
        f"{what} {word} with x (steps reverse by at most {_fmt(margin)}): overall: {overall_v.note}; "
        f"steps: {step_v.note}",
        plan,
    )
