"""Figures 1b, 1c, 2b, 4a, 4b, 7 and 8 of xu2022: the skin-lesion half (spec §8), from the saved
queries of :mod:`.steps_skin`, with the same two estimates per query as every xu2022 figure
(:mod:`.figures`: the paper's W_N beside its null, and the cross-fitted classifier)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...contract import plotting
from ...contract.figure import FigureResult
from ...estimators import crossfit, mace
from . import claims as C
from .claims import Stat
from .common import (
    HEUR,
    NULL,
    OPT,
    advantage_axis,
    bars,
    best_auc,
    claim_panel,
    claim_row,
    collect,
    collect_plain,
    data_words,
    evaluate,
    figure_with_claims,
    legend_below,
    load,
    model_extras,
    paper_numbers,
    rng_for,
    runs_text,
    split_text,
    stat_rows,
    threads,
)

W_N = "paper's W_N (bins from N)"
DIRECTIONAL = "directional AUC (smaller NN distance = member)"
ADV = "membership advantage (p = 0.5)"
SKIN = "skin lesions (DermaMNIST)"


def _sources(qs) -> dict[str, str]:
    return {SKIN: qs.record.get("data_source", "standin")}


def _model_words(qs) -> str:
    rec = qs.record
    size = rec.get("image_size", "?")
    return (
        f"a {split_text(rec)} training split of {size}×{size} {data_words(_sources(qs))} "
        f"({runs_text(qs)})"
    )


def _nn_column(qs, n: int) -> int:
    sizes = list(qs.record.get("nn_sizes", []))
    if n not in sizes:
        raise ValueError(
            f"n_synthetic {n} is not among the synthetic sizes {sizes} of the GAN step"
        )
    return sizes.index(n)


def _paper_and_heldout(qs, queries: dict, params, rng, *, heuristics=(), paper_bins=()):
    """Per run: the paper's W_N and null of every query (and with the paper's 100^d bins for the
    queries in ``paper_bins``), and the cross-fitted adversaries' advantage and AUC."""
    p = params["prior_prob"]
    paper, held = [], []
    for r in range(qs.runs):
        data = {lab: qs.split(q, r, cols) for lab, (q, cols) in queries.items()}
        row = {}
        for lab, (a, b) in data.items():
            w = paper_numbers(a, b, params, rng)
            row |= {lab: w["estimate"], f"{lab}_null": w["null"], f"{lab}_bins": w["bins"]}
            if lab in paper_bins:
                f = paper_numbers(a, b, params, rng, paper_bins=True)
                row |= {f"{lab}_paper": f["estimate"], f"{lab}_paper_null": f["null"]}
        paper.append(row)
        ev = evaluate(data, params, rng, heuristics=tuple(heuristics))
        h = {}
        for lab in data:
            h |= {lab: ev.metric(lab, p, "adv"), f"auc_{lab}": ev.auc(lab)}
            if lab in heuristics:
                h |= {
                    f"heur_{lab}": ev.metric(lab, p, "adv", kind="heuristic"),
                    f"auc_heur_{lab}": ev.auc(lab, kind="heuristic"),
                }
        held.append(h)
    return paper, held, collect_plain(paper), collect(held)


def _gate(H: dict, labels, params) -> str:
    """The model leaks when some adversary of one of ``labels`` (plug-in or heuristic) does."""
    aucs = {k: v for k, v in H.items() for lab in labels if k in (f"auc_{lab}", f"auc_heur_{lab}")}
    return C.leak_gate(best_auc(aucs), params["min_auc"])


def _caption_estimates(params) -> str:
    return (
        "The paper's W_N on equal bins over the pooled range (their number from the sample size: about "
        f"{params['points_per_bin']} members per cell) beside its null baseline (hatched: two halves of the "
        "hold-out set, true advantage 0); powered: the KDE plug-in classifier cross-fitted over "
        f"{params['folds']} folds, scored as TPR − FPR on left-out points. Bars: mean over runs ± sd, dots: "
        "runs; right: the differences the claims are about with the Student-t interval over runs that "
        "decides them."
    )


# ----------------------------------------------------------------------------- Figure 1b


