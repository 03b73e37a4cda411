"""How xu2022's claims are decided: thin users of :mod:`privrisk.contract.verdicts`.

Every model is trained several times (``models.<name>.runs``). A claim is decided on the
*across-run* estimate of the statistic it is about (:class:`Stat`: each run's value with its
within-run bootstrap s.e.; across runs a Student-t interval, :meth:`Estimate.across_runs`), by the
verdict rule that states it (greater, at least, equivalent, below), and two preconditions make it
``uninformative`` whatever the numbers (each a gate: at the observed effect more runs do not
make it pass, so its plan is "never"):

* the queries the claim compares must leak: the across-run mean of their best held-out AUC
  reaches ``min_auc`` (:func:`leak_gate`, one gate per claim over *its own* queries: a claim about
  the NN query does not pass through the discriminator's signal);
* the runs must not contradict each other: when one run's own verdict is ok and another's fails,
  each on its within-run uncertainty, the across-run verdict is withheld (:func:`decide`; runs
  without a within-run s.e., the paper's own numbers, cannot decide on their own).

Every decision is robust (:mod:`privrisk.contract.verdicts`, "Robust decisions": the pooled interval over
the runs at the robust level) and an undecided one carries its runs-to-decide.

**A theorem's floor** (:class:`privrisk.contract.verdicts.Floor`): where one side of a comparison cannot
beat the other — the optimal adversary against a heuristic on the same query (Figs. 1a, 1c, 3), a
query against a function of itself (Figs. 2a, 2b, 8: max_i D_i of (D_1, D_2), each coordinate of
the hybrid, the output logit of the white-box layer; data processing) — an estimate robustly on
the impossible side shows the estimator's shortfall: uninformative, never a failure, and no plan
leans on it (:data:`OPTIMUM`, :func:`nested`).

Two statements have rules of their own:

* "the discrete estimate is larger than the KDE one" is about the paper's own two estimates
  (W_N, U_N), paired by run (:func:`paper_estimates_greater`);
* "the advantage increases with the synthetic-set size" (Fig. 7) is a one-sided trend test: each
  run's least-squares slope of a *directional* AUC (members' statistic below the hold-out's, no
  fitted direction) on log n, its s.e. from the run's paired bootstrap, greater than 0 across runs
  (:func:`auc_trend`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.stats import rankdata

from ...contract import verdicts as V
from ...contract.claims import Claim, Ledger

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


#: the optimal adversary ranges over every heuristic on the same query
OPTIMUM = V.Floor(
    "the optimal adversary is at least every heuristic on the same query (the heuristic is one "
    "of the adversaries it ranges over)"
)


def nested(smaller: str, larger: str) -> V.Floor:
    """The floor of "the larger query beats the smaller one" where the smaller is a function of
    the larger: no adversary of a function of a query beats the best adversary of the query."""
    return V.Floor(
        f"{smaller} is a function of {larger}, and a function of a query cannot beat the query "
        "(data processing)"
    )


def decide(
    rule: Rule,
    stats: Stat | Mapping[str, Stat],
    *,
    gates: Sequence[str] = (),
    **kw,
) -> V.Verdict:
    """``rule`` (a :mod:`privrisk.contract.verdicts` rule) on the across-run estimate(s), made
    uninformative by any gate and when the runs' own verdicts contradict each other. A run
    decides on its own only with its within-run s.e.: a value without one (the paper's own
    numbers) would count as exact and make a contradiction among many runs nearly certain."""
    many = {"": stats} if isinstance(stats, Stat) else dict(stats)
    verdict = rule(
        stats.estimate() if isinstance(stats, Stat) else {k: s.estimate() for k, s in many.items()},
        **kw,
    )
    runs = min(s.runs for s in many.values())
    conflict = ""
    if runs > 1 and all((s.ses > 0).all() for s in many.values()):

        def one(k: int):
            if isinstance(stats, Stat):
                return stats.run_estimate(k)
            return {lab: s.run_estimate(k) for lab, s in many.items()}

        per_run = [rule(one(k), **kw).holds for k in range(runs)]
        if True in per_run and False in per_run:
            words = {True: "ok", False: "fails", None: "undecided"}
            conflict = (
                "the runs contradict each other (per run: "
                + ", ".join(words[h] for h in per_run)
                + ")"
            )
    return verdict.gated(*gates, conflict)


def ranking_gate(
    optimum: Sequence[tuple[float, np.ndarray]],
    heuristic: Sequence[tuple[float, np.ndarray]],
    what: str,
) -> str:
    """'' unless the estimated optimal adversary ranks the points robustly *worse* than a heuristic
    on the same query: its held-out AUC minus the heuristic's, paired by run and bootstrap, below 0
    at the robust level. The likelihood ratio's ROC curve dominates every statistic's (Neyman–
    Pearson), so that is the estimator's shortfall: a claim of the optimum's *superiority*
    (Fig. 1a) is gated on it, never planned (a small advantage margin of a single threshold is
    within the shortfall the ranking shows)."""
    d = Stat.diff(optimum, heuristic).estimate()
    lo, hi = d.interval(V.ROBUST * V.Z)
    if not hi < 0:
        return ""
    return (
        f"the estimated optimal adversary ranks worse than the heuristic on {what} (held-out AUC "
        f"difference {d.value:+.3f} [{lo:+.3f}, {hi:+.3f}] at the robust level), though the "
        "optimum's ROC dominates every statistic's: a shortfall of the estimator"
    )


def beats_heuristic(
    diff: Stat | Mapping[str, Stat], *, gates: Sequence[str] = (), what: str
) -> V.Verdict:
    """ "The optimal adversary beats the heuristic", from the estimated optimal − heuristic on the
    *same* query (both held out, paired by run and bootstrap): ok when it is above 0 robustly; an
    estimate robustly *below* the heuristic is the estimator's shortfall (:data:`OPTIMUM`)."""
    return decide(V.greater, diff, gates=gates, what=what, floor=OPTIMUM)


