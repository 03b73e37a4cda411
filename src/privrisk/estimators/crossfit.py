"""A powered estimate beside MACE's plug-in numbers: cross-fitted membership classifiers with a
paired bootstrap (spec xu2022 §6: the plug-in W_N on 100^d bins is mostly bias at small N).

Every point is scored by a classifier fitted on the *other* folds (stratified k-fold over members
and hold-out points), so its held-out performance is an honest, slightly conservative estimate of
what the query reveals: a fixed classifier's advantage on fresh points is at most the optimal
advantage Adv_p(Q_S) of Theorem 1, and the plug-in η̂ converges to the Bayes rule.

* :func:`folds` — one stratified fold assignment, shared by every query of a model so that
  comparisons between queries are paired.
* :func:`plugin` — the optimal adversary made held-out: η̂ from a Gaussian-KDE (``kde``) or a
  histogram (``hist``) density of each class on the training folds, thresholded at the metric's
  t_ℓ (spec §4: ACC t = 1/2, AM t = p); its score is the log likelihood ratio log r̂/q̂.
* :func:`heuristic` — the threshold adversaries of Hayes et al. / Hilprecht et al. made held-out:
  the direction (members score higher or lower) is chosen on the training folds, and the top
  p-fraction of the (prior-weighted) mixture is predicted as members.
* :class:`Bootstrap` — stratified bootstrap weights drawn once per model run: every query's AUC and
  rates are evaluated on the *same* resampled points, so differences between queries are paired.

Rates are class-conditional (TPR on members, TNR on hold-out points), so all members and all
hold-out points are used whatever the prior p; a metric at prior p is then
ACC = p·TPR + (1 − p)·TNR, AM = (TPR + TNR)/2 and the advantage 2·AM − 1 = TPR − FPR
(= 2·ACC − 1 at p = 1/2, Definition 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .mace import _as2d, bin_edges, bin_ids, metric_coefficients, scott_bandwidth

METHODS = ("kde", "hist")


@dataclass(frozen=True)
class Heldout:
    """Out-of-fold scores (higher = more member-like) and member predictions of one adversary."""

    s_in: np.ndarray
    s_out: np.ndarray
    pred_in: np.ndarray
    pred_out: np.ndarray

    def at(self, cut: float) -> Heldout:
        """The same scores thresholded at ``cut`` (members: score > cut), e.g. another metric's
        Bayes threshold (:func:`plugin_cut`)."""
        return Heldout(self.s_in, self.s_out, self.s_in > cut, self.s_out > cut)

    @property
    def tpr(self) -> float:
        return float(np.mean(self.pred_in))

    @property
    def tnr(self) -> float:
        return float(np.mean(~self.pred_out))


def folds(n_in: int, n_out: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Fold ids (0 … k − 1) of members and of hold-out points, each class spread evenly."""
    if k < 2:
        raise ValueError(f"cross-fitting needs at least 2 folds, got {k}")
    if min(n_in, n_out) < k:
        raise ValueError(f"{k} folds need at least {k} members and {k} hold-out points")

    def assign(n: int) -> np.ndarray:
        ids = np.arange(n) % k
        return ids[rng.permutation(n)]

    return assign(n_in), assign(n_out)


def _kde_logdens(train: np.ndarray, test: np.ndarray, h: np.ndarray, chunk: int = 2048):
    """log of the Gaussian product-kernel density of ``train`` at ``test`` (up to a constant
    shared by both classes: log h and 2π cancel in a likelihood ratio with one bandwidth)."""
    out = np.empty(len(test))
    for s in range(0, len(test), chunk):
        z = (test[s : s + chunk, None, :] - train[None, :, :]) / h
        out[s : s + chunk] = logsumexp(-0.5 * (z**2).sum(-1), axis=1) - np.log(len(train))
    return out