def fig1b(params, inputs) -> FigureResult:
    """Figure 1b: membership advantage against the skin-lesion JS-GAN, discriminator logit against nearest-neighbour distance."""
    qs = load(inputs["queries"])
    rng = rng_for(params, "fig1b")
    n_syn = int(params["n_synthetic"])
    queries = {"D": ("d", None), "NN": ("nn", _nn_column(qs, n_syn))}
    paper, held, P, H = _paper_and_heldout(qs, queries, params, rng)
    d = Stat.diff([h["D"] for h in held], [h["NN"] for h in held])
    groups = {"D": "D(z)\n(model access)", "NN": f"NN distance, n = {n_syn}\n(data access)"}
    rows = []
    for lab, g in groups.items():
        rows += stat_rows(W_N, g, P[lab], bins=int(P[f"{lab}_bins"].values[0]))
        rows += stat_rows(NULL, g, P[f"{lab}_null"]) + stat_rows(
            OPT, g, H[lab], auc=H[f"auc_{lab}"].mean
        )
    crow = [claim_row("D − NN", d, "held-out advantage difference")]
    df = pd.DataFrame(rows + crow)
    fig, ax, axc = figure_with_claims(width_claims=2.6)
    bars(ax, df, list(groups.values()), [W_N, NULL, OPT], hatch=(NULL,))
    advantage_axis(ax, df[df.panel == "estimates"], ADV)
    ax.set_title("Skin-lesion JS-GAN: model vs data access")
    legend_below(fig, ax)
    claim_panel(axc, crow, lines=[params["margin"]])
    axc.set_xlabel("advantage difference")
    claim = C.fig1b_claim(
        d,
        H,
        P,
        gate=_gate(H, groups, params),
        margin=params["margin"],
        sources=_sources(qs),
    )
    return FigureResult(
        data=df,
        fig=fig,
        claims=[claim],
        data_sources=_sources(qs),
        seeds={"experiment2": params["seed"]},
        caption=(
            f"Figure 1b. Membership advantage (p = 0.5) against a JS-GAN trained on {_model_words(qs)}: "
            f"the discriminator logit D(z) (Eq. 3) vs the L2 distance to the nearest of {n_syn} synthetic "
            "images (Eq. 2). " + _caption_estimates(params)
        ),
        extra=model_extras(qs, P, H),
    )


# ----------------------------------------------------------------------------- Figure 1c


def fig1c(params, inputs) -> FigureResult:
    """Figure 1c: optimal against heuristic adversaries on the skin-lesion JS-GAN."""
    qs = load(inputs["queries"])
    rng = rng_for(params, "fig1c")
    n_syn = int(params["n_synthetic"])
    queries = {"D": ("d", None), "NN": ("nn", _nn_column(qs, n_syn))}
    _, held, _, H = _paper_and_heldout(qs, queries, params, rng, heuristics=("D", "NN"))
    groups = {"D": "D(z): Hayes et al.", "NN": f"NN distance (n = {n_syn}):\nHilprecht et al."}
    rows, crow, claims = [], [], []
    for lab, g in groups.items():
        # the gate of each claim is its own query's: the NN claim must not pass through D's signal
        gate = _gate(H, [lab], params)
        rows += stat_rows(OPT, g, H[lab], auc=H[f"auc_{lab}"].mean)
        rows += stat_rows(HEUR, g, H[f"heur_{lab}"], auc=H[f"auc_heur_{lab}"].mean)
        d = Stat.diff([h[lab] for h in held], [h[f"heur_{lab}"] for h in held])
        crow.append(claim_row(f"optimal − heuristic\n({lab})", d, "held-out advantage difference"))
        claims.append(
            C.fig1c_claim(lab, g, d, H, gate=gate, margin=params["margin"], sources=_sources(qs))
        )
    df = pd.DataFrame(rows + crow)
    fig, ax, axc = figure_with_claims(width_claims=2.8)
    bars(ax, df, list(groups.values()), [OPT, HEUR])
    advantage_axis(ax, df[df.panel == "estimates"], "held-out advantage TPR − FPR (p = 0.5)")
    ax.set_title("Skin-lesion JS-GAN: optimal vs heuristic")
    legend_below(fig, ax)
    claim_panel(axc, crow, lines=[-params["margin"]])
    axc.set_xlabel("advantage difference")
    return FigureResult(
        data=df,
        fig=fig,
        claims=claims,
        data_sources=_sources(qs),
        seeds={"experiment2": params["seed"]},
        caption=(
            "Figure 1c. Optimal vs heuristic membership inference against the skin-lesion JS-GAN of Figure 1b "
            f"({_model_words(qs)}), both held out: over {params['folds']} folds, the optimal adversary "
            "thresholds a KDE plug-in η̂ at 1/2, the heuristics predict the top half of D(z) (Hayes et al.) "
            "or the smallest half of NN distances (Hilprecht et al.) as members, each fitted on the other "
            "folds and scored on the left-out one as TPR − FPR. Bars: mean over runs ± sd, dots: runs; "
            "right: optimal − heuristic with the t interval that decides 'at least' (within the margin, "
            "dashed)."
        ),
        extra={
            "threads": threads(model=qs),
            "heldout_estimates": {k: s.values for k, s in H.items()},
            "model_record": qs.record,
        },
    )


