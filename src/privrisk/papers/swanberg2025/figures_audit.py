"""swanberg2025, the project's own check of Figure 3's models: every DP-SGD n-gram model audited.

Figure 3 trains, per (ε, prior), ``trials`` models on one canary each and records whether the
attack's guess hit the canary's last digit. Those hits are a reconstruction experiment: under the
accountant's replace-one (ε, δ), Swanberg et al.'s Theorem 3.5 bounds how many of the n targets
any attacker reconstructs when its blind success on each is the prior's largest mass. The audit
(:func:`privrisk.audit`, reconstruction kind) turns the observed hits into a lower bound ε̂ valid
at the figure's confidence, and a verdict on the accountant's ε. This reads the step's npz (no
retraining); it is a check of the project, not a number of the paper: its ledger rows are
``derived``.

Every ε̂ must be at most the accountant's ε (if one is not, the training or the accountant has a
bug); the ε = ∞ models (no noise) show what the attack can reach at all, and must give the
largest ε̂ of their prior.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ... import audit
from ...contract import plotting
from ...contract.claims import Claim
from ...contract.figure import FigureResult
from .claims import LEDGER

PRIOR_LABELS = {"uniform": "Uniform", "password": "Password", "pii": "PII"}
FIGURE = "audit_fig3"


def _tag(e: float) -> str:
    return "inf" if math.isinf(e) else f"{e:g}".replace(".", "p")


def runs(z: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """One row per trained model of the Figure 3 npz: condition's ε and prior, hit, blind prior.

    The blind prior is the attacker's best success without the model: the largest mass of the
    condition's prior (Theorem 3.5's κ for a guess of one digit)."""
    names = [str(s) for s in z["priors"]]
    cond = np.asarray(z["run_cond"], int)
    eps = np.asarray(z["epsilons"], float)[np.asarray(z["cond_eps"], int)[cond]]
    pri = np.asarray(z["cond_prior"], int)[cond]
    blind = np.asarray(z["prior_mats"], float).max(axis=1)[pri]
    return pd.DataFrame(
        {
            "epsilon": eps,
            "prior": [names[i] for i in pri],
            "hit": (np.asarray(z["guess"]) == np.asarray(z["target"])).astype(int),
            "blind": blind,
        }
    )


def audit_models(models: pd.DataFrame, *, delta: float, adjacency: str, confidence: float):
    """One reconstruction audit per (ε, prior) against the accountant's (ε, δ): a row each with
    ε̂, the verdict, its p-value and the hits."""
    rows = []
    for (e, name), d in models.groupby(["epsilon", "prior"], sort=False):
        report = audit.audit(
            {"hit": d["hit"].to_numpy(), "prior": d["blind"].to_numpy()},
            epsilon=float(e),
            delta=delta,
            adjacency=adjacency.replace("_", "-"),
            confidence=confidence,
        )
        rows.append(
            {
                "epsilon": float(e),
                "prior": name,
                "n": int(report.n_targets),
                "hits": int(report.hits),
                "blind": float(d["blind"].iloc[0]),
                "epsilon_hat": float(report.epsilon_lower),
                "verdict": report.verdict,
                "p_value": float(report.p_value),
                "note": report.verdict_note,
            }
        )
    return pd.DataFrame(rows).sort_values(["prior", "epsilon"], kind="stable")


def membership_models(z: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """One row per model of the membership step's npz: its condition's ε and prior, whether it saw
    the canary, and its score on the canary."""
    names = [str(s) for s in z["priors"]]
    cond = np.asarray(z["cond"], int)
    return pd.DataFrame(
        {
            "epsilon": np.asarray(z["epsilons"], float)[np.asarray(z["cond_eps"], int)[cond]],
            "prior": [names[i] for i in np.asarray(z["cond_prior"], int)[cond]],
            "member": np.asarray(z["member"]).astype(int),
            "score": np.asarray(z["score"], float),
        }
    )


def audit_membership(models: pd.DataFrame, *, delta: float, adjacency: str, confidence: float):
    """One membership audit per (ε, prior) (in: models that saw the canary; out: a replacement)
    against the accountant's (ε, δ) under the step's adjacency: ε̂, μ̂, the verdict."""
    rows = []
    for (e, name), d in models.groupby(["epsilon", "prior"], sort=False):
        report = audit.audit(
            {"score": d["score"].to_numpy(), "member": d["member"].to_numpy()},
            epsilon=float(e),
            delta=delta,
            adjacency=adjacency.replace("_", "-"),
            confidence=confidence,
        )
        rows.append(
            {
                "epsilon": float(e),
                "prior": name,
                "n_members": int(report.n_members),
                "n_nonmembers": int(report.n_nonmembers),
                "epsilon_hat": float(report.epsilon_lower),
                "mu_hat": float(report.mu_lower),
                "auc": float(report.groups[0].auc),
                "verdict": report.verdict,
                "p_value": float(report.p_value),
                "note": report.verdict_note,
            }
        )
    return pd.DataFrame(rows).sort_values(["prior", "epsilon"], kind="stable")


def claims(
    summary: pd.DataFrame,
    *,
    data: Mapping[str, str],
    confidence: float,
    kind: str = "reconstruction",
) -> list[Claim]:
    """Per finite ε and prior: ε̂ ≤ the accountant's ε; per prior: the ε = ∞ models give the
    largest ε̂ (the attack's reach). Rows are ``derived``; the note says whether each holds."""
    out = []
    suffix = "" if kind == "reconstruction" else f"_{kind}"
    for _, r in summary.iterrows():
        e, name = float(r["epsilon"]), str(r["prior"])
        d = summary[summary["prior"] == name]
        where = (
            f"{r['hits']}/{r['n']} digits reconstructed, blind success {r['blind']:.3f}"
            if kind == "reconstruction"
            else f"{r['n_members']} models with the canary, {r['n_nonmembers']} with a "
            f"replacement, μ̂ = {r['mu_hat']:.3g}, AUC {r['auc']:.3f}"
        )
        if math.isfinite(e):
            holds = r["epsilon_hat"] <= e and r["verdict"] != "refuted"
            claim = (
                f"{name} prior, ε = {e:g}: the {kind} audit's ε̂ ({confidence:.0%} lower "
                "bound) does not exceed the accountant's ε"
            )
            note = (
                f"ε̂ ≤ ε {'holds' if holds else 'FAILS (a bug in training or accounting)'}: "
                f"ε̂ = {r['epsilon_hat']:.4g} vs ε = {e:g} ({where}); audit: {r['note']}"
            )
        else:
            finite = d[np.isfinite(d["epsilon"])]
            top = float(finite["epsilon_hat"].max()) if len(finite) else -math.inf
            holds = bool(r["epsilon_hat"] >= top)
            claim = (
                f"{name} prior: the non-private models (ε = ∞) give the largest {kind} audit ε̂ of "
                "the prior's models (what the attack can show at all)"
            )
            note = (
                f"{'holds' if holds else 'fails'}: ε̂(∞) = {r['epsilon_hat']:.4g}, largest ε̂ at a "
                f"finite ε = {top:.4g} ({where})"
            )
        out.append(
            Claim(
                LEDGER.paper,
                FIGURE,
                f"{FIGURE}_{name}_eps{_tag(e)}{suffix}",
                claim,
                e,
                float(f"{float(r['epsilon_hat']):.8g}"),
                "",
                "derived",
                data.get(name, "analytic"),
                f"the project's own audit, not a number of the paper; {note}",
            )
        )
    return out


def audit_fig3(params, inputs) -> FigureResult:
    """Figure 3's DP-SGD n-gram models audited: the reconstruction audit's ε̂ (a lower bound from the
    planted digit's hits, Theorem 3.5) and the membership audit's (models with the canary against
    models with a replacement) against the accountant's ε, one panel per prior."""
    level = float(params["confidence"])
    with np.load(inputs["npz"], allow_pickle=False) as f:
        z = {k: f[k] for k in f.files}
    delta, adjacency = float(z["delta"]), str(z["adjacency"])
    summary = audit_models(runs(z), delta=delta, adjacency=adjacency, confidence=level)
    member = None
    if "membership" in inputs:
        with np.load(inputs["membership"], allow_pickle=False) as f:
            mz = {k: f[k] for k in f.files}
        member = audit_membership(
            membership_models(mz), delta=delta, adjacency=adjacency, confidence=level
        )
    pii_src = str(z.get("pii_source", "analytic"))
    # trained models on drawn canaries: experimental numbers, whatever the prior's source
    sources = {"uniform": "simulated", "password": "simulated", "pii": pii_src}
    names = list(dict.fromkeys(str(s) for s in z["priors"]))
    fig, axes = plotting.subplots(1, len(names), width=3.3, height=3.1, sharey=True, squeeze=False)
    eps_all = np.asarray(z["epsilons"], float)
    finite = eps_all[np.isfinite(eps_all)]
    top = float(finite.max()) if finite.size else 1.0
    x_inf = top * 1.2 + 0.5
    frames = []
    for j, name in enumerate(names):
        ax = axes[0, j]
        d = summary[summary["prior"] == name]
        e = d["epsilon"].to_numpy()
        x = np.where(np.isfinite(e), e, x_inf)
        grid = np.linspace(0, top, 50)
        ax.plot(grid, grid, color=plotting.color(1), label="accountant's ε (claimed)")
        ax.plot(
            x,
            d["epsilon_hat"],
            linestyle="none",
            marker="o",
            color=plotting.color(0),
            label=f"reconstruction audit ε̂ ({level:.0%} lower bound)",
        )
        if member is not None:
            dm = member[member["prior"] == name]
            em = dm["epsilon"].to_numpy()
            ax.plot(
                np.where(np.isfinite(em), em, x_inf),
                dm["epsilon_hat"],
                linestyle="none",
                marker="s",
                markerfacecolor="none",
                color=plotting.color(2),
                label=f"membership audit ε̂ ({level:.0%} lower bound)",
            )
            frames.append(
                pd.DataFrame(
                    {
                        "series": f"{name} membership audit epsilon_hat",
                        "x": em,
                        "y": dm["epsilon_hat"].to_numpy(),
                        "prior": name,
                        "mu_hat": dm["mu_hat"].to_numpy(),
                        "auc": dm["auc"].to_numpy(),
                        "n": (dm["n_members"] + dm["n_nonmembers"]).to_numpy(),
                        "verdict": dm["verdict"].to_numpy(),
                        "p_value": dm["p_value"].to_numpy(),
                    }
                )
            )
        ticks = [t for t in ax.get_xticks() if 0 <= t <= top]
        if (~np.isfinite(e)).any():
            ax.set_xticks(ticks + [x_inf], [f"{t:g}" for t in ticks] + ["∞"])
        ax.set(
            xlabel=f"accountant's ε (δ = {delta:g}, {adjacency.replace('_', '-')})",
            title=f"{PRIOR_LABELS.get(name, name)} prior (blind {float(d['blind'].iloc[0]):.3f})",
        )
        if j == 0:
            ax.set_ylabel("ε")
        frames.append(
            pd.DataFrame(
                {
                    "series": f"{name} audited epsilon_hat",
                    "x": e,
                    "y": d["epsilon_hat"].to_numpy(),
                    "prior": name,
                    "hits": d["hits"].to_numpy(),
                    "n": d["n"].to_numpy(),
                    "verdict": d["verdict"].to_numpy(),
                    "p_value": d["p_value"].to_numpy(),
                }
            )
        )
        frames.append(
            pd.DataFrame({"series": f"{name} accountant epsilon", "x": e, "y": e, "prior": name})
        )
    highest = [
        summary["epsilon_hat"].max(),
        *([] if member is None else [member["epsilon_hat"].max()]),
    ]
    y_top = max(top, *map(float, highest)) * 1.1 + 0.1
    axes[0, 0].set_ylim(-0.03 * y_top, y_top)  # ε̂ = 0 markers stay visible
    h, lab = axes[0, 0].get_legend_handles_labels()
    fig.legend(h, lab, loc="outside upper center", ncol=2, fontsize=7.5)
    return FigureResult(
        data=pd.concat(frames, ignore_index=True),
        fig=fig,
        claims=claims(summary, data=sources, confidence=level)
        + (
            []
            if member is None
            else claims(member, data=sources, confidence=level, kind="membership")
        ),
        caption=(
            "Figure 3's DP-SGD n-gram models audited (the project's check, not a figure of the "
            "paper). Each marker: the reconstruction audit's lower bound ε̂ at "
            f"{level:.0%} confidence from the models of one (ε, prior) cell (hits of the attack's "
            "guess on the planted digit out of the models, in the CSV), tested by Swanberg et al.'s Theorem "
            f"3.5 with the prior's largest mass as the blind success; line: the accountant's ε "
            f"(δ = {delta:g}, {adjacency.replace('_', '-')} adjacency) that no ε̂ may exceed; ∞: "
            "the same models without noise, the attack's reach. "
            + (
                ""
                if member is None
                else "Open squares: the membership audit's ε̂ from as many models again trained "
                "with the canary as with a replacement digit (replace-one), scored by their "
                "log-probability of the canary's digit over the prior's. "
            )
            + "An audit is a lower bound: a "
            "stronger attack or more models could raise ε̂, never above a correct ε."
        ),
        data_sources=sources,
        seeds={},
        extra={
            "audits": summary.to_dict(orient="records"),
            "membership_audits": None if member is None else member.to_dict(orient="records"),
            "method": "privrisk.audit reconstruction kind: Theorem 3.5 tail at the observed hits, "
            "replace-one (ε, δ) of the accountant; ε̂ the largest ε whose tail is ≤ 1 − confidence",
        },
    )
