"""xu2022, the project's own check of the DP-cGANs: every model audited against its accountant.

Each DP-cGAN (one per ε, and the non-private control ε = ∞) is trained ``runs`` times on a
random member split of MNIST 0-vs-6; its step saves the conditional discriminator's logit D(x, y)
for every point in every run. Members' logits against the hold-out points' are a membership
experiment (higher = member): :func:`privrisk.audit` (membership kind) gives a lower bound ε̂ at
the accountant's δ and μ̂ (μ-GDP) valid at the figure's confidence, one canary set per run
(Bonferroni over the runs; the model's ε̂ is the largest), and a verdict on the accountant's
(ε, δ) under add/remove adjacency (a point in or out of the training data, DP-SGD's relation).

The canaries of one run share one trained model: they are not independent trials as in a
one-canary-per-model audit, so the two-sample bounds are not proven for them (the audit is run
with ``one_model=True`` and its report says so); the audit proven for that setting, the one-run
audit of Steinke, Nasr & Jagielski (2023), needs each point included independently with
probability ½, while these runs hold out a fixed-size random subset. The rows are a check of the
project, read with that caveat.

This reads the steps' query files (no retraining); the rows it adds to the ledger are
``derived``. Every ε̂ must be at most the accountant's ε — one above is a bug to find (the
DP-cGAN once clipped only half of its gradient), not a number to report — and the control must
come out with the largest ε̂ (the attack can see leakage at all).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ... import audit
from ...contract import plotting
from ...contract.figure import FigureResult
from . import claims as C

FIGURE = "audit_dpcgan"
QUERY = "d"


def eps_inputs(inputs: Mapping[str, str]) -> dict[float, str]:
    """{ε: queries path} from input names ``eps_2``, ``eps_0p5``, ``eps_inf`` (the control)."""
    out = {float(k[4:].replace("p", ".")): v for k, v in inputs.items() if k.startswith("eps_")}
    return dict(sorted(out.items()))


def scores(path) -> list[tuple[np.ndarray, np.ndarray]]:
    """(members' logits, hold-out logits) per run of one model's queries file.

    Accepts the one-run layout (``member`` (N,), ``q_d`` (N,) or (N, 1)) and the per-run layout
    (``member`` (runs, N), ``q_d`` (runs, N) or (runs, N, 1)); the logit is column 0."""
    with np.load(path) as z:
        if "member" not in z.files or f"q_{QUERY}" not in z.files:
            raise ValueError(f"{path}: needs arrays 'member' and 'q_{QUERY}', has {z.files}")
        member, q = z["member"].astype(bool), np.asarray(z[f"q_{QUERY}"], float)
    if member.ndim == 1:
        member, q = member[None], q[None]
    if q.ndim == 3:
        q = q[..., 0]
    if q.shape != member.shape:
        raise ValueError(f"{path}: q_{QUERY} {q.shape} does not match member {member.shape}")
    return [(q[r][member[r]], q[r][~member[r]]) for r in range(member.shape[0])]


def record(path) -> dict:
    """The record JSON beside a ``*_queries.npz`` ({} when absent)."""
    p = Path(path)
    rec = p.with_name(p.name.replace("_queries.npz", "_record.json"))
    return json.loads(rec.read_text()) if rec.is_file() else {}


def spent(rec: Mapping) -> float:
    """The largest ε the accountant reports as spent over the runs (nan when not recorded)."""
    vals = [
        float(r["accounting"]["epsilon_spent"])
        for r in rec.get("runs", [])
        if isinstance(r.get("accounting"), Mapping) and "epsilon_spent" in r["accounting"]
    ]
    return max(vals) if vals else math.nan


def audit_model(runs, *, epsilon: float, delta: float, confidence: float):
    """The membership audit of one model (one canary set per run) against (ε, δ), add/remove."""
    score = np.concatenate([np.r_[m, h] for m, h in runs])
    member = np.concatenate([np.r_[np.ones(m.size), np.zeros(h.size)] for m, h in runs])
    group = np.concatenate([np.full(m.size + h.size, r) for r, (m, h) in enumerate(runs)])
    return audit.audit(
        {"score": score, "member": member, "group": group},
        epsilon=epsilon,
        delta=delta,
        adjacency="add-remove",
        confidence=confidence,
        one_model=True,
    )


def summarise(paths: Mapping[float, str], *, delta: float, confidence: float) -> pd.DataFrame:
    rows = []
    for e, path in paths.items():
        rep = audit_model(scores(path), epsilon=e, delta=delta, confidence=confidence)
        rows.append(
            {
                "epsilon": e,
                "epsilon_spent": spent(record(path)),
                "runs": len(rep.groups),
                "n_members": rep.n_members,
                "n_nonmembers": rep.n_nonmembers,
                "epsilon_hat": rep.epsilon_lower,
                "mu_hat": rep.mu_lower,
                "auc": float(np.mean([g.auc for g in rep.groups])),
                "run_epsilon_hat": [g.epsilon_lower for g in rep.groups],
                "run_mu_hat": [g.mu_lower for g in rep.groups],
                "verdict": rep.verdict,
                "p_value": rep.p_value,
                "note": rep.verdict_note,
            }
        )
    return pd.DataFrame(rows)


def audit_dpcgan(params, inputs) -> FigureResult:
    """The DP-cGANs (every ε and the non-private control) audited: the membership audit's ε̂ and μ̂
    from the discriminator's logits on members vs hold-out, against the accountant's ε."""
    level, delta = float(params["confidence"]), float(params["delta"])
    paths = eps_inputs(inputs)
    summary = summarise(paths, delta=delta, confidence=level)
    rec = record(next(iter(paths.values()))) if paths else {}
    src = str(rec.get("data_source", "bundled-real"))
    fin = np.isfinite(summary["epsilon"].to_numpy())
    top = float(summary["epsilon"][fin].max()) if fin.any() else 1.0
    x_ctl = top * 1.25 + 0.5
    x = np.where(fin, summary["epsilon"], x_ctl)
    fig, axes = plotting.subplots(1, 2, width=3.4, height=3.1, squeeze=False)
    frames = []
    for ax, (col, runs_col, label) in zip(
        axes[0],
        (("epsilon_hat", "run_epsilon_hat", "ε̂"), ("mu_hat", "run_mu_hat", "μ̂")),
        strict=True,
    ):
        if col == "epsilon_hat":
            grid = np.linspace(0, top, 50)
            ax.plot(grid, grid, color=plotting.color(1), label="accountant's ε (claimed)")
        per_x = np.repeat(x, summary["runs"].to_numpy())
        per_y = np.concatenate(summary[runs_col].to_list()) if len(summary) else []
        ax.plot(per_x, per_y, ".", color=plotting.color(0), alpha=0.5, ms=4, label="one run")
        ax.plot(
            x,
            summary[col],
            "o",
            color=plotting.color(0),
            label=f"model ({level:.0%} lower bound, largest run)",
        )
        eps_fin = summary["epsilon"][fin].tolist()
        ax.set_xticks([*eps_fin, x_ctl], [f"{t:g}" for t in eps_fin] + ["∞\n(control)"])
        ax.set_xlim(-0.05 * x_ctl, x_ctl * 1.08)
        y_top = max(float(np.max(per_y, initial=0.0)), top if col == "epsilon_hat" else 0.0)
        ax.set_ylim(-0.03 * (y_top * 1.1 + 0.1), y_top * 1.1 + 0.1)
        ax.set(xlabel="accountant's ε", ylabel=f"audited {label}")
        e = summary["epsilon"].to_numpy()
        frames.append(
            pd.DataFrame(
                {
                    "series": f"audited {col}",
                    "x": e,
                    "y": summary[col].to_numpy(),
                    "run": "model",
                    "verdict": summary["verdict"].to_numpy(),
                    "p_value": summary["p_value"].to_numpy(),
                }
            )
        )
        frames.append(
            pd.DataFrame(
                {
                    "series": f"audited {col}",
                    "x": np.repeat(e, summary["runs"].to_numpy()),
                    "y": per_y,
                    "run": np.concatenate([np.arange(k) for k in summary["runs"]]).astype(str),
                }
            )
        )
    frames.append(
        pd.DataFrame(
            {"series": "accountant epsilon", "x": summary["epsilon"], "y": summary["epsilon"]}
        )
    )
    axes[0, 0].set_title(f"ε lower bound at δ = {delta:g} (add/remove)", fontsize=8.5)
    axes[0, 1].set_title("μ-GDP lower bound", fontsize=8.5)
    h, lab = axes[0, 0].get_legend_handles_labels()
    fig.legend(h, lab, loc="outside upper center", ncol=3, fontsize=7)
    summary_rec = summary.drop(columns=["note"]).to_dict(orient="records")
    return FigureResult(
        data=pd.concat(frames, ignore_index=True),
        fig=fig,
        claims=C.audit_claims(summary, figure=FIGURE, data=src, confidence=level),
        caption=(
            "The DP-cGANs of Figures 5-6 audited (the project's check, not a figure of the paper). "
            "The conditional discriminator's logit D(x, y) on each run's members against its "
            "hold-out points is a membership attack; the audit turns it into lower bounds valid at "
            f"{level:.0%} confidence: ε̂ at the accountant's δ = {delta:g} (left; line: the "
            "accountant's ε, which no ε̂ may exceed) and μ̂ (right), per run (dots) and per model "
            "(the largest run's, Bonferroni over runs). ∞: the same networks and clipped training "
            "without noise (the control: the attack's reach). An audit is a lower bound: a "
            "stronger attack (e.g. LiRA with shadow models) could raise it, never above a correct ε. "
            "The canaries of one run share one model: the two-sample bounds are not proven for "
            "them (the audit's report says so)."
        ),
        data_sources={"MNIST 0-vs-6": src},
        seeds={},
        extra={
            "audits": summary_rec,
            "method": "privrisk.audit membership kind, one canary set per run (score: logit, "
            "member: the run's split), claim (ε, δ) under add/remove; ε̂ and μ̂ at thresholds fixed "
            "in advance with exact bounds, Bonferroni over thresholds and runs",
        },
    )