# ----------------------------------------------------------------------------- Figure 2b


def fig2b(params, inputs) -> FigureResult:
    """Figure 2b: the discriminator, the nearest-neighbour distance and their hybrid as queries of the skin-lesion JS-GAN."""
    qs = load(inputs["queries"])
    rng = rng_for(params, "fig2b")
    n_syn = int(params["n_synthetic"])
    col = _nn_column(qs, n_syn)
    # the hybrid (D, NN) of Eq. 4 as one 2-d query: both saved queries side by side
    hybrid = np.concatenate([qs.values["d"], qs.values["nn"][:, :, col : col + 1]], axis=2)
    qs = type(qs)(qs.member, {**qs.values, "hybrid": hybrid}, qs.arrays, qs.record)
    queries = {"D": ("d", None), "NN": ("nn", col), "hybrid": ("hybrid", None)}
    paper, held, P, H = _paper_and_heldout(qs, queries, params, rng, paper_bins=("hybrid",))
    diffs = {
        f"hybrid − {k}": Stat.diff([h["hybrid"] for h in held], [h[k] for h in held])
        for k in ("D", "NN")
    }
    groups = {"D": "D(z)", "NN": f"NN distance\n(n = {n_syn})", "hybrid": "hybrid\n(D, NN)"}
    w_p, n_p = f"W_N, paper's {params['bins']}² bins", f"null ({params['bins']}² bins)"
    rows = []
    for lab, g in groups.items():
        rows += stat_rows(W_N, g, P[lab], bins=int(P[f"{lab}_bins"].values[0]))
        rows += stat_rows(NULL, g, P[f"{lab}_null"])
        if lab == "hybrid":
            rows += stat_rows(w_p, g, P["hybrid_paper"]) + stat_rows(n_p, g, P["hybrid_paper_null"])
        rows += stat_rows(OPT, g, H[lab], auc=H[f"auc_{lab}"].mean)
    crow = [claim_row(k, s, "held-out advantage difference") for k, s in diffs.items()]
    df = pd.DataFrame(rows + crow)
    fig, ax, axc = figure_with_claims(width_main=5.8, width_claims=2.8)
    bars(ax, df, list(groups.values()), [W_N, NULL, w_p, n_p, OPT], hatch=(NULL, n_p))
    advantage_axis(ax, df[df.panel == "estimates"], ADV)
    gan = {
        "jsgan": "JS-GAN (as the text says)",
        "wgangp": "WGAN-GP (as the caption says, erratum E7)",
    }[params["gan"]]
    ax.set_title(f"Skin-lesion {gan.split(' ')[0]}: 1-d vs 2-d hybrid query")
    legend_below(fig, ax)
    claim_panel(axc, crow)
    axc.set_xlabel("advantage difference")
    claim = C.fig2b_claim(
        diffs,
        H,
        P,
        gate=_gate(H, groups, params),
        bins=params["bins"],
        sources=_sources(qs),
    )
    return FigureResult(
        data=df,
        fig=fig,
        claims=[claim],
        data_sources=_sources(qs),
        seeds={"experiment2": params["seed"]},
        caption=(
            f"Figure 2b. 1-d vs 2-d queries against a {gan} trained on {_model_words(qs)}: D(z), the distance "
            f"to the nearest of {n_syn} synthetic images, and the hybrid (D(z), distance) of Eq. 4. For the "
            f"hybrid also W_N with the paper's {params['bins']}² bins beside its null: on a few hundred points "
            "nearly every point has its own cell, so that estimate is mostly bias. "
            + _caption_estimates(params)
        ),
        extra=model_extras(qs, P, H, gan=params["gan"]),
    )


