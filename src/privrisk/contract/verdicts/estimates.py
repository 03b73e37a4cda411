"""Estimates with their uncertainty (:class:`Estimate`: a standard error with its degrees of
freedom, or an explicit interval; made from draws, runs, clusters of draws, or exact) and a
theorem's floor on a true difference (:class:`Floor`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .levels import Z, _fmt, t_quantile
from .ties import tie_interval


def _step(x: np.ndarray, bounds: tuple[float, float] | None, step) -> float | None:
    """The outcome's smallest difference: as given, or ``"auto"``: 1 for an integer outcome (a
    count of records, a success 0/1, a paired difference of them: integer bounds and draws), else
    unknown."""
    if step != "auto":
        return None if step is None else float(step)
    if bounds is None:
        return None
    vals = np.concatenate([np.asarray(bounds, float), x])
    return 1.0 if np.all(np.isfinite(vals)) and np.all(vals == np.round(vals)) else None


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
    #: paired difference of them): a zero-variance sample of a known step gets an exact interval
    #: (:func:`tie_share`) besides its near-tie bound
    bounds: tuple[float, float] | None = None
    #: units per independent cluster (draws per stand-in world): ``df`` = n / cluster − 1
    cluster: float = 1.0
    #: the smallest difference one unit's bounded outcome can show (1 for a count or a success):
    #: a tie then decides at least what the near-tie one step away decides; None (unknown): a tie
    #: decides what the near-ties around it decide in the limit (:mod:`.ties`)
    step: float | None = None

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
        if self.step is not None and not (self.step > 0 and math.isfinite(self.step)):
            raise ValueError(f"step {self.step!r} must be > 0")
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
        """Whether an interval can say anything: not one unit (its spread is unknown), and not a
        tie of a known step whose size is unknown (its near-tie bound needs n). A tie of unknown
        step decides as its near-ties do, with or without a stated range (:mod:`.ties`)."""
        if self.zero_variance:
            if self.step is None:
                return self.n is None or self.n >= 2
            return self.n is not None and self.n >= 2
        return self.se is None or math.isfinite(self.se)

    def _like(self, value: float, **kw) -> Estimate:
        """A derived estimate keeping the provenance (empirical, n, unit, bounds, cluster)."""
        base = {
            "empirical": self.empirical,
            "n": self.n,
            "unit": self.unit,
            "bounds": self.bounds,
            "cluster": self.cluster,
            "step": self.step,
        }
        return Estimate(value, **(base | kw))

    @classmethod
    def from_draws(
        cls,
        draws: Sequence[float] | np.ndarray,
        *,
        bounds: tuple[float, float] | None = None,
        unit: str = "draws",
        step: float | str | None = "auto",
    ) -> Estimate:
        """Mean of independent draws with its standard error (sd / √n) and n − 1 degrees of
        freedom: with ten draws (a few repeated attacks) a normal ±2 s.e. would cover about 92 %,
        the t interval the intended 95.4 %; with thousands of draws t and z agree. One draw has an
        infinite s.e., so nothing can be decided from it. ``bounds``: the range of one draw's
        outcome, which gives a sample where every draw tied an exact interval; ``step``: the
        outcome's smallest difference (``"auto"``: 1 for integer draws and bounds), which makes a
        tie decide at least what a near-tie decides (:mod:`privrisk.contract.verdicts.ties`)."""
        x = np.asarray(draws, float).ravel()
        if x.size == 0:
            raise ValueError("no draws")
        prov = {
            "empirical": True,
            "n": int(x.size),
            "unit": unit,
            "bounds": bounds,
            "step": _step(x, bounds, step),
        }
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
        step: float | str | None = "auto",
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
            return cls.from_draws(x, bounds=bounds, unit=unit, step=step)
        prov = {
            "empirical": True,
            "n": int(x.size),
            "unit": unit,
            "bounds": bounds,
            "step": _step(x, bounds, step),
        }
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
        step: float | str | None = "auto",
    ) -> Estimate:
        """A − B from measurements on the same draws (the paired difference's mean and s.e.);
        ``bounds``: the range of one draw's difference; ``step`` as in :meth:`from_draws`."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape:
            raise ValueError(f"paired draws need equal shapes, got {a.shape} and {b.shape}")
        return cls.from_draws(a - b, bounds=bounds, step=step)

    # --- arithmetic ------------------------------------------------------------------------------

    def quantile(self, z: float = Z) -> float:
        """Half-width in standard errors at the level of ±z: z itself, or Student's t with
        ``df`` degrees of freedom at the same two-sided level."""
        if self.df is None:
            return z
        return t_quantile(z, self.df)

    def interval(self, z: float = Z) -> tuple[float, float]:
        if self.zero_variance:
            if not self.decidable:  # one unit: the point itself, which decides nothing
                return self.value, self.value
            return tie_interval(
                self.value,
                self.bounds,
                self.n,
                z,
                cluster=self.cluster,
                step=self.step,
                df=self.df,
            )
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
        step = None if self.step is None or c == 0 else abs(c) * self.step
        if self.se is not None:
            return self._like(c * self.value, se=abs(c) * self.se, df=self.df, bounds=b, step=step)
        lo, hi = sorted((c * self.lo, c * self.hi))
        return self._like(c * self.value, lo=lo, hi=hi, bounds=b, step=step)

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
            if self.step is None:
                return head + ": decided as the near-ties around it)"
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
