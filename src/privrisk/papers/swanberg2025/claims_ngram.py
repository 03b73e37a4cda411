"""swanberg2025 Figure 3: the claims, judged with :mod:`privrisk.contract.verdicts`.

The baseline of every "attack vs prior" statement is the max-prior guess (the most probable digit,
no model): *paired*, its realised success on the same canaries, so each model's difference
(attack right − mode right) carries the uncertainty; under the uniform prior every guess succeeds
with probability exactly 1/K, which is the baseline there (exact: the guess would only add noise). "Does not under-perform" is
non-inferiority within the section's ``margin``; a statement over several ε is judged at every
point with Bonferroni's correction for a failure. Statements tied to the paper's own PII prior are
``standin`` on the offline stand-in prior.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...contract import verdicts as V
from ...contract.claims import Claim
from ...contract.verdicts import Estimate, Verdict
from .claims import LEDGER


def _eps(e: float) -> str:
    return "inf" if math.isinf(e) else f"{e:g}"


def _at(df, prior, eps, col="accuracy"):
    d = df[(df["prior"] == prior) & np.isclose(df["epsilon"], eps)]
    return float(d[col].iloc[0]) if len(d) else float("nan")


def gain(row) -> Estimate:
    """attack − max-prior guess over the ``n`` models of a point: paired on the same canaries, or
    against the exact 1/K of the uniform prior (``gain_baseline``). Each model's difference is
    bounded (a success 0/1 minus the guess's 0/1 or 1/K), so when every model ties the exact
    bound of :func:`privrisk.contract.verdicts.tie_share` applies (a tie supports "does not
    under-perform" as far as n models allow)."""
    n = int(row["n"])
    se = float(row["gain_se"])
    if row.get("gain_baseline", "paired") == "exact":
        bounds = (-float(row["baseline"]), 1.0 - float(row["baseline"]))
    else:
        bounds = (-1.0, 1.0)
    # a model's difference moves in whole successes (0/1 minus 0/1, or minus the fixed 1/K): the
    # step is 1, so a tie decides at least what a near-tie one model off decides (verdicts.ties)
    prov = {"empirical": True, "n": n, "unit": "models", "bounds": bounds, "step": 1.0}
    if n < 2 or not math.isfinite(se):
        return Estimate(float(row["gain"]), se=math.inf, **prov)
    return Estimate(float(row["gain"]), se=se, df=n - 1, **prov)


def accuracy(row) -> Estimate:
    """Attack accuracy with the Agresti–Coull standard error (k + 2 successes in n + 4 trials):
    the plain binomial s.e. is 0 at an accuracy of 0 or 1, which n models do not establish."""
    a, n = float(row["accuracy"]), int(row["n"])
    if n < 2:
        return Estimate(a, se=math.inf, empirical=True, n=max(n, 1), unit="models")
    p = (a * n + 2.0) / (n + 4.0)
    return Estimate(a, se=math.sqrt(p * (1 - p) / (n + 4.0)), empirical=True, n=n, unit="models")


def _standin(figure, claim_id, claim, verdict: Verdict, ours, why) -> Claim:
    note = f"{why}; on the stand-in the statement is {verdict.status} ({verdict.note})"
    return Claim(
        LEDGER.paper, figure, claim_id, claim, "stated", ours, "", "standin", "standin", note
    )


def mostly_not_below(df: pd.DataFrame, *, margin: float, share: float = 0.1) -> Verdict:
    """ "Mostly does not under-perform the baseline": fails when more than ``share`` of the points
    fail non-inferiority (each at the Bonferroni level over the points), holds when at least
    1 − ``share`` of them pass it (each at the base level), else uninformative."""
    k = len(df)
    zk = V.bonferroni_z(V.Z, k)
    labels = [f"{r.prior} ε={_eps(r.epsilon)}" for r in df.itertuples()]
    fails = [
        lab
        for lab, (_, r) in zip(labels, df.iterrows(), strict=True)
        if V.at_least(gain(r), margin=margin, z=zk).holds is False
    ]
    at_base = [V.at_least(gain(r), margin=margin) for _, r in df.iterrows()]
    passes = [lab for lab, v in zip(labels, at_base, strict=True) if v.holds is True]
    allowed = max(1, int(share * k))
    holds = False if len(fails) > allowed else (True if len(passes) >= k - allowed else None)
    note = (
        f"{len(passes)} of {k} points non-inferior within {margin:g} (±{V.Z:g} s.e.), "
        f"{len(fails)} clearly below (Bonferroni ±{zk:.3g} s.e.){': ' + ', '.join(fails) if fails else ''}; "
        f"'mostly' read as all but {allowed} point(s)"
    )
    plan = None
    if holds is None:
        gains = [gain(r) for _, r in df.iterrows()]
        plan = k_of_m_plan(gains, margin=margin, need=k - allowed)
        if plan is None:  # more points lean below than "mostly" allows: plan towards the failure
            plan = V.combine([v.plan for v in at_base if v.holds is None])
    if plan is not None:
        note += f"; to decide: {plan.text()} per point at the observed effects"
    return Verdict(holds, note, plan)


def _pass_power(e: Estimate, margin: float):
    """P(one point passes non-inferiority within ``margin`` at the robust level) per planned
    models, at its observed effect and spread (0 where it leans below the margin or its spread is
    unknown)."""
    if not e.decidable or e.value + margin <= 0:
        return lambda amount: np.zeros_like(np.asarray(amount, float))
    p = V.runs_to_decide(e, e.value + margin, z=V.ROBUST * V.Z)
    return p.power if p.power is not None else (lambda a: np.zeros_like(np.asarray(a, float)))


def at_least_k(powers: list, need: int):
    """P(at least ``need`` of the independent points pass), per planned amount: the tail of the
    Poisson-binomial of the points' pass chances."""

    def power(amount: np.ndarray) -> np.ndarray:
        amount = np.asarray(amount, float)
        dist = np.zeros((len(powers) + 1, *amount.shape))
        dist[0] = 1.0  # dist[j]: P(j points pass so far)
        for f in powers:
            p = f(amount)
            dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
            dist[0] = dist[0] * (1 - p)
        return dist[need:].sum(axis=0)

    return power


def k_of_m_plan(gains: list[Estimate], *, margin: float, need: int) -> V.Plan | None:
    """The models per point at which at least ``need`` of the points pass non-inferiority (the
    rule "mostly": all but ``len(gains) − need``) with the planner's POWER: priced for the k the
    rule asks, not for every point. None when more points lean below the margin than the rule
    allows (the statement then leans to fail, planned by the points' own plans)."""
    if sum(1 for e in gains if e.value + margin <= 0) > len(gains) - need:
        return None
    if any(e.n is None for e in gains):
        return None
    base = int(min(e.n for e in gains))
    power = at_least_k([_pass_power(e, margin) for e in gains], need)
    grid = np.unique(np.round(np.geomspace(base, V.PLAN_MAX, 400)))
    p = power(grid)
    reach = np.flatnonzero(p >= V.POWER)
    why = f"{need} of {len(gains)} points non-inferior"
    if reach.size == 0:
        return V.never("models", f"the chance that {why} peaks at {p.max():.0%}")
    hi = int(grid[reach[0]])
    lo = int(grid[reach[0] - 1]) if reach[0] > 0 else base - 1
    while hi - lo > 1:  # the first count that reaches POWER (the chance rises with the models)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if power(np.array([float(mid)]))[0] < V.POWER else (lo, mid)
    return V.Plan(float(max(hi, base)), "models", True, why, False, power, float(base))


def fig3_claims(df: pd.DataFrame, params, pii_src: str) -> list[Claim]:
    """Every Figure 3 row of the ledger from the per-(ε, prior) summary ``df``."""
    tol, margin = float(params["tolerance"]), float(params["margin"])
    big = float(params["substantial_gain"])
    top_pw = _at(df, "password", 1.0, "baseline")
    pw1 = df[(df["prior"] == "password") & np.isclose(df["epsilon"], 1.0)]
    out = []
    if len(pw1):
        r = pw1.iloc[0]
        acc = accuracy(r)
        out += [
            LEDGER.quoted(
                "fig3_password_eps1_is_prior_mass",
                ours=top_pw,
                note=f"our own scaled prior's top mass {top_pw:.4f} (a value we construct, not a "
                f"measurement); our attack at ε = 1: {acc.value:.3f} ± {acc.se:.3f} (s.e.), attack − "
                f"max-prior guess on the same canaries {r['gain']:+.3f} ± {r['gain_se']:.3f}",
            ),
            LEDGER.quoted(
                "fig3_password_eps1",
                ours=acc.value,
                se=acc.se,
                tolerance=tol,
                note=f"{int(r['n'])} models; CP interval [{r['lo']:.3f}, {r['hi']:.3f}]",
            ),
        ]
    pii_top = _at(df, "pii", 1.0, "baseline")
    out += [
        LEDGER.quoted(
            "fig3_pii_eps1",
            ours=_at(df, "pii", 1.0),
            tolerance=tol,
            data=pii_src,
            standin_note=f"PII prior from the offline stand-in (top prior {pii_top:.3f}; the "
            "paper's 52.5 % implies ≈ 0.5)",
        ),
        LEDGER.quoted("fig3_uniform_baseline", ours=_at(df, "uniform", 1.0, "baseline")),
    ]
    # one row per prior: "at every ε the attack does not under-perform the max-prior guess"
    for prior, d in df.groupby("prior", sort=False):
        points = {f"ε={_eps(r['epsilon'])}": gain(r) for _, r in d.iterrows()}
        baseline = "exact 1/K" if prior == "uniform" else "paired"
        verdict = V.at_least(points, margin=margin, what=f"attack − max-prior guess ({baseline})")
        tuned = ", ".join(
            f"ε={_eps(r['epsilon'])}: {'separated' if r['tune_separated'] else 'not separated'}"
            for _, r in d.iterrows()
            if np.isfinite(r["tune_gap"])
        )
        out.append(
            LEDGER.judged(
                figure="fig3",
                claim_id=f"fig3_gain_{prior}",
                claim=f"At every ε the attack on the {prior} canary does not under-perform the "
                f"max-prior guess (within {margin:g})",
                verdict=verdict,
                ours="; ".join(
                    f"ε={_eps(r['epsilon'])}: {r['gain']:+.3f} ± {r['gain_se']:.3f}"
                    for _, r in d.iterrows()
                )
                + f" (s.e., {int(d['n'].iloc[0])} models per ε)",
                note=f"tuning: chosen (C, lr, T) beats the runner-up beyond 2 s.e. — {tuned}"
                if tuned
                else "",
                data=pii_src if prior == "pii" else "simulated",
            )
        )
    u10 = df[(df["prior"] == "uniform") & np.isclose(df["epsilon"], 10.0)]
    if len(u10):
        ru = u10.iloc[0]
        out.append(
            LEDGER.judged(
                figure="fig3",
                claim_id="fig3_uniform_eps10_above",
                claim="At ε = 10 the attack is substantially above the baseline for the uniform "
                f"canary (by more than {big:g})",
                verdict=V.greater(
                    gain(ru), margin=big, what="attack − max-prior guess (exact 1/K)"
                ),
                ours=f"attack − max-prior guess = {ru['gain']:+.3f} ± {ru['gain_se']:.3f} (s.e.)",
                # from trained models (it moved with the seed; labelled analytic, the status check
                # compared it exactly and failed on seed 1)
                data="simulated",
            )
        )
        p10 = df[(df["prior"] == "pii") & np.isclose(df["epsilon"], 10.0)]
        if len(p10):
            rp = p10.iloc[0]
            # "barely": the PII gain is under half the uniform gain (independent runs: unpaired)
            gu, gp = gain(ru), gain(rp)
            diff = gu.scaled(0.5).minus(gp)
            verdict = V.greater(diff, what="½ uniform gain − PII gain")
            ours = f"PII gain {rp['gain']:+.3f} ± {rp['gain_se']:.3f} vs uniform gain {ru['gain']:+.3f}"
            claim = "At ε = 10 the attack barely beats the random baseline for PII"
            if pii_src == "standin":
                out.append(
                    _standin(
                        "fig3",
                        "fig3_pii_eps10_barely",
                        claim,
                        verdict,
                        ours,
                        "a property of the paper's Enron + GPT-2 PII prior (top mass ≈ 0.5); the "
                        f"stand-in's 10-value prior is nearly uniform (top mass {pii_top:.3f}); "
                        "'barely' read as a gain under half the uniform gain",
                    )
                )
            else:
                out.append(
                    LEDGER.judged(
                        figure="fig3",
                        claim_id="fig3_pii_eps10_barely",
                        claim=claim,
                        verdict=verdict,
                        ours=ours,
                        note="'barely' read as a gain under half the uniform gain",
                        data=pii_src,
                    )
                )
    out.append(
        LEDGER.judged(
            figure="fig3",
            claim_id="fig3_not_below_baseline",
            claim="Our attack mostly does not under-perform the random baseline",
            verdict=mostly_not_below(df, margin=margin),
            ours="attack − max-prior guess (paired; exact 1/K under the uniform prior) at every "
            "(prior, ε)",
            data="simulated",
        )
    )
    fin = df[np.isfinite(df["epsilon"])]
    labels = [f"{r.prior} ε={_eps(r.epsilon)}" for r in fin.itertuples()]
    out.append(
        LEDGER.judged(
            figure="fig3",
            claim_id="fig3_attack_below_bound",
            claim="The attack accuracy stays under our bound at every privacy level and prior",
            verdict=V.below(
                {lab: accuracy(r) for lab, (_, r) in zip(labels, fin.iterrows(), strict=True)},
                {
                    lab: float(r["bound_cor34_at_guess"])
                    for lab, (_, r) in zip(labels, fin.iterrows(), strict=True)
                },
                what="accuracy",
            ),
            ours=f"largest accuracy − bound: {(fin['accuracy'] - fin['bound_cor34_at_guess']).max():+.3f}",
            data="simulated",  # trained models' accuracies (claims.DATA)
        )
    )
    u = df[(df["prior"] == "uniform") & np.isfinite(df["epsilon"])]
    if len(u):
        gap_mmc = float(np.mean(np.abs(u["mmc_gdp"] - u["accuracy"])))
        gap_ours = float(np.mean(np.abs(u["bound_cor34_at_guess"] - u["accuracy"])))
        # computed on the measured accuracies; where both bounds lie above an accuracy its noise
        # moves both gaps alike, so the comparison is taken as exact (MMC ≤ ours is analytic)
        verdict = V.all_of(
            {
                "MMC ≤ ours at every ε": V.at_least(
                    {
                        f"ε={_eps(e)}": Estimate.exact(o - m)
                        for e, o, m in zip(
                            u["epsilon"], u["bound_cor34_at_guess"], u["mmc_gdp"], strict=True
                        )
                    },
                    what="ours − MMC",
                ),
                "closer to the accuracies": V.greater(
                    Estimate.exact(gap_ours - gap_mmc), what="mean gap ours − mean gap MMC"
                ),
            }
        )
        out.append(
            LEDGER.judged(
                figure="fig3",
                claim_id="fig3_mmc_tighter_uniform",
                claim="For the uniform canary the MMC (G_μ) bound fits the attack accuracies more "
                "tightly than ours",
                verdict=verdict,
                ours=f"mean |bound − accuracy|: MMC {gap_mmc:.3f}, ours {gap_ours:.3f}",
                data="simulated",
            )
        )
    return out