# ----------------------------------------------------------------------------- Figure 4


def _risks(qs, run: int, params, rng) -> dict:
    """Per training image of one run: the paper's AdvI (Theorem 2, mean over Experiment-2 draws, with
    its Clopper–Pearson interval) and the held-out AdvI of the cross-fitted KDE plug-in; the
    bootstrap of the held-out group means; the paper's estimator on hold-out halves (noise floor)."""
    p = params["prior_prob"]
    a, b = qs.split("d", run)
    advi, lo, hi, null = np.zeros(len(a)), np.zeros(len(a)), np.zeros(len(a)), []
    for _ in range(params["trials"]):
        i, o = mace.experiment2(len(a), len(b), p, rng, n_max=len(b))
        nb = mace.bins_for(
            len(i), 1, max_bins=params["bins"], points_per_bin=params.get("points_per_bin")
        )
        r = mace.individual_risk(a[i], b[o], a, p, confidence=params["confidence"], bins=nb)
        advi, lo, hi = advi + r["advi"], lo + r["lo"], hi + r["hi"]
        perm = rng.permutation(len(b))
        h1, h2 = b[perm[: len(i)]], b[perm[len(i) : len(i) + len(o)]]
        null.append(
            float(
                mace.individual_risk(h1, h2, h1, p, confidence=params["confidence"], bins=nb)[
                    "advi"
                ].mean()
            )
        )
    t = params["trials"]
    ev = evaluate({"D": (a, b)}, params, rng)
    held, _ = crossfit.individual_risk(ev.adversaries[("D", "plugin")])
    corrupted = qs.arrays["corrupted"][run][qs.member[run]][ev.idx_in]
    w = ev.boot.w_in

    def group(mask):
        draws = (w[:, mask] * held[mask]).sum(1) / w[:, mask].sum(1)
        return float(held[mask].mean()), draws

    return {
        "advi": advi / t,
        "lo": lo / t,
        "hi": hi / t,
        "null": float(np.mean(null)),
        "bins": nb,
        "N": len(i) + len(o),
        "corrupted_all": qs.arrays["corrupted"][run][qs.member[run]],
        "held": held,
        "held_idx": ev.idx_in,
        "corrupted": group(corrupted),
        "clean": group(~corrupted),
        "auc": ev.auc("D"),
    }


