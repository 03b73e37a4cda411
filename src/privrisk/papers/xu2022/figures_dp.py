"""Figures 5 and 6 of xu2022: DP-cGANs against the Theorem 1(4) bound (spec §8, App. G).

The query is the conditional discriminator's logit D(x, y), binned over its pooled range. A
non-private control (ε = ∞: the same networks and clipped training without noise) must leak
(held-out AUC >= ``min_auc``) before the bound can be said to hold: an estimate at its null says
nothing about a bound when the pipeline could not have seen leakage at all.

"Below the bound" is decided at every ε on the across-run estimates from two one-sided
statements that are each valid: the runs' mean W_N plus its McDiarmid half-width bounds the
binned query's mean advantage from above (E W_N >= the binned advantage), which decides *holds*;
the cross-fitted classifier's across-run t interval bounds the query's advantage from below,
which decides *fails*. Either bound applies to the theorem (it holds for every query, binned or
not, of every trained model, hence for their mean).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ...contract import plotting
from ...contract import verdicts as V
from ...contract.figure import FigureResult
from ...estimators import crossfit, mace
from . import claims as C
from .claims import Stat
from .common import (
    NULL,
    OPT,
    collect,
    data_words,
    evaluate,
    load,
    paper_numbers,
    rng_for,
    runs_text,
    split_text,
    stat_rows,
    threads,
)

CONTROL = float("inf")
W_N = "paper's W_N (bins from N)"
BOUND = "upper bound tanh(ε/2) (Theorem 1(4))"


def eps_inputs(inputs) -> dict[float, str]:
    """{ε: queries path} from input names ``eps_2``, ``eps_0p5``, ``eps_inf`` (the control)."""
    out = {float(k[4:].replace("p", ".")): v for k, v in inputs.items() if k.startswith("eps_")}
    return dict(sorted(out.items()))


def _model(path, params, rng) -> dict:
    """Per run: the paper's W_N, its null and half-width, and the held-out classifier."""
    qs = load(path)
    p = params["prior_prob"]
    paper, held = [], []
    for r in range(qs.runs):
        a, b = qs.split("d", r)
        w = paper_numbers(a, b, params, rng)
        paper.append(w)
        ev = evaluate({"D": (a, b)}, params, rng)
        held.append({"adv": ev.metric("D", p, "adv"), "auc": ev.auc("D")})
    return {"qs": qs, "paper": paper, "held": collect(held)}


def control_gate(ctl: dict | None, min_auc: float) -> str:
    if ctl is None:
        return "no non-private control (ε = ∞) was trained: leakage could not have been seen"
    return C.leak_gate(ctl["held"]["auc"], min_auc, what="the non-private control (ε = ∞)")


