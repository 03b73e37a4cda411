"""How the skin-lesion figures use the MACE estimators honestly.

* Bins come from the sample size (:func:`bins_for`), not a fixed 100 per dimension.
* Every W_N is reported with its null baseline (the same estimator on two halves of the hold-out
  set) and their difference, the excess (:func:`estimate`).
* Optimal vs heuristic is compared on held-out data (:func:`heldout`): η̂ and the heuristic's
  direction are fitted on one stratified half and both adversaries are scored on the other.
* A claim's status follows one rule (:func:`verdict`): no membership signal in the model (AUC
  below the configured minimum) or no estimate beyond its null by more than the half-width
  → ``uninformative``; otherwise the comparison decides ok / fails.
"""

from __future__ import annotations

import numpy as np

from ...attacks import membership as mia
from ...estimators import mace
from ...estimators.intervals import mcdiarmid_halfwidth
from . import checks


def bins_for(n: int, dim: int, points_per_bin: float, max_bins: int) -> int:
    """Bins per dimension so that the n points fill about ``points_per_bin`` cells each on
    average: floor((n / points_per_bin)^(1/dim)), clipped to [2, max_bins]."""
    if n < 1 or dim < 1 or points_per_bin <= 0:
        raise ValueError("need n >= 1, dim >= 1 and points_per_bin > 0")
    return int(np.clip(np.floor((n / points_per_bin) ** (1 / dim) + 1e-9), 2, max_bins))


def draws(n_in: int, n_out: int, p: float, rng: np.random.Generator, trials: int):
    """Experiment 2 index draws that leave enough hold-out points for the null baseline."""
    # the null baseline needs N1 + N2 hold-out points besides nothing else, so cap N at n_out
    for _ in range(trials):
        yield mace.experiment2(n_in, n_out, p, rng, n_max=n_out)


def estimate(q_in, q_out, est: dict, rng: np.random.Generator) -> dict:
    """Mean W_N, mean null baseline, excess = W_N − null, the McDiarmid half-width, bins and N
    over ``est['trials']`` Experiment-2 draws (``est``: p, points_per_bin, max_bins, confidence)."""
    q_in, q_out = mace._as2d(q_in), mace._as2d(q_out)
    p, dim = est["p"], q_in.shape[1]
    vals, nulls = [], []
    for i, o in draws(len(q_in), len(q_out), p, rng, est["trials"]):
        n = len(i) + len(o)
        bins = bins_for(n, dim, est["points_per_bin"], est["max_bins"])
        vals.append(mace.discrete_advantage(q_in[i], q_out[o], p, bins))
        nulls.append(
            mace.null_baseline(q_out, len(i), len(o), mace.discrete_advantage, rng, p=p, bins=bins)
        )
    w, null = float(np.mean(vals)), float(np.mean(nulls))
    return {
        "estimate": w,
        "null": null,
        "excess": w - null,
        "sd_over_draws": float(np.std(vals)),
        "halfwidth": mcdiarmid_halfwidth(n, confidence=est["confidence"]),
        "bins": bins,
        "N": n,
    }


def heldout(q_in, q_out, est: dict, rng: np.random.Generator, *, heuristic: str) -> dict:
    """Optimal (Algorithm 2, ACC, t = 1/2) vs a threshold heuristic, both scored on the same held-out
    half S2 as Adv = 2·ACC − 1 (p = 0.5); the heuristic's direction (``higher`` scores are members for
    ``hayes``, ``lower`` for ``hilprecht``, or ``fitted``: whichever separates S1 better) is fixed first.
    Returns the means over draws, the half-width on S2 and the directions used."""
    q_in, q_out = np.asarray(q_in, float), np.asarray(q_out, float)
    p = est["p"]
    opt, heur, signs = [], [], []
    for i, o in draws(len(q_in), len(q_out), p, rng, est["trials"]):
        a, b = q_in[i], q_out[o]
        n_fit = (len(a) + len(b)) // 2
        bins = bins_for(n_fit, 1, est["points_per_bin"], est["max_bins"])
        r = mace.algorithm2(a, b, p, "acc", rng, bins=bins, fraction=0.5)
        opt.append(2 * r["value"] - 1)
        fit_in = np.setdiff1d(np.arange(len(a)), r["eval_index_in"])
        fit_out = np.setdiff1d(np.arange(len(b)), r["eval_index_out"])
        sign = {"hayes": 1, "hilprecht": -1}.get(heuristic)
        if sign is None:  # fitted on S1: the direction in which members score higher there
            sign = 1 if np.median(a[fit_in]) >= np.median(b[fit_out]) else -1
        ev = np.r_[a[r["eval_index_in"]], b[r["eval_index_out"]]]
        m = np.r_[np.ones(len(r["eval_index_in"])), -np.ones(len(r["eval_index_out"]))]
        pred = mia.top_fraction_predict(sign * ev, p, rng)
        heur.append(float(2 * np.mean(pred == m) - 1))
        signs.append(sign)
        n_eval = r["n_eval"]
    # 2·ACC − 1 moves by <= 4/n when one point changes: c = 4 in McDiarmid
    return {
        "optimal": float(np.mean(opt)),
        "heuristic": float(np.mean(heur)),
        "N_eval": n_eval,
        "bins": bins,
        "halfwidth": mcdiarmid_halfwidth(n_eval, confidence=est["confidence"], c=4.0),
        "directions": signs,
    }


def clip01(y: float, half: float, lower: float = 0.0) -> tuple[float, float]:
    """Error-bar ends y ± half clipped to [lower, 1] (Adv_p cannot leave [0, 1]; a held-out
    2·ACC − 1 can be negative, down to −1, so it passes ``lower`` = −1)."""
    return max(lower, y - half), min(1.0, y + half)


def gate(record: dict, min_auc: float) -> tuple[bool, float]:
    """(the model shows membership signal, its best member-vs-non-member AUC from the step record)."""
    aucs = [v for v in (record.get("auc") or {}).values() if v is not None]
    best = max((max(a, 1 - a) for a in aucs), default=0.5)
    return best >= min_auc, float(best)


def verdict(
    larger: float, smaller: float, half: float, *, signal: bool, margin: float = 0.0
) -> bool | None:
    """Status of "``larger`` exceeds ``smaller`` by more than ``margin``" for two excesses over
    their null baselines (``margin`` 0: "larger than"; the half-width: "a lot larger").

    None (uninformative) when the model has no membership signal or neither excess exceeds the
    half-width (both estimates are within their interval of the null); else :func:`.checks.order`
    of the gap: True above ``margin`` + half, False below ``margin`` − half, None in between.
    """
    if not signal or max(larger, smaller) <= half:
        return None
    return checks.order(larger - smaller, half, margin)