def fig4a(params, inputs) -> FigureResult:
    """Figure 4a: individual membership risk of corrupted (white-box) and clean training images."""
    qs = load(inputs["queries"])
    rng = rng_for(params, "fig4")
    k = int(params["examples"])
    r = _risks(qs, 0, params, rng)
    held = np.full(len(r["advi"]), np.nan)
    held[r["held_idx"]] = r["held"]
    idx = np.asarray(qs.arrays["train_idx"])
    # the first k corrupted and the first k clean training images of run 0 by index: chosen
    # before any risk is seen, so the examples are not picked for their risk
    cm = r["corrupted_all"]
    picks = [("corrupted", j) for j in np.flatnonzero(cm)[:k]] + [
        ("clean", j) for j in np.flatnonzero(~cm)[:k]
    ]
    fig, axes = plotting.subplots(2, k, width=1.5, height=1.85)
    axes = np.atleast_2d(axes)
    for ax in axes.flat:
        ax.axis("off")
    col, rows = {"corrupted": 0, "clean": 0}, []
    for grp, j in picks:
        ax = axes[0 if grp == "corrupted" else 1, col[grp]]
        col[grp] += 1
        ax.imshow(qs.arrays["train_images"][j], interpolation="nearest")
        ax.set_title(
            f"AdvI {r['advi'][j]:.2f} [{r['lo'][j]:.2f}, {r['hi'][j]:.2f}]\nheld out {held[j]:.2f}",
            fontsize=7,
        )
        rows.append(
            {
                "series": grp,
                "x": int(idx[j]),
                "y": float(r["advi"][j]),
                "lo": float(r["lo"][j]),
                "hi": float(r["hi"][j]),
                "heldout_advi": float(held[j]),
                "bins": r["bins"],
                "N": r["N"],
                "run": "0",
            }
        )
    fig.suptitle("Corrupted (top) and clean (bottom) training images, run 0", fontsize=9)
    rec = qs.record
    return FigureResult(
        data=pd.DataFrame(rows),
        fig=fig,
        claims=[],
        data_sources=_sources(qs),
        seeds={"experiment2": params["seed"]},
        caption=(
            f"Figure 4a. The first {k} corrupted (white {(rec.get('corruption') or {}).get('box', '?')}-pixel box "
            f"at the centre) and the first {k} clean training images of the first run of the JS-GAN of Figure 4 "
            f"({_model_words(qs)}), with the paper's individual privacy risk AdvI (Theorem 2: the discriminator "
            f"logit in {r['bins']} bins chosen from N = {r['N']}, p = {params['prior_prob']:g}, mean over "
            f"{params['trials']} Experiment-2 draws) and its {params['confidence']:.0%} Clopper–Pearson interval, "
            "and the held-out AdvI = |tanh(log r̂/q̂ / 2)| of the cross-fitted KDE plug-in. Examples are chosen "
            f"by index, not by risk. The paper's estimator on two hold-out halves has mean AdvI {r['null']:.2f} "
            "(its noise floor)."
        ),
        extra={"threads": threads(model=qs), "null_mean_advi": r["null"], "model_record": rec},
    )


def fig4b(params, inputs) -> FigureResult:
    """Figure 4b: mean individual risk of corrupted against clean training images."""
    qs = load(inputs["queries"])
    rng = rng_for(params, "fig4")
    runs = [_risks(qs, k, params, rng) for k in range(qs.runs)]
    paper = [
        {
            "corrupted": float(r["advi"][r["corrupted_all"]].mean()),
            "clean": float(r["advi"][~r["corrupted_all"]].mean()),
            "null": r["null"],
        }
        for r in runs
    ]
    P = collect_plain(paper)
    H = collect([{"corrupted": r["corrupted"], "clean": r["clean"], "auc": r["auc"]} for r in runs])
    d = Stat.diff([r["corrupted"] for r in runs], [r["clean"] for r in runs])
    pap, hel = "paper's AdvI (Theorem 2)", "held-out AdvI (cross-fitted)"
    groups = {"corrupted": "corrupted\ntraining images", "clean": "clean\ntraining images"}
    rows = []
    for lab, g in groups.items():
        rows += stat_rows(pap, g, P[lab]) + stat_rows(hel, g, H[lab])
    rows += stat_rows(NULL, "hold-out halves\n(true AdvI 0)", P["null"])
    crow = [claim_row("corrupted − clean", d, "held-out mean AdvI difference")]
    df = pd.DataFrame(rows + crow)
    fig, ax, axc = figure_with_claims(width_claims=2.6)
    bars(
        ax,
        df,
        [*groups.values(), "hold-out halves\n(true AdvI 0)"],
        [pap, hel, NULL],
        hatch=(NULL,),
    )
    advantage_axis(ax, df[df.panel == "estimates"], "mean individual risk AdvI (p = 0.5)")
    ax.set_title("Skin-lesion JS-GAN, 10 % corrupted training images")
    legend_below(fig, ax)
    claim_panel(axc, crow)
    axc.set_xlabel("difference of mean AdvI")
    gate = C.leak_gate(H["auc"], params["min_auc"])
    n_c = int(runs[0]["corrupted_all"].sum())
    claim = C.fig4b_claim(d, H, P, gate=gate, sources=_sources(qs))
    return FigureResult(
        data=df,
        fig=fig,
        claims=[claim],
        data_sources=_sources(qs),
        seeds={"experiment2": params["seed"]},
        caption=(
            f"Figure 4b. Mean individual privacy risk of the {n_c} corrupted and the other training images of a "
            f"JS-GAN trained with a centred white box on 10 % of its training images ({_model_words(qs)}; "
            "hold-out images untouched): the paper's AdvI (Theorem 2, as in Figure 4a) and the held-out AdvI of "
            f"the cross-fitted KDE plug-in ({params['folds']} folds). Hatched: the paper's estimator on two "
            "halves of the hold-out set, whose true risk is 0 (its noise floor). Bars: mean over runs ± sd, dots: "
            "runs; right: corrupted − clean with the t interval that decides the claim (within each run the "
            "group means are bootstrapped)."
        ),
        extra=model_extras(qs, P, H),
    )


