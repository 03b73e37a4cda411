"""swanberg2025 Figures 4–7: per-point summaries of the attack draws and the claims judged on them.

Every statement is decided by a rule of :mod:`privrisk.contract.verdicts` on paired estimates (the attack,
the informed attacker's ceiling and the prior's MAP guess attack the same records under the same
noise, so their per-draw differences carry the uncertainty), with Bonferroni's correction where one
statement is judged at several points of a figure. "Attack ≥ prior" is non-inferiority with the
figure's symmetric ``margin`` (records); each such row names the ceiling: what the best possible
attack gains over the prior on the same draws, and the bound on that gain with every other record
revealed. Statements about properties of the paper's own data are ``standin`` on stand-in data.
No plotting here.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...bounds.reconstruction import max_bayes_gain_binary
from ...contract import verdicts as V
from ...contract.claims import Claim
from ...contract.verdicts import Estimate, Verdict
from .claims import LEDGER
from .steps_marginals import bound_quantiles

STANDIN_NOTE = "stand-in BayNet data, not the paper's ACS/FIRE sample"
PRIOR = "Prior only (MAP guess)"
CEILING = "Informed attacker's ceiling (exact posterior)"
REVEALED = "Upper bound on any attack: Bayes with the other records revealed"


def attack_name(lam: float) -> str:
    return (
        "M-AI attack (RAP, prior as start)"
        if lam == 0
        else f"M-AI attack + prior term (λ = {lam:g})"
    )


# --------------------------------------------------------------------------------- summaries


def per_draw(rows: pd.DataFrame, delta: float, lambdas) -> pd.DataFrame:
    """One row per (x, draw): the draw's world and record count, records recovered by each
    method, the expected success of the revealed-others bound (Σ over records), Σ p* and the
    Theorem 3.5 bound quantiles."""
    out = []
    has_ceiling = "ceiling_ok" in rows
    for (x, draw), gd in rows.groupby(["x", "draw"], sort=False):
        eps = float(gd["epsilon"].iloc[0])
        q = bound_quantiles(eps, delta, gd["p_star"].to_numpy())
        d = {
            "x": x,
            "draw": int(draw),
            "world": int(gd["world"].iloc[0]) if "world" in gd else 0,
            "records": len(gd),
            "epsilon": eps,
            "prior": int(gd["prior_ok"].sum()),
            "prior_expected": float(gd["p_star"].sum()),
            "ambiguous": int(gd["ambiguous"].sum()),
            "bound_5": q[0],
            "bound_50": q[1],
            "bound_95": q[2],
        }
        for lam in lambdas:
            d[f"attack_l{lam:g}"] = int(gd[f"attack_l{lam:g}_ok"].sum())
        if has_ceiling:
            ok, bound = gd["ceiling_ok"], gd["ceiling_bound"]
            d["ceiling"] = float(ok.sum()) if ok.notna().all() else np.nan  # none where skipped
            d["revealed"] = float(bound.sum()) if bound.notna().all() else np.nan
        out.append(d)
    return pd.DataFrame(out)


def clustered(values, worlds, n_records: int, *, difference: bool) -> Estimate:
    """The mean over draws with the world as a random effect (:meth:`Estimate.clustered`), of a
    count of 0…n_records records (``difference``: a paired difference of two such counts)."""
    bounds = (-n_records, n_records) if difference else (0, n_records)
    return Estimate.clustered(np.asarray(values, float), np.asarray(worlds), bounds=bounds)


def summarise(rows: pd.DataFrame, delta: float, lambdas) -> pd.DataFrame:
    """Per condition x, over the draws: mean, sd and s.e. of the mean (the world a random
    effect: :func:`clustered`) of every method's count, and the paired differences (attack −
    prior ``gap_l<λ>``, ceiling − prior ``ceiling_gap``, ceiling − attack ``shortfall_l<λ>``,
    revealed-others bound − the prior's expected success Σ p* ``revealed_gap``: a bound on any
    attack's expected gain) with their s.e. and degrees of freedom; bound quantiles averaged over
    draws; ``saturated`` where every method recovers every record in every draw."""
    draws = per_draw(rows, delta, lambdas)
    has_ceiling = "ceiling" in draws
    methods = ["prior", *[f"attack_l{lam:g}" for lam in lambdas]]
    if has_ceiling:
        methods += ["ceiling", "revealed"]
    out = []
    for x, g in draws.groupby("x", sort=False):
        first = rows[rows["x"] == x].iloc[0]
        r = len(g)
        n_rec = int(g["records"].max())
        rec = {
            "x": x,
            "epsilon": float(g["epsilon"].iloc[0]),
            "draws": r,
            "worlds": int(g["world"].nunique()),
            "records": n_rec,
            "m": int(first["m"]),
            "sigma_count": float(first["sigma_count"]),
        }
        for c in ("prior_expected", "ambiguous", "bound_5", "bound_50", "bound_95"):
            rec[c] = float(g[c].mean())
        for c in methods:
            est = (
                clustered(g[c], g["world"], n_rec, difference=False) if g[c].notna().all() else None
            )
            rec[c] = est.value if est else np.nan
            rec[f"{c}_sd"] = float(g[c].std(ddof=1)) if est and r > 1 else np.nan
            rec[f"{c}_se"] = est.se if est and r > 1 else np.nan
            rec[f"{c}_df"] = est.df if est and r > 1 else np.nan
        pairs = {f"gap_l{lam:g}": (f"attack_l{lam:g}", "prior") for lam in lambdas}
        if has_ceiling:
            pairs["ceiling_gap"] = ("ceiling", "prior")
            # a bound on the expected gain: both terms are expectations given each draw's records
            pairs["revealed_gap"] = ("revealed", "prior_expected")
            pairs |= {f"shortfall_l{lam:g}": ("ceiling", f"attack_l{lam:g}") for lam in lambdas}
        for name, (a, b) in pairs.items():
            if g[a].isna().any():
                rec[name], rec[f"{name}_se"], rec[f"{name}_df"] = np.nan, np.nan, np.nan
                continue
            e = clustered(g[a] - g[b], g["world"], n_rec, difference=True)
            rec[name] = e.value
            rec[f"{name}_se"] = e.se if r > 1 else np.nan
            rec[f"{name}_df"] = e.df if r > 1 else np.nan
        counted = [c for c in methods if c != "revealed" and g[c].notna().all()]
        rec["saturated"] = bool(all((g[c] >= n_rec).all() for c in counted))
        for lam in lambdas:
            col = f"setting_l{lam:g}"
            if col in rows:
                rec[col] = str(first[col])
        for col in ("ceiling_method", "ceiling_disagreement"):
            if col in rows:
                rec[col] = first[col]
        out.append(rec)
    return pd.DataFrame(out)


DIFFERENCES = ("gap", "shortfall", "ceiling_gap", "revealed_gap")


def estimate(summ_row, name: str) -> Estimate:
    """The estimate ``name`` of one summary row: the mean over its draws with its s.e. and the
    degrees of freedom of its worlds (draws − 1 with one world), marked empirical; a tie in every
    draw gets the exact bound of a count of 0…records (:func:`privrisk.contract.verdicts.tie_share`); one
    draw decides nothing."""
    se, draws = summ_row[f"{name}_se"], int(summ_row["draws"])
    n_rec = int(summ_row.get("records", 0) or 0)
    difference = name.startswith(DIFFERENCES)
    bounds = None if not n_rec else ((-n_rec, n_rec) if difference else (0, n_rec))
    worlds = int(summ_row.get("worlds", 1) or 1)
    prov = {
        "empirical": True,
        "n": draws,
        "unit": "draws",
        "bounds": bounds,
        "cluster": draws / worlds if worlds > 1 else 1.0,
        # a count of records moves by whole records: with the count's step a tie decides at least
        # what a near-tie one record off decides (verdicts.ties), not as a continuous point
        "step": 1.0 if n_rec else None,
    }
    if not np.isfinite(se) or draws < 2:
        return Estimate(float(summ_row[name]), se=math.inf, **prov)
    df = summ_row.get(f"{name}_df", np.nan)
    df = float(df) if np.isfinite(df) and df > 0 else float(draws - 1)
    return Estimate(float(summ_row[name]), se=float(se), df=df, **prov)


def left_out(summ, lambdas, *, margin: float) -> tuple[list[str], list[str]]:
    """The points an "at every point" statement leaves out: saturated (every method recovers every
    record in every draw: nothing to tell apart) and vacuous (the margin is not robustly below the
    levels compared, the paper's attack and the prior: attack ≥ prior − margin or |attack − prior|
    ≤ margin would hold whatever the attack did). "Robustly": the larger level's interval at the
    robust level must lie above the margin, so that which points are judged does not move with a
    rerun any more than a decision does."""
    levels = ["prior", f"attack_l{lambdas[0]:g}"]
    sat = [_label(r["x"]) for _, r in summ.iterrows() if bool(r.get("saturated", False))]
    if margin <= 0 or not set(levels) <= set(summ.columns):
        return sat, []

    def above(r) -> bool:
        return any(estimate(r, c).interval(V.ROBUST * V.Z)[0] > margin for c in levels)

    vac = [
        _label(r["x"])
        for _, r in summ.iterrows()
        if not bool(r.get("saturated", False)) and not above(r)
    ]
    return sat, vac


def _label(x) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "ε = ∞"
    return str(int(x)) if isinstance(x, float | np.floating) and float(x).is_integer() else str(x)


def _numbers(summ, name: str, sign: bool = True) -> str:
    fmt = "{:+.1f}" if sign else "{:.1f}"
    return ", ".join(
        f"{_label(r['x'])}: {fmt.format(r[name])} ± {r[f'{name}_se']:.1f}"
        for _, r in summ.iterrows()
        if np.isfinite(r[name])
    )


def ceiling_text(summ, lambdas) -> str:
    """What the best possible attack gains on the same draws, and what it could gain at most
    (empty where no ceiling was computed)."""
    if "ceiling_gap" not in summ or not summ["ceiling_gap"].notna().any():
        return ""
    parts = [f"ceiling (exact posterior) − prior: {_numbers(summ, 'ceiling_gap')}"]
    if summ["revealed_gap"].notna().any():
        parts.append(
            "bound on any attack's expected gain (others revealed): "
            + ", ".join(
                f"{_label(r['x'])}: {r['revealed_gap']:+.1f}"
                for _, r in summ.iterrows()
                if np.isfinite(r["revealed_gap"])
            )
        )
    parts.append(
        f"ceiling − paper's attack (λ = {lambdas[0]:g}): {_numbers(summ, f'shortfall_l{lambdas[0]:g}')}"
    )
    missing = [
        _label(x) for x, g in zip(summ["x"], summ["ceiling_gap"], strict=True) if not np.isfinite(g)
    ]
    skipped = f"; no ceiling at {', '.join(missing)} (too many joint values)" if missing else ""
    return "; ".join(parts) + f" (records, mean ± s.e. over draws){skipped}"


# --------------------------------------------------------------------------------- claims


def standin_or_judged(*, figure, claim_id, claim, verdict: Verdict, ours, data, note=""):
    """A statement about a property of the paper's own data: judged on real data, ``standin``
    (with the verdict on the stand-in in the note) otherwise."""
    if data != "standin":
        return LEDGER.judged(
            figure=figure,
            claim_id=claim_id,
            claim=claim,
            verdict=verdict,
            ours=ours,
            note=note,
            data=data,
        )
    full = "; ".join(
        p
        for p in (
            "a property of the paper's real data; on the stand-in the statement is "
            f"{verdict.status} ({verdict.note})",
            note,
        )
        if p
    )
    return Claim(
        LEDGER.paper, figure, claim_id, claim, "stated", ours, "", "standin", "standin", full
    )


def ge_prior(fig, summ, lambdas, what: str, data: str, *, margin: float) -> Claim:
    """ "The M-AI attack matches or exceeds the prior for all <what>": non-inferiority of the paired
    attack − prior within ``margin`` records at every point (Bonferroni for a failure)."""
    lam0 = lambdas[0]
    diffs = {_label(r["x"]): estimate(r, f"gap_l{lam0:g}") for _, r in summ.iterrows()}
    sat, vac = left_out(summ, lambdas, margin=margin)
    verdict = V.at_least(
        diffs,
        margin=margin,
        what=f"attack (λ = {lam0:g}) − prior",
        saturated=sat,
        vacuous=vac,
    )
    ours, where = _worst_gap(summ, lam0)
    notes = []
    if len(lambdas) > 1:
        notes.append(
            f"prior-term variant (λ = {lambdas[1]:g}) − prior: {_numbers(summ, f'gap_l{lambdas[1]:g}')}"
        )
    notes.append(ceiling_text(summ, lambdas))
    notes.insert(0, where)
    return LEDGER.judged(
        figure=fig,
        claim_id=f"{fig}_attack_ge_prior",
        claim=f"the M-AI attack matches or exceeds the prior for all {what}",
        verdict=verdict,
        ours=ours,
        note="; ".join(n for n in notes if n),
        data=data,
    )


def _worst_gap(summ, lam0) -> tuple[str, str]:
    """``ours`` (the smallest mean attack − prior with its s.e.) and, for the note, where it lies.
    Which point is the smallest is itself experimental (another seed picks another column), so it
    stays out of ``ours``, whose text the status check compares with the numbers masked."""
    col = f"gap_l{lam0:g}"
    worst = summ.iloc[int(np.argmin(summ[col].to_numpy()))]
    ours = (
        f"min mean (attack − prior) over {len(summ)} points = {worst[col]:.1f} ± "
        f"{worst[col + '_se']:.1f} (s.e., {int(worst['draws'])} draws) records (paper's attack, "
        f"λ = {lam0:g}, tuned on shadow data)"
    )
    return ours, f"smallest at {_label(worst['x'])}"


def gt_prior(fig, summ, lambdas, what: str, data: str) -> Claim:
    """ "The M-AI attack is consistently better than the prior for all <what>": superiority of the
    paired attack − prior at every point (:func:`privrisk.contract.verdicts.greater`, margin 0; it fails
    where some point is at or below the prior beyond noise, Bonferroni over the points)."""
    lam0 = lambdas[0]
    diffs = {_label(r["x"]): estimate(r, f"gap_l{lam0:g}") for _, r in summ.iterrows()}
    sat, _ = left_out(summ, lambdas, margin=0.0)
    verdict = V.greater(diffs, what=f"attack (λ = {lam0:g}) − prior", saturated=sat)
    ours, where = _worst_gap(summ, lam0)
    return LEDGER.judged(
        figure=fig,
        claim_id=f"{fig}_attack_gt_prior",
        claim=f"the M-AI attack is consistently better than the prior for all {what}",
        verdict=verdict,
        ours=ours,
        note=f"{where}; {ceiling_text(summ, lambdas)}",
        data=data,
    )


def ceiling_vs_attack(fig, summ, lambdas, data: str) -> Claim | None:
    """Our finding, not the paper's claim (``derived``): does the paper's attack reach the informed
    attacker's ceiling, and is the ceiling at least every attack (a check of its sampler)? None
    when no point has a ceiling."""
    lam0 = lambdas[0]
    summ = summ[np.isfinite(summ[f"shortfall_l{lam0:g}"])]
    if not len(summ):
        return None
    short = {_label(r["x"]): estimate(r, f"shortfall_l{lam0:g}") for _, r in summ.iterrows()}
    k = len(short)
    zk = V.bonferroni_z(V.Z, k)
    beyond = [lab for lab, e in short.items() if V.greater(e, z=zk).holds]
    finding = (
        (
            f"finding: the paper's attack falls short of the informed attacker's ceiling beyond noise at "
            f"{', '.join(beyond)}"
            if beyond
            else "the paper's attack is not shown to fall short of the ceiling anywhere"
        )
        + f" (ceiling − attack > 0 at ±{zk:.3g} s.e., Bonferroni over {k}: {_numbers(summ, f'shortfall_l{lam0:g}')})"
    )
    checks = {
        f"λ = {lam:g}": V.at_least(
            {_label(r["x"]): estimate(r, f"shortfall_l{lam:g}") for _, r in summ.iterrows()},
            what=f"ceiling − attack (λ = {lam:g})",
        )
        for lam in lambdas
    }
    check = V.all_of(checks)
    dis = summ["ceiling_disagreement"].max() if "ceiling_disagreement" in summ else float("nan")
    sampler = (
        "no attack beats the ceiling beyond noise (a check of the sampler)"
        if check.holds is not False
        else "an attack beats the ceiling beyond noise somewhere, which no attack can do in "
        "expectation: a false alarm (normal-theory s.e. from few draws) or an unconverged sampler "
        f"(its chains disagree on up to {dis:.1%} of records)"
    )
    i = int(np.nanargmax(summ[f"shortfall_l{lam0:g}"].to_numpy()))
    worst = summ.iloc[i]
    value = float(worst[f"shortfall_l{lam0:g}"])
    se = float(worst[f"shortfall_l{lam0:g}_se"])
    return Claim(
        LEDGER.paper,
        fig,
        f"{fig}_ceiling_minus_attack",
        "records the informed attacker's ceiling recovers beyond the paper's attack (0 if the "
        "attack were Bayes-optimal); the largest over the figure's points",
        0.0,
        float(f"{value:.8g}"),
        float(f"{2 * se:.8g}") if np.isfinite(se) else "",
        "derived",
        data,
        f"our finding, not a number of the paper: {finding}; {sampler} ({check.note}); largest "
        f"shortfall at {_label(worst['x'])}; tolerance 2 s.e.",
    )


def sex_gain_possible(fig, *, epsilon: float, delta: float, n: int, m: int, sex, sd) -> Claim:
    """The paper's SEX gain (65 − 56 = +9 records at ε = 1) against the largest expected gain any
    attack can have over the prior, for any prior of a binary column at this noise (analytic).
    ``sex``: our summary row of SEX (or None), ``sd``: one draw's sd of the ceiling's gain. The
    row's figure is its quoted.yaml entry's (``fig4a``, where the paper quotes it), not ``fig``."""
    from ...accounting import gdp_mu  # the release's μ: σ = √(2m)/μ

    mu = gdp_mu(epsilon=epsilon, delta=delta)
    gain, _ = max_bayes_gain_binary(mu=mu)
    sigma = math.sqrt(2 * m) / mu
    extra = ""
    if sex is not None and "ceiling_gap" in sex and np.isfinite(sd) and sd > 0:
        extra = (
            f"; on our stand-in draws the ceiling gains {sex['ceiling_gap']:+.1f} ± "
            f"{sex['ceiling_gap_se']:.1f} (s.e.), its bound for the stand-in's priors is "
            f"{sex['revealed_gap']:+.1f}, and one draw's ceiling gain varies with sd {sd:.1f}: the "
            f"paper's single draw lies {(9 - n * gain) / sd:.1f} sd above the largest expected gain"
        )
    return LEDGER.quoted(
        "sex_gain_possible",
        ours=float(n * gain),
        note=f"ours: the largest expected gain over the prior that any attack can have on a binary "
        f"column of {n} records at this release (σ = {sigma:.1f} counts per cell, {m} marginals, "
        f"μ = {mu:.3f}), over every prior (the uniform one is the worst): the Bayes success with "
        f"every other record revealed; the paper reports one (sample, noise) draw{extra}",
    )


def gap_sd(per: pd.DataFrame, x, a: str, b: str) -> float:
    """sd over draws of one draw's paired difference a − b at condition x."""
    g = per[per["x"] == x]
    return float((g[a] - g[b]).std(ddof=1)) if len(g) > 1 else float("nan")


