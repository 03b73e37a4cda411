"""Swanberg et al. (arXiv 2507.08158 v1) §6, Figures 4–7: M-AI from noisy 3-way marginals.

Pipeline (spec §4(b)): raw ACS / FIRE table (real file or stand-in) → degree-2 BayNet →
``marginals.n_records`` (paper: 100) records sampled from it (the private dataset) → noisy 3-way
marginals of every attribute triple touching an unknown column, Gaussian noise calibrated by GDP
to (ε, δ = ``marginals_attack.delta``, paper: 10⁻⁵) → RAP-based M-AI attack
initialised at the BayNet's conditional prior → number of records whose unknown columns are all
recovered, against the prior's MAP guess and the Theorem 3.5 bound at 5/50/95 % confidence.

Steps (expensive, run by ``workflow/scripts/run.py``) live in :mod:`.marginals_steps`:
    ``dataset_step``  raw table → BayNet + n_records records (npz)
    ``attack_step``   one figure's conditions → per-record outcomes (csv)
Figures (cheap, read the csv) are here: ``fig4a`` … ``fig7b``.

Choices where the paper is silent (also in config and provenance): the attack's optimiser and
steps; an extra attack variant with the prior as a penalty term (λ = 1) beside the paper's
(λ = 0, prior only as the starting point); the unknown columns of Fig 6 are the *last* d'
columns of the visit order (so the known ones are BayNet ancestors); the prior baseline is the
realised success of the MAP guess on the sampled records (its expectation Σ p*_i is recorded);
for the L1 windows of Fig 7 both the prior and the attacks guess the centre of their most
probable window (the attack's from its relaxed rows; at E = 0 that is its rounded output).
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ... import plotting
from ...claims import Ledger
from ...figure import FigureResult
from .marginals_steps import PAPER, bound_quantiles
from .marginals_summary import (
    Z,
    _attack_name,
    judge_at_least,
    judge_close,
    judge_greater,
    summarise,
)

log = logging.getLogger(__name__)
LEDGER = Ledger(PAPER)


def _tidy(summ: pd.DataFrame, lambdas, xcol="x") -> pd.DataFrame:
    frames = []
    for lam in lambdas:
        y, sd = summ[f"attack_l{lam:g}"], summ[f"attack_l{lam:g}_sd"]
        frames.append(
            pd.DataFrame(
                {"series": _attack_name(lam), "x": summ[xcol], "y": y, "lo": y - sd, "hi": y + sd}
            )
        )
    frames.append(
        pd.DataFrame(
            {
                "series": "Prior only (MAP guess)",
                "x": summ[xcol],
                "y": summ["prior"],
                "lo": summ["prior"] - summ["prior_sd"],
                "hi": summ["prior"] + summ["prior_sd"],
            }
        )
    )
    frames.append(
        pd.DataFrame(
            {
                "series": "Bound (Thm 3.5), 50 % conf.; bars 5–95 %",
                "x": summ[xcol],
                "y": summ["bound_50"],
                "lo": summ["bound_5"],
                "hi": summ["bound_95"],
            }
        )
    )
    return pd.concat(frames, ignore_index=True)


def _plot(
    summ,
    lambdas,
    *,
    positions,
    ticklabels,
    xlabel,
    title,
    bars: bool,
    n_records: int,
    rotate: int = 30,
):
    fig, ax = plotting.subplots(
        width=(max(4.8, 0.55 * len(positions) + 2) if bars else 6.0) + 2.6, height=3.6
    )
    pos = np.asarray(positions, dtype=float)
    nser = len(lambdas) + 2
    width = 0.8 / nser
    err = np.vstack([summ["bound_50"] - summ["bound_5"], summ["bound_95"] - summ["bound_50"]])
    series = [
        (_attack_name(lam), summ[f"attack_l{lam:g}"], summ[f"attack_l{lam:g}_sd"])
        for lam in lambdas
    ]
    series.append(("Prior only (MAP guess)", summ["prior"], summ["prior_sd"]))
    if bars:
        for i, (name, y, sd) in enumerate(series):
            ax.bar(
                pos + (i - nser / 2 + 0.5) * width,
                y,
                width,
                yerr=sd,
                capsize=2,
                label=name,
                color=plotting.color(i),
                error_kw={"elinewidth": 0.8},
            )
        bx = pos + (nser / 2 - 0.5) * width
        ax.bar(
            bx,
            summ["bound_50"],
            width,
            color="0.85",
            edgecolor="0.3",
            label="Bound (Thm 3.5), 50 % conf.",
        )
        ax.errorbar(
            bx,
            summ["bound_50"],
            yerr=err,
            fmt="none",
            ecolor="k",
            capsize=3,
            label="Bound, 5 % / 95 % conf.",
        )
    else:
        # Small horizontal offsets keep the error bars of the series apart.
        span = (pos.max() - pos.min()) if len(pos) > 1 else 1.0
        for i, (name, y, sd) in enumerate(series):
            off = (i - (nser - 1) / 2) * 0.012 * span
            ax.errorbar(
                pos + off,
                y,
                yerr=sd,
                marker=plotting.marker(i),
                color=plotting.color(i),
                linestyle=plotting.linestyle(i),
                capsize=2,
                markersize=4,
                label=name,
            )
        ax.errorbar(
            pos,
            summ["bound_50"],
            yerr=err,
            color="k",
            marker="_",
            markersize=10,
            capsize=3,
            linestyle=":",
            label="Bound (Thm 3.5), 50 % conf.; bars 5–95 %",
        )
    ax.set_xticks(pos)
    labels = list(ticklabels)
    if (
        not bars and len(labels) > 14
    ):  # e.g. 27 L1 radii: label every k-th tick so labels do not collide
        k = int(np.ceil(len(labels) / 14))
        labels = [lab if i % k == 0 else "" for i, lab in enumerate(labels)]
    ax.set_xticklabels(labels, rotation=rotate if bars else 0, ha="right" if bars else "center")
    ax.set(
        xlabel=xlabel,
        ylabel=f"records reconstructed (of {n_records})",
        title=title,
        ylim=(0, 1.05 * n_records),
    )
    # Outside the axes: the bars and curves fill the whole 0–n_records range.
    ax.legend(fontsize=7.5, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def _draws_note(summ) -> str:
    r = int(summ["draws"].min())
    return (
        f" Attack and prior: mean ± 1 sd (error bars) over {r} independent (sample, noise) draws per point; "
        "each attack's optimiser, step size and number of steps were chosen per (ε, number of unknown "
        "columns) on shadow datasets sampled from the BayNet with fresh noise (grid, choice and shadow "
        "scores in the provenance); the bound is averaged over the draws."
    )


def _load(inputs, params):
    rows = pd.read_csv(inputs["attack"])
    ds = json.loads(Path(inputs["dataset_json"]).read_text())
    ds["tuning"] = pd.read_csv(inputs["tuning"]) if "tuning" in inputs else pd.DataFrame()
    lambdas = [float(v) for v in params["marginals_attack"]["prior_weights"]]
    return rows, ds, lambdas


def _setting(params) -> tuple[int, str]:
    """(records in the private dataset, δ as printed) from the config keys ``marginals.n_records``
    and ``marginals_attack.delta``."""
    return int(params["n_records"]), f"{params['marginals_attack']['delta']:g}"


def _sources(ds) -> dict[str, str]:
    return {ds["dataset"].upper(): ds["source"]}


def _extra(ds, summ, params) -> dict:
    tuning = ds["tuning"]
    info = {k: v for k, v in ds.items() if k != "tuning"}
    return {
        "dataset": info,
        "summary": summ.to_dict(orient="records"),
        "attack": params["marginals_attack"],
        "tuning": {
            "grid": params["marginals_attack"]["tuning"]
            | ({"steps": params["tuning_steps"]} if "tuning_steps" in params else {}),
            "rule": "per (ε, number of unknown columns) and λ, the (optimiser, lr, steps) with the "
            "highest mean success on shadow datasets sampled from the BayNet with fresh noise",
            "chosen": tuning[tuning["chosen"]].to_dict(orient="records") if len(tuning) else [],
            "scores": tuning.to_dict(orient="records"),
        },
        "error_bars": "attack and prior: mean ± 1 sd over the target draws; bound: mean over draws of the "
        "5 % / 95 % quantiles",
        "prior_baseline": "realised successes of the BayNet MAP guess; prior_expected = Σ p*_i",
        "bound": "Theorem 3.5 with p*_i = MAP probability given the known columns, δ = "
        f"{params['marginals_attack']['delta']:g}, v_UB(c) = min{{v : B(v+1) <= 1 - c}}",
    }


STANDIN_NOTE = "stand-in BayNet data, not the paper's ACS/FIRE sample"


def _variants(row, lambdas) -> str:
    """'ours' is the paper's attack (first λ); name the other variants' values in the note."""
    return (
        "; ".join(
            f"prior-term variant λ = {lam:g}: {row[f'attack_l{lam:g}']:.1f} ± {row[f'attack_l{lam:g}_se']:.1f} "
            f"(s.e.)"
            for lam in lambdas[1:]
        )
        + f"; mean of {int(row['draws'])} draws, tuned setting "
        f"{row.get(f'setting_l{lambdas[0]:g}', 'n/a')}"
    )


def _ge_prior(fig, summ, lambdas, what, data):
    lam0 = lambdas[0]
    gap, se = summ[f"gap_l{lam0:g}"], summ[f"gap_l{lam0:g}_se"]
    holds = judge_at_least(gap, se)
    i = int(np.argmin(gap.to_numpy()))
    other = ""
    if len(lambdas) > 1:
        g1, s1 = summ[f"gap_l{lambdas[1]:g}"], summ[f"gap_l{lambdas[1]:g}_se"]
        j = int(np.argmin(g1.to_numpy()))
        other = (
            f"; with the prior term (λ = {lambdas[1]:g}) min mean attack − prior = {g1.iloc[j]:.1f} ± "
            f"{s1.iloc[j]:.1f} at {summ['x'].iloc[j]}"
        )
    ours = (
        f"min mean (attack − prior) = {gap.iloc[i]:.1f} ± {se.iloc[i]:.1f} (s.e., {int(summ['draws'].iloc[i])} "
        f"draws) records at {summ['x'].iloc[i]} (paper's attack, λ = {lam0:g}, tuned on shadow data){other}"
    )
    note = {
        True: "",
        False: "significantly below the prior (mean + 2 s.e. < 0) for some condition; the "
        "attack was tuned on shadow data, so this is a finding, not a tuning artefact",
        None: f"undecided: some mean gap is below 0 but within 2 s.e. (estimate {gap.iloc[i]:.2f}, null 0, "
        f"half-width {Z * se.iloc[i]:.2f})",
    }[holds]
    return LEDGER.qualitative(
        figure=fig,
        claim_id=f"{fig}_attack_ge_prior",
        claim=f"the M-AI attack matches or exceeds the prior for all {what}",
        holds=holds,
        ours=ours,
        note=note,
        data=data,
    )


def _fig_columns(params, inputs, fig, panel_title):
    rows, ds, lambdas = _load(inputs, params)
    summ = summarise(rows, params["marginals_attack"]["delta"], lambdas)
    n, delta = _setting(params)
    fig_ = _plot(
        summ,
        lambdas,
        positions=range(len(summ)),
        ticklabels=list(summ["x"]),
        xlabel="target column",
        title=f"{panel_title}: one column at ε = {params['epsilon']:g}, δ = {delta}",
        bars=True,
        n_records=n,
    )
    src = ds["source"]
    claims = [_ge_prior(fig, summ, lambdas, "columns", src)]
    standin = src == "standin"
    if ds["dataset"] == "acs" and "SEX" in set(summ["x"]):
        s = summ.set_index("x").loc["SEX"]
        lam0 = lambdas[0]
        claims += [
            LEDGER.numeric(
                figure=fig,
                claim_id="sex_attack",
                claim="ACS SEX at ε = 1: the attack reconstructs 65 % of records",
                paper_value=65,
                ours=float(s[f"attack_l{lam0:g}"]),
                tolerance=5,
                se=float(s[f"attack_l{lam0:g}_se"]),
                data=src,
                note=_variants(s, lambdas),
                standin_note=STANDIN_NOTE,
            ),
            LEDGER.numeric(
                figure=fig,
                claim_id="sex_prior",
                claim="ACS SEX at ε = 1: the prior alone reconstructs 56 %",
                paper_value=56,
                ours=float(s["prior"]),
                tolerance=5,
                se=float(s["prior_sd"] / np.sqrt(s["draws"])),
                data=src,
                standin_note=STANDIN_NOTE,
            ),
            LEDGER.numeric(
                figure=fig,
                claim_id="sex_bound95",
                claim="ACS SEX at ε = 1: the 95 %-confidence upper bound is 84 %",
                paper_value=84,
                ours=float(s["bound_95"]),
                tolerance=2,
                data=src,
                standin_note=STANDIN_NOTE,
            ),
        ]
        # The paper's own numbers are self-consistent: with p*_i = 0.56 for all of its 100 records
        # the bound at 95 % is 84 (spec §4(b) sanity check) — computed here with our bound code.
        q = bound_quantiles(
            params["epsilon"], params["marginals_attack"]["delta"], np.full(100, 0.56)
        )
        claims.append(
            LEDGER.numeric(
                figure=fig,
                claim_id="sex_bound95_from_quoted_prior",
                claim="95 % bound for 100 records each with prior success 0.56 at ε = 1 is 84",
                paper_value=84,
                ours=float(q[2]),
                tolerance=0,
            )
        )
        others = summ[~summ["x"].isin(["AGEP", "SCHL"])]
        low = summ[summ["x"].isin(["AGEP", "SCHL"])]
        holds = bool((others["bound_95"] >= 80).all() and (low["bound_95"] < 80).all())
        claims.append(
            LEDGER.qualitative(
                figure=fig,
                claim_id="bound95_ge80_except_agep_schl",
                claim="the 95 % bound is >= 80/100 for the columns shown except AGEP and SCHL",
                holds=holds,
                ours="; ".join(f"{r.x}: {r.bound_95:.1f}" for r in summ.itertuples())
                + " (mean over draws)",
                note=""
                if holds
                else ("stand-in priors differ from the real data's" if standin else ""),
                data=src,
            )
        )
    tidy = _tidy(summ, lambdas)
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose single target column is recovered exactly from noisy "
        f"3-way marginals at ε = {params['epsilon']:g}, δ = {delta} ({ds['dataset'].upper()}, "
        f"{ds['source']} data; all other columns known; m = {int(summ['m'].iloc[0])} marginals). Bars: the "
        "RAP-based M-AI attack (prior as starting point, as in the paper), the same attack with the prior "
        "as a penalty term, the BayNet prior's MAP guess, and the Theorem 3.5 upper bound at 50 % "
        "confidence with 5 %/95 % error bars."
    )
    return FigureResult(
        data=tidy,
        fig=fig_,
        caption=caption + _draws_note(summ),
        claims=claims,
        data_sources=_sources(ds),
        seeds={"seed": int(params["seed"])},
        extra=_extra(ds, summ, params),
    )


def fig4a(params, inputs) -> FigureResult:
    return _fig_columns(params, inputs, "fig4a", "ACS")


def fig4b(params, inputs) -> FigureResult:
    return _fig_columns(params, inputs, "fig4b", "FIRE")


def _fig_eps(params, inputs, fig, name):
    rows, ds, lambdas = _load(inputs, params)
    summ = summarise(rows, params["marginals_attack"]["delta"], lambdas)
    eps = summ["epsilon"].to_numpy()
    n, delta = _setting(params)
    src = ds["source"]
    labels = ["∞" if math.isinf(e) else f"{e:g}" for e in eps]
    fig_ = _plot(
        summ,
        lambdas,
        positions=range(len(summ)),
        ticklabels=labels,
        xlabel=f"privacy parameter ε (δ = {delta}; ∞ = exact marginals)",
        title=f"{name}: column {params['column']} vs ε",
        bars=False,
        n_records=n,
    )
    lam0 = lambdas[0]
    claims = []
    if np.isinf(eps).any():
        r = summ[np.isinf(eps)].iloc[0]
        att, amb, se = (
            float(r[f"attack_l{lam0:g}"]),
            float(r["ambiguous"]),
            float(r[f"attack_l{lam0:g}_se"]),
        )
        # Records that share every known column with a record of another target value cannot all
        # be told apart even by exact marginals; count at most half of them as unreachable.
        reachable = n - amb / 2
        holds = judge_at_least(att - reachable, se)
        if holds is not False and r["bound_95"] < n:
            holds = False
        claims.append(
            LEDGER.qualitative(
                figure=fig,
                claim_id=f"{fig}_attack_reaches_bound_at_inf",
                claim="at ε = ∞ the attack matches the bound and reconstructs the column of all records",
                holds=holds,
                ours=(
                    f"attack {att:.1f} ± {se:.1f} (s.e.)/{n}, bound {r['bound_95']:.0f}, prior {r['prior']:.1f}; "
                    f"{amb:.1f} records per draw share all known columns with a record of another value (not "
                    "separable by any attack); mean over draws"
                ),
                note={
                    True: "",
                    False: "RAP stops short of the reachable records",
                    None: f"estimate {att - reachable:.2f} below the reachable count, null 0, half-width {Z * se:.2f}",
                }[holds],
                data=src,
            )
        )
    fin = summ[np.isfinite(eps)]
    if len(fin) >= 2:
        gap, gse = fin[f"gap_l{lam0:g}"], fin[f"gap_l{lam0:g}_se"]
        est = float(gap.iloc[-1] - gap.iloc[0])
        se = float(np.hypot(gse.iloc[-1], gse.iloc[0]))
        holds = judge_greater(est, se)
        claims.append(
            LEDGER.qualitative(
                figure=fig,
                claim_id=f"{fig}_gap_grows_with_eps",
                claim="as ε increases the attack outperforms the prior more",
                holds=holds,
                ours=f"mean attack − prior: {gap.iloc[0]:.1f} ± {gse.iloc[0]:.1f} at ε = "
                f"{fin['epsilon'].iloc[0]:g}, {gap.iloc[-1]:.1f} ± {gse.iloc[-1]:.1f} at ε = "
                f"{fin['epsilon'].iloc[-1]:g} (s.e.)",
                note={
                    True: "",
                    False: "the gap does not grow",
                    None: f"growth {est:.2f}, null 0, half-width {Z * se:.2f}",
                }[holds],
                data=src,
            )
        )
    tidy = _tidy(summ, lambdas)
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose {params['column']} value is recovered exactly "
        f"({ds['dataset'].upper()}, {ds['source']} data, other columns known) as the privacy "
        f"parameter ε of the noisy 3-way marginals grows (δ = {delta}; ε = ∞ releases exact marginals): "
        "M-AI attack variants, the BayNet prior's MAP guess and the Theorem 3.5 bound (50 % confidence, "
        "bars 5 %–95 %)."
    )
    return FigureResult(
        data=tidy,
        fig=fig_,
        caption=caption + _draws_note(summ),
        claims=claims,
        data_sources=_sources(ds),
        seeds={"seed": int(params["seed"])},
        extra=_extra(ds, summ, params),
    )


def fig5a(params, inputs) -> FigureResult:
    return _fig_eps(params, inputs, "fig5a", "ACS")


def fig5b(params, inputs) -> FigureResult:
    return _fig_eps(params, inputs, "fig5b", "FIRE")


def _fig_multi(params, inputs, fig, name):
    rows, ds, lambdas = _load(inputs, params)
    summ = summarise(rows, params["marginals_attack"]["delta"], lambdas)
    n, delta = _setting(params)
    src = ds["source"]
    fig_ = _plot(
        summ,
        lambdas,
        positions=summ["x"],
        ticklabels=[str(int(k)) for k in summ["x"]],
        xlabel="number of unknown columns d' (last in the BayNet visit order)",
        title=f"{name}: several columns at ε = {params['epsilon']:g}",
        bars=False,
        n_records=n,
    )
    lam0 = lambdas[0]
    tol = params["approx_tolerance"]
    beyond = summ[summ["x"] > 5]
    gap, gse = beyond[f"gap_l{lam0:g}"], beyond[f"gap_l{lam0:g}_se"]
    ours = (
        f"max |mean attack − prior| for d' > 5: {gap.abs().max():.1f} (s.e. up to {gse.max():.1f}; paper's "
        f"attack, λ = {lam0:g})"
        if len(gap)
        else "no d' > 5 in this run"
    )
    if len(lambdas) > 1 and len(beyond):
        d1 = beyond[f"gap_l{lambdas[1]:g}"].abs()
        ours += f"; {d1.max():.1f} with the prior term (λ = {lambdas[1]:g})"
    holds = judge_close(gap, gse, tol) if len(gap) else None
    claims = [
        LEDGER.qualitative(
            figure=fig,
            claim_id=f"{fig}_beyond5_attack_equals_prior",
            claim=f"beyond 5 unknown columns the attack performs like the prior (within {tol} records)",
            holds=holds,
            ours=ours,
            note={
                True: "",
                False: "the tuned attack differs from the prior by more than the tolerance beyond 5 columns",
                None: f"undecided: max |gap| {gap.abs().max() if len(gap) else float('nan'):.2f}, tolerance {tol}, "
                f"half-width up to {Z * (gse.max() if len(gse) else float('nan')):.2f}",
            }[holds],
            data=src,
        )
    ]
    if ds["dataset"] == "fire" and {1, 3} <= set(summ["x"]):
        s = summ.set_index("x")
        holds = (
            abs(s.loc[3, "bound_50"] - s.loc[1, "bound_50"]) <= 10
            and s.loc[3, f"attack_l{lam0:g}"] < s.loc[1, f"attack_l{lam0:g}"]
            and s.loc[3, "prior"] < s.loc[1, "prior"]
        )
        claims.append(
            LEDGER.qualitative(
                figure=fig,
                claim_id="fire_bound_flat_1_to_3",
                claim="FIRE: the bound stays roughly the same for 3 columns as for 1 while attack and prior fall",
                holds=bool(holds),
                note=""
                if holds
                else (
                    "stand-in network: its bound falls from 1 to 3 columns"
                    if src == "standin"
                    else "the bound falls from 1 to 3 columns in our run"
                ),
                data=src,
                ours=(
                    f"bound50 {s.loc[1, 'bound_50']:.1f} -> {s.loc[3, 'bound_50']:.1f}; attack "
                    f"{s.loc[1, f'attack_l{lam0:g}']:.1f} -> {s.loc[3, f'attack_l{lam0:g}']:.1f}; "
                    f"prior {s.loc[1, 'prior']:.1f} -> {s.loc[3, 'prior']:.1f} (means over draws)"
                ),
            )
        )
    tidy = _tidy(summ, lambdas)
    cols_by_k = rows.groupby("x")["columns"].first().to_dict()
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose d' unknown columns are all recovered exactly from noisy "
        f"3-way marginals at ε = {params['epsilon']:g}, δ = {delta} ({ds['dataset'].upper()}, {ds['source']} "
        "data). The unknown columns are the last d' of the BayNet visit order; the others (at least 3) are "
        "known; the noise is calibrated to the C(d,3) − C(d−d',3) released marginals. Series: M-AI attack "
        "variants, the prior's joint MAP guess and the Theorem 3.5 bound (50 %, bars 5 %–95 %)."
    )
    extra = _extra(ds, summ, params) | {"unknown_columns": cols_by_k}
    return FigureResult(
        data=tidy,
        fig=fig_,
        caption=caption + _draws_note(summ),
        claims=claims,
        data_sources=_sources(ds),
        seeds={"seed": int(params["seed"])},
        extra=extra,
    )


def fig6a(params, inputs) -> FigureResult:
    return _fig_multi(params, inputs, "fig6a", "ACS")


def fig6b(params, inputs) -> FigureResult:
    return _fig_multi(params, inputs, "fig6b", "FIRE")


def _fig_l1(params, inputs, fig, name):
    rows, ds, lambdas = _load(inputs, params)
    summ = summarise(rows, params["marginals_attack"]["delta"], lambdas)
    n, delta = _setting(params)
    src = ds["source"]
    fig_ = _plot(
        summ,
        lambdas,
        positions=summ["x"],
        ticklabels=[str(int(k)) for k in summ["x"]],
        xlabel=f"L1 error allowed E (codes of {params['column']})",
        title=f"{name}: {params['column']} within L1 error E, ε = {params['epsilon']:g}",
        bars=False,
        n_records=n,
    )
    claims = [_ge_prior(fig, summ, lambdas, "error levels E", src)]
    lam0 = lambdas[0]
    if ds["dataset"] == "acs" and params["column"] == "AGEP" and 1 in set(summ["x"]):
        s = summ.set_index("x").loc[1]
        claims += [
            LEDGER.numeric(
                figure=fig,
                claim_id="agep_e1_attack",
                claim="ACS AGEP within L1 error 1 at ε = 1: attack 81/100",
                paper_value=81,
                ours=float(s[f"attack_l{lam0:g}"]),
                tolerance=5,
                se=float(s[f"attack_l{lam0:g}_se"]),
                data=src,
                note=_variants(s, lambdas),
                standin_note=STANDIN_NOTE,
            ),
            LEDGER.numeric(
                figure=fig,
                claim_id="agep_e1_bound5",
                claim="ACS AGEP within L1 error 1 at ε = 1: bound at 5 % confidence 82",
                paper_value=82,
                ours=float(s["bound_5"]),
                tolerance=3,
                data=src,
                standin_note=STANDIN_NOTE,
            ),
        ]
    tidy = _tidy(summ, lambdas)
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose {params['column']} code is recovered within L1 error E "
        f"({ds['dataset'].upper()}, {ds['source']} data, ε = {params['epsilon']:g}, δ = {delta}, other "
        "columns known); E = 0 is exact reconstruction. The prior guesses the centre of its most probable "
        "window of width 2E + 1 and the Theorem 3.5 bound uses that window's probability; each attack "
        "likewise guesses the centre of the most probable window of its relaxed (softmax) row."
    )
    return FigureResult(
        data=tidy,
        fig=fig_,
        caption=caption + _draws_note(summ),
        claims=claims,
        data_sources=_sources(ds),
        seeds={"seed": int(params["seed"])},
        extra=_extra(ds, summ, params),
    )


def fig7a(params, inputs) -> FigureResult:
    return _fig_l1(params, inputs, "fig7a", "ACS")


def fig7b(params, inputs) -> FigureResult:
    return _fig_l1(params, inputs, "fig7b", "FIRE")