# ----------------------------------------------------------------------------- Figure 7


def fig7(params, inputs) -> FigureResult:
    """Figure 7: membership advantage of the nearest-neighbour query as the synthetic set grows."""
    qs = load(inputs["queries"])
    rng = rng_for(params, "fig7")
    sizes = [int(s) for s in qs.record["nn_sizes"]]
    queries = {f"n={n}": ("nn", k) for k, n in enumerate(sizes)}
    paper, held, P, H = _paper_and_heldout(qs, queries, params, rng)
    labs = list(queries)
    # The directional statistic the claim is about: P(a member's NN distance < a hold-out
    # point's), no direction fitted (Hilprecht et al.'s "closer means member"), on the same
    # bootstrap resamples at every size (paired), every run.
    direc = []
    for r in range(qs.runs):
        a0, b0 = qs.split("nn", r, 0)
        boot = C.resamples(len(a0), len(b0), rng, params["bootstrap"])
        direc.append([C.directional_auc(*qs.split("nn", r, k), boot) for k in range(len(sizes))])
    D = {lab: Stat.of([run[j] for run in direc]) for j, lab in enumerate(labs)}
    slope = C.slopes(direc, sizes)
    rows = []
    for lab, n in zip(labs, sizes, strict=True):
        rows += stat_rows(W_N, n, P[lab], bins=int(P[f"{lab}_bins"].values[0]))
        rows += stat_rows(NULL, n, P[f"{lab}_null"])
        rows += stat_rows(OPT, n, H[lab], auc=H[f"auc_{lab}"].mean)
        rows += stat_rows(DIRECTIONAL, n, D[lab], panel="directional")
    crow = [claim_row("directional AUC\nslope per decade", slope, "slope on log10 n")]
    df = pd.DataFrame(rows + crow)
    fig, ax, axc = figure_with_claims(width_main=4.8, width_claims=3.0)
    for k, name in enumerate((W_N, NULL, OPT)):
        sub = df[(df.series == name) & (df.run == "mean")]
        ax.errorbar(
            sub.x,
            sub.y,
            yerr=[sub.y - sub.lo, sub.hi - sub.y],
            color=plotting.color(k),
            linestyle=plotting.linestyle(k),
            marker=plotting.marker(k),
            capsize=3,
            label=name,
        )
        dots = df[(df.series == name) & (df.run != "mean")]
        ax.plot(dots.x.astype(float), dots.y, ".", color=plotting.color(k), ms=3, alpha=0.6)
    # the directional AUC − ½ on the same axis: 0 is "no signal", as for an advantage
    sub = df[(df.series == DIRECTIONAL) & (df.run == "mean")]
    ax.errorbar(
        sub.x,
        sub.y - 0.5,
        yerr=[sub.y - sub.lo, sub.hi - sub.y],
        color=plotting.color(3),
        linestyle=plotting.linestyle(3),
        marker=plotting.marker(3),
        capsize=3,
        label=f"{DIRECTIONAL} − ½",
    )
    ax.set_xscale("log")
    plotting.plain_log_ticks(ax, "x")
    ax.set(xlabel="synthetic-set size n", title="Skin-lesion JS-GAN: NN-distance query vs n")
    advantage_axis(ax, df[df.panel == "estimates"], ADV)
    low = float((sub.lo - 0.5).min()) - 0.03
    if low < ax.get_ylim()[0]:
        ax.set_ylim(low, ax.get_ylim()[1])
    legend_below(fig, ax)
    claim_panel(axc, crow)
    axc.set_xlabel("slope of the directional AUC per decade of n")
    claim = C.fig7_claim(slope, D, H, sizes, sources=_sources(qs))
    return FigureResult(
        data=df,
        fig=fig,
        claims=[claim],
        data_sources=_sources(qs),
        seeds={"experiment2": params["seed"]},
        caption=(
            "Figure 7. Membership advantage of the nearest-neighbour query (Eq. 2, L2 in pixel space) against "
            f"the skin-lesion JS-GAN ({_model_words(qs)}) as the released synthetic set grows from {sizes[0]} "
            f"to {sizes[-1]} images (the first n of one generated sequence, so the sets are nested). "
            + _caption_estimates(params)
            + " Also drawn, minus ½: the directional AUC, P(a member's distance < a hold-out image's), "
            "with no fitted direction (a fitted classifier's AUC is at least ½ whatever the signal); the "
            "claim is decided on its slope per decade of n, run by run (right)."
        ),
        extra=model_extras(qs, P, H, directional_auc={k: s.values for k, s in D.items()}),
    )