def _variants(row, lambdas) -> str:
    """'ours' is the paper's attack (first λ); name the other variants' and the ceiling's values."""
    parts = [
        f"prior-term variant λ = {lam:g}: {row[f'attack_l{lam:g}']:.1f} ± "
        f"{row[f'attack_l{lam:g}_se']:.1f} (s.e.)"
        for lam in lambdas[1:]
    ]
    if "ceiling" in row:
        parts.append(f"ceiling {row['ceiling']:.1f} ± {row['ceiling_se']:.1f}")
    parts.append(
        f"mean of {int(row['draws'])} draws, tuned setting "
        f"{row.get(f'setting_l{lambdas[0]:g}', 'n/a')}"
    )
    return "; ".join(parts)


def columns_claims(fig, summ, per, lambdas, *, dataset, data, params) -> list[Claim]:
    """Figure 4: "attack ≥ prior" for every column, the ceiling finding and, for ACS, the
    quoted SEX numbers and the 95 % bound statement."""
    margin = float(params["margin"])
    tol = float(params["tolerance"])
    delta = float(params["marginals_attack"]["delta"])
    eps = float(params["epsilon"])
    claims = [ge_prior(fig, summ, lambdas, "columns", data, margin=margin)]
    if "ceiling_gap" in summ and (row := ceiling_vs_attack(fig, summ, lambdas, data)):
        claims.append(row)
    if dataset != "acs":
        return claims
    lam0 = lambdas[0]
    by_x = summ.set_index("x")
    if "SEX" in by_x.index:
        s = by_x.loc["SEX"]
        claims += [
            LEDGER.quoted(
                "sex_attack",
                ours=float(s[f"attack_l{lam0:g}"]),
                se=float(s[f"attack_l{lam0:g}_se"]),
                tolerance=tol,
                data=data,
                note=_variants(s, lambdas),
            ),
            LEDGER.quoted(
                "sex_prior",
                ours=float(s["prior"]),
                se=float(s["prior_se"]),
                tolerance=tol,
                data=data,
            ),
            LEDGER.quoted("sex_bound95", ours=float(s["bound_95"]), tolerance=tol, data=data),
            sex_gain_possible(
                fig,
                epsilon=eps,
                delta=delta,
                n=int(params["n_records"]),
                m=int(s["m"]),
                sex=s if "ceiling_gap" in s else None,
                sd=gap_sd(per, "SEX", "ceiling", "prior") if "ceiling" in per else float("nan"),
            ),
        ]
    # The paper's own numbers are self-consistent: with p*_i = 0.56 for all of its 100 records the
    # bound at 95 % is 84 (spec §4(b) sanity check) — computed here with our bound code.
    q = bound_quantiles(eps, delta, np.full(100, 0.56))
    claims.append(LEDGER.quoted("sex_bound95_from_quoted_prior", ours=float(q[2])))
    # "The 95 % bound is >= 80 except AGEP and SCHL": the bound's quantiles vary over draws, so
    # each column's mean is judged with its s.e. (Bonferroni over the columns).
    n = int(params["n_records"])

    def bound95(x) -> tuple:
        sel = per["x"] == x
        worlds = per.loc[sel, "world"] if "world" in per else np.zeros(int(sel.sum()))
        return per.loc[sel, "bound_95"], worlds

    high = {
        str(r["x"]): clustered(*bound95(r["x"]), n, difference=False).shift(-80.0)
        for _, r in summ.iterrows()
        if r["x"] not in ("AGEP", "SCHL")
    }
    low = {
        str(r["x"]): clustered(*bound95(r["x"]), n, difference=False).negated().shift(80.0)
        for _, r in summ.iterrows()
        if r["x"] in ("AGEP", "SCHL")
    }
    parts = {}
    if high:
        parts["others ≥ 80"] = V.at_least(high, what="bound95 − 80")
    if low:
        parts["AGEP, SCHL < 80"] = V.greater(low, what="80 − bound95")
    if parts:
        claims.append(
            standin_or_judged(
                figure=fig,
                claim_id="bound95_ge80_except_agep_schl",
                claim="the 95 % bound is >= 80/100 for the columns shown except AGEP and SCHL",
                verdict=V.all_of(parts),
                ours="; ".join(f"{r.x}: {r.bound_95:.1f}" for r in summ.itertuples())
                + " (mean over draws)",
                data=data,
            )
        )
    return claims