def _llr(fit_in, fit_out, test, *, method: str, bins: int | None) -> np.ndarray:
    """log r̂(x) − log q̂(x) at the test points, from densities fitted on (fit_in, fit_out)."""
    pooled = np.vstack([fit_in, fit_out])
    if method == "kde":
        h = scott_bandwidth(pooled)
        return _kde_logdens(fit_in, test, h) - _kde_logdens(fit_out, test, h)
    if method == "hist":
        if not bins:
            raise ValueError("method 'hist' needs bins")
        edges = bin_edges(pooled, bins)
        n_cells = bins ** pooled.shape[1]
        # half a count in every cell: an empty cell has a finite ratio, and its score ranks by
        # the other class's count
        r = (np.bincount(bin_ids(fit_in, edges), minlength=n_cells) + 0.5) / (len(fit_in) + 0.5)
        q = (np.bincount(bin_ids(fit_out, edges), minlength=n_cells) + 0.5) / (len(fit_out) + 0.5)
        j = bin_ids(test, edges)
        return np.log(r[j]) - np.log(q[j])
    raise ValueError(f"unknown method {method!r}; expected one of {METHODS}")


def plugin_cut(p: float, metric: str) -> float:
    """The log-likelihood-ratio threshold of the Bayes rule η > t_ℓ at prior p (Lemma 2):
    η̂ > t ⟺ log r̂/q̂ > log(t (1 − p) / ((1 − t) p)); 0 for AM (t = p), log((1 − p)/p) for ACC."""
    t = metric_coefficients(metric, p)["t"]
    return float(np.log(t * (1 - p)) - np.log((1 - t) * p))


def plugin(
    q_in,
    q_out,
    fold_ids: tuple[np.ndarray, np.ndarray],
    *,
    p: float = 0.5,
    metric: str = "acc",
    method: str = "kde",
    bins: int | None = None,
) -> Heldout:
    """The plug-in optimal adversary sgn(η̂ − t_ℓ), fitted on the other folds for every point.

    ``metric`` gives t (ACC: 1/2, AM: p; :func:`plugin_cut`); :meth:`Heldout.at` re-thresholds
    the same scores for another metric. ``bins`` per dimension for ``hist`` (edges over the training folds' pooled range).
    """
    q_in, q_out = _as2d(q_in), _as2d(q_out)
    f_in, f_out = fold_ids
    cut = plugin_cut(p, metric)
    s_in, s_out = np.empty(len(q_in)), np.empty(len(q_out))
    for k in np.unique(f_in):
        a, b = f_in != k, f_out != k
        test = np.vstack([q_in[~a], q_out[~b]])
        s = _llr(q_in[a], q_out[b], test, method=method, bins=bins)
        s_in[~a], s_out[~b] = s[: (~a).sum()], s[(~a).sum() :]
    return Heldout(s_in, s_out, s_in > cut, s_out > cut)


def _mixture_quantile(x_in, x_out, p: float, frac: float) -> float:
    """The score above which a fraction ``frac`` of the mixture p·members + (1 − p)·hold-out lies."""
    x = np.r_[x_in, x_out]
    w = np.r_[np.full(len(x_in), p / len(x_in)), np.full(len(x_out), (1 - p) / len(x_out))]
    order = np.argsort(-x, kind="stable")
    cum = np.cumsum(w[order])
    k = int(np.searchsorted(cum, frac - 1e-12))
    return float(x[order][min(k, len(x) - 1)])


def heuristic(q_in, q_out, fold_ids: tuple[np.ndarray, np.ndarray], *, p: float = 0.5) -> Heldout:
    """The threshold heuristic (Hayes et al. on D(z), Hilprecht et al. on distances) held out.

    On the training folds: the direction in which members score higher (by the median, the rule
    privGAN's attack assumes for D and Hilprecht's for distances), and the threshold that puts the
    top p-fraction of the prior-weighted mixture above it. Applied to the left-out fold. A query
    with several columns is thresholded on its maximum.
    """
    q_in, q_out = _as2d(q_in), _as2d(q_out)
    x_in, x_out = q_in.max(1), q_out.max(1)
    f_in, f_out = fold_ids
    s_in, s_out = np.empty(len(x_in)), np.empty(len(x_out))
    p_in, p_out = np.empty(len(x_in), bool), np.empty(len(x_out), bool)
    for k in np.unique(f_in):
        a, b = f_in != k, f_out != k
        sign = 1.0 if np.median(x_in[a]) >= np.median(x_out[b]) else -1.0
        thr = _mixture_quantile(sign * x_in[a], sign * x_out[b], p, p)
        s_in[~a], s_out[~b] = sign * x_in[~a], sign * x_out[~b]
        p_in[~a], p_out[~b] = s_in[~a] >= thr, s_out[~b] >= thr
    return Heldout(s_in, s_out, p_in, p_out)