def fig5(params, inputs) -> FigureResult:
    """Figure 5: membership advantage of DP-cGANs on MNIST 0-vs-6 against ε, beside the bound tanh(ε/2)."""
    p = params["prior_prob"]
    rng = rng_for(params, "fig5")
    models = {e: _model(path, params, rng) for e, path in eps_inputs(inputs).items()}
    ctl = models.pop(CONTROL, None)
    gate = control_gate(ctl, params["min_auc"])
    finite = sorted(models)
    x_ctl = max(finite) * 1.25 if finite else 1.0
    rows, points, bounds = [], {}, {}
    for e, m in [*models.items(), *([(CONTROL, ctl)] if ctl else [])]:
        x = e if np.isfinite(e) else x_ctl
        W = Stat.plain([w["estimate"] for w in m["paper"]])
        half = float(np.mean([w["halfwidth"] for w in m["paper"]]))
        kw = {"epsilon": e, "N": m["paper"][0]["N"], "bins": m["paper"][0]["bins"]}
        rows += stat_rows(W_N, x, W, halfwidth=half, halfwidth_mean=half / np.sqrt(W.runs), **kw)
        rows += stat_rows(NULL, x, Stat.plain([w["null"] for w in m["paper"]]), **kw)
        rows += stat_rows(OPT, x, m["held"]["adv"], auc=m["held"]["auc"].mean, **kw)
        if not np.isfinite(e):
            continue
        # across runs: the classifier's t interval below, and above the mean of the runs' W_N plus
        # McDiarmid's half-width for that mean (R·N independent points, each moving it by at
        # most 2/(R·N): the half-width of one run divided by √R)
        adv = m["held"]["adv"].estimate()
        w_mean = float(np.mean([w["estimate"] for w in m["paper"]]))
        lo, hi = adv.interval()[0], w_mean + half / np.sqrt(len(m["paper"]))
        lo = min(lo, hi)
        points[f"ε={e:g}"] = V.Estimate(float(np.clip(adv.value, lo, hi)), lo=lo, hi=hi)
        bounds[f"ε={e:g}"] = float(mace.dp_bound(epsilon=e, p=p))
    df = pd.DataFrame(rows)
    # the bound, drawn once (a dense curve; its points are in the CSV)
    dense = np.linspace(0, max(finite) * 1.05, 60) if finite else np.array([0.0])
    bound_rows = [
        {
            "series": BOUND,
            "x": float(e),
            "y": float(mace.dp_bound(epsilon=e, p=p)),
            "run": "analytic",
            "panel": "estimates",
        }
        for e in dense
    ]
    df = pd.concat([df, pd.DataFrame(bound_rows)], ignore_index=True)
    # error bars: what decides: the mean W_N's McDiarmid half-width, the classifier's t interval
    mean = df[df.run == "mean"].copy()
    wn = mean.series == W_N
    mean.loc[wn, "lo"] = mean.loc[wn, "y"] - mean.loc[wn, "halfwidth_mean"]
    mean.loc[wn, "hi"] = mean.loc[wn, "y"] + mean.loc[wn, "halfwidth_mean"]
    df.loc[mean.index, ["lo", "hi"]] = mean[["lo", "hi"]]
    op = (df.series == OPT) & (df.run == "mean")
    for e, m in [*models.items(), *([(CONTROL, ctl)] if ctl else [])]:
        est = m["held"]["adv"].estimate()
        sel = op & (df.epsilon == e)
        df.loc[sel, ["lo", "hi"]] = est.interval()
    fig, ax = plotting.subplots(width=6.0)
    dodge = 0.012 * (x_ctl - 0.0)  # side by side at each ε
    for k, name in enumerate((W_N, NULL, OPT)):
        sub = df[(df.series == name) & (df.run == "mean")]
        ax.errorbar(
            sub.x + (k - 1) * dodge,
            sub.y,
            yerr=[sub.y - sub.lo, sub.hi - sub.y],
            color=plotting.color(k),
            marker=plotting.marker(k),
            linestyle="none",
            capsize=3,
            label=name,
        )
        dots = df[(df.series == name) & (df.run != "mean")]
        ax.plot(dots.x + (k - 1) * dodge, dots.y, ".", color=plotting.color(k), ms=3, alpha=0.6)
    ax.plot(dense, [r["y"] for r in bound_rows], color=plotting.color(3), label=BOUND)
    ticks = [*finite, *([x_ctl] if ctl else [])]
    ax.set_xticks(ticks, [f"{e:g}" for e in finite] + (["∞\n(control)"] if ctl else []))
    ax.set(
        xlabel="privacy budget ε of the DP-cGAN discriminator (δ = 1e-5)",
        title="DP-cGAN on MNIST 0-vs-6",
    )
    ax.set_ylim(min(0.0, float(df["lo"].min()) - 0.03), 1.0)
    ax.set_ylabel("membership advantage (p = 0.5)")
    plotting.legend(ax, loc="center right", fontsize=7)
    src = (ctl or next(iter(models.values())))["qs"].record.get("data_source", "bundled-real")
    sources = {"MNIST 0-vs-6": src}
    ctl_text = (
        f"control (ε = ∞) held-out advantage {ctl['held']['adv'].mean:.3f}, AUC {ctl['held']['auc'].mean:.3f}"
        if ctl
        else "no control"
    )
    claims = [
        C.fig5_claim(points, bounds, models, p=p, gate=gate, ctl_text=ctl_text, sources=sources),
        C.bound_eps1_p05(float(mace.dp_bound(epsilon=1.0, p=0.5))),
    ]
    first = (ctl or next(iter(models.values())))["qs"]
    return FigureResult(
        data=df,
        fig=fig,
        claims=claims,
        data_sources=sources,
        seeds={"experiment2": params["seed"]},
        caption=(
            "Figure 5. Membership advantage (p = 0.5) of conditional GANs whose discriminator was trained "
            f"with DP-SGD at (ε, 1e-5) on the imbalanced 0-vs-6 set of {data_words({'MNIST': src})} "
            f"(ratio 6,900 : 700; {split_text(first.record)} trains; {runs_text(first)} per ε), querying "
            "the discriminator's logit D(x, y): the paper's W_N on equal bins over the pooled logit range "
            "(number from the sample size; mean over runs with the McDiarmid half-width of that mean, whose "
            "upper end decides 'below'), its null baseline, and the cross-fitted KDE plug-in classifier's "
            "held-out advantage (mean over runs with its t interval, whose lower end would decide "
            "'above'); dots: runs. "
            "The non-private control (ε = ∞, the same clipped training without noise) shows what the "
            f"pipeline sees when the model leaks ({ctl_text}). The bound tanh(ε/2) is drawn once."
        ),
        extra={
            "threads": threads(
                **{
                    f"eps_{e:g}": m["qs"]
                    for e, m in [*models.items(), *([(CONTROL, ctl)] if ctl else [])]
                }
            ),
            "models": {
                f"{e:g}": {
                    "accounting": [r.get("accounting") for r in m["qs"].record.get("runs", [])],
                    "heldout_auc": m["held"]["auc"].values,
                    "heldout_adv": m["held"]["adv"].values,
                    "split": split_text(m["qs"].record),
                }
                for e, m in [*models.items(), *([(CONTROL, ctl)] if ctl else [])]
            },
        },
    )