def eps_claims(fig, summ, per, lambdas, *, data, params) -> list[Claim]:
    """Figure 5: at ε = ∞ the attack reconstructs every record the exact marginals determine
    (the ceiling there), and the attack's gain over the prior grows with ε."""
    margin = float(params["margin"])
    n = int(params["n_records"])
    lam0 = lambdas[0]
    eps = summ["epsilon"].to_numpy()
    claims = []
    if np.isinf(eps).any():
        r = summ[np.isinf(eps)].iloc[0]
        reach = estimate(r, f"shortfall_l{lam0:g}") if "ceiling" in r else None
        verdict = (
            V.at_least(reach.negated(), margin=margin, what="attack − ceiling at ε = ∞")
            if reach is not None
            else Verdict(
                None,
                "no ceiling computed",
                V.Plan(math.inf, "draws", why="no ceiling computed at ε = ∞"),
            )
        )
        verdict = verdict.gated(
            "" if r["bound_95"] >= n else f"the 95 % bound is {r['bound_95']:.0f} < {n}"
        )
        claims.append(
            LEDGER.judged(
                figure=fig,
                claim_id=f"{fig}_attack_reaches_bound_at_inf",
                claim="at ε = ∞ the attack matches the bound and reconstructs the column of all records",
                verdict=verdict,
                ours=(
                    f"attack {r[f'attack_l{lam0:g}']:.1f} ± {r[f'attack_l{lam0:g}_se']:.1f} (s.e.) of "
                    f"{n}; the exact marginals determine {r.get('ceiling', float('nan')):.1f} (the "
                    f"ceiling: each group of records with identical known columns gets its majority "
                    f"value); bound {r['bound_95']:.0f}; prior {r['prior']:.1f}; mean over draws"
                ),
                note=f"{r['ambiguous']:.1f} records per draw share all known columns with a record of "
                "another value (no attack separates them)",
                data=data,
            )
        )
    finite = summ[np.isfinite(eps)]
    if len(finite) >= 2:
        xs = list(finite["x"])
        wide = per[per["x"].isin(xs)].pivot(index="draw", columns="x")
        gaps = (wide[f"attack_l{lam0:g}"] - wide["prior"])[xs].dropna()
        # the same draws at every ε, each made in one stand-in world (draw r in world r mod W): a
        # step is the paired difference with the world as a random effect, its df and its tie
        # bound those of the worlds, not of draws taken as independent
        world = (
            per.groupby("draw")["world"].first().reindex(gaps.index).to_numpy()
            if "world" in per
            else np.zeros(len(gaps))
        )
        arr = gaps.to_numpy(float)

        def step(j: int, i: int) -> Estimate:
            # a difference of two paired gaps: each a count difference of −n…n records
            return Estimate.clustered(arr[:, j] - arr[:, i], world, bounds=(-2 * n, 2 * n))

        verdict = V.monotone(
            None,
            [float(x) for x in xs],
            direction=+1,
            strict=True,
            margin=margin,
            what=f"attack (λ = {lam0:g}) − prior",
            pair=step,
        )
        claims.append(
            LEDGER.judged(
                figure=fig,
                claim_id=f"{fig}_gap_grows_with_eps",
                claim="as ε increases the attack outperforms the prior more",
                verdict=verdict,
                ours=f"mean attack − prior: {_numbers(finite, f'gap_l{lam0:g}')} (paired over the "
                "same records at every ε)",
                note=ceiling_text(summ, lambdas),
                data=data,
            )
        )
    return claims


