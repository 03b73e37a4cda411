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
* **Ties of a bounded outcome get an exact bound**: an empirical estimate (draws, runs) whose
  sample variance is 0 (every draw made the same guess) is not an exact number. When the outcome
  of one unit is bounded (``bounds``: 0…N records, a success 0/1, a paired difference of them),
  n ties bound the share of units that could differ by q = 1 − (α/2)^(1/n) (:func:`tie_share`),
  and so the mean to [v − q(v − a), v + q(b − v)]: a tie supports "at least" and "equivalent" as
  far as its sample size allows. Without a stated range it decides nothing.
* **Saturated points** (every method at the top of the scale in every draw: nothing can be told
  apart there) are left out of "at every point" statements (``saturated=``), and the note says
  which.
* **A theorem's floor** (``floor=``, :class:`Floor`): where a theorem puts the true difference at
  or above a value (a query against a function of itself, the optimal adversary against one it
  ranges over), an estimate robustly below it shows the estimator's shortfall: uninformative,
  never a failure, and never planned towards.
* **Worlds**: draws spread over several stand-in worlds are judged with the world as a random
  effect (:meth:`Estimate.clustered`: the t interval of the world means).

**Runs to decide** (a power planner; a plan is a promise): every uninformative verdict on an
experimental estimate carries a :class:`Plan`. It is finite only if the same rule, with that many
runs / draws / samples (the estimate's ``unit``) and the observed effect and per-unit spread as the
truth, decides with probability ``POWER`` (80 %): a point leaning to fails by failing (the cheapest
such point, at the Bonferroni level), otherwise every point by holding (the joint chance, the
product over the points, at the robust level), from noncentral t (or normal) one-sided chances,
and the exact tie bound for bounded ties. Otherwise it is "never (why)": the estimate sits on the
boundary, leans below a theorem's floor, a gate failed (:meth:`Verdict.gated`: a property of the
observed experiment that more of it does not change), or the chance to decide peaks below 80 %.
It is in the note (``to decide: …``) and in :attr:`Verdict.to_decide` (the ledger's
``to_decide`` column).

Every rule has a test where it says ok, one where it fails and one where it cannot decide
(``tests/test_verdicts.py``), and simulation tests that its error rates stay within α and that
the planned n decides in about the intended fraction of repeated experiments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

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


