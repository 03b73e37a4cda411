"""Swanberg et al. (v1), Figure 3: reconstructing the last digit of a canary from a DP-SGD n-gram LM.

Paper specification: §3 "Figure 3", §4(a), §2.11 item 7.

Experiment (one canary per model, n = k = 1): a 9-digit canary whose first 8 digits are a fixed
prefix and whose last digit is drawn from a 10-value prior (uniform, password = Zipf(1.1) over 10
ranks, PII = top-10 pooled name priors, see :mod:`privrisk.priors.scaled`; digit d has the d-th
prior mass). A character n-gram LM (:mod:`privrisk.models.ngram`) starts from the prior and is
trained lazily on the canary with DP-SGD (one example, full batch, clip C, noise σC, T steps,
σ calibrated to (ε, δ) by GDP under replace-one adjacency). The attack outputs the most probable
9th digit. Thousands of models per (ε, prior) are trained as one batched computation
(:func:`privrisk.training.dpsgd.batched_dpsgd`).

Hyperparameters (C, lr, T) are chosen per (ε, prior) by a grid search for the lowest mean canary
loss on separately seeded tuning models (the step, :mod:`.steps_ngram`, which writes the npz
this figure reads). The claims are judged in :mod:`.claims_ngram`.

Bounds: ours is Corollary 3.4 / Theorem 3.3 for n = 1 evaluated at the attack's guess, averaged
over runs: mean_r [β(ε, p(z_r)) + δ] with β = e^ε/(e^ε − 1 + 1/p); Theorem 3.5 at the heaviest
digit (β(ε, max p) + δ, guess-independent) is drawn too. MMC with f = G_μ for the uniform prior.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import accounting
from ...bounds import reconstruction as rb
from ...contract import plotting
from ...contract.figure import FigureResult
from ...estimators.intervals import clopper_pearson
from .claims_ngram import fig3_claims

PRIOR_LABELS = {"uniform": "Uniform", "password": "Password", "pii": "PII"}


def summarise(npz_path, delta: float, confidence: float = 0.95) -> pd.DataFrame:
    """One row per (ε, prior): accuracy with Clopper–Pearson interval, bounds, baseline."""
    z = np.load(npz_path, allow_pickle=False)
    eps, names, pm = z["epsilons"], [str(s) for s in z["priors"]], z["prior_mats"]
    rows = []
    for c in range(len(z["cond_eps"])):
        e, pi = float(eps[z["cond_eps"][c]]), int(z["cond_prior"][c])
        sel = z["run_cond"] == c
        guess, tgt = z["guess"][sel], z["target"][sel]
        n, k = int(sel.sum()), int((guess == tgt).sum())
        # the baseline is the max-prior guess (the most probable digit): paired on the same
        # canaries, except under the uniform prior, where every guess succeeds with probability
        # exactly 1/K: the exact baseline there (the guess only adds noise to the difference)
        mode = int(np.argmax(pm[int(z["cond_prior"][c])]))
        exact = names[pi] == "uniform"
        ok = (guess == tgt).astype(float)
        diff = ok - (float(pm[pi].max()) if exact else (tgt == mode).astype(float))
        lo, hi = clopper_pearson(k, n, confidence=confidence)
        prior = pm[pi]
        ours = (
            float(np.mean(rb.beta_approx(epsilon=e, delta=delta, p=prior[guess])))
            if not math.isinf(e)
            else 1.0
        )
        heavy = (
            float(rb.beta_approx(epsilon=e, delta=delta, p=prior.max()))
            if not math.isinf(e)
            else 1.0
        )
        mu = accounting.gdp_mu(epsilon=e, delta=delta)
        rows.append(
            {
                "epsilon": e,
                "prior": names[pi],
                "n": n,
                "correct": k,
                "accuracy": k / n,
                "lo": float(lo),
                "hi": float(hi),
                "bound_cor34_at_guess": ours,
                "bound_thm35_heaviest": heavy,
                "baseline": float(prior.max()),
                "maxprior_correct": float(np.mean(tgt == mode)),
                "gain": float(diff.mean()),
                # every model's difference the same: exactly 0 (not the std's rounding residue)
                "gain_se": (0.0 if np.ptp(diff) == 0 else float(diff.std(ddof=1) / math.sqrt(n)))
                if n > 1
                else math.inf,
                "gain_baseline": "exact" if exact else "paired",
                "mmc_gdp": rb.mmc_gdp(mu=mu, K=len(prior)) if names[pi] == "uniform" else np.nan,
                "mu": mu,
                "clip": float(z["clip"][c]),
                "lr": float(z["lr"][c]),
                "steps": int(z["steps"][c]),
                "noise_multiplier": float(z["noise_multiplier"][c]),
                "mean_canary_loss": float(np.mean(z["loss"][sel])),
                "tune_gap": float(z["tune_gap"][c]) if "tune_gap" in z else float("nan"),
                "tune_gap_se": float(z["tune_gap_se"][c]) if "tune_gap_se" in z else float("nan"),
                "tune_separated": bool(z["tune_separated"][c]) if "tune_separated" in z else False,
            }
        )
    return pd.DataFrame(rows)


def _xpos(eps: np.ndarray):
    finite = eps[np.isfinite(eps)]
    x_inf = (finite.max() if finite.size else 1.0) * 1.15 + 0.5
    return np.where(np.isfinite(eps), eps, x_inf), x_inf


def _pii_note(top: float, top_mass: float) -> str:
    """What the PII panel can show (said on the figure): the configured choice
    ``ngram_train.pii_top_mass`` (null: the stand-in prior as built)."""
    if math.isfinite(top_mass):
        return (
            f"PII: offline stand-in prior sharpened\nto top mass {top:.2f} (pii_top_mass),\n"
            "a model of the paper's skew"
        )
    return (
        f"offline stand-in PII prior:\ntop mass {top:.3f}, nearly uniform;\nthe paper's 52.5 % at "
        "ε = 1\nimplies ≈ 0.5 (Enron + GPT-2):\nthis panel cannot show\nthe paper's PII effect"
    )


def fig3(params, inputs) -> FigureResult:
    """Figure 3: attack accuracy against our bound, MMC and the prior baseline for a canary digit of DP-SGD n-gram LMs."""
    delta, level = params["delta"], params["confidence"]
    df = summarise(inputs["npz"], delta, confidence=level)
    z = np.load(inputs["npz"], allow_pickle=False)
    pii_src = str(z["pii_source"])
    top_mass = float(z["pii_top_mass"]) if "pii_top_mass" in z else math.nan
    names = list(dict.fromkeys(df["prior"]))
    fig, axes = plotting.subplots(1, len(names), width=3.5, height=3.2, sharey=True, squeeze=False)
    c_att, c_ours, c_mmc = plotting.color(0), plotting.color(1), plotting.color(3)
    frames = []
    for j, name in enumerate(names):
        ax = axes[0, j]
        d = df[df["prior"] == name].sort_values("epsilon")
        x, x_inf = _xpos(d["epsilon"].to_numpy())
        fin = np.isfinite(d["epsilon"].to_numpy())
        ax.errorbar(
            x,
            d["accuracy"],
            yerr=[d["accuracy"] - d["lo"], d["hi"] - d["accuracy"]],
            fmt="o",
            color=c_att,
            capsize=2.5,
            markersize=4,
            label=f"attack accuracy ({level:.0%} Clopper–Pearson)",
        )
        # lines over finite ε only; the ε = ∞ column gets markers (bounds are 1 there)
        ax.plot(
            x[fin],
            d["bound_cor34_at_guess"][fin],
            color=c_ours,
            label="ours (Cor. 3.4 at the attack's guess)",
        )
        ax.plot(
            x[fin],
            d["bound_thm35_heaviest"][fin],
            color=c_ours,
            linestyle="-.",
            linewidth=1.1,
            label="ours (Thm 3.5 at the most probable digit)",
        )
        ax.plot(
            x[~fin],
            d["bound_cor34_at_guess"][~fin],
            linestyle="none",
            marker="_",
            markersize=12,
            color=c_ours,
        )
        if name == "uniform":
            ax.plot(
                x[fin],
                d["mmc_gdp"][fin],
                color=c_mmc,
                linestyle="--",
                label="MMC with f = G_μ (uniform only)",
            )
        ax.axhline(
            float(d["baseline"].iloc[0]),
            label="baseline: max prior (no mechanism)",
            **plotting.BASELINE,
        )
        if (~fin).any():
            ticks = [t for t in ax.get_xticks() if 0 <= t < x_inf - 0.4]
            ax.set_xticks(ticks + [x_inf], [f"{t:g}" for t in ticks] + ["∞"])
            ax.axvspan(x[fin].max() + 0.2 if fin.any() else 0, x_inf - 0.6, color="0.96", zorder=0)
        ax.set(
            xlabel=f"privacy parameter ε (δ = {delta:g})",
            title=f"{PRIOR_LABELS.get(name, name)} prior (max prior {float(d['baseline'].iloc[0]):.3f})",
            ylim=(0, 1.03),
        )
        if j == 0:
            ax.set_ylabel("posterior success probability\n(attack accuracy)")
        if name == "pii" and pii_src == "standin":
            ax.text(  # right of the rising bound, between it and the attack's points
                0.98,
                0.6,
                _pii_note(float(d["baseline"].iloc[0]), top_mass),
                transform=ax.transAxes,
                fontsize=6.0,
                va="center",
                ha="right",
                wrap=True,
                bbox={"facecolor": "white", "edgecolor": "0.7", "alpha": 0.9},
            )
        for series, y, extra in (
            ("attack", d["accuracy"], {"lo": d["lo"], "hi": d["hi"]}),
            ("ours_cor34_at_guess", d["bound_cor34_at_guess"], {}),
            ("ours_thm35_heaviest", d["bound_thm35_heaviest"], {}),
            ("baseline", d["baseline"], {}),
            ("mmc_gdp", d["mmc_gdp"], {}),
        ):
            if series == "mmc_gdp" and name != "uniform":
                continue
            frames.append(
                pd.DataFrame(
                    {
                        "series": f"{name} {series}",
                        "x": d["epsilon"].to_numpy(),
                        "y": np.asarray(y, float),
                        "prior": name,
                        **extra,
                    }
                )
            )
    handles, labels = axes[
        0, names.index("uniform") if "uniform" in names else 0
    ].get_legend_handles_labels()
    # above the panels: the stand-in footnote takes the bottom edge
    fig.legend(handles, labels, loc="outside upper center", ncol=3, fontsize=7.5)
    data = pd.concat(frames, ignore_index=True)
    claims = fig3_claims(df, params, pii_src)
    hp = df[
        [
            "epsilon",
            "prior",
            "clip",
            "lr",
            "steps",
            "noise_multiplier",
            "mu",
            "mean_canary_loss",
            "tune_gap",
            "tune_gap_se",
            "tune_separated",
            "gain",
            "gain_se",
        ]
    ]
    return FigureResult(
        data=data,
        fig=fig,
        claims=claims,
        caption=(
            "Figure 3. Reconstructing the last digit of a 9-digit canary from a character n-gram language "
            f"model trained lazily with DP-SGD on that canary alone (δ = {delta:g}; {str(z['adjacency']).replace('_', '-')} adjacency, "
            "noise calibrated by Gaussian-DP composition). The digit is drawn from a 10-value uniform, "
            "password (Zipf 1.1) or PII (top-10 name priors) distribution; the model starts from the prior and "
            f"the attack outputs its most probable digit. Markers: attack accuracy over {int(df['n'].iloc[0])} "
            f"trained models per point with {level:.0%} Clopper–Pearson intervals; solid: our bound (Corollary "
            "3.4 at the attack's guesses, averaged over runs); dash-dot: Theorem 3.5 at the most probable digit; "
            "dashed (uniform only): MMC with f = G_μ; dotted gray: best guess without the model (max prior). "
            "Hyperparameters (clip, learning rate, steps) tuned per point for the lowest canary loss with common "
            f"random numbers ({int(z['tune_models']) if 'tune_models' in z else 'n/a'} models per grid point; "
            f"the chosen setting beats the runner-up by more than 2 s.e. at {int(df['tune_separated'].sum())} of "
            f"{len(df)} points). Claims compare the attack with the max-prior guess on the same canaries "
            "(paired). "
            + (
                f"PII panel: the offline stand-in prior sharpened to top mass {top_mass:g} "
                "(ngram_train.pii_top_mass), a model of the skew the paper's numbers imply."
                if math.isfinite(top_mass)
                else "PII panel: the offline stand-in prior as built (ngram_train.pii_top_mass: null); "
                "it is nearly uniform, so it cannot show the paper's PII effect (Enron + GPT-2 imply a "
                "top mass ≈ 0.5)."
            )
        ),
        data_sources={
            "uniform_canary": "simulated",
            "password_zipf": "simulated",
            "pii_names": pii_src,
        },
        seeds={"seed": int(params["seed"])},
        extra={
            "per_point": hp.to_dict(orient="records"),
            "bound": "Corollary 3.4 / Theorem 3.3 (n = 1) at the attack's guess, mean over runs; "
            "Theorem 3.5 at the heaviest digit also drawn",
            "adjacency": str(z["adjacency"]),
            "calibration": "T full-batch steps, noise multiplier σ = Δ√T/μ with μ = gdp_mu(ε, δ) and Δ = 2 "
            "(replace-one) or 1 (add/remove); exact GDP composition (no subsampling)",
            "model": "character n-gram MLP (embedding, one tanh hidden layer, linear output); lazy training: "
            "only the output layer at the fixed prefix's features is trained, its bias initialised "
            "so the model starts at the prior",
            "tuning": "(C, lr, T) per (ε, prior) from the config grid, lowest mean canary loss over "
            "separately seeded tuning models with common random numbers across the grid (same "
            "canaries, same noise draws); margin over the runner-up and its paired s.e. per point "
            "in per_point (see the tuning CSV)",
            "prior_to_digit": "digit d carries the d-th largest prior mass (privrisk.priors.scaled_prior)",
            "priors": {n: z["prior_mats"][i].tolist() for i, n in enumerate(z["priors"])},
            "pii_prior_choice": (
                f"stand-in prior tempered to top mass {top_mass:g} (ngram_train.pii_top_mass)"
                if math.isfinite(top_mass)
                else "stand-in prior as built (ngram_train.pii_top_mass: null): PII rows are "
                "'standin' and the figure says the panel cannot show the paper's effect"
            ),
            "paired_baseline": "per model: attack right − the most probable digit right, same canary",
            "threads": {
                k[len("thread_") :]: (str(z[k]) if z[k].dtype.kind in "US" else int(z[k]))
                for k in z.files
                if k.startswith("thread_")
            },
        },
    )
