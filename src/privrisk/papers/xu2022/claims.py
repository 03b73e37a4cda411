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

Each figure's rows are written here, one function per figure (:func:`fig1a_claims`,
:func:`fig2a_claim`, …, :func:`audit_claims`): the figure modules compute the statistics and
plot them, and pass them here, where the rule that decides each statement is chosen.

Two statements have rules of their own:

* "the discrete estimate is larger than the KDE one" is about the paper's own two estimates
  (W_N, U_N), paired by run (:func:`paper_estimates_greater`);
* "the advantage increases with the synthetic-set size" (Fig. 7) is a one-sided trend test: each
  run's least-squares slope of a *directional* AUC (members' statistic below the hold-out's, no
  fitted direction) on log n, its s.e. from the run's paired bootstrap, greater than 0 across runs
  (:func:`auc_trend`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ...contract import verdicts as V
from ...contract.claims import Claim, Ledger
from ...estimators import mace

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


# --- the claims of each figure: the rule that decides each, chosen here ------------------------
# The figure modules compute the statistics (Stat), the gates and the sources, plot them and pass
# them here; each function below picks the verdict rule the statement needs and writes the rows.


def fig1a_claims(
    held: Sequence[Mapping[str, tuple[float, np.ndarray]]],
    diff: Mapping[str, Stat],
    H: Mapping[str, Stat],
    P: Mapping[str, Stat],
    *,
    gate: str,
    sources: Mapping[str, str],
) -> list[Claim]:
    """Figure 1a: the optimum beats the heuristic on both queries; W_N above U_N."""
    # "optimal > heuristic" is about the optimum, whose ROC dominates every statistic's: an
    # estimate that ranks the points robustly worse than the heuristic falls short of it, and
    # more runs of the same estimator cannot show the optimum's superiority
    shortfall = [
        ranking_gate([h[a] for h in held], [h[b] for h in held], what)
        for a, b, what in (
            ("auc_disc", "auc_heur_bin", "the binned query"),
            ("auc_cont", "auc_heur", "the continuous query"),
        )
    ]
    v1 = beats_heuristic(
        diff, gates=[gate, *shortfall], what="held-out optimal − heuristic advantage (same query)"
    )
    # "the KDE is somewhat poorer" is about the paper's own two estimates, paired by run
    v2 = paper_estimates_greater(P["W"], P["U"], gates=[gate], what="W_N − U_N (paired by run)")
    return [
        claim(
            "fig1a",
            "fig1a_optimal_gt_heuristic",
            "optimal > heuristic for both discrete and continuous queries",
            v1,
            decided_by="the cross-fitted plug-in (histogram / KDE) vs the threshold heuristic on "
            "the same query (binned score for the histogram), both scored out of fold, across runs",
            sources=sources,
            ours=f"held-out advantage: discrete {H['disc'].mean:.3f} (heuristic on the binned score "
            f"{H['heur_bin'].mean:.3f}), continuous {H['cont'].mean:.3f} (heuristic "
            f"{H['heur'].mean:.3f})",
            implied_by=OPTIMUM,
        ),
        claim(
            "fig1a",
            "fig1a_discrete_ge_kde",
            "the discrete estimate is larger than the continuous (KDE) one (the KDE is 'somewhat poorer')",
            v2,
            decided_by="the paper's W_N (histogram) vs U_N (KDE), paired by training run",
            sources=sources,
            ours=f"held-out {H['disc'].mean:.3f} vs {H['cont'].mean:.3f}; paper's W_N {P['W'].mean:.3f} "
            f"(null {P['W_null'].mean:.3f}), U_N {P['U'].mean:.3f} (null {P['U_null'].mean:.3f})",
        ),
    ]


def fig2a_claim(
    d: Stat,
    H: Mapping[str, Stat],
    P: Mapping[str, Stat],
    *,
    gate: str,
    margin: float,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 2a: the 2-d query beats max_i D_i by more than the margin (greater, with margin)."""
    verdict = decide(
        V.greater,
        d,
        gates=[gate],
        margin=margin,
        what="held-out 2-d − 1-d advantage",
        floor=nested("max_i D_i(z)", "(D_1, D_2)(z)"),
    )
    return claim(
        "fig2a",
        "fig2a_2d_gt_1d",
        "the 2-d query (D1, D2) gives a much higher advantage than max_i D_i "
        f"('much': by more than the margin {margin:g})",
        verdict,
        decided_by="the cross-fitted KDE plug-in adversaries of both queries, across runs",
        sources=sources,
        ours=f"held-out 2-d {H['two'].mean:.3f}, 1-d {H['one'].mean:.3f}; paper's 100^d-bin W_N 2-d "
        f"{P['two_paper'].mean:.3f} vs its null {P['two_paper_null'].mean:.3f}",
    )


def fig3_claim(
    ds: str,
    metric: str,
    d: Stat,
    H: Mapping[str, Stat],
    A: Mapping[str, Stat],
    *,
    p: float,
    gate: str,
    margin: float,
    source: str,
) -> Claim:
    """Figure 3, one dataset and metric: heuristic ≈ optimal (equivalence within the margin)."""
    verdict = decide(
        V.equivalent,
        d,
        gates=[gate],
        margin=margin,
        what=f"held-out optimal − heuristic {metric.upper()}",
        floor=OPTIMUM,
    )
    return claim(
        "fig3",
        f"fig3_{ds.lower().replace('-', '')}_{metric}_comparable",
        f"heuristic ≈ optimal under {metric.upper()} at p = {p:g} ({ds}): within ±{margin:g}",
        verdict,
        decided_by="an equivalence test (two one-sided) on the cross-fitted optimal and heuristic "
        "adversaries scored on the same left-out points, across runs",
        sources={ds: source},
        ours=f"held-out optimal {H[f'opt_{metric}'].mean:.3f}, heuristic {H[f'heur_{metric}'].mean:.3f}; "
        f"Algorithm 2 {A[metric].mean:.3f}; model AUC {H['auc'].mean:.3f}",
    )


def fig5_claim(
    points: Mapping[str, V.Estimate],
    bounds: Mapping[str, float],
    models: Mapping[float, Mapping],
    *,
    p: float,
    gate: str,
    ctl_text: str,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 5: the advantage below tanh(ε/2) at every finite ε (below, per ε)."""
    verdict = (
        V.below(points, bounds, what="advantage").gated(gate)
        if points
        else V.Verdict(None, "uninformative: no finite ε")
    )
    return claim(
        "fig5",
        "fig5_estimate_below_bound",
        "the estimated advantage is below tanh(ε/2) for every ε (the paper adds: by a wide margin)",
        verdict,
        decided_by="at every ε, the runs' mean W_N + its McDiarmid half-width (an upper bound on the "
        "binned query's mean advantage: decides 'holds') and the cross-fitted classifier's across-run "
        "t interval (its lower end bounds the advantage from below: decides 'fails'), the non-private "
        "control's leakage as the precondition",
        sources=sources,
        ours="; ".join(
            f"ε={e:g}: mean W_N {np.mean([w['estimate'] for w in m['paper']]):.3f} "
            f"(+{m['paper'][0]['halfwidth'] / np.sqrt(len(m['paper'])):.3f}), "
            f"held-out {m['held']['adv'].mean:.3f} vs bound {mace.dp_bound(epsilon=e, p=p):.3f}"
            for e, m in models.items()
        )
        + f"; {ctl_text}",
    )


def control_vacuous(points: Mapping[str, V.Estimate], bound: float, control_auc: float) -> str:
    """'' unless the non-private control's bins (``points``) pass Figure 6's rule "every bin below
    ``bound``"; then why the rule cannot fail at this scale."""
    v = V.below(points, bound, what="AdvI of a bin")
    if v.holds is not True:
        return ""
    top = max(e.interval(V.ROBUST * V.Z)[1] for e in points.values())
    return (
        f"vacuous at this scale: the non-private control (ε = ∞, AUC "
        f"{control_auc:.3f}) passes the same rule, every one of its {len(points)} bins "
        f"below tanh(ε/2) = {bound:.4f} (highest robust upper end {top:.3f}): a model without "
        "privacy passes it, so a pass says nothing about DP"
    )


def fig6_claim(
    eps: float,
    points: Mapping[str, V.Estimate],
    bound: float,
    bins: pd.DataFrame,
    *,
    nb: int,
    min_per_class: int,
    gate: str,
    vacuous: str | None,
    source: str,
) -> Claim:
    """Figure 6 at one ε: every bin of every run below tanh(ε/2) (below); ``derived`` when the
    non-private control passes the same rule (``vacuous``: :func:`control_vacuous`)."""
    verdict = V.below(points, bound, what="AdvI of a bin").gated(gate)
    n_below = int((bins["decides"] == "below").sum())
    row = claim(
        "fig6",
        f"fig6_max_below_bound_eps{eps:g}",
        f"the highest individual risk is below tanh(ε/2) at ε = {eps:g}",
        verdict,
        decided_by=f"the Clopper–Pearson interval of every one of {nb} equal-frequency "
        f"bins (at least {min_per_class} points of each class on average) in every run (all upper "
        "ends below the bound: holds; a lower end above it, Bonferroni over the bins: fails), "
        "the non-private control's leakage as the precondition",
        sources={"MNIST 0-vs-6": source},
        ours=f"max AdvI {bins['y'].max():.3f}, max upper end {bins['hi'].max():.3f}, "
        f"max lower end {bins['lo'].max():.3f} vs bound {bound:.4f} ({len(points)} bins; "
        f"{n_below} below it at the robust level)",
    )
    return cannot_fail(row, vacuous) if vacuous else row


def fig1b_claim(
    d: Stat,
    H: Mapping[str, Stat],
    P: Mapping[str, Stat],
    *,
    gate: str,
    margin: float,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 1b: the discriminator query beats the NN distance by more than the margin."""
    verdict = decide(V.greater, d, gates=[gate], margin=margin, what="held-out D − NN advantage")
    return claim(
        "fig1b",
        "fig1b_discriminator_gg_nn",
        "the advantage of the discriminator query is a lot larger than that of the NN-distance query "
        f"('a lot': by more than the margin {margin:g})",
        verdict,
        decided_by="the cross-fitted KDE plug-in adversaries of both queries, across runs",
        sources=sources,
        ours=f"held-out advantage D {H['D'].mean:.3f}, NN {H['NN'].mean:.3f}; AUC {H['auc_D'].mean:.3f} vs "
        f"{H['auc_NN'].mean:.3f}; paper's W_N − null: D {P['D'].mean - P['D_null'].mean:.3f}, NN "
        f"{P['NN'].mean - P['NN_null'].mean:.3f}",
    )


def fig1c_claim(
    lab: str,
    group: str,
    d: Stat,
    H: Mapping[str, Stat],
    *,
    gate: str,
    margin: float,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 1c, one query (``lab``: D or NN): the optimum at least the heuristic (non-inferiority
    within the margin), implied by the optimum's definition."""
    verdict = decide(
        V.at_least,
        d,
        gates=[gate],
        margin=margin,
        what=f"held-out optimal − heuristic ({lab})",
        floor=OPTIMUM,
    )
    return claim(
        "fig1c",
        {"D": "fig1c_optimal_ge_hayes", "NN": "fig1c_optimal_ge_hilprecht"}[lab],
        f"the optimal adversary's advantage >= the heuristic's ({group.replace(chr(10), ' ')}), "
        f"within the margin {margin:g}",
        verdict,
        decided_by="non-inferiority of the cross-fitted plug-in against the threshold heuristic "
        "(direction and threshold fitted on the training folds), scored on the same left-out points",
        sources=sources,
        ours=f"held-out optimal {H[lab].mean:.3f}, heuristic {H[f'heur_{lab}'].mean:.3f}",
        implied_by=OPTIMUM,
    )


def fig2b_claim(
    diffs: Mapping[str, Stat],
    H: Mapping[str, Stat],
    P: Mapping[str, Stat],
    *,
    gate: str,
    bins: int,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 2b: the hybrid beats each 1-d query (greater, all of them), implied by nesting."""
    floor = nested("each 1-d query (D, NN)", "the hybrid (D, NN)")
    verdict = decide(
        V.greater, diffs, gates=[gate], what="held-out hybrid − 1-d advantage", floor=floor
    )
    return claim(
        "fig2b",
        "fig2b_hybrid_gt_each_1d",
        "the 2-d hybrid query (D, NN distance) gives a higher advantage than each 1-d query",
        verdict,
        decided_by="the cross-fitted KDE plug-in adversaries of the three queries on the same points, across runs",
        sources=sources,
        ours=f"held-out advantage hybrid {H['hybrid'].mean:.3f}, D {H['D'].mean:.3f}, NN {H['NN'].mean:.3f}; "
        f"paper's {bins}²-bin W_N of the hybrid {P['hybrid_paper'].mean:.3f} vs its null "
        f"{P['hybrid_paper_null'].mean:.3f}",
        implied_by=floor,
    )


def fig4b_claim(
    d: Stat,
    H: Mapping[str, Stat],
    P: Mapping[str, Stat],
    *,
    gate: str,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 4b: corrupted images' mean risk above clean ones' (greater)."""
    verdict = decide(V.greater, d, gates=[gate], what="held-out mean AdvI, corrupted − clean")
    return claim(
        "fig4b",
        "fig4b_corrupted_gt_clean",
        "corrupted training images have a higher average individual privacy risk than uncorrupted ones",
        verdict,
        decided_by="the held-out AdvI of the cross-fitted KDE plug-in, group means bootstrapped within each run, "
        "across runs",
        sources=sources,
        ours=f"held-out mean AdvI corrupted {H['corrupted'].mean:.3f}, clean {H['clean'].mean:.3f}; paper's "
        f"{P['corrupted'].mean:.3f} vs {P['clean'].mean:.3f} (noise floor {P['null'].mean:.3f}); model AUC "
        f"{H['auc'].mean:.3f}",
    )


def fig7_claim(
    slope: Stat,
    directional: Mapping[str, Stat],
    H: Mapping[str, Stat],
    sizes: Sequence[int],
    *,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 7: the membership signal grows with the synthetic-set size: a one-sided trend test
    (greater than 0) on each run's slope of the directional AUC (threshold-free and without a
    fitted direction, paired across sizes), not gated on its level: a weak signal that rises
    consistently in every run is evidence of the statement."""
    labs = list(directional)
    verdict = decide(V.greater, slope, what="slope of the directional AUC on log10 n")
    return claim(
        "fig7",
        "fig7_increases_with_synthetic_size",
        "the membership signal increases with the synthetic-set size "
        "(one-sided trend of the directional AUC of the NN distance on log n)",
        verdict,
        decided_by="each run's least-squares slope of the directional AUC (P(member's NN distance < "
        "hold-out point's), no fitted direction) on log10 n, its s.e. from a paired bootstrap, "
        "across runs",
        sources=sources,
        ours="directional AUC by n: "
        + ", ".join(f"{n}: {directional[lab].mean:.3f}" for lab, n in zip(labs, sizes, strict=True))
        + "; held-out advantage "
        + ", ".join(f"{H[lab].mean:.3f}" for lab in labs),
    )


def fig8_claim(
    d: Stat,
    H: Mapping[str, Stat],
    *,
    gate: str,
    sources: Mapping[str, str],
) -> Claim:
    """Figure 8: the white-box query beats the black-box one (greater), implied by nesting."""
    floor = nested("the black-box output logit", "the white-box layer it is computed from")
    verdict = decide(
        V.greater, d, gates=[gate], what="held-out white − black advantage", floor=floor
    )
    return claim(
        "fig8",
        "fig8_whitebox_gt_blackbox",
        "the white-box query gives a higher advantage than the black-box query",
        verdict,
        decided_by="the cross-fitted KDE plug-in adversaries of both queries on the same points, across runs",
        sources=sources,
        ours=f"held-out advantage white {H['white'].mean:.3f}, black {H['black'].mean:.3f}; AUC "
        f"{H['auc_white'].mean:.3f} vs {H['auc_black'].mean:.3f}",
        implied_by=floor,
    )


def audit_claims(
    summary: pd.DataFrame, *, figure: str, data: str, confidence: float
) -> list[Claim]:
    """The audit of every DP-cGAN (a row of ``summary`` per model, :mod:`.figures_audit`), as
    ``derived`` rows: per finite ε, ε̂ ≤ the accountant's ε; for the control, the largest ε̂ of the
    models."""
    out = []
    finite = summary[np.isfinite(summary["epsilon"])]
    for _, r in summary.iterrows():
        e = float(r["epsilon"])
        where = (
            f"{r['runs']} runs, {r['n_members']} members / {r['n_nonmembers']} hold-out in all, "
            f"μ̂ = {r['mu_hat']:.3g}, mean AUC {r['auc']:.3f}"
        )
        if math.isfinite(e):
            holds = r["epsilon_hat"] <= e and r["verdict"] != "refuted"
            claim = (
                f"DP-cGAN ε = {e:g}: the membership audit's ε̂ ({confidence:.0%} lower bound) does "
                "not exceed the accountant's ε"
            )
            note = (
                f"ε̂ ≤ ε {'holds' if holds else 'FAILS (a bug in training or accounting)'}: "
                f"ε̂ = {r['epsilon_hat']:.4g} vs ε = {e:g} (spent {r['epsilon_spent']:.4g}; "
                f"{where}); audit: {r['note']}; the canaries of a run share one model, so the "
                "two-sample bounds are not proven for them (docs/audit-pipeline.md)"
            )
        else:
            top = float(finite["epsilon_hat"].max()) if len(finite) else -math.inf
            holds = bool(r["epsilon_hat"] >= top) and r["epsilon_hat"] > 0
            claim = (
                "the non-private control (ε = ∞) has the largest audited ε̂ of the DP-cGANs, and "
                "a positive one (the attack sees leakage at all)"
            )
            note = (
                f"{'holds' if holds else 'fails'}: ε̂(∞) = {r['epsilon_hat']:.4g}, largest ε̂ of "
                f"a DP model = {top:.4g} ({where})"
            )
        out.append(
            Claim(
                LEDGER.paper,
                figure,
                f"{figure}_eps{_tag(e)}",
                claim,
                e,
                float(f"{float(r['epsilon_hat']):.8g}"),
                "",
                "derived",
                data,
                f"the project's own audit, not a number of the paper; {note}",
            )
        )
    return out


def _tag(e: float) -> str:
    return "inf" if math.isinf(e) else f"{e:g}".replace(".", "p")