def tie_share(n: int, z: float = Z) -> float:
    """The largest share of units that could differ from a value that all ``n`` units showed: the
    q with (1 − q)^n = α(z)/2, the one-sided exact binomial bound at the level of one side of a
    ±z interval (30 ties at the robust ±3: 19.8 %; the "rule of three" is its 95 % cousin)."""
    if not n >= 1:
        raise ValueError(f"a tie needs n >= 1 units, got {n!r}")
    return float(-math.expm1(math.log(alpha_of(z) / 2.0) / n))


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
    #: the range ``(a, b)`` one unit's outcome can take (a count of 0…N records, a success 0/1, a
    #: paired difference of them): a zero-variance sample of a bounded outcome gets an exact
    #: interval (:func:`tie_share`) instead of deciding nothing
    bounds: tuple[float, float] | None = None
    #: units per independent cluster (draws per stand-in world): ``df`` = n / cluster − 1
    cluster: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", float(self.value))
        if self.n is not None and not self.n >= 1:
            raise ValueError(f"n {self.n!r} must be >= 1")
        if self.se is None and (self.lo is None or self.hi is None):
            raise ValueError("an Estimate needs se or both lo and hi")
        if self.df is not None and (self.se is None or not self.df > 0):
            raise ValueError(f"df {self.df!r} needs a standard error and must be > 0")
        if not self.cluster >= 1:
            raise ValueError(f"cluster {self.cluster!r} must be >= 1 unit")
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
        if self.bounds is not None:
            a, b = (float(x) for x in self.bounds)
            if not a <= b:
                raise ValueError(f"bounds ({a}, {b}) must have a <= b")
            if not a - 1e-9 * max(1.0, abs(a)) <= self.value <= b + 1e-9 * max(1.0, abs(b)):
                raise ValueError(f"value {self.value} lies outside its bounds ({a}, {b})")
            object.__setattr__(self, "bounds", (a, b))

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
        """A sample whose spread is 0 (every unit gave the same value)."""
        return self.se == 0 and self.empirical

    @property
    def decidable(self) -> bool:
        """Whether an interval can say anything: not a zero-variance sample of an unbounded
        outcome (a constant over draws of an unbounded quantity bounds nothing) and not one unit."""
        if self.zero_variance:
            return self.bounds is not None and self.n is not None
        return self.se is None or math.isfinite(self.se)

    def _like(self, value: float, **kw) -> Estimate:
        """A derived estimate keeping the provenance (empirical, n, unit, bounds, cluster)."""
        base = {
            "empirical": self.empirical,
            "n": self.n,
            "unit": self.unit,
            "bounds": self.bounds,
            "cluster": self.cluster,
        }
        return Estimate(value, **(base | kw))

    @classmethod
    def from_draws(
        cls,
        draws: Sequence[float] | np.ndarray,
        *,
        bounds: tuple[float, float] | None = None,
        unit: str = "draws",
    ) -> Estimate:
        """Mean of independent draws with its standard error (sd / √n) and n − 1 degrees of
        freedom: with ten draws (a few repeated attacks) a normal ±2 s.e. would cover about 92 %,
        the t interval the intended 95.4 %; with thousands of draws t and z agree. One draw has an
        infinite s.e., so nothing can be decided from it. ``bounds``: the range of one draw's
        outcome, which gives a sample where every draw tied an exact interval."""
        x = np.asarray(draws, float).ravel()
        if x.size == 0:
            raise ValueError("no draws")
        prov = {"empirical": True, "n": int(x.size), "unit": unit, "bounds": bounds}
        if x.size == 1:
            return cls(float(x[0]), se=math.inf, **prov)
        return cls(
            float(x.mean()), se=float(x.std(ddof=1) / math.sqrt(x.size)), df=x.size - 1, **prov
        )

    @classmethod
    def clustered(
        cls,
        draws: Sequence[float] | np.ndarray,
        clusters: Sequence | np.ndarray,
        *,
        bounds: tuple[float, float] | None = None,
        unit: str = "draws",
    ) -> Estimate:
        """Mean of draws made in clusters (a few draws in each of several stand-in worlds), the
        cluster as a random effect: the t interval of the cluster means (G clusters, G − 1
        degrees of freedom; for a balanced design this is the mixed model's exact test), and never
        narrower than if the draws were independent. ``n`` counts draws, ``cluster`` the draws per
        cluster. One cluster: the draws as independent (:meth:`from_draws`)."""
        x = np.asarray(draws, float).ravel()
        g = np.asarray(clusters).ravel()
        if x.shape != g.shape:
            raise ValueError(f"{x.size} draws but {g.size} cluster labels")
        _, inv = np.unique(g, return_inverse=True)
        k = int(inv.max()) + 1 if x.size else 0
        if k < 2:
            return cls.from_draws(x, bounds=bounds, unit=unit)
        prov = {"empirical": True, "n": int(x.size), "unit": unit, "bounds": bounds}
        size = x.size / k
        if np.all(x == x[0]):
            return cls(float(x[0]), se=0.0, df=k - 1, cluster=size, **prov)
        means = np.bincount(inv, weights=x) / np.bincount(inv)
        se = max(float(means.std(ddof=1) / math.sqrt(k)), float(x.std(ddof=1) / math.sqrt(x.size)))
        return cls(float(means.mean()), se=se, df=k - 1, cluster=size, **prov)

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
    def paired(
        cls,
        a: Sequence[float] | np.ndarray,
        b: Sequence[float] | np.ndarray,
        *,
        bounds: tuple[float, float] | None = None,
    ) -> Estimate:
        """A − B from measurements on the same draws (the paired difference's mean and s.e.);
        ``bounds``: the range of one draw's difference."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape:
            raise ValueError(f"paired draws need equal shapes, got {a.shape} and {b.shape}")
        return cls.from_draws(a - b, bounds=bounds)

    # --- arithmetic ------------------------------------------------------------------------------

    def quantile(self, z: float = Z) -> float:
        """Half-width in standard errors at the level of ±z: z itself, or Student's t with
        ``df`` degrees of freedom at the same two-sided level."""
        if self.df is None:
            return z
        return float(stats.t.isf(alpha_of(z) / 2.0, self.df))

    def interval(self, z: float = Z) -> tuple[float, float]:
        if self.zero_variance:
            if not self.decidable:  # nothing bounds it: the point itself, which decides nothing
                return self.value, self.value
            q = tie_share(self.n, z)
            a, b = self.bounds
            return self.value - q * (self.value - a), self.value + q * (b - self.value)
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
        intervals add their half-widths, which is conservative). An analytic side shifts the
        other."""
        if other.analytic:
            return self.shift(-other.value)
        if self.analytic:
            return other.negated().shift(self.value)
        empirical = self.empirical or other.empirical
        ns = [e.n for e in (self, other) if e.n is not None]
        prov = {
            "empirical": empirical,
            "n": min(ns) if ns else None,
            "unit": self.unit if self.n is not None else other.unit,
        }
        if self.se is not None and other.se is not None and self.decidable and other.decidable:
            if not (self.zero_variance or other.zero_variance):
                # the fewer degrees of freedom (conservative; Welch–Satterthwaite would give more)
                dfs = [d for d in (self.df, other.df) if d is not None]
                return Estimate(
                    self.value - other.value,
                    se=math.hypot(self.se, other.se),
                    df=min(dfs) if dfs else None,
                    cluster=max(self.cluster, other.cluster),
                    **prov,
                )
        if not (self.decidable and other.decidable):
            return Estimate(self.value - other.value, se=math.inf, **prov)
        lo1, hi1 = self.interval()
        lo2, hi2 = other.interval()
        return Estimate(self.value - other.value, lo=lo1 - hi2, hi=hi1 - lo2, **prov)

    def shift(self, c: float) -> Estimate:
        """The estimate of value + c (c exact)."""
        b = None if self.bounds is None else (self.bounds[0] + c, self.bounds[1] + c)
        if self.se is not None:
            return self._like(self.value + c, se=self.se, df=self.df, bounds=b)
        return self._like(self.value + c, lo=self.lo + c, hi=self.hi + c, bounds=b)

    def negated(self) -> Estimate:
        """The estimate of −value."""
        b = None if self.bounds is None else (-self.bounds[1], -self.bounds[0])
        if self.se is not None:
            return self._like(-self.value, se=self.se, df=self.df, bounds=b)
        return self._like(-self.value, lo=-self.hi, hi=-self.lo, bounds=b)

    def scaled(self, c: float) -> Estimate:
        """The estimate of c · value (c exact)."""
        b = None if self.bounds is None else tuple(sorted((c * self.bounds[0], c * self.bounds[1])))
        if self.se is not None:
            return self._like(c * self.value, se=abs(c) * self.se, df=self.df, bounds=b)
        lo, hi = sorted((c * self.lo, c * self.hi))
        return self._like(c * self.value, lo=lo, hi=hi, bounds=b)

    def half_se(self) -> float:
        """The standard error, or the interval's half-width in base-z standard errors."""
        if self.se is not None and not (self.zero_variance and self.decidable):
            return self.se
        lo, hi = self.interval()
        return (hi - lo) / (2.0 * Z)

    def text(self, z: float = Z) -> str:
        if self.analytic:
            return _fmt(self.value)
        if self.zero_variance:
            head = f"{_fmt(self.value)} (zero variance over {self.n or '?'} {self.unit}"
            if not self.decidable:
                return head + ")"
            lo, hi = self.interval(z)
            return head + f"; exact bound [{_fmt(lo)}, {_fmt(hi)}])"
        lo, hi = self.interval(z)
        t = f" (t, {self.df:g} df)" if self.df is not None else ""
        return f"{_fmt(self.value)} [{_fmt(lo)}, {_fmt(hi)}]{t}"