def min_per_class_by_design(
    n_per_class: int,
    runs: int,
    bound: float,
    *,
    confidence: float = 0.95,
    p: float = 0.5,
    power: float = V.POWER,
) -> int:
    """Figure 6's pre-registered bin size, from the design alone (no results): the smallest count
    per class m whose equal-frequency bins (n_per_class // m of them) let a model that does not
    leak show "below ``bound``" in every bin of every run with probability ``power``: each bin's
    member count Binomial(2m', ½) of its 2m' points, its Clopper–Pearson interval widened to the
    robust level as the verdict rule does (:mod:`privrisk.contract.verdicts`)."""
    for m in range(1, n_per_class + 1):
        bins = n_per_class // m
        size = 2 * n_per_class // bins
        k = np.arange(size + 1)
        k = k[(k <= n_per_class) & (size - k <= n_per_class)]
        risk = mace.risk_from_counts(
            k, n_per_class, size - k, n_per_class, p, confidence=confidence
        )
        # each bin's interval at the robust level, widened as the verdict rule widens it
        robust_hi = np.array(
            [
                V.Estimate(a, lo=lo, hi=hi).interval(V.ROBUST * V.Z)[1]
                for a, lo, hi in zip(risk["advi"], risk["lo"], risk["hi"], strict=True)
            ]
        )
        ok = float((stats.binom.pmf(k, size, 0.5) * (robust_hi < bound)).sum())
        if ok ** (runs * bins) >= power:
            return m
    return n_per_class


