"""MACE estimators of membership privacy (Xu et al., TMLR 2022; spec xu2022 §3–§6).

Queries are arrays of shape (N,) or (N, d): Q_S(z) for sampled members (``q_in``, m = 1) and
hold-out points (``q_out``, m = −1). The prior p is the fraction of members in Experiment 2.

* :func:`discrete_advantage` — W_N of Theorem 5 on 100^d histogram bins.
* :func:`kde_advantage` — U_N of Theorem 6 (Gaussian product KDE, grid quadrature).
* :func:`individual_risk` — AdvI of Theorem 2 with the Clopper–Pearson union-bound interval.
* :func:`algorithm2` — split-sample plug-in adversary scored by the Eq. 20 empirical metric.
* :func:`dp_bound` — Theorem 1(4), max |tanh((±ε + λ)/2)|.
* :func:`null_baseline` — the same estimator on two halves of the hold-out set (true Adv = 0),
  which measures the estimator's upward plug-in bias.
* :func:`bins_for` — bins per dimension from the sample size (the paper's fixed 100^d bins on a
  few hundred points make W_N mostly plug-in bias).
* :func:`paper_estimate` — Algorithm 1 as the paper runs it (W_N or U_N on Experiment-2 draws),
  with its null baseline and McDiarmid half-width: the paper's number for every query.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .intervals import clopper_pearson, kde_interval, mcdiarmid_halfwidth

# --------------------------------------------------------------------------------- sampling


def experiment2(
    n_members: int, n_holdout: int, p: float, rng: np.random.Generator, n_max: int | None = None
):
    """Indices of one Experiment 2 draw (without replacement): N1 = pN members, N2 = (1−p)N.

    Uses as many members as possible (all of them unless the hold-out set is too small to keep
    the ratio p : 1−p, or ``n_max`` caps N). Returns (idx_in, idx_out).
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    n1 = min(n_members, int(np.floor(n_holdout * p / (1 - p) + 1e-9)))
    if n_max is not None:
        n1 = min(n1, int(np.floor(n_max * p + 1e-9)))
    n2 = int(round(n1 * (1 - p) / p))
    if n1 < 1 or n2 < 1 or n2 > n_holdout:
        raise ValueError(
            f"cannot draw Experiment 2 with p = {p} from {n_members} members and "
            f"{n_holdout} hold-out points"
        )
    return rng.choice(n_members, n1, replace=False), rng.choice(n_holdout, n2, replace=False)


# --------------------------------------------------------------------------------- binning