@dataclass(frozen=True)
class Floor:
    """What a theorem guarantees about the true value of a difference: it is at least ``value``
    (``why``: "the 1-d query is a function of the 2-d one, and a function of a query cannot beat
    the query"). An estimate robustly below it shows the estimator's shortfall, not the statement's
    failure: the rule then says uninformative, and a plan never leans on that side."""

    why: str
    value: float = 0.0


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
    experiment would have (n / cluster − 1), a normal without df, the exact tie bound (certain
    either way) for a zero-variance sample of a bounded outcome."""
    scale = np.asarray(scale, float)
    if not e.decidable or e.analytic:
        return lambda gap, lower: np.zeros_like(scale)
    if e.zero_variance:
        units = e.n * scale
        with np.errstate(divide="ignore"):
            q = -np.expm1(np.log(alpha_of(z) / 2.0) / np.maximum(units, 1e-300))
        q = np.where(units >= 1, q, 1.0)
        a, b = e.bounds
        return lambda gap, lower: (q * ((e.value - a) if lower else (b - e.value)) < gap).astype(
            float
        )
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
            "zero variance of an outcome with no stated range: every one gives the same result"
            if e0.zero_variance
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
        return never(e.unit, "its spread is unknown or zero with no stated range")
    if gap == 0 or not math.isfinite(gap):
        return never(e.unit, "no effect observed")
    base = float(e.n) if e.n is not None else None
    f = _point_power(e, True, z, lambda v, lean, side: side(gap, True), base is not None)
    n, why = _search(f, base is None)
    if not math.isfinite(n):
        return never(e.unit, why)
    return Plan(n, e.unit, None, "", base is None, f, base)


# --- verdicts -----------------------------------------------------------------------------------


class Verdict:
    """ok (``holds`` True), fails (False) or uninformative (None), with the numbers as ``note``
    and, when uninformative, the :class:`Plan` that would decide it.

    The plan may be given as a function that makes it: it is computed when first asked for (a
    simulation that calls a rule thousands of times reads ``holds`` only), and ``suffix(plan)``,
    when given, is appended to the note then."""

    __slots__ = ("_note", "_plan", "_suffix", "holds")

    def __init__(
        self,
        holds: bool | None,
        note: str,
        plan: Plan | Callable[[], Plan | None] | None = None,
        *,
        suffix: Callable[[Plan | None], str] | None = None,
    ) -> None:
        self.holds = holds
        self._note = note
        self._plan = plan
        self._suffix = suffix

    @property
    def plan(self) -> Plan | None:
        if self._plan is not None and not isinstance(self._plan, Plan):
            self._plan = self._plan()
        return self._plan

    @property
    def note(self) -> str:
        return self._note + (self._suffix(self.plan) if self._suffix is not None else "")

    def __repr__(self) -> str:
        return f"Verdict(holds={self.holds!r}, note={self.note!r}, plan={self.plan!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.holds, self.note, self.plan) == (other.holds, other.note, other.plan)

    __hash__ = None

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
        :meth:`privrisk.contract.claims.Ledger.qualitative`."""
        return {"holds": self.holds, "note": self.note, "to_decide": self.to_decide}

    def gated(self, *reasons: str, unit: str = "runs") -> Verdict:
        """Uninformative when any reason is given (a precondition failed: the model does not leak,
        the control shows nothing, the runs contradict each other), keeping the numbers;
        unchanged when all reasons are empty. A failed gate is a property of the observed
        experiment (its mean AUC, its control): at the observed effect more of the same does not
        make it pass, so the plan is never, naming the gate."""
        why = [r for r in reasons if r]
        if not why:
            return self
        gate = "; ".join(why)

        def plan() -> Plan:
            return never(self.plan.unit if self.plan is not None else unit, f"gated: {gate}")

        return Verdict(None, "uninformative: " + gate + f" [{self.note}]", plan)


def _join_why(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


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
    if overall is not None:
        return Verdict(overall, note)
    return Verdict(overall, note, lambda: combine([v.plan for _, v in items if v.holds is None]))


# --- one point ----------------------------------------------------------------------------------

_Decide = Callable[[Estimate, float], bool | None]


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
    if failed:
        where = f" at {', '.join(failed)}" if failed != [""] else ""
        return Verdict(False, f"fails{where}: {statement} [{tail}]")
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
        )
    if not undecided:
        return Verdict(True, f"{statement} [{tail}]")
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
    )


# --- exact checks (analytic curves and closed forms) --------------------------------------------
# A closed form or a deterministic computation (a grid search, an exact posterior) has no sampling
# error: the statement about it is decided by a plain comparison, up to a stated numerical
# tolerance, and is never uninformative. A paper computes the numbers; these functions make the
# comparison that turns them into a status, so no paper writes a decision rule. Each returns a
# Verdict whose note is empty when it holds and says why when it fails (``why``; with ``x``, the
# first place it fails), for the ledger's note (:meth:`privrisk.contract.claims.Ledger.judged`).


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
