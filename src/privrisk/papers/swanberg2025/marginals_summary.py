"""swanberg2025 Figures 4–7: per-point summaries of the attack draws and the judgements the claims
use ("attack ≥ prior", "greater", "close"), decided on means with their standard errors and
`None` (uninformative) where the spread cannot decide. No plotting here."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .marginals_steps import bound_quantiles


def _attack_name(lam: float) -> str:
    return (
        "M-AI attack (RAP, prior as start)"
        if lam == 0
        else f"M-AI attack + prior term (λ = {lam:g})"
    )


def summarise(rows: pd.DataFrame, delta: float, lambdas) -> pd.DataFrame:
    """Per condition x, over the draws: mean, spread (sd) and standard error of the attack and
    prior counts, the paired attack − prior difference, Σ p* and the Theorem 3.5 bound quantiles
    (computed per draw, averaged)."""
    out = []
    for x, g in rows.groupby("x", sort=False):
        eps = float(g["epsilon"].iloc[0])
        per = []
        for _, gd in g.groupby("draw", sort=True):
            q = bound_quantiles(eps, delta, gd["p_star"].to_numpy())
            d = {
                "prior": int(gd["prior_ok"].sum()),
                "prior_expected": float(gd["p_star"].sum()),
                "ambiguous": int(gd["ambiguous"].sum()),
                "bound_5": q[0],
                "bound_50": q[1],
                "bound_95": q[2],
            }
            for lam in lambdas:
                d[f"attack_l{lam:g}"] = int(gd[f"attack_l{lam:g}_ok"].sum())
            per.append(d)
        per = pd.DataFrame(per)
        r = len(per)
        rec = {
            "x": x,
            "epsilon": eps,
            "draws": r,
            "m": int(g["m"].iloc[0]),
            "sigma_count": float(g["sigma_count"].iloc[0]),
        }
        for c in ("prior", "prior_expected", "ambiguous", "bound_5", "bound_50", "bound_95"):
            rec[c] = float(per[c].mean())
        rec["prior_sd"] = float(per["prior"].std(ddof=1)) if r > 1 else 0.0
        for lam in lambdas:
            a = per[f"attack_l{lam:g}"]
            diff = a - per["prior"]
            rec[f"attack_l{lam:g}"] = float(a.mean())
            rec[f"attack_l{lam:g}_sd"] = float(a.std(ddof=1)) if r > 1 else 0.0
            rec[f"attack_l{lam:g}_se"] = rec[f"attack_l{lam:g}_sd"] / np.sqrt(r)
            rec[f"gap_l{lam:g}"] = float(diff.mean())
            rec[f"gap_l{lam:g}_se"] = float(diff.std(ddof=1) / np.sqrt(r)) if r > 1 else 0.0
            if f"setting_l{lam:g}" in g:
                rec[f"setting_l{lam:g}"] = str(g[f"setting_l{lam:g}"].iloc[0])
        out.append(rec)
    return pd.DataFrame(out)


# ------------------------------------------------------------------ judging means with their spread

Z = 2.0  # half-width of the judgement in standard errors


def judge_at_least(est, se, *, z: float = Z) -> bool | None:
    """'A ≥ B' from estimates of A − B with standard errors, one per condition: fails when some
    estimate is below 0 by more than z s.e.; holds when every estimate is ≥ 0; else undecided."""
    est, se = np.atleast_1d(np.asarray(est, float)), np.atleast_1d(np.asarray(se, float))
    if (est + z * se < 0).any():
        return False
    if (est >= 0).all():
        return True
    return None


def judge_greater(est, se, *, z: float = Z) -> bool | None:
    """'A > B' (e.g. a gap grows): holds when est − z·se > 0, fails when est + z·se <= 0, else undecided."""
    est, se = float(est), float(se)
    if est - z * se > 0:
        return True
    if est + z * se <= 0:
        return False
    return None


def judge_close(est, se, tol: float, *, z: float = Z) -> bool | None:
    """'|A − B| <= tol' for every condition: holds when |est| + z·se <= tol for all, fails when
    |est| − z·se > tol for some, else undecided."""
    est, se = np.abs(np.atleast_1d(np.asarray(est, float))), np.atleast_1d(np.asarray(se, float))
    if (est - z * se > tol).any():
        return False
    if (est + z * se <= tol).all():
        return True
    return None
