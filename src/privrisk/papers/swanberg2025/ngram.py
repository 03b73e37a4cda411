"""Swanberg et al. (v1), Figure 3: reconstructing the last digit of a canary from a DP-SGD n-gram LM.

Spec: ../shared/spec/swanberg2025.md §3 "Figure 3", §4(a), §2.11 item 7.

Experiment (one canary per model, n = k = 1): a 9-digit canary whose first 8 digits are a fixed
prefix and whose last digit is drawn from a 10-value prior (uniform, password = Zipf(1.1) over 10
ranks, PII = top-10 pooled name priors, see :mod:`privrisk.priors.scaled`; digit d has the d-th
prior mass). A character n-gram LM (:mod:`privrisk.models.ngram`) starts from the prior and is
trained lazily on the canary with DP-SGD (one example, full batch, clip C, noise σC, T steps,
σ calibrated to (ε, δ) by GDP under replace-one adjacency). The attack outputs the most probable
9th digit. Thousands of models per (ε, prior) are trained as one batched computation
(:func:`privrisk.training.dpsgd.batched_dpsgd`).

Hyperparameters (C, lr, T) are chosen per (ε, prior) by a grid search for the lowest mean canary
loss on separately seeded tuning models (the step, :mod:`.ngram_steps`, which writes the npz
this figure reads).

Bounds: ours is Corollary 3.4 / Theorem 3.3 for n = 1 evaluated at the attack's guess, averaged
over runs: mean_r [β(ε, p(z_r)) + δ] with β = e^ε/(e^ε − 1 + 1/p); Theorem 3.5 at the heaviest
digit (β(ε, max p) + δ, guess-independent) is drawn too. MMC with f = G_μ for the uniform prior.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import accounting, plotting
from ...bounds import reconstruction as rb
from ...claims import Claim, Ledger
from ...estimators.intervals import clopper_pearson
from ...figure import FigureResult
from .marginals import Z, judge_at_least

PAPER = "swanberg2025"
LEDGER = Ledger(PAPER)
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


def fig3(params, inputs) -> FigureResult:
    delta, level = params["delta"], params["confidence"]
    df = summarise(inputs["npz"], delta, confidence=level)
    z = np.load(inputs["npz"], allow_pickle=False)
    pii_src = str(z["pii_source"])
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
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=7.5)
    data = pd.concat(frames, ignore_index=True)
    claims = _claims(df, params, pii_src)
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
            f"{len(df)} points)."
        ),
        data_sources={
            "uniform_canary": "analytic",
            "password_zipf": "analytic",
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
        },
    )


def _at(df, prior, eps, col="accuracy"):
    d = df[(df["prior"] == prior) & np.isclose(df["epsilon"], eps)]
    return float(d[col].iloc[0]) if len(d) else float("nan")


def _claims(df, params, pii_src) -> list[Claim]:
    tol = params["claim_tolerance"]
    n_cells = len(df)
    # Bonferroni over the figure's points for "clearly below/above" statements
    lo_b, hi_b = clopper_pearson(
        df["correct"], df["n"], confidence=1 - (1 - params["confidence"]) / n_cells
    )
    top_pw = _at(df, "password", 1.0, "baseline")
    n_pw = _at(df, "password", 1.0, "n")
    acc_pw = _at(df, "password", 1.0)
    se_pw = math.sqrt(acc_pw * (1 - acc_pw) / n_pw) if n_pw > 0 else 0.0
    out = [
        LEDGER.numeric(
            figure="fig3",
            claim_id="fig3_password_eps1_is_prior_mass",
            claim="The 38.0 % password accuracy at ε = 1 equals the top mass of the 10-value Zipf(1.1) "
            "prior: guessing the most probable digit without the model; it tests the prior, not DP-SGD",
            paper_value=0.380,
            ours=top_pw,
            tolerance=0.01,
            note=f"top prior mass {top_pw:.4f}; our attack at ε = 1: {acc_pw:.3f} ± {se_pw:.3f} (s.e.), "
            f"attack − max prior {acc_pw - top_pw:+.3f}",
        ),
        LEDGER.numeric(
            figure="fig3",
            claim_id="fig3_password_eps1",
            claim="At ε = 1 the attack reconstructs the password digit 38.0 % of the time",
            paper_value=0.380,
            ours=acc_pw,
            tolerance=tol,
            se=se_pw,
            note=f"{_at(df, 'password', 1.0, 'n'):.0f} models; CP interval "
            f"[{_at(df, 'password', 1.0, 'lo'):.3f}, {_at(df, 'password', 1.0, 'hi'):.3f}]",
            note_if_differs="our lazy n-gram model, tuning grid and prior-to-digit scaling are our "
            "readings of unspecified details (spec §4(a))",
        ),
        LEDGER.numeric(
            figure="fig3",
            claim_id="fig3_pii_eps1",
            claim="At ε = 1 the attack reconstructs the PII digit 52.5 % of the time",
            paper_value=0.525,
            ours=_at(df, "pii", 1.0),
            tolerance=tol,
            data=pii_src,
            standin_note=f"PII prior from the offline stand-in (top prior {_at(df, 'pii', 1.0, 'baseline'):.3f}"
            "; the paper's implies ≈ 0.5)",
            note_if_differs="PII top prior differs from the paper's",
        ),
        LEDGER.numeric(
            figure="fig3",
            claim_id="fig3_uniform_baseline",
            claim="The random baseline for the uniform canary is 10 %",
            paper_value=0.10,
            ours=_at(df, "uniform", 1.0, "baseline"),
            tolerance=1e-9,
            derived=True,
            note="1/10 follows from the uniform prior over 10 digits (our own scaled prior)",
        ),
    ]
    out += _gain_claims(df, pii_src)
    gain_u = _at(df, "uniform", 10.0) - 0.1
    gain_p = _at(df, "pii", 10.0) - _at(df, "pii", 10.0, "baseline")
    lo_u = lo_b[(df["prior"] == "uniform").to_numpy() & np.isclose(df["epsilon"], 10.0)]
    out.append(
        LEDGER.qualitative(
            figure="fig3",
            claim_id="fig3_uniform_eps10_above",
            claim="At ε = 10 the attack is substantially above the baseline for the uniform canary",
            holds=bool(lo_u.size and lo_u[0] > 0.1 and gain_u >= 0.1),
            ours=f"accuracy − baseline = {gain_u:.3f} (Bonferroni CP lower {float(lo_u[0]) if lo_u.size else float('nan'):.3f})",
        )
    )
    holds_pii = bool(np.isfinite(gain_p) and gain_p < 0.5 * gain_u)
    standin_note = "stand-in PII prior; " if pii_src == "standin" else ""
    out.append(
        LEDGER.qualitative(
            figure="fig3",
            claim_id="fig3_pii_eps10_barely",
            claim="At ε = 10 the attack barely beats the random baseline for PII",
            holds=holds_pii,
            ours=f"PII gain over baseline {gain_p:.3f} vs uniform gain {gain_u:.3f}",
            data=pii_src,
            note=f"{standin_note}'barely' read as a gain under half the uniform gain"
            + ("" if holds_pii else "; PII gain is not small relative to uniform"),
        )
    )
    below = df.loc[hi_b < df["baseline"] - 1e-12, ["prior", "epsilon"]]
    out.append(
        LEDGER.qualitative(
            figure="fig3",
            claim_id="fig3_not_below_baseline",
            claim="Our attack mostly does not under-perform the random baseline",
            holds=len(below) <= max(1, n_cells // 10),
            ours=f"{len(below)} of {n_cells} points clearly below the baseline (Bonferroni CP upper < max prior)",
        )
    )
    above = df.loc[lo_b > df["bound_cor34_at_guess"] + 1e-12]
    out.append(
        LEDGER.qualitative(
            figure="fig3",
            claim_id="fig3_attack_below_bound",
            claim="The attack accuracy stays under our bound at every privacy level and prior",
            holds=len(above) == 0,
            ours=f"{len(above)} of {n_cells} points clearly above the bound",
        )
    )
    u = df[(df["prior"] == "uniform") & np.isfinite(df["epsilon"])]
    if len(u):
        tighter = bool(np.all(u["mmc_gdp"] <= u["bound_cor34_at_guess"] + 1e-9))
        gap_mmc = float(np.mean(np.abs(u["mmc_gdp"] - u["accuracy"])))
        gap_ours = float(np.mean(np.abs(u["bound_cor34_at_guess"] - u["accuracy"])))
        out.append(
            LEDGER.qualitative(
                figure="fig3",
                claim_id="fig3_mmc_tighter_uniform",
                claim="For the uniform canary the MMC (G_μ) bound fits the attack accuracies more tightly than ours",
                holds=tighter and gap_mmc < gap_ours,
                ours=f"mean |bound − accuracy|: MMC {gap_mmc:.3f}, ours {gap_ours:.3f}",
            )
        )
    return out


def _gain_claims(df, pii_src) -> list[Claim]:
    """Per (prior, ε): attack − max prior (the best guess without the model), judged on the
    accuracy with its binomial standard error; the tuning's separation goes in the note."""
    out = []
    for r in df.itertuples():
        se = math.sqrt(max(r.accuracy * (1 - r.accuracy), 1e-12) / r.n)
        gain = r.accuracy - r.baseline
        holds = judge_at_least(gain, se)
        sep = (
            f"tuning: chosen (C={r.clip:g}, lr={r.lr:g}, T={r.steps}) beats the runner-up by "
            f"{r.tune_gap:.4f} ± {r.tune_gap_se:.4f} in mean loss ({'separated' if r.tune_separated else 'not separated'}"
            " beyond 2 s.e.)"
            if np.isfinite(r.tune_gap)
            else ""
        )
        eps = "inf" if math.isinf(r.epsilon) else f"{r.epsilon:g}"
        note = {
            True: "",
            False: "the attack falls below the best guess without the model by more than 2 s.e.",
            None: f"undecided: estimate {gain:+.3f}, null 0, half-width {Z * se:.3f}",
        }[holds]
        out.append(
            LEDGER.qualitative(
                figure="fig3",
                claim_id=f"fig3_gain_{r.prior}_eps{eps}",
                claim=f"At ε = {eps} the attack on the {r.prior} canary does not under-perform the max-prior baseline",
                holds=holds,
                ours=f"attack − max prior = {gain:+.3f} ± {se:.3f} (s.e., {r.n} models)",
                note="; ".join(x for x in (note, sep) if x),
                data=pii_src if r.prior == "pii" else "analytic",
            )
        )
    return out
