"""Figures 4a, 4b (individual risk of corrupted training images) and 8 (classifier white-box vs
black-box queries) of xu2022 (spec §8), from the saved queries of :mod:`.skin_steps`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import plotting
from ...core import seeds
from ...estimators import mace
from ...figure import FigureResult
from . import skin_estimates as se
from .skin_figures import (
    EST,
    LEDGER,
    NULL,
    bars,
    load,
    no_signal_note,
    on,
    rows_for,
    sources,
    split,
)

# ----------------------------------------------------------------------------- Figure 4


def member_risks(arrays: dict, est: dict, seed: int) -> dict:
    """Mean AdvI (Theorem 2, Clopper–Pearson interval) of every training image over the Experiment-2
    draws, and the same estimator's mean AdvI on the null split (hold-out halves) as its noise floor."""
    rng = seeds.rng(seed, "fig4")
    q_in, q_out = split(arrays, "d")
    p = est["p"]
    advi, lo, hi, null = np.zeros(len(q_in)), np.zeros(len(q_in)), np.zeros(len(q_in)), []
    for i, o in se.draws(len(q_in), len(q_out), p, rng, est["trials"]):
        bins = se.bins_for(len(i) + len(o), 1, est["points_per_bin"], est["max_bins"])
        r = mace.individual_risk(
            q_in[i], q_out[o], q_in, p, confidence=est["confidence"], bins=bins
        )
        advi, lo, hi = advi + r["advi"], lo + r["lo"], hi + r["hi"]
        perm = rng.permutation(len(q_out))
        a, b = q_out[perm[: len(i)]], q_out[perm[len(i) : len(i) + len(o)]]
        null.append(
            float(
                mace.individual_risk(a, b, a, p, confidence=est["confidence"], bins=bins)[
                    "advi"
                ].mean()
            )
        )
    t = est["trials"]
    corrupted = arrays["corrupted"][arrays["member"].astype(bool)]
    return {
        "advi": advi / t,
        "lo": lo / t,
        "hi": hi / t,
        "null": float(np.mean(null)),
        "bins": bins,
        "N": len(i) + len(o),
        "corrupted": corrupted,
    }


def _group(r: dict, mask: np.ndarray) -> dict:
    v = r["advi"][mask]
    return {
        "mean": float(v.mean()),
        "se": float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan"),
        "lo": float(r["lo"][mask].mean()),
        "hi": float(r["hi"][mask].mean()),
        "n": int(mask.sum()),
    }


def fig4a(params, inputs) -> FigureResult:
    arrays, rec = load(inputs["queries"])
    est, k = params["est"], int(params["examples"])
    r = member_risks(arrays, est, params["seed"])
    idx = np.asarray(arrays["train_idx"])
    # the first k corrupted and the first k clean training images by index: chosen before any
    # risk is seen, so the examples are not picked for their risk
    picks = [("corrupted", j) for j in np.flatnonzero(r["corrupted"])[:k]] + [
        ("clean", j) for j in np.flatnonzero(~r["corrupted"])[:k]
    ]
    fig, axes = plotting.subplots(2, k, width=1.5, height=1.75)
    axes = np.atleast_2d(axes)
    rows = []
    for ax in axes.flat:
        ax.axis("off")
    col = {"corrupted": 0, "clean": 0}
    for group, j in picks:
        ax = axes[0 if group == "corrupted" else 1, col[group]]
        col[group] += 1
        ax.imshow(arrays["train_images"][j], interpolation="nearest")
        ax.set_title(f"AdvI {r['advi'][j]:.2f}\n[{r['lo'][j]:.2f}, {r['hi'][j]:.2f}]", fontsize=8)
        rows.append(
            {
                "series": group,
                "x": int(idx[j]),
                "y": float(r["advi"][j]),
                "lo": float(r["lo"][j]),
                "hi": float(r["hi"][j]),
                "bins": r["bins"],
                "N": r["N"],
            }
        )
    fig.suptitle("Corrupted (top) and clean (bottom) training images", fontsize=9)
    return FigureResult(
        data=pd.DataFrame(rows),
        fig=fig,
        claims=[],
        data_sources=sources(rec),
        seeds={"experiment2": params["seed"]},
        caption=(
            f"Figure 4a. The first {k} corrupted (white {rec.get('corruption', {}).get('box', '?')}-pixel box at the "
            f"centre) and the first {k} clean training images of the JS-GAN of Figure 4, with their estimated "
            "individual privacy risk AdvI (Theorem 2: the discriminator logit binned into "
            f"{r['bins']} bins chosen from N = {r['N']}, p = {est['p']:g}, mean over {est['trials']} Experiment-2 "
            f"draws) and its {est['confidence']:.0%} Clopper–Pearson interval. Examples are chosen by index, "
            f"not by risk. The same estimator on two hold-out halves has mean AdvI {r['null']:.2f} (noise floor)."
        ),
        extra={"null_mean_advi": r["null"], "model_record": rec},
    )