def _as2d(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x[:, None] if x.ndim == 1 else x


def bin_edges(
    pooled, bins: int, value_range: Sequence[Sequence[float]] | None = None
) -> list[np.ndarray]:
    """Per-dimension equal-width edges over ``value_range`` (else the pooled min–max, spec §5.5)."""
    pooled = _as2d(pooled)
    edges = []
    for j in range(pooled.shape[1]):
        lo, hi = (
            value_range[j] if value_range is not None else (pooled[:, j].min(), pooled[:, j].max())
        )
        if hi <= lo:
            hi = lo + 1.0
        edges.append(np.linspace(lo, hi, bins + 1))
    return edges


def equal_frequency_edges(pooled, bins: int) -> list[np.ndarray]:
    """Edges of ``bins`` equal-frequency bins of a 1-d pooled sample (its quantiles k / bins): each
    bin holds about len(pooled) / bins points whatever the query's scale, so no bin is too small
    to bound (equal-width bins over the range put a handful of points in the tails). Ties can
    merge bins; the edges then hold fewer than ``bins`` + 1 distinct values."""
    pooled = _as2d(pooled)
    if pooled.shape[1] != 1:
        raise ValueError("equal-frequency bins are for a 1-d query")
    if not 1 <= bins <= len(pooled):
        raise ValueError(f"need 1 <= bins <= {len(pooled)} points, got {bins}")
    edges = np.unique(np.quantile(pooled[:, 0], np.linspace(0.0, 1.0, bins + 1)))
    if edges.size < 2:
        edges = np.array([edges[0], edges[0] + 1.0])
    return [edges]


def bin_ids(x, edges: list[np.ndarray]) -> np.ndarray:
    """Flat index of each row's cell in the product grid (values outside are clipped in)."""
    x = _as2d(x)
    flat = np.zeros(len(x), dtype=np.int64)
    for j, e in enumerate(edges):
        k = np.clip(np.searchsorted(e, x[:, j], side="right") - 1, 0, len(e) - 2)
        flat = flat * (len(e) - 1) + k
    return flat


def _counts(q_in, q_out, bins, value_range, edges=None):
    q_in, q_out = _as2d(q_in), _as2d(q_out)
    if q_in.shape[1] != q_out.shape[1]:
        raise ValueError("member and hold-out queries differ in dimension")
    if edges is None:
        edges = bin_edges(np.vstack([q_in, q_out]), bins, value_range)
    n_cells = int(np.prod([len(e) - 1 for e in edges]))
    c_in = np.bincount(bin_ids(q_in, edges), minlength=n_cells)
    c_out = np.bincount(bin_ids(q_out, edges), minlength=n_cells)
    return c_in, c_out, edges


# --------------------------------------------------------------------------------- Adv_p


def discrete_advantage(q_in, q_out, p: float, bins: int = 100, value_range=None) -> float:
    """W_N = Σ_j |p r̂_j − (1−p) q̂_j| (Theorem 5); its limit is Adv_p(Q_S) = ∫|p r − (1−p) q|."""
    c_in, c_out, _ = _counts(q_in, q_out, bins, value_range)
    return float(np.abs(p * c_in / c_in.sum() - (1 - p) * c_out / c_out.sum()).sum())


def scott_bandwidth(x) -> np.ndarray:
    """Scott's rule per dimension, h_j = σ_j N^(−1/(d+4)) (the paper leaves h open, spec §11.5)."""
    x = _as2d(x)
    n, d = x.shape
    sd = x.std(axis=0, ddof=1)
    return np.where(sd > 0, sd, 1.0) * n ** (-1.0 / (d + 4))


def _kde_on_grid(
    points: np.ndarray, axes: list[np.ndarray], h: np.ndarray, chunk: int = 512
) -> np.ndarray:
    """Gaussian product-kernel density of ``points`` on the product grid of ``axes``."""
    # The product kernel factorises, so the grid density is a sum over points of outer products
    # of 1-d kernels: an einsum per chunk instead of an (n_grid × n_points) distance matrix.
    d = points.shape[1]
    out = np.zeros([len(a) for a in axes])
    for s in range(0, len(points), chunk):
        pts = points[s : s + chunk]
        ks = [
            np.exp(-0.5 * ((a[None, :] - pts[:, j, None]) / h[j]) ** 2)
            / (np.sqrt(2 * np.pi) * h[j])
            for j, a in enumerate(axes)
        ]
        if d == 1:
            out += ks[0].sum(axis=0)
        elif d == 2:
            out += np.einsum("na,nb->ab", ks[0], ks[1])
        else:
            raise ValueError("kde_advantage supports 1-d and 2-d queries")
    return out / len(points)


def kde_advantage(
    q_in,
    q_out,
    p: float,
    bandwidth=None,
    grid_points: int | None = None,
    return_details: bool = False,
):
    """U_N = ∫ |p r̂_h − (1−p) q̂_h| dx (Theorem 6), Gaussian kernel, grid quadrature.

    Args:
        bandwidth: per-dimension h (scalar or array); default Scott's rule on the pooled sample.
        grid_points: grid size per dimension over the pooled range ± 5h (default 4096 in 1-d,
            256 in 2-d) — the mass outside is < 1e-6.
    """
    q_in, q_out = _as2d(q_in), _as2d(q_out)
    d = q_in.shape[1]
    pooled = np.vstack([q_in, q_out])
    h = (
        scott_bandwidth(pooled)
        if bandwidth is None
        else np.broadcast_to(np.asarray(bandwidth, float), (d,))
    )
    g = grid_points or (4096 if d == 1 else 256)
    axes = [
        np.linspace(pooled[:, j].min() - 5 * h[j], pooled[:, j].max() + 5 * h[j], g)
        for j in range(d)
    ]
    r = _kde_on_grid(q_in, axes, h)
    q = _kde_on_grid(q_out, axes, h)
    cell = np.prod([a[1] - a[0] for a in axes])
    u = float(np.abs(p * r - (1 - p) * q).sum() * cell)
    if return_details:
        return u, {"bandwidth": h.tolist(), "grid_points": g}
    return u


# --------------------------------------------------------------------------------- AdvI


def _f(r, q, p):
    num = r * p - q * (1 - p)
    den = r * p + q * (1 - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def risk_from_counts(
    k1, n1, k2, n2, p: float, *, confidence: float = 0.95
) -> dict[str, np.ndarray]:
    """Theorem 2's AdvI_p of a bin holding ``k1`` of ``n1`` members and ``k2`` of ``n2`` hold-out
    points (arrays broadcast), with its ``confidence`` interval: with δ = 1 − confidence, r and q
    each get a two-sided Clopper–Pearson interval of level 1 − δ/2 (union bound), and f's interval
    follows from f increasing in r and decreasing in q.

    Returns a dict of arrays: ``f``, ``advi`` (= |f|), ``f_lo``, ``f_hi``, ``lo``, ``hi`` (the
    interval of AdvI, :func:`abs_interval`)."""
    each = 1 - (1 - confidence) / 2
    r_lo, r_hi = clopper_pearson(k1, n1, confidence=each)
    q_lo, q_hi = clopper_pearson(k2, n2, confidence=each)
    f = _f(np.divide(k1, n1), np.divide(k2, n2), p)
    f_lo, f_hi = _f(r_lo, q_hi, p), _f(r_hi, q_lo, p)
    lo, hi = abs_interval(f_lo, f_hi)
    return {"f": f, "advi": np.abs(f), "f_lo": f_lo, "f_hi": f_hi, "lo": lo, "hi": hi}


def abs_interval(lo, hi):
    """Interval for |f| from one for f: 0 if it straddles 0, else between the two |ends|."""
    lo, hi = np.asarray(lo), np.asarray(hi)
    a, b = np.abs(lo), np.abs(hi)
    return np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(a, b)), np.maximum(a, b)


def individual_risk(
    q_in,
    q_out,
    q_query,
    p: float,
    *,
    confidence: float = 0.95,
    bins: int = 100,
    value_range=None,
    edges: list[np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """AdvI_p(Q_S, z) = |f_p(z)| for each query point (Theorem 2) with its ``confidence`` interval.

    Each point's bin counts give its risk and interval (:func:`risk_from_counts`).
    ``edges``: the bins' edges per dimension (:func:`equal_frequency_edges`); default ``bins``
    equal-width bins over ``value_range`` or the pooled range.

    Returns a dict of arrays: ``f``, ``advi``, ``f_lo``, ``f_hi``, ``lo``, ``hi``, ``bin``, and
    per bin ``members`` and ``holdout`` (the counts).
    """
    c_in, c_out, edges = _counts(q_in, q_out, bins, value_range, edges)
    n1, n2 = c_in.sum(), c_out.sum()
    j = bin_ids(q_query, edges)
    risk = risk_from_counts(c_in[j], n1, c_out[j], n2, p, confidence=confidence)
    return {**risk, "bin": j, "members": c_in, "holdout": c_out}


def individual_risk_kde(
    q_in, q_out, q_query, p: float, *, confidence: float = 0.95, bandwidth=None
):
    """Continuous-query AdvI (Theorem 3) with Lemma 4's KDE intervals (N1, N2 per class, E6)."""
    q_in, q_out, q_query = _as2d(q_in), _as2d(q_out), _as2d(q_query)
    d = q_in.shape[1]
    h = (
        scott_bandwidth(np.vstack([q_in, q_out]))
        if bandwidth is None
        else np.broadcast_to(bandwidth, (d,))
    )

    def dens(pts):
        z = (q_query[:, None, :] - pts[None, :, :]) / h
        return np.exp(-0.5 * (z**2).sum(-1)).sum(1) / (
            len(pts) * np.prod(h) * (2 * np.pi) ** (d / 2)
        )

    r, q = dens(q_in), dens(q_out)
    r_lo, r_hi = kde_interval(r, len(q_in), h, confidence=confidence, dim=d)
    q_lo, q_hi = kde_interval(q, len(q_out), h, confidence=confidence, dim=d)
    f = _f(r, q, p)
    f_lo, f_hi = _f(r_lo, q_hi, p), _f(r_hi, q_lo, p)
    lo, hi = abs_interval(f_lo, f_hi)
    return {"f": f, "advi": np.abs(f), "lo": lo, "hi": hi}


# --------------------------------------------------------------------------------- metrics

METRICS = ("acc", "am")


def metric_coefficients(metric: str, p: float) -> dict[str, float]:
    """e0, e1, e2, h0, h1, h2 of Eq. 20 and the Bayes threshold t_ℓ (spec §4 table)."""
    if metric == "acc":
        return {"e0": 1 - p, "e1": 2.0, "e2": -1.0, "h0": 1.0, "h1": 0.0, "h2": 0.0, "t": 0.5}
    if metric == "am":
        return {
            "e0": 0.5,
            "e1": 1 / (2 * p * (1 - p)),
            "e2": -1 / (2 * (1 - p)),
            "h0": 1.0,
            "h1": 0.0,
            "h2": 0.0,
            "t": p,
        }
    raise ValueError(f"unknown metric {metric!r}; expected one of {METRICS}")


def empirical_metric(pred, m, p: float, metric: str) -> float:
    """Eq. 20: (e0 + e1 TP_n + e2 γ_n) / (h0 + h1 TP_n + h2 γ_n) for predictions/labels in {−1, 1}."""
    a = (np.asarray(pred) + 1) / 2
    y = (np.asarray(m) + 1) / 2
    c = metric_coefficients(metric, p)
    tp, gamma = float(np.mean(a * y)), float(np.mean(a))
    return (c["e0"] + c["e1"] * tp + c["e2"] * gamma) / (c["h0"] + c["h1"] * tp + c["h2"] * gamma)


def metric_halfwidth(n: int, p: float, metric: str, *, confidence: float = 0.95) -> float:
    """McDiarmid half-width of Eq. 20 for a fixed classifier on n points (h1 = h2 = 0 metrics),
    exceeded with probability <= 1 − confidence."""
    c = metric_coefficients(metric, p)
    ci = (abs(c["e1"]) + abs(c["e2"])) / n
    return float(np.sqrt(n * ci**2 / 2 * np.log(2 / (1 - confidence))))


def stratified_split(n_in: int, n_out: int, rng: np.random.Generator, fraction: float = 0.5):
    """Random halves (S1, S2) of members and of non-members separately, so both keep ratio p."""
    pin, pout = rng.permutation(n_in), rng.permutation(n_out)
    k_in, k_out = int(round(n_in * fraction)), int(round(n_out * fraction))
    return (pin[:k_in], pout[:k_out]), (pin[k_in:], pout[k_out:])


def algorithm2(
    q_in,
    q_out,
    p: float,
    metric: str,
    rng: np.random.Generator,
    bins: int = 100,
    value_range=None,
    fraction: float = 0.5,
) -> dict[str, float]:
    """Algorithm 2: fit the histogram plug-in η̂ on S1, predict sgn(η̂ − t_ℓ) on S2, score Eq. 20.

    Empty bins of S1 predict −1 (non-member). Returns the estimate, |S2| and the McDiarmid
    half-width of the S2 score.
    """
    q_in, q_out = _as2d(q_in), _as2d(q_out)
    (a_in, a_out), (b_in, b_out) = stratified_split(len(q_in), len(q_out), rng, fraction)
    edges = bin_edges(np.vstack([q_in, q_out]), bins, value_range)
    n_cells = bins ** q_in.shape[1]
    r = np.bincount(bin_ids(q_in[a_in], edges), minlength=n_cells) / len(a_in)
    q = np.bincount(bin_ids(q_out[a_out], edges), minlength=n_cells) / len(a_out)
    den = p * r + (1 - p) * q
    eta = np.divide(p * r, den, out=np.zeros_like(den), where=den > 0)
    t = metric_coefficients(metric, p)["t"]
    test = np.vstack([q_in[b_in], q_out[b_out]])
    m = np.r_[np.ones(len(b_in)), -np.ones(len(b_out))]
    pred = np.where(eta[bin_ids(test, edges)] > t, 1, -1)
    n2 = len(m)
    return {
        "value": empirical_metric(pred, m, p, metric),
        "n_eval": n2,
        "halfwidth": metric_halfwidth(n2, p, metric, confidence=0.95),
        "eval_index_in": b_in,
        "eval_index_out": b_out,
    }


# --------------------------------------------------------------------------------- bounds, null


def dp_bound(*, epsilon, p: float = 0.5):
    """Theorem 1(4): Adv_p and AdvI_p of an ε-DP mechanism are <= max |tanh((±ε + λ)/2)|."""
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    lam = np.log(p / (1 - p))
    e = np.asarray(epsilon, dtype=float)
    return np.maximum(np.abs(np.tanh((e + lam) / 2)), np.abs(np.tanh((-e + lam) / 2)))


def null_baseline(
    q_out, n1: int, n2: int, estimator: Callable[..., float], rng: np.random.Generator, **kw
) -> float:
    """The estimator on pseudo-members and pseudo-non-members drawn disjointly from the hold-out.

    Both groups are exchangeable, so the true Adv_p is |2p − 1| (0 at p = 0.5) and
    anything above that is the estimator's finite-sample bias at the same N1, N2.
    """
    q_out = _as2d(q_out)
    if n1 + n2 > len(q_out):
        raise ValueError(f"null baseline needs {n1 + n2} hold-out points, have {len(q_out)}")
    perm = rng.permutation(len(q_out))
    return estimator(q_out[perm[:n1]], q_out[perm[n1 : n1 + n2]], **kw)


# --------------------------------------------------------------------------------- the paper's number


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


def paper_estimate(
    q_in,
    q_out,
    *,
    p: float,
    rng: np.random.Generator,
    trials: int,
    method: str = "hist",
    max_bins: int = 100,
    points_per_bin: float | None = None,
    confidence: float = 0.95,
) -> dict[str, float]:
    """Algorithm 1 as the paper runs it, with the numbers needed to read it honestly.

    On each of ``trials`` Experiment-2 draws (all members that fit, hold-out points in the ratio
    p : 1 − p, at most as many points as the hold-out set has so that the null can be drawn at the
    same N): W_N (``hist``: equal bins over the pooled range, :func:`bins_for` per dimension) or
    U_N (``kde``), and the same estimator on two halves of the hold-out set (true advantage
    |2p − 1|: its bias). Returns the means over draws, ``excess`` = estimate − null, the McDiarmid
    half-width of Theorems 5/6 at N, the bins and N.
    """
    q_in, q_out = _as2d(q_in), _as2d(q_out)
    est, null = [], []
    for _ in range(trials):
        i, o = experiment2(len(q_in), len(q_out), p, rng, n_max=len(q_out))
        if method == "hist":
            bins = bins_for(len(i), q_in.shape[1], max_bins=max_bins, points_per_bin=points_per_bin)
            fn, kw = discrete_advantage, {"bins": bins}
        elif method == "kde":
            bins, fn, kw = 0, kde_advantage, {}
        else:
            raise ValueError(f"method must be hist or kde, got {method!r}")
        est.append(fn(q_in[i], q_out[o], p, **kw))
        null.append(null_baseline(q_out, len(i), len(o), fn, rng, p=p, **kw))
    n = len(i) + len(o)
    e, nl = float(np.mean(est)), float(np.mean(null))
    return {
        "estimate": e,
        "null": nl,
        "excess": e - nl,
        "halfwidth": mcdiarmid_halfwidth(n, confidence=confidence),
        "bins": int(bins),
        "N": int(n),
    }