def metric_value(tpr, tnr, p: float, metric: str):
    """ACC or AM at prior p, or the advantage TPR − FPR (``adv``), from class-conditional rates
    (arrays broadcast: bootstrap draws)."""
    tpr, tnr = np.asarray(tpr, float), np.asarray(tnr, float)
    if metric == "acc":
        return p * tpr + (1 - p) * tnr
    if metric == "am":
        return (tpr + tnr) / 2
    if metric == "adv":
        return tpr + tnr - 1
    raise ValueError(f"unknown metric {metric!r}; expected acc, am or adv")


class Bootstrap:
    """Stratified bootstrap of one model run's evaluation points (members and hold-out points
    resampled separately), drawn once so that every statistic of every query is paired."""

    def __init__(self, n_in: int, n_out: int, n_boot: int, rng: np.random.Generator):
        if n_boot < 2:
            raise ValueError(f"bootstrap needs at least 2 draws, got {n_boot}")
        self.n_in, self.n_out, self.n_boot = n_in, n_out, n_boot
        self.w_in = rng.multinomial(n_in, np.full(n_in, 1 / n_in), size=n_boot).astype(float)
        self.w_out = rng.multinomial(n_out, np.full(n_out, 1 / n_out), size=n_boot).astype(float)

    def _check(self, h: Heldout) -> None:
        if len(h.s_in) != self.n_in or len(h.s_out) != self.n_out:
            raise ValueError("the adversary was scored on other points than the bootstrap's")

    def auc(self, h: Heldout) -> tuple[float, np.ndarray]:
        """AUC of the scores (ties ½) on the sample and on every bootstrap draw."""
        self._check(h)
        order = np.argsort(h.s_out, kind="stable")
        srt = h.s_out[order]
        lo = np.searchsorted(srt, h.s_in, side="left")
        hi = np.searchsorted(srt, h.s_in, side="right")

        def value(w_in: np.ndarray, w_out: np.ndarray) -> np.ndarray:
            # w: (draws, n); cumulative weight of hold-out points below each member's score
            cum = np.concatenate([np.zeros((len(w_out), 1)), np.cumsum(w_out[:, order], 1)], 1)
            below = cum[:, lo] + 0.5 * (cum[:, hi] - cum[:, lo])
            return (w_in * below).sum(1) / (w_in.sum(1) * w_out.sum(1))

        point = value(np.ones((1, self.n_in)), np.ones((1, self.n_out)))[0]
        return float(point), value(self.w_in, self.w_out)

    def rates(self, h: Heldout) -> tuple[tuple[float, float], tuple[np.ndarray, np.ndarray]]:
        """((TPR, TNR) on the sample, (TPR, TNR) on every draw) of the adversary's predictions."""
        self._check(h)
        pi, po = h.pred_in.astype(float), (~h.pred_out).astype(float)
        draws = (self.w_in @ pi / self.n_in, self.w_out @ po / self.n_out)
        return (float(pi.mean()), float(po.mean())), draws

    def metric(self, h: Heldout, p: float, metric: str) -> tuple[float, np.ndarray]:
        """``metric`` (acc, am, adv) of the predictions on the sample and on every draw."""
        (tpr, tnr), (d_tpr, d_tnr) = self.rates(h)
        return float(metric_value(tpr, tnr, p, metric)), metric_value(d_tpr, d_tnr, p, metric)