def fig4b(params, inputs) -> FigureResult:
    arrays, rec = load(inputs["queries"])
    est = params["est"]
    signal, auc = se.gate(rec, est["min_auc"])
    r = member_risks(arrays, est, params["seed"])
    g = {"corrupted": _group(r, r["corrupted"]), "clean": _group(r, ~r["corrupted"])}
    rows = [
        {
            "series": "mean estimated AdvI",
            "x": f"{name} training images",
            "y": v["mean"],
            "lo": v["lo"],
            "hi": v["hi"],
            "se": v["se"],
            "n": v["n"],
        }
        for name, v in g.items()
    ]
    rows.append(
        {
            "series": NULL,
            "x": "hold-out halves (true AdvI 0)",
            "y": r["null"],
            "lo": r["null"],
            "hi": r["null"],
            "se": float("nan"),
            "n": r["N"] // 2,
        }
    )
    df = pd.DataFrame(rows)
    fig, ax = plotting.subplots(width=5.0)
    ax.bar(
        range(3),
        df.y,
        0.6,
        color=[plotting.color(0), plotting.color(1), "0.7"],
        yerr=[df.y - df.lo, df.hi - df.y],
        capsize=4,
    )
    ax.set_xticks(range(3), ["corrupted", "clean", "null\n(hold-out halves)"])
    ax.set(
        ylabel="mean individual risk AdvI (p = 0.5)",
        ylim=(0, 1.1),
        title="Skin-lesion JS-GAN with 10 % corrupted training images",
    )
    c, u = g["corrupted"], g["clean"]
    noise = 2 * np.hypot(c["se"], u["se"])
    informative = signal and c["mean"] - r["null"] > 2 * c["se"]
    holds = None if not informative else bool(c["mean"] > u["mean"])
    note = (
        "" if signal else f"model AUC {auc:.3f} < {est['min_auc']:g}; "
    ) + f"corrupted mean {c['mean']:.3f} (s.e. {c['se']:.3f}) vs null mean AdvI {r['null']:.3f}"
    claim = LEDGER.qualitative(
        figure="fig4b",
        claim_id="fig4b_corrupted_gt_clean",
        claim="corrupted training images have a higher average individual privacy risk than uncorrupted ones",
        ours=f"mean AdvI corrupted {c['mean']:.3f} (n = {c['n']}), clean {u['mean']:.3f} (n = {u['n']}); "
        f"2 s.e. of the difference {noise:.3f}; null {r['null']:.3f}; model AUC {auc:.3f}",
        **on(rec, holds, note),
    )
    return FigureResult(
        data=df,
        fig=fig,
        claims=[claim],
        data_sources=sources(rec),
        seeds={"experiment2": params["seed"]},
        caption=(
            f"Figure 4b. Mean estimated individual privacy risk AdvI of the {c['n']} corrupted and {u['n']} clean "
            "training images of a JS-GAN trained with a centred white box on 10 % of its training images "
            f"(hold-out images untouched). AdvI per image as in Figure 4a ({r['bins']} bins, N = {r['N']}); "
            "error bars: the mean of the per-image Clopper–Pearson interval ends. Grey: the same estimator's "
            "mean AdvI on two halves of the hold-out set, whose true risk is 0 (its noise floor)."
        ),
        extra={"groups": g, "null_mean_advi": r["null"], "model_auc": auc, "model_record": rec},
    )


# ----------------------------------------------------------------------------- Figure 8


def fig8(params, inputs) -> FigureResult:
    arrays, rec = load(inputs["queries"])
    est = params["est"]
    signal, auc = se.gate(rec, est["min_auc"])
    rng = seeds.rng(params["seed"], "fig8")
    res = {
        "white-box (penultimate layer, 2-d)": se.estimate(*split(arrays, "white"), est, rng),
        "black-box (sigmoid output, 1-d)": se.estimate(*split(arrays, "black"), est, rng),
    }
    df = pd.DataFrame([row for x, r in res.items() for row in rows_for(x, r)])
    fig, ax = plotting.subplots(width=5.0)
    bars(ax, df, list(res), [EST, NULL])
    ax.set_xticks([0, 1], ["white-box\n(2-d penultimate)", "black-box\n(sigmoid)"])
    ax.set(
        ylabel="membership advantage Adv_p (p = 0.5)",
        ylim=(0, 1.1),
        title="Skin-lesion classifier (E.3.3)",
    )
    plotting.legend(ax, loc="upper right")
    w, b = res.values()
    holds = se.verdict(w["excess"], b["excess"], w["halfwidth"], signal=signal)
    claim = LEDGER.qualitative(
        figure="fig8",
        claim_id="fig8_whitebox_gt_blackbox",
        claim="the white-box query gives a higher advantage than the black-box query",
        ours=f"estimate − null: white-box {w['excess']:.3f} ({w['bins']}² bins), black-box {b['excess']:.3f} "
        f"({b['bins']} bins); half-width {w['halfwidth']:.3f}; model AUC {auc:.3f}",
        **on(rec, holds, no_signal_note(w, signal, auc, est["min_auc"])),
    )
    acc = rec.get("accuracy", {})
    return FigureResult(
        data=df,
        fig=fig,
        claims=[claim],
        data_sources=sources(rec),
        seeds={"experiment2": params["seed"]},
        caption=(
            "Figure 8. Estimated membership advantage against the E.3.3 toy classifier (malignant vs benign) "
            f"trained on {rec.get('n_train', '?')} of {rec.get('n', '?')} skin-lesion images "
            f"(accuracy {acc.get('train', float('nan')):.2f} on them, {acc.get('holdout', float('nan')):.2f} on "
            "the hold-out set): the white-box query is the 2-d Dense(2, relu) output, the black-box query the "
            f"sigmoid output. W_N with {w['bins']}² and {b['bins']} bins (chosen from N = {w['N']}); hatched: null "
            f"baseline on hold-out halves. Mean over {est['trials']} draws; error bars: "
            f"{est['confidence']:.0%}-confidence McDiarmid half-width {w['halfwidth']:.3f}, clipped to [0, 1]."
        ),
        extra={"results": res, "model_auc": auc, "model_record": rec},
    )