# ----------------------------------------------------------------------------- Figure 8


def fig8(params, inputs) -> FigureResult:
    """Figure 8: white-box against black-box queries of the skin-lesion classifier."""
    qs = load(inputs["queries"])
    rng = rng_for(params, "fig8")
    queries = {"white": ("white", None), "black": ("black", None)}
    paper, held, P, H = _paper_and_heldout(qs, queries, params, rng, paper_bins=("white",))
    d = Stat.diff([h["white"] for h in held], [h["black"] for h in held])
    groups = {"white": "white-box\n(2-d penultimate)", "black": "black-box\n(output)"}
    w_p, n_p = f"W_N, paper's {params['bins']}² bins", f"null ({params['bins']}² bins)"
    rows = []
    for lab, g in groups.items():
        rows += stat_rows(W_N, g, P[lab], bins=int(P[f"{lab}_bins"].values[0]))
        rows += stat_rows(NULL, g, P[f"{lab}_null"])
        if lab == "white":
            rows += stat_rows(w_p, g, P["white_paper"]) + stat_rows(n_p, g, P["white_paper_null"])
        rows += stat_rows(OPT, g, H[lab], auc=H[f"auc_{lab}"].mean)
    crow = [claim_row("white − black", d, "held-out advantage difference")]
    df = pd.DataFrame(rows + crow)
    fig, ax, axc = figure_with_claims(width_claims=2.6)
    bars(ax, df, list(groups.values()), [W_N, NULL, w_p, n_p, OPT], hatch=(NULL, n_p))
    advantage_axis(ax, df[df.panel == "estimates"], ADV)
    ax.set_title("Skin-lesion classifier (E.3.3)")
    legend_below(fig, ax)
    claim_panel(axc, crow)
    axc.set_xlabel("advantage difference")
    acc = [r.get("accuracy", {}) for r in qs.record.get("runs", [])]
    claim = C.fig8_claim(d, H, gate=_gate(H, groups, params), sources=_sources(qs))
    tr = np.mean([a.get("train", np.nan) for a in acc]) if acc else np.nan
    ho = np.mean([a.get("holdout", np.nan) for a in acc]) if acc else np.nan
    return FigureResult(
        data=df,
        fig=fig,
        claims=[claim],
        data_sources=_sources(qs),
        seeds={"experiment2": params["seed"]},
        caption=(
            "Figure 8. Membership advantage against the E.3.3 toy classifier (malignant vs benign) trained on "
            f"{_model_words(qs)} (accuracy {tr:.2f} on them, {ho:.2f} on the hold-out set): the white-box query is "
            "the 2-d Dense(2) output (LeakyReLU 0.2 in place of the paper's relu, whose units died), the "
            f"black-box query the output logit. For the white-box query also W_N with the paper's {params['bins']}² "
            "bins beside its null. " + _caption_estimates(params)
        ),
        extra=model_extras(qs, P, H),
    )