def _bins(qs, r: int, p: float, m: int, conf: float, rng):
    """Run ``r``'s Experiment-2 sample in equal-frequency bins of the pooled sample, as many as
    leave ``m`` points of each class per bin on average (pre-registered from the design:
    notes.md): (members, hold-out, pooled, bins, Theorem 2's risks, {bin: Estimate}), one
    estimate per occupied bin (every sample in a bin has the same estimate and interval)."""
    a_all, b_all = qs.split("d", r)
    i, o = mace.experiment2(len(a_all), len(b_all), p, rng, n_max=len(b_all))
    a, b = a_all[i], b_all[o]
    nb = max(1, min(len(a), len(b)) // m)
    pooled = np.r_[a, b]
    edges = mace.equal_frequency_edges(pooled, nb)
    risk = mace.individual_risk(a, b, pooled, p, confidence=conf, edges=edges)
    _, first = np.unique(risk["bin"], return_index=True)
    points = {
        int(risk["bin"][j]): V.Estimate(
            float(risk["advi"][j]), lo=float(risk["lo"][j]), hi=float(risk["hi"][j])
        )
        for j in first
    }
    return a, b, pooled, nb, risk, points


def control_passes(ctl: dict, bound: float, params, m: int, conf: float) -> str:
    """'' unless the non-private control (ε = ∞) passes Figure 6's rule "every bin below
    ``bound``" at the same bin design; then why the rule cannot fail at this scale."""
    rng = rng_for(params, "fig6_control")
    qs = ctl["qs"]
    pts = {
        f"run {r} bin {k}": e
        for r in range(qs.runs)
        for k, e in _bins(qs, r, params["prior_prob"], m, conf, rng)[5].items()
    }
    return C.control_vacuous(pts, bound, ctl["held"]["auc"].mean)


def fig6(params, inputs) -> FigureResult:
    """Figure 6: sorted individual membership risks of DP-cGANs at two ε, beside the bound tanh(ε/2)."""
    p, conf = params["prior_prob"], params["confidence"]
    m = int(params["min_per_class"])
    rng = rng_for(params, "fig6")
    paths = eps_inputs(inputs)
    ctl_path = paths.pop(CONTROL, None)
    ctl = _model(ctl_path, params, rng) if ctl_path else None
    gate = control_gate(ctl, params["min_auc"])
    fig, axes = plotting.subplots(2, len(paths), width=3.9, height=2.9)
    axes = np.asarray(axes).reshape(2, len(paths))
    frames, claims, src, nbins, loaded = [], [], "bundled-real", {}, {}
    for k, (eps, path) in enumerate(paths.items()):
        ax, axb = axes[0, k], axes[1, k]
        qs = loaded[eps] = load(path)
        src = qs.record.get("data_source", src)
        bound = float(mace.dp_bound(epsilon=eps, p=p))
        points, bin_rows = {}, []
        for r in range(qs.runs):
            a, b, pooled, nb, risk, run_points = _bins(qs, r, p, m, conf, rng)
            order = np.argsort(risk["advi"], kind="stable")
            rank = np.arange(len(pooled))
            for b_id, e in run_points.items():
                points[f"run {r} bin {b_id}"] = e
                lo_r, hi_r = e.interval(V.ROBUST * V.Z)
                bin_rows.append(
                    {
                        "series": f"bin AdvI (Theorem 2), ε = {eps:g}",
                        "x": b_id,
                        "y": e.value,
                        "lo": e.lo,
                        "hi": e.hi,
                        "lo_robust": lo_r,
                        "hi_robust": hi_r,
                        "members": int(risk["members"][b_id]),
                        "holdout": int(risk["holdout"][b_id]),
                        "decides": "below" if hi_r < bound else ("above" if lo_r > bound else "no"),
                        "epsilon": eps,
                        "bins": nb,
                        "run": str(r),
                    }
                )
            member = np.r_[np.ones(len(a), bool), np.zeros(len(b), bool)]
            nbins[eps] = nb
            frames.append(
                pd.DataFrame(
                    {
                        "series": f"AdvI (Theorem 2), ε = {eps:g}",
                        "x": rank,
                        "y": risk["advi"][order],
                        "lo": risk["lo"][order],
                        "hi": risk["hi"][order],
                        "member": member[order],
                        "epsilon": eps,
                        "bins": nb,
                        "run": str(r),
                    }
                )
            )
            # every run's curve (the claim reads every run's bins), run 0 with its band
            ax.plot(
                rank,
                risk["advi"][order],
                color=plotting.color(0),
                lw=1.2 if r == 0 else 0.6,
                alpha=1.0 if r == 0 else 0.35,
                label="AdvI (Theorem 2), every run" if r == 0 else None,
            )
            if r == 0:
                ax.fill_between(
                    rank,
                    risk["lo"][order],
                    risk["hi"][order],
                    color=plotting.color(0),
                    alpha=0.2,
                    label=f"{conf:.0%} Clopper–Pearson (run 0)",
                )
                ev = evaluate({"D": (a, b)}, params, rng)
                h_in, h_out = crossfit.individual_risk(ev.adversaries[("D", "plugin")])
                held = np.r_[h_in, h_out]
                frames.append(
                    pd.DataFrame(
                        {
                            "series": f"held-out AdvI (cross-fitted KDE), ε = {eps:g}",
                            "x": rank,
                            "y": np.sort(held),
                            "epsilon": eps,
                            "run": "0",
                        }
                    )
                )
                ax.plot(
                    rank,
                    np.sort(held),
                    color=plotting.color(1),
                    linestyle="--",
                    label="held-out AdvI (cross-fitted, run 0)",
                )
        bins_df = pd.DataFrame(bin_rows)
        frames.append(bins_df)
        for ax_ in (ax, axb):
            ax_.axhline(
                bound,
                color=plotting.color(3),
                linestyle=":",
                label=f"bound tanh(ε/2) = {bound:.3f}" if ax_ is ax else None,
            )
        ax.set(
            xlabel=f"Experiment-2 sample of each of {qs.runs} runs, sorted",
            ylabel="individual privacy risk AdvI_p",
            title=f"({'abcdefgh'[k]}) ε = {eps:g}: bound tanh(ε/2) = {bound:.4f} (dotted)",
            ylim=(0, 1.0),
        )
        _bins_panel(axb, bins_df, qs.runs, nbins[eps])
        # the falsification control: the same rule on the non-private model's bins (its own rng,
        # so the claim's numbers do not depend on it). A model without privacy that passes "below
        # tanh(ε/2)" shows the rule cannot fail at this scale: the row is vacuous (notes.md)
        vacuous = control_passes(ctl, bound, params, m, conf) if ctl is not None else None
        claims.append(
            C.fig6_claim(
                eps,
                points,
                bound,
                bins_df,
                nb=nb,
                min_per_class=m,
                gate=gate,
                vacuous=vacuous,
                source=src,
            )
        )
        if eps in (2.0, 10.0):
            claims.append(C.fig6_bound(eps, bound))
    handles, labels = [], []
    for ax_ in axes[:, 0]:
        h, lab = ax_.get_legend_handles_labels()
        handles += h
        labels += lab
    # one legend for the panels (the bound's value is in each panel's title)
    fig.legend(handles, labels, loc="outside upper center", ncol=3, fontsize=7)
    return FigureResult(
        data=pd.concat(frames, ignore_index=True),
        fig=fig,
        claims=claims,
        data_sources={"MNIST 0-vs-6": src},
        seeds={"experiment2": params["seed"]},
        caption=(
            "Figure 6. Estimated individual privacy risk AdvI_p(z) = |f_p(z)| (p = 0.5; Theorem 2 on "
            f"{', '.join(f'{n} equal-frequency bins (ε = {e:g})' for e, n in nbins.items())} of the "
            "pooled discriminator logit D(x, y), as many as leave at least "
            f"{m} points of each class per bin on average, a number fixed from the design before "
            "any result) of every point of one "
            f"Experiment-2 sample per training run, sorted (one curve per run; top), for the DP-cGANs on "
            f"{data_words({'MNIST 0-vs-6': src})} at "
            f"ε = {', '.join(f'{e:g}' for e in paths)} (δ = 1e-5), with {conf:.0%} Clopper–Pearson intervals, "
            "the cross-fitted KDE plug-in's held-out AdvI = |tanh(log r̂/q̂ / 2)| and the bound tanh(ε/2). "
            "Bottom: every bin of every run (dodged by run) with its interval at the robust level that "
            "decides the claim: below the bound (it shows 'below'), above it (a violation) or across it "
            "(undecided); the claim holds when every bin is below. The non-private control must leak "
            "first."
        ),
        extra={
            "threads": threads(**{f"eps_{e:g}": q for e, q in loaded.items()}),
            "min_per_class": m,
            "control": None
            if ctl is None
            else {
                "heldout_auc": ctl["held"]["auc"].values,
                "heldout_adv": ctl["held"]["adv"].values,
            },
        },
    )


def _bins_panel(ax, bins_df: pd.DataFrame, runs: int, nb: int) -> None:
    """Every bin of every run with its robust interval, coloured by what it decides."""
    style = {
        "below": (plotting.color(2), "below the bound (decides 'holds')"),
        "no": (plotting.color(1), "across the bound (undecided)"),
        "above": (plotting.color(3), "above the bound (a violation)"),
    }
    width = 0.7
    for kind, (color, label) in style.items():
        sub = bins_df[bins_df["decides"] == kind]
        if not len(sub):
            continue
        x = (
            sub["x"].to_numpy(float)
            + (sub["run"].astype(int).to_numpy() + 0.5) / runs * width
            - width / 2
        )
        ax.errorbar(
            x,
            sub["y"],
            yerr=[sub["y"] - sub["lo_robust"], sub["hi_robust"] - sub["y"]],
            fmt="o",
            ms=2.5,
            capsize=1.5,
            color=color,
            label=label,
        )
    ax.set_xticks(range(nb), [f"bin {j + 1}" for j in range(nb)])
    ax.set(
        xlabel=f"equal-frequency bin of the logit (low → high), {runs} runs each",
        ylabel="bin AdvI, robust interval",
        ylim=(0, 1.05),
    )
