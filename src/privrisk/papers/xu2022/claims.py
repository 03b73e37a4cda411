"""How xu2022's claims are decided: thin users of :mod:`privrisk.verdicts`.

Every model is trained several times (``models.<name>.runs``). A claim is decided on the
*across-run* estimate of the statistic it is about (:class:`Stat`: each run's value with its
within-run bootstrap s.e.; across runs a Student-t interval, :meth:`Estimate.across_runs`), by the
verdict rule that states it (greater, at least, equivalent, below, monotone), and two
preconditions make it ``uninformative`` whatever the numbers:

* the model must leak: the across-run mean of its best held-out AUC reaches ``min_auc``
  (:func:`leak_gate`); a comparison between two queries of a model that shows nothing says nothing
  about the paper's statement;
* the runs must not contradict each other: when one run's own verdict is ok and another's fails,
  the across-run verdict is withheld (:func:`decide`).

Every decision is robust (:mod:`privrisk.verdicts`, "Robust decisions": the pooled interval over
the runs at the robust level) and an undecided one carries its runs-to-decide.
Three statements have rules of their own:

* "the optimal adversary beats a heuristic" (Fig. 1a) is judged like with like, the estimated
  optimal adversary and the heuristic on the same (binned) query, and an estimate *below* the
  heuristic reads uninformative, not fails: an estimated optimal adversary that loses to a
  heuristic shows the estimator's shortfall, not that the optimum is lower (:func:`beats_heuristic`);
* "the discrete estimate is larger than the KDE one" is about the paper's own two estimates
  (W_N, U_N), paired by run (:func:`paper_estimates_greater`);
* "the advantage increases with the synthetic-set size" (Fig. 7) is a one-sided trend test: each
  run's least-squares slope of the held-out AUC on log n, its s.e. from the run's paired
  bootstrap, greater than 0 across runs (:func:`auc_trend`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ... import verdicts as V
from ...claims import Ledger

LEDGER = Ledger("xu2022")


@dataclass(frozen=True)
class Stat:
    """One statistic of a model over its training runs: each run's value and its within-run
    standard error (from that run's bootstrap; 0 for an exact value)."""

    values: np.ndarray
    ses: np.ndarray

    @classmethod
    def of(cls, runs: Sequence[tuple[float, np.ndarray]]) -> Stat:
        """From (value, bootstrap draws) of every run."""
        return cls(
            np.array([v for v, _ in runs], float),
            np.array([np.std(d, ddof=1) for _, d in runs], float),
        )

    @classmethod
    def diff(
        cls, a: Sequence[tuple[float, np.ndarray]], b: Sequence[tuple[float, np.ndarray]]
    ) -> Stat:
        """A − B over the same runs and the same bootstrap draws (paired within each run)."""
        return cls.of([(va - vb, da - db) for (va, da), (vb, db) in zip(a, b, strict=True)])

    @classmethod
    def plain(cls, values: Sequence[float]) -> Stat:
        """Values without a within-run s.e. (the paper's own numbers, only drawn)."""
        v = np.asarray(values, float)
        return cls(v, np.zeros_like(v))

    @property
    def runs(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return float(self.values.mean())

    @property
    def sd(self) -> float:
        return float(self.values.std(ddof=1)) if self.runs > 1 else 0.0

    def estimate(self) -> V.Estimate:
        """The across-run estimate (mean, t interval with runs − 1 df, floored by the within-run
        s.e.)."""
        return V.Estimate.across_runs(self.values, self.ses)

    def run_estimate(self, k: int) -> V.Estimate:
        """Run k on its own: its value with its within-run s.e."""
        return V.Estimate(float(self.values[k]), se=float(self.ses[k]))


def leak_gate(auc: Stat, min_auc: float, what: str = "the model") -> str:
    """'' when ``what`` leaks (across-run mean held-out AUC >= ``min_auc``), else the reason."""
    if auc.mean >= min_auc:
        return ""
    return (
        f"{what} shows no clear membership signal: held-out AUC {auc.mean:.3f} "
        f"(runs {', '.join(f'{v:.3f}' for v in auc.values)}) < min_auc {min_auc:g}"
    )


Rule = Callable[..., V.Verdict]


def decide(
    rule: Rule,
    stats: Stat | Mapping[str, Stat],
    *,
    gates: Sequence[str] = (),
    **kw,
) -> V.Verdict:
    """``rule`` (a :mod:`privrisk.verdicts` rule) on the across-run estimate(s), made
    uninformative by any gate and when the runs' own verdicts contradict each other."""
    if isinstance(stats, Stat):
        verdict = rule(stats.estimate(), **kw)
        runs = stats.runs
        per_run = [rule(stats.run_estimate(k), **kw).holds for k in range(runs)]
    else:
        verdict = rule({k: s.estimate() for k, s in stats.items()}, **kw)
        runs = min(s.runs for s in stats.values())
        per_run = [
            rule({lab: s.run_estimate(k) for lab, s in stats.items()}, **kw).holds
            for k in range(runs)
        ]
    conflict = ""
    if runs > 1 and True in per_run and False in per_run:
        words = {True: "ok", False: "fails", None: "undecided"}
        conflict = (
            "the runs contradict each other (per run: " + ", ".join(words[h] for h in per_run) + ")"
        )
    return verdict.gated(*gates, conflict)


def increases(
    curve: Sequence[Stat], x: Sequence[float], diffs, *, margin: float, what: str, gates=()
):
    """ "The curve increases with x" (:func:`privrisk.verdicts.monotone`, a trend: the overall
    change beyond noise and no step reversing by more than ``margin``), on paired across-run
    differences: ``diffs(j, i)`` is the :class:`Stat` of point j − point i."""
    verdict = V.monotone(
        None,
        x,
        margin=margin,
        what=what,
        pair=lambda j, i: diffs(j, i).estimate(),
    )
    runs = curve[0].runs
    per_run = [
        V.monotone(
            None, x, margin=margin, what=what, pair=lambda j, i, k=k: diffs(j, i).run_estimate(k)
        ).holds
        for k in range(runs)
    ]
    conflict = (
        "the runs contradict each other"
        if runs > 1 and True in per_run and False in per_run
        else ""
    )
    return verdict.gated(*gates, conflict)


def beats_heuristic(
    diff: Stat | Mapping[str, Stat], *, gates: Sequence[str] = (), what: str
) -> V.Verdict:
    """ "The optimal adversary beats the heuristic", from the estimated optimal − heuristic on the
    *same* query (both held out, paired by run and bootstrap): ok when it is above 0 robustly;
    an estimate robustly *below* the heuristic is the estimator's shortfall (the heuristic is one
    of the adversaries the optimum ranges over), so it reads uninformative, not fails."""
    verdict = decide(V.greater, diff, gates=gates, what=what)
    if verdict.holds is not False:
        return verdict
    return V.Verdict(
        None,
        "uninformative: the estimated optimal adversary falls below the heuristic on the same "
        "query, a shortfall of the estimator (the optimum is at least every heuristic), not "
        f"evidence against the statement [{verdict.note}]",
        V.Plan(
            math.inf,
            "runs",
            why="the estimator falls short of a heuristic: a better estimate "
            "of the optimal adversary is needed, not more runs",
        ),
    )


def paper_estimates_greater(a: Stat, b: Stat, *, gates: Sequence[str] = (), what: str) -> V.Verdict:
    """The paper's own estimate A (e.g. W_N, discrete) larger than its estimate B (U_N, KDE), paired
    by run (the same trained model gives both): :func:`decide` on the per-run differences."""
    return decide(V.greater, Stat.plain(a.values - b.values), gates=gates, what=what)


def auc_trend(
    runs: Sequence[Sequence[tuple[float, np.ndarray]]],
    x: Sequence[float],
    *,
    gates: Sequence[str] = (),
    what: str = "slope of the held-out AUC on log10 n",
) -> V.Verdict:
    """A one-sided trend test: ``runs[r][j]`` is run r's (AUC, bootstrap draws) at x[j] (the
    draws paired across j: the same points, folds and resamples). Each run's least-squares slope
    on log10 x, with its s.e. from the slope of every bootstrap draw, and :func:`decide` "slope
    > 0" across runs."""
    lx = np.log10(np.asarray(x, float))
    if len(lx) < 2:
        raise ValueError("a trend needs at least 2 sizes")
    w = (lx - lx.mean()) / np.sum((lx - lx.mean()) ** 2)  # OLS slope weights
    slopes = []
    for run in runs:
        if len(run) != len(lx):
            raise ValueError(f"{len(run)} points in a run for {len(lx)} sizes")
        values = np.array([v for v, _ in run], float)
        draws = np.stack([np.asarray(d, float) for _, d in run], axis=-1)  # draws × sizes
        slopes.append((float(values @ w), draws @ w))
    return decide(V.greater, Stat.of(slopes), gates=gates, what=what)


def source_note(sources: Mapping[str, str]) -> str:
    bad = [f"{k}: {v}" for k, v in sources.items() if v not in ("real", "real-unverified")]
    unverified = [k for k, v in sources.items() if v == "real-unverified"]
    return "; ".join(
        x
        for x in (
            ("on " + ", ".join(bad) + " data, not the paper's") if bad else "",
            ("real data, checksum not verified: " + ", ".join(unverified)) if unverified else "",
        )
        if x
    )


def claim(
    figure: str,
    claim_id: str,
    text: str,
    verdict: V.Verdict,
    *,
    decided_by: str,
    sources: Mapping[str, str],
    ours: str,
):
    """A ledger row: the verdict's numbers, which estimate decided it, where the data came from."""
    values = set(sources.values())
    if values == {"real", "real-unverified"}:  # all real data, some of it unverified
        values = {"real-unverified"}
    (data,) = values if len(values) == 1 else ("standin",)
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=text,
        verdict=verdict,
        ours=ours,
        note="; ".join(x for x in (f"decided by {decided_by}", source_note(sources)) if x),
        data=data,
    )