def summary(value: float, draws: np.ndarray) -> dict[str, float]:
    """A statistic with its bootstrap standard error and 2.5 / 97.5 % percentiles."""
    d = np.asarray(draws, float)
    return {
        "value": float(value),
        "se": float(d.std(ddof=1)),
        "lo": float(np.quantile(d, 0.025)),
        "hi": float(np.quantile(d, 0.975)),
    }


def individual_risk(h: Heldout) -> tuple[np.ndarray, np.ndarray]:
    """Held-out AdvI_{1/2}(z) = |2η̂(z) − 1| = |tanh(log r̂/q̂ / 2)| (Theorem 1(1) at p = 1/2) of
    the members and the hold-out points, from a :func:`plugin` adversary's scores."""
    return np.abs(np.tanh(h.s_in / 2)), np.abs(np.tanh(h.s_out / 2))


@dataclass(frozen=True)
class Evaluation:
    """Every adversary of one model run, scored out of fold on the same points and bootstrapped
    with the same weights: ``adversaries[(query, kind)]`` with kind ``plugin`` or ``heuristic``;
    ``idx_in`` / ``idx_out`` are the members and hold-out points used (a subsample when capped)."""

    boot: Bootstrap
    adversaries: dict[tuple[str, str], Heldout]
    idx_in: np.ndarray
    idx_out: np.ndarray

    def auc(self, query: str, kind: str = "plugin") -> tuple[float, np.ndarray]:
        return self.boot.auc(self.adversaries[(query, kind)])

    def metric(
        self, query: str, p: float, metric: str, kind: str = "plugin"
    ) -> tuple[float, np.ndarray]:
        return self.boot.metric(self.adversaries[(query, kind)], p, metric)


def evaluate(
    queries: dict[str, tuple[np.ndarray, np.ndarray]],
    *,
    rng: np.random.Generator,
    n_folds: int = 5,
    n_boot: int = 400,
    p: float = 0.5,
    metric: str = "acc",
    method: str | Mapping[str, str] = "kde",
    bins: int | None = None,
    heuristics: tuple[str, ...] = (),
    max_points: int | None = None,
) -> Evaluation:
    """Cross-fit the plug-in adversary of every query (and the threshold heuristic of the queries
    named in ``heuristics``) on one shared fold assignment, with one shared bootstrap.

    Every query must be measured on the same members and hold-out points (one model run); the
    same values may enter twice under two labels with different ``method`` (a mapping label ->
    ``kde`` | ``hist``), e.g. the discrete and the continuous optimal adversary of one query.
    ``max_points`` caps each class (a random subsample, the same for every query) to bound the
    KDE's cost at paper scale.
    """
    sizes = {(len(a), len(b)) for a, b in queries.values()}
    if len(sizes) != 1:
        raise ValueError(f"queries of one run must share their points, got sizes {sorted(sizes)}")
    ((n_in, n_out),) = sizes

    def cap(n: int) -> np.ndarray:
        if max_points is None or n <= max_points:
            return np.arange(n)
        return np.sort(rng.choice(n, max_points, replace=False))

    idx_in, idx_out = cap(n_in), cap(n_out)
    fold_ids = folds(len(idx_in), len(idx_out), n_folds, rng)
    adversaries: dict[tuple[str, str], Heldout] = {}
    for name, (a, b) in queries.items():
        a, b = _as2d(a)[idx_in], _as2d(b)[idx_out]
        how = method if isinstance(method, str) else method.get(name, "kde")
        adversaries[(name, "plugin")] = plugin(
            a, b, fold_ids, p=p, metric=metric, method=how, bins=bins
        )
        if name in heuristics:
            adversaries[(name, "heuristic")] = heuristic(a, b, fold_ids, p=p)
    unknown = set(heuristics) - set(queries)
    if unknown:
        raise ValueError(f"heuristics for unknown queries {sorted(unknown)}")
    return Evaluation(
        Bootstrap(len(idx_in), len(idx_out), n_boot, rng), adversaries, idx_in, idx_out
    )