def paper_estimates_greater(a: Stat, b: Stat, *, gates: Sequence[str] = (), what: str) -> V.Verdict:
    """The paper's own estimate A (e.g. W_N, discrete) larger than its estimate B (U_N, KDE), paired
    by run (the same trained model gives both): :func:`decide` on the per-run differences."""
    return decide(V.greater, Stat.plain(a.values - b.values), gates=gates, what=what)


def resamples(
    n_members: int, n_holdout: int, rng: np.random.Generator, n_boot: int
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap indices (n_boot × class size) that resample members and hold-out points within
    their classes; statistics of the same points computed on them are paired."""
    return (
        rng.integers(0, n_members, (n_boot, n_members)),
        rng.integers(0, n_holdout, (n_boot, n_holdout)),
    )


def directional_auc(
    members: np.ndarray, holdout: np.ndarray, boot: tuple[np.ndarray, np.ndarray]
) -> tuple[float, np.ndarray]:
    """P(a member's statistic < a hold-out point's) (ties count ½): the AUC of "smaller means
    member" with no direction fitted (a fitted direction makes any AUC at least ½, a two-sided
    statistic), and its draws on the bootstrap indices ``boot`` (:func:`resamples`)."""
    a, b = np.asarray(members, float).ravel(), np.asarray(holdout, float).ravel()
    ia, ib = boot
    draws = np.array([_mann_whitney(a[i], b[j]) for i, j in zip(ia, ib, strict=True)])
    return _mann_whitney(a, b), draws


def _mann_whitney(a: np.ndarray, b: np.ndarray) -> float:
    """P(A < B) + ½ P(A = B) from the ranks of the pooled sample."""
    ranks = rankdata(np.concatenate([a, b]))
    r_b = ranks[a.size :].sum()
    return float((r_b - b.size * (b.size + 1) / 2) / (a.size * b.size))


def slopes(runs: Sequence[Sequence[tuple[float, np.ndarray]]], x: Sequence[float]) -> Stat:
    """Each run's least-squares slope on log10 x of its (value, bootstrap draws) at every x
    (``runs[r][j]``; the draws paired across j), with the slope of every draw as its s.e."""
    lx = np.log10(np.asarray(x, float))
    if len(lx) < 2:
        raise ValueError("a trend needs at least 2 sizes")
    w = (lx - lx.mean()) / np.sum((lx - lx.mean()) ** 2)  # OLS slope weights
    out = []
    for run in runs:
        if len(run) != len(lx):
            raise ValueError(f"{len(run)} points in a run for {len(lx)} sizes")
        values = np.array([v for v, _ in run], float)
        draws = np.stack([np.asarray(d, float) for _, d in run], axis=-1)  # draws × sizes
        out.append((float(values @ w), draws @ w))
    return Stat.of(out)


def auc_trend(
    runs: Sequence[Sequence[tuple[float, np.ndarray]]],
    x: Sequence[float],
    *,
    gates: Sequence[str] = (),
    what: str = "slope of the directional AUC on log10 n",
) -> V.Verdict:
    """A one-sided trend test: ``runs[r][j]`` is run r's (AUC, bootstrap draws) at x[j] (the
    draws paired across j: the same points and resamples); :func:`decide` "slope > 0" on the
    runs' :func:`slopes`."""
    return decide(V.greater, slopes(runs, x), gates=gates, what=what)


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
    implied_by: V.Floor | None = None,
):
    """A ledger row: the verdict's numbers, which estimate decided it, where the data came from.
    ``implied_by``: the theorem that makes the statement true whatever the data (its floor at 0
    turns every failure of a margin-free rule into the estimator's shortfall), so the row cannot
    fail and is shown as ``derived`` (:func:`cannot_fail`)."""
    values = set(sources.values())
    if values == {"real", "real-unverified"}:  # all real data, some of it unverified
        values = {"real-unverified"}
    (data,) = values if len(values) == 1 else ("standin",)
    row = LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=text,
        verdict=verdict,
        ours=ours,
        note="; ".join(x for x in (f"decided by {decided_by}", source_note(sources)) if x),
        data=data,
    )
    if implied_by is not None:
        return cannot_fail(
            row,
            f"a theorem implies it: {implied_by.why}; the rule's floor at "
            f"{implied_by.value:g} turns every failure into the estimator's shortfall, so an ok "
            "measures the estimator's power, not the paper",
        )
    return row


#: the words a row that cannot fail carries before its rule's status (tests read it back)
RULE_SAYS = "its rule says"


def cannot_fail(row: Claim, why: str) -> Claim:
    """``row`` shown as ``derived``, not counted among the reproductions: its check cannot fail
    (``why``: a theorem implies the statement, or a non-private control passes the same rule).
    The rule's own status and numbers stay in the note; no plan (nothing to decide)."""
    note = f"derived, not a reproduction: the check cannot fail ({why}); {RULE_SAYS} {row.status}"
    return replace(row, status="derived", to_decide="", note=f"{note}: {row.note}")


def bound_eps1_p05(bound: float) -> Claim:
    """Figure 5's quoted number: Theorem 1(4)'s bound at p = 0.5, ε = 1."""
    return LEDGER.quoted("bound_eps1_p05", ours=bound)


def fig6_bound(eps: float, bound: float) -> Claim:
    """Figure 6's quoted bound tanh(ε/2) at ε = 2 or 10."""
    return LEDGER.quoted({2.0: "bound_eps2", 10.0: "bound_eps10"}[eps], ours=bound)
