"""Using the MACE estimators honestly at small sample sizes (spec xu2022 §6).

* :func:`bins_for` — bins per query dimension chosen from the sample size, so that a
  histogram cell holds about ``points_per_bin`` members (the paper's fixed 100^d bins on a few
  hundred points make W_N mostly plug-in bias).
* :func:`membership_auc` — the member-vs-non-member AUC of a 1-d query: the signal a model
  must show before any estimator can say something about it.
* :func:`heldout_comparison` — the plug-in optimal adversary and the threshold heuristic
  *fitted on one half* of an Experiment-2 sample (the heuristic's direction too) and both
  *scored on the other half*, so "optimal > heuristic" is not true by construction.
* :func:`metric_interval` — an exact interval for ACC/AM of a fixed classifier on a stratified
  sample (Clopper–Pearson for TPR and TNR, union bound), much tighter than McDiarmid's.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .intervals import clopper_pearson
from .mace import _as2d, bin_edges, bin_ids, metric_coefficients, scott_bandwidth, stratified_split


def bins_for(
    n_min: int,
    dim: int = 1,
    *,
    max_bins: int = 100,
    points_per_bin: float | None = None,
    min_bins: int = 5,
) -> int:
    """Bins per dimension for a ``dim``-d query whose smaller class has ``n_min`` points.

    ``points_per_bin=None`` keeps the paper's fixed ``max_bins`` (100^d). Otherwise the grid has
    about n_min / points_per_bin cells in all, i.e. (n_min / points_per_bin)^(1/d) per
    dimension, clipped to [min_bins, max_bins].
    """
    if points_per_bin is None:
        return int(max_bins)
    if points_per_bin <= 0 or n_min < 1 or dim < 1:
        raise ValueError("need points_per_bin > 0, n_min >= 1 and dim >= 1")
    per_dim = int(np.floor((n_min / points_per_bin) ** (1.0 / dim) + 1e-9))
    return int(np.clip(per_dim, min(min_bins, max_bins), max_bins))


def membership_auc(q_in, q_out) -> float:
    """P(member score > non-member score) + ½ P(tie) (Mann–Whitney), for a 1-d query.

    0.5 is no signal; below 0.5 members score *lower* (a heuristic must then flip its direction).
    """
    a, b = np.asarray(q_in, float).ravel(), np.asarray(q_out, float).ravel()
    if len(a) == 0 or len(b) == 0:
        raise ValueError("membership_auc needs members and non-members")
    ranks = stats.rankdata(np.r_[a, b])  # average ranks handle ties as ½
    return float((ranks[: len(a)].sum() - len(a) * (len(a) + 1) / 2) / (len(a) * len(b)))


def query_aucs(scores, member) -> dict[str, float]:
    """AUC of each query dimension (``d0``, ``d1``, …) and, for d > 1, of their maximum."""
    s, m = _as2d(scores), np.asarray(member, bool)
    out = {f"d{j}": membership_auc(s[m, j], s[~m, j]) for j in range(s.shape[1])}
    if s.shape[1] > 1:
        out["max"] = membership_auc(s[m].max(1), s[~m].max(1))
    return out


def _plugin_predict(fit_in, fit_out, test, p, t, *, method: str, bins: int):
    """sgn(η̂ − t) on ``test`` with η̂ fitted on (fit_in, fit_out): histogram or Gaussian KDE."""
    if method == "hist":
        edges = bin_edges(np.vstack([fit_in, fit_out]), bins)
        n_cells = bins ** fit_in.shape[1]
        r = np.bincount(bin_ids(fit_in, edges), minlength=n_cells) / len(fit_in)
        q = np.bincount(bin_ids(fit_out, edges), minlength=n_cells) / len(fit_out)
        j = bin_ids(test, edges)
        r, q = r[j], q[j]
    elif method == "kde":
        h = scott_bandwidth(np.vstack([fit_in, fit_out]))

        def dens(pts):
            z = (test[:, None, :] - pts[None, :, :]) / h
            return np.exp(-0.5 * (z**2).sum(-1)).mean(1)

        r, q = dens(fit_in), dens(fit_out)
    else:
        raise ValueError(f"method must be hist or kde, got {method!r}")
    # η̂ > t  ⟺  (1 − t) p r̂ > t (1 − p) q̂ (no division; an empty cell predicts non-member)
    return np.where((1 - t) * p * r > t * (1 - p) * q, 1, -1)


def _threshold_predict(fit_s, fit_m, test, p, rng):
    """Top-p-fraction rule; its direction (high or low scores are members) chosen on the fit half."""
    from ..attacks.membership import top_fraction_predict

    up = np.mean(top_fraction_predict(fit_s, p, rng) == fit_m)
    down = np.mean(top_fraction_predict(-fit_s, p, rng) == fit_m)
    sign = 1.0 if up >= down else -1.0
    return top_fraction_predict(sign * test, p, rng), sign


def heldout_comparison(
    q_in,
    q_out,
    p: float,
    rng: np.random.Generator,
    *,
    metric: str = "acc",
    method: str = "hist",
    bins: int = 10,
    fraction: float = 0.5,
) -> dict:
    """Optimal (plug-in η̂ thresholded at t_ℓ) vs heuristic threshold, both fitted on S1 and scored on S2.

    The heuristic thresholds the first query dimension (or the maximum over dimensions). Values
    are the Eq. 20 metric on S2; for ``metric="acc"`` also ``adv_*`` = 2·ACC − 1 (Definition 1).

    Returns a dict with ``optimal``, ``heuristic``, their intervals ``*_lo``/``*_hi`` at
    confidence 0.95 (:func:`metric_interval`), ``direction`` of the heuristic and ``n_eval``.
    """
    from .mace import empirical_metric

    q_in, q_out = _as2d(q_in), _as2d(q_out)
    (a_in, a_out), (b_in, b_out) = stratified_split(len(q_in), len(q_out), rng, fraction)
    t = metric_coefficients(metric, p)["t"]
    test = np.vstack([q_in[b_in], q_out[b_out]])
    m = np.r_[np.ones(len(b_in)), -np.ones(len(b_out))]
    opt = _plugin_predict(q_in[a_in], q_out[a_out], test, p, t, method=method, bins=bins)
    one = (lambda x: x[:, 0]) if q_in.shape[1] == 1 else (lambda x: x.max(1))
    fit_s = np.r_[one(q_in[a_in]), one(q_out[a_out])]
    fit_m = np.r_[np.ones(len(a_in)), -np.ones(len(a_out))]
    heur, sign = _threshold_predict(fit_s, fit_m, one(test), p, rng)
    out = {"direction": "higher is member" if sign > 0 else "lower is member", "n_eval": len(m)}
    for name, pred in (("optimal", opt), ("heuristic", heur)):
        out[name] = empirical_metric(pred, m, p, metric)
        out[f"{name}_lo"], out[f"{name}_hi"] = metric_interval(pred, m, p, metric)
        if metric == "acc":
            out[f"adv_{name}"] = 2 * out[name] - 1
    return out


def metric_interval(
    pred, m, p: float, metric: str, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Interval for ACC or AM of a fixed classifier from a stratified sample (members and
    non-members drawn separately, as in Experiment 2).

    ACC = p·TPR + (1 − p)·TNR and AM = (TPR + TNR)/2 are increasing in TPR and TNR, two
    independent binomial proportions; each gets a Clopper–Pearson interval of level
    1 − δ/2 (union bound), δ = 1 − confidence.
    """
    pred, m = np.asarray(pred), np.asarray(m)
    each = 1 - (1 - confidence) / 2
    n1, n2 = int((m == 1).sum()), int((m == -1).sum())
    tpr = clopper_pearson(int(((pred == 1) & (m == 1)).sum()), n1, confidence=each)
    tnr = clopper_pearson(int(((pred == -1) & (m == -1)).sum()), n2, confidence=each)
    w1, w2 = {"acc": (p, 1 - p), "am": (0.5, 0.5)}[metric]
    return float(w1 * tpr[0] + w2 * tnr[0]), float(w1 * tpr[1] + w2 * tnr[1])