def multi_claims(fig, summ, per, lambdas, *, dataset, data, params) -> list[Claim]:
    """Figure 6: beyond 5 unknown columns the attack performs like the prior (equivalence within
    ``margin``); the attack is most significant for few unknown columns; FIRE's flat bound."""
    margin = float(params["margin"])
    lam0 = lambdas[0]
    gap = f"gap_l{lam0:g}"
    claims = []
    beyond = summ[summ["x"] > 5]
    if len(beyond):
        sat, vac = left_out(beyond, lambdas, margin=margin)
        verdict = V.equivalent(
            {_label(r["x"]): estimate(r, gap) for _, r in beyond.iterrows()},
            margin=margin,
            what=f"attack (λ = {lam0:g}) − prior",
            saturated=sat,
            vacuous=vac,
        )
    else:
        verdict = Verdict(
            None, "no d' > 5 in this run", V.Plan(math.inf, "draws", why="no d' > 5 in this run")
        )
    ours = (
        f"max |mean attack − prior| for d' > 5: {beyond[gap].abs().max():.1f} (s.e. up to "
        f"{beyond[f'{gap}_se'].max():.1f}; paper's attack, λ = {lam0:g}); levels up to "
        f"{beyond[[f'attack_l{lam0:g}', 'prior']].to_numpy().max():.1f} records"
        if len(beyond)
        else "no d' > 5 in this run"
    )
    claims.append(
        LEDGER.judged(
            figure=fig,
            claim_id=f"{fig}_beyond5_attack_equals_prior",
            claim=f"beyond 5 unknown columns the attack performs like the prior (within {margin:g} records)",
            verdict=verdict,
            ours=ours,
            note=ceiling_text(beyond, lambdas) if len(beyond) else "",
            data=data,
        )
    )
    xs = list(summ["x"])
    n = int(params["n_records"])
    worlds = per.groupby("draw")["world"].first() if "world" in per else None
    if 1 in xs and len(beyond):
        wide = per.pivot(index="draw", columns="x")
        g = (wide[f"attack_l{lam0:g}"] - wide["prior"]).dropna()
        w = worlds.loc[g.index] if worlds is not None else np.zeros(len(g))
        parts = {
            "attack > prior at d' = 1": V.greater(
                clustered(g[1], w, n, difference=True), what="attack − prior at d' = 1"
            ),
            "its gain exceeds the gain beyond 5": V.greater(
                {
                    _label(k): Estimate.clustered(g[1] - g[k], w, bounds=(-2 * n, 2 * n))
                    for k in beyond["x"]
                },
                what="gain at d' = 1 − gain at d'",
            ),
        }
        claims.append(
            LEDGER.judged(
                figure=fig,
                claim_id=f"{fig}_most_significant_few_columns",
                claim="the attack is most significant when few columns are unknown (d' = 1), and "
                "converges to the prior as more are",
                verdict=V.all_of(parts),
                ours=f"mean attack − prior: {_numbers(summ, gap)}",
                note=ceiling_text(summ, lambdas),
                data=data,
            )
        )
    if dataset == "fire" and {1, 3} <= set(xs):
        wide = per.pivot(index="draw", columns="x")
        b50 = wide["bound_50"]
        w = worlds.loc[wide.index] if worlds is not None else np.zeros(len(wide))
        att = wide[f"attack_l{lam0:g}"]
        parts = {
            "bound flat (within margin)": V.equivalent(
                clustered(b50[3] - b50[1], w, n, difference=True),
                margin=margin,
                what="bound50(3) − bound50(1)",
            ),
            "attack falls": V.greater(
                clustered(att[1] - att[3], w, n, difference=True), what="attack(1) − attack(3)"
            ),
            "prior falls": V.greater(
                clustered(wide["prior"][1] - wide["prior"][3], w, n, difference=True),
                what="prior(1) − prior(3)",
            ),
        }
        s = summ.set_index("x")
        claims.append(
            standin_or_judged(
                figure=fig,
                claim_id="fire_bound_flat_1_to_3",
                claim="FIRE: the bound stays roughly the same for 3 columns as for 1 while attack and "
                "prior fall",
                verdict=V.all_of(parts),
                ours=(
                    f"bound50 {s.loc[1, 'bound_50']:.1f} -> {s.loc[3, 'bound_50']:.1f}; attack "
                    f"{s.loc[1, f'attack_l{lam0:g}']:.1f} -> {s.loc[3, f'attack_l{lam0:g}']:.1f}; "
                    f"prior {s.loc[1, 'prior']:.1f} -> {s.loc[3, 'prior']:.1f} (means over draws)"
                ),
                data=data,
            )
        )
    return claims


def l1_claims(fig, summ, per, lambdas, *, dataset, column, data, params) -> list[Claim]:
    """Figure 7: "consistently better than the prior" (superiority) at every error level E, the
    ceiling finding and, for ACS AGEP, the quoted E = 1 numbers."""
    tol = float(params["tolerance"])
    claims = [gt_prior(fig, summ, lambdas, "error levels E", data)]
    if "ceiling_gap" in summ and (row := ceiling_vs_attack(fig, summ, lambdas, data)):
        claims.append(row)
    lam0 = lambdas[0]
    if dataset == "acs" and column == "AGEP" and 1 in set(summ["x"]):
        s = summ.set_index("x").loc[1]
        claims += [
            LEDGER.quoted(
                "agep_e1_attack",
                ours=float(s[f"attack_l{lam0:g}"]),
                se=float(s[f"attack_l{lam0:g}_se"]),
                tolerance=tol,
                data=data,
                note=_variants(s, lambdas),
            ),
            LEDGER.quoted("agep_e1_bound5", ours=float(s["bound_5"]), tolerance=tol, data=data),
        ]
    return claims
