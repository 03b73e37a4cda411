"""Swanberg et al. (arXiv 2507.08158 v1) §6, Figures 4–7: M-AI from noisy 3-way marginals.

Pipeline (spec §4(b)): raw ACS / FIRE table (real file or stand-in) → degree-2 BayNet →
``marginals.n_records`` (paper: 100) records sampled from it (the private dataset) → noisy 3-way
marginals of every attribute triple touching an unknown column, Gaussian noise calibrated by GDP
to (ε, δ = ``marginals_attack.delta``, paper: 10⁻⁵) → the RAP-based M-AI attack initialised at the
BayNet's conditional prior → records whose unknown columns are all recovered, against the prior's
MAP guess, the informed attacker's ceiling (the exact posterior attack on the same draws), the
Bayes success with every other record revealed (one unknown column: a bound on any attack's
expected success) and the Theorem 3.5 bound at 5/50/95 % confidence.

Steps (expensive) live in :mod:`.steps_marginals`, the judgements in :mod:`.claims_marginals`;
figures (cheap, read the csv) are here: ``fig4a`` … ``fig7b``.

Choices where the paper is silent (also in config and provenance): the attack's optimiser and
steps; an extra attack variant with the prior as a penalty term (λ = 1) beside the paper's
(λ = 0, prior only as the starting point); the unknown columns of Fig 6 are the *last* d'
columns of the visit order (so the known ones are BayNet ancestors); the prior baseline is the
realised success of the MAP guess on the sampled records (its expectation Σ p*_i is recorded);
for the L1 windows of Fig 7 the prior, the attacks and the ceiling guess the centre of their most
probable window (the attack's from its relaxed rows; at E = 0 that is its rounded output).
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ...contract import plotting
from ...contract.figure import FigureResult
from . import claims_marginals as cm

log = logging.getLogger(__name__)

THM35 = "Bound (Thm 3.5), 50 % conf.; bars 5–95 %"


def _series(summ, lambdas) -> list[tuple[str, str]]:
    """(label, summary column) of the methods drawn with s.e. bars, in drawing order."""
    out = [(cm.attack_name(lam), f"attack_l{lam:g}") for lam in lambdas]
    if "ceiling" in summ:
        out.append((cm.CEILING, "ceiling"))
    out.append((cm.PRIOR, "prior"))
    return out


def _tidy(summ: pd.DataFrame, lambdas) -> pd.DataFrame:
    """Every plotted number: methods as mean ± s.e. over draws, the bounds as drawn."""
    frames = []
    for name, col in _series(summ, lambdas):
        y, se = summ[col], summ[f"{col}_se"].fillna(0.0)
        frames.append(
            pd.DataFrame({"series": name, "x": summ["x"], "y": y, "lo": y - se, "hi": y + se})
        )
    if "revealed" in summ and summ["revealed"].notna().any():
        y, se = summ["revealed"], summ["revealed_se"].fillna(0.0)
        frames.append(
            pd.DataFrame(
                {"series": cm.REVEALED, "x": summ["x"], "y": y, "lo": y - se, "hi": y + se}
            )
        )
    frames.append(
        pd.DataFrame(
            {
                "series": THM35,
                "x": summ["x"],
                "y": summ["bound_50"],
                "lo": summ["bound_5"],
                "hi": summ["bound_95"],
            }
        )
    )
    return pd.concat(frames, ignore_index=True)


def _eps_positions(eps: np.ndarray):
    """ε on a log axis, ε = ∞ one step to the right of the largest finite ε (its own column)."""
    finite = eps[np.isfinite(eps)]
    logs = np.log10(finite) if finite.size else np.array([0.0])
    step = 0.6 * max(0.25, (logs.max() - logs.min()) / max(1, len(logs) - 1))
    x_inf = logs.max() + 2 * step
    pos = np.where(np.isfinite(eps), np.log10(np.where(np.isfinite(eps), eps, 1.0)), x_inf)
    return pos, x_inf, step


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
    inf_break: float | None = None,
):
    """Bars (one group per column) or curves with s.e. error bars; the revealed-others bound as a
    dashed curve (a tick over each group for bars); Thm 3.5 at 50 % with 5–95 % bars."""
    series = _series(summ, lambdas)
    fig, ax = plotting.subplots(
        width=(max(4.8, 0.7 * len(positions) + 2) if bars else 6.0) + 2.8, height=3.6
    )
    pos = np.asarray(positions, dtype=float)
    err = np.vstack([summ["bound_50"] - summ["bound_5"], summ["bound_95"] - summ["bound_50"]])
    revealed = summ["revealed"] if "revealed" in summ and summ["revealed"].notna().any() else None
    if bars:
        nser = len(series) + 1
        width = 0.8 / nser
        for i, (name, col) in enumerate(series):
            ax.bar(
                pos + (i - nser / 2 + 0.5) * width,
                summ[col],
                width,
                yerr=summ[f"{col}_se"].fillna(0.0),
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
        if revealed is not None:
            ax.hlines(
                revealed,
                pos - 0.42,
                pos + 0.42,
                colors="k",
                linestyles="--",
                linewidth=1.2,
                label=cm.REVEALED,
            )
    else:
        finite = np.ones(len(pos), bool) if inf_break is None else pos < inf_break
        span = (pos.max() - pos.min()) if len(pos) > 1 else 1.0
        for i, (name, col) in enumerate(series):
            off = (i - (len(series) - 1) / 2) * 0.012 * span  # keeps the error bars apart
            kw = {
                "marker": plotting.marker(i),
                "color": plotting.color(i),
                "capsize": 2,
                "markersize": 4,
            }
            ax.errorbar(
                pos[finite] + off,
                summ[col][finite],
                yerr=summ[f"{col}_se"].fillna(0.0)[finite],
                linestyle=plotting.linestyle(i),
                label=name,
                **kw,
            )
            if not finite.all():  # ε = ∞: markers only, no line across the break
                ax.errorbar(
                    pos[~finite] + off,
                    summ[col][~finite],
                    yerr=summ[f"{col}_se"].fillna(0.0)[~finite],
                    linestyle="none",
                    **kw,
                )
        if revealed is not None:
            ax.plot(  # a marker as well: Fig 6 has the bound at d' = 1 only
                pos[finite],
                revealed[finite],
                color="k",
                linestyle="--",
                linewidth=1.2,
                marker="_",
                markersize=10,
                label=cm.REVEALED,
            )
            if not finite.all():
                ax.plot(
                    pos[~finite],
                    revealed[~finite],
                    color="k",
                    marker="_",
                    markersize=12,
                    linestyle="none",
                )
        ax.errorbar(
            pos,
            summ["bound_50"],
            yerr=err,
            color="0.35",
            marker="_",
            markersize=10,
            capsize=3,
            linestyle="none",
            label=THM35,
        )
        if inf_break is not None and not finite.all():
            ax.axvspan(
                pos[finite].max() + 0.1 * span, inf_break - 0.1 * span, color="0.95", zorder=0
            )
    ax.set_xticks(pos)
    labels = list(ticklabels)
    if not bars and len(labels) > 14:  # e.g. 27 L1 radii: label every k-th tick
        k = int(np.ceil(len(labels) / 14))
        labels = [lab if i % k == 0 else "" for i, lab in enumerate(labels)]
    ax.set_xticklabels(labels, rotation=30 if bars else 0, ha="right" if bars else "center")
    ax.set(
        xlabel=xlabel,
        ylabel=f"records reconstructed (of {n_records})",
        title=title,
        ylim=(0, 1.05 * n_records),
    )
    # Outside the axes: the bars and curves fill the whole 0–n_records range.
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def _draws_note(summ) -> str:
    lo, hi = int(summ["draws"].min()), int(summ["draws"].max())
    draws = f"{lo}" if lo == hi else f"{lo}–{hi}"
    worlds = int(summ["worlds"].max()) if "worlds" in summ else 1
    spread = (
        f"spread over {worlds} stand-in worlds (each its own stand-in table and BayNet; the world a "
        "random effect of the standard error)"
        if worlds > 1
        else "independent"
    )
    return (
        f" Attacks, ceiling and prior: mean over {draws} (sample, noise) draws per point, {spread}, "
        "with ± 1 standard error of the mean (the uncertainty the claims use); each attack's optimiser, "
        "step size and number of steps were chosen per (ε, number of unknown columns) on shadow "
        "datasets sampled from the BayNets with fresh noise (grid, choice and shadow scores in the "
        "provenance). The ceiling is the informed attacker's best: the mode of each record's exact "
        "posterior given the BayNet prior and the noisy marginals (Gibbs sampling; at ε = ∞ the "
        "records the exact marginals determine); no attack beats it in expectation. The bounds are "
        "averaged over the draws."
    )


def _load(inputs, params):
    rows = pd.read_csv(inputs["attack"])
    ds = json.loads(Path(inputs["dataset_json"]).read_text())
    ds["tuning"] = pd.read_csv(inputs["tuning"]) if "tuning" in inputs else pd.DataFrame()
    lambdas = [float(v) for v in params["marginals_attack"]["prior_weights"]]
    delta = float(params["marginals_attack"]["delta"])
    return rows, ds, lambdas, cm.summarise(rows, delta, lambdas), cm.per_draw(rows, delta, lambdas)


def _setting(params) -> tuple[int, str]:
    """(records in the private dataset, δ as printed)."""
    return int(params["n_records"]), f"{params['marginals_attack']['delta']:g}"


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
            "highest mean success on shadow datasets sampled from the worlds' BayNets with fresh noise",
            "chosen": tuning[tuning["chosen"]].to_dict(orient="records") if len(tuning) else [],
            "scores": tuning.to_dict(orient="records"),
        },
        "error_bars": "attacks, ceiling, prior and revealed-others bound: ± 1 s.e. of the mean over "
        "the target draws; Thm 3.5 bound: mean over draws of the 5 % / 95 % quantiles",
        "prior_baseline": "realised successes of the BayNet MAP guess; prior_expected = Σ p*_i",
        "ceiling": "exact posterior attack (privrisk.attacks.posterior): Gibbs over the unknown cells "
        "given the BayNet prior and the noisy marginals (several columns: each record's tuple one "
        "block, its joint values enumerated), Rao–Blackwellised marginals, the mode per record; "
        "exact-release guess at ε = ∞; settings "
        f"{params['marginals_attack']['ceiling'] | (params.get('ceiling') or {})}",
        "revealed_bound": "Σ_i of the Bayes success for record i with every other record revealed "
        "(privrisk.bounds.reconstruction.bayes_success_revealed; windows by Monte Carlo): an upper "
        "bound on any attack's expected success, one unknown column only",
        "bound": "Theorem 3.5 with p*_i = MAP probability given the known columns, δ = "
        f"{params['marginals_attack']['delta']:g}, v_UB(c) = min{{v : B(v+1) <= 1 - c}}",
        "verdicts": f"privrisk.contract.verdicts on paired per-draw differences, margin {params['margin']} "
        "records, Bonferroni over the points of a statement",
    }


def _result(fig_, tidy, caption, claims, ds, summ, params, extra=None) -> FigureResult:
    return FigureResult(
        data=tidy,
        fig=fig_,
        caption=caption + _draws_note(summ),
        claims=claims,
        data_sources={ds["dataset"].upper(): ds["source"]},
        seeds={"seed": int(params["seed"])},
        extra=_extra(ds, summ, params) | (extra or {}),
    )


def _fig_columns(params, inputs, fig, panel_title):
    rows, ds, lambdas, summ, per = _load(inputs, params)
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
    claims = cm.columns_claims(
        fig, summ, per, lambdas, dataset=ds["dataset"], data=ds["source"], params=params
    )
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose single target column is recovered exactly "
        f"from noisy 3-way marginals at ε = {params['epsilon']:g}, δ = {delta} "
        f"({ds['dataset'].upper()}, {ds['source']} data; all other columns known; m = "
        f"{int(summ['m'].iloc[0])} marginals). Bars: the RAP-based M-AI attack (prior as starting "
        "point, as in the paper), the same attack with the prior as a penalty term, the informed "
        "attacker's ceiling, the BayNet prior's MAP guess, and the Theorem 3.5 upper bound at 50 % "
        "confidence with 5 %/95 % error bars; dashed ticks: the Bayes success with every other record "
        "revealed, an upper bound on any attack's expected success at this noise."
    )
    return _result(fig_, _tidy(summ, lambdas), caption, claims, ds, summ, params)


def fig4a(params, inputs) -> FigureResult:
    """Figure 4(a), ACS: records whose single target column the attack recovers from noisy 3-way marginals, per column."""
    return _fig_columns(params, inputs, "fig4a", "ACS")


def fig4b(params, inputs) -> FigureResult:
    """Figure 4(b), FIRE: as Figure 4(a) for the SF Fire Calls columns."""
    return _fig_columns(params, inputs, "fig4b", "FIRE")


def _fig_eps(params, inputs, fig, name):
    rows, ds, lambdas, summ, per = _load(inputs, params)
    n, delta = _setting(params)
    eps = summ["epsilon"].to_numpy()
    pos, x_inf, _ = _eps_positions(eps)
    labels = ["∞" if math.isinf(e) else f"{e:g}" for e in eps]
    fig_ = _plot(
        summ,
        lambdas,
        positions=pos,
        ticklabels=labels,
        xlabel=f"privacy parameter ε (log scale; δ = {delta}; ∞ = exact marginals)",
        title=f"{name}: column {params['column']} vs ε",
        bars=False,
        n_records=n,
        inf_break=x_inf - 1e-9 if np.isinf(eps).any() else None,
    )
    claims = cm.eps_claims(fig, summ, per, lambdas, data=ds["source"], params=params)
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose {params['column']} value is recovered "
        f"exactly ({ds['dataset'].upper()}, {ds['source']} data, other columns known) as the privacy "
        f"parameter ε of the noisy 3-way marginals grows (δ = {delta}; ε on a log axis, ε = ∞ "
        "releases exact marginals and stands apart): M-AI attack variants, the informed attacker's "
        "ceiling, the BayNet prior's MAP guess, the revealed-others bound (dashed) and the Theorem 3.5 "
        "bound (50 % confidence, bars 5 %–95 %)."
    )
    return _result(fig_, _tidy(summ, lambdas), caption, claims, ds, summ, params)


def fig5a(params, inputs) -> FigureResult:
    """Figure 5(a), ACS: records of one column recovered against ε (attack, informed ceiling, prior, bound)."""
    return _fig_eps(params, inputs, "fig5a", "ACS")


def fig5b(params, inputs) -> FigureResult:
    """Figure 5(b), FIRE: as Figure 5(a)."""
    return _fig_eps(params, inputs, "fig5b", "FIRE")


def _fig_multi(params, inputs, fig, name):
    rows, ds, lambdas, summ, per = _load(inputs, params)
    n, delta = _setting(params)
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
    claims = cm.multi_claims(
        fig, summ, per, lambdas, dataset=ds["dataset"], data=ds["source"], params=params
    )
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose d' unknown columns are all recovered exactly "
        f"from noisy 3-way marginals at ε = {params['epsilon']:g}, δ = {delta} "
        f"({ds['dataset'].upper()}, {ds['source']} data). The unknown columns are the last d' of the "
        "BayNet visit order; the others (at least 3) are known; the noise is calibrated to the "
        "C(d,3) − C(d−d',3) released marginals. Series: M-AI attack variants, the informed attacker's "
        "ceiling (block Gibbs over each record's whole unknown tuple, its joint values enumerated; "
        "drawn up to the d' where they exceed "
        f"{(params['marginals_attack']['ceiling'] | (params.get('ceiling') or {}))['max_tuples']}), "
        "the prior's joint MAP guess and the Theorem 3.5 bound (50 %, bars 5 %–95 %)."
    )
    extra = {"unknown_columns": rows.groupby("x")["columns"].first().to_dict()}
    return _result(fig_, _tidy(summ, lambdas), caption, claims, ds, summ, params, extra)


def fig6a(params, inputs) -> FigureResult:
    """Figure 6(a), ACS: records whose d' unknown columns are all recovered, against d'."""
    return _fig_multi(params, inputs, "fig6a", "ACS")


def fig6b(params, inputs) -> FigureResult:
    """Figure 6(b), FIRE: as Figure 6(a)."""
    return _fig_multi(params, inputs, "fig6b", "FIRE")


def _fig_l1(params, inputs, fig, name):
    rows, ds, lambdas, summ, per = _load(inputs, params)
    n, delta = _setting(params)
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
    claims = cm.l1_claims(
        fig,
        summ,
        per,
        lambdas,
        dataset=ds["dataset"],
        column=params["column"],
        data=ds["source"],
        params=params,
    )
    caption = (
        f"Figure {fig[3]}({fig[4]}). Records (of {n}) whose {params['column']} code is recovered within "
        f"L1 error E ({ds['dataset'].upper()}, {ds['source']} data, ε = {params['epsilon']:g}, "
        f"δ = {delta}, other columns known); E = 0 is exact reconstruction. The prior guesses the "
        "centre of its most probable window of width 2E + 1 and the Theorem 3.5 bound uses that "
        "window's probability; each attack likewise guesses the centre of the most probable window of "
        "its relaxed (softmax) row, the ceiling that of its exact posterior marginal; the dashed "
        "revealed-others bound is computed by Monte Carlo for E > 0."
    )
    return _result(fig_, _tidy(summ, lambdas), caption, claims, ds, summ, params)


def fig7a(params, inputs) -> FigureResult:
    """Figure 7(a), ACS: records recovered within an L1 error E of the code, against E."""
    return _fig_l1(params, inputs, "fig7a", "ACS")


def fig7b(params, inputs) -> FigureResult:
    """Figure 7(b), FIRE: as Figure 7(a)."""
    return _fig_l1(params, inputs, "fig7b", "FIRE")
