"""Swanberg et al. (v1), Figure 3, the expensive step: tune, train and attack the DP-SGD n-gram models.

Paper specification: §3 "Figure 3", §4(a), §2.11 item 7. The experiment is
described in :mod:`.figures_ngram` (the figure, which only reads this step's npz). This module imports
no plotting and no figure code, so editing a figure never retrains a model.

Hyperparameters (C, lr, T) are chosen per (ε, prior) by a grid search for the lowest mean canary
loss on separately seeded tuning models (paper: "the lowest loss on the canary for each privacy
level") with common random numbers (every grid point sees the same canaries and the same noise
draws), then fresh models are trained and attacked.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import torch

from ...core import seeds
from ...core.device import thread_record
from ...core.grids import grid
from ...data import enron
from ...models import ngram
from ...priors import pii as pii_prior
from ...priors import scaled_prior, tempered
from ...training import dpsgd

log = logging.getLogger(__name__)


def _epsilons(spec) -> np.ndarray:
    """The ε grid (a list, .inf or "inf" allowed, or a dense grid); every ε must be > 0."""
    values = grid(spec) if isinstance(spec, Mapping) else spec
    out = []
    for v in values:
        e = (
            math.inf
            if (isinstance(v, str) and v.strip().lower() in ("inf", ".inf", "infinity"))
            else float(v)
        )
        if not e > 0:
            raise ValueError(
                f"swanberg2025.ngram_train.epsilons: every ε must be > 0 (or inf), got {v!r}"
            )
        out.append(e)
    return np.array(out, dtype=float)


def priors(params) -> tuple[dict[str, np.ndarray], str]:
    """{name: 10-value prior} for the configured ``prior_names``, and the PII prior's data source.

    The PII prior reads the data block ``params["enron"]`` (``{source, path}``; default: auto).
    """
    out, src = {}, "analytic"
    for name in params["prior_names"]:
        if name == "pii":
            opts = (
                {"normalisation": params["pii_normalisation"]}
                if "pii_normalisation" in params
                else {}
            )
            block = params.get("enron", {"source": "auto"})
            p = pii_prior.build(
                source=block["source"],
                path=block.get("path", enron.DEFAULT_PATH),
                n_sequences=params.get("pii_sequences", 500),
                seed=params["seed"],
                **opts,
            )
            src = p.source
            if params.get("pii_scaling", "sequence") == "sequence":
                # one sequence's own candidates (the paper's canary is one masked name in one email)
                row = p.priors[p.typical_sequence(params["vocab"])]
            else:
                row = p.pooled
            out[name] = scaled_prior("pii", params["vocab"], pii_pooled=row)
            if params.get("pii_top_mass") is not None:
                # an offline model as skewed as the paper's numbers imply (still a stand-in)
                out[name] = tempered(out[name], top_mass=float(params["pii_top_mass"]))
        elif name in ("uniform", "password"):
            out[name] = scaled_prior(name, params["vocab"], s=params.get("password_s", 1.1))
        else:
            raise ValueError(f"swanberg2025.ngram_train.prior_names: unknown prior {name!r}")
    return out, src


def train_attack(
    prior_rows: np.ndarray,
    targets: np.ndarray,
    *,
    clip,
    lr,
    noise_multiplier,
    steps: int,
    active_steps,
    h: torch.Tensor,
    init: dict,
    seed: int,
    chunk: int,
    dtype=torch.float32,
):
    """Train len(targets) lazy n-gram models by batched DP-SGD; return (guesses, final canary losses).

    Models are processed in chunks of ``chunk`` (memory); chunk i draws its noise from a generator
    seeded with ``seeds.torch_seed(seed, i)``, so results depend only on the seed and the chunk size.
    """
    m = len(targets)
    guesses, losses = np.empty(m, dtype=np.int64), np.empty(m)
    for i, s in enumerate(range(0, m, chunk)):
        sl = slice(s, min(m, s + chunk))
        tgt = torch.as_tensor(targets[sl], dtype=torch.long)
        gen = torch.Generator().manual_seed(seeds.torch_seed(seed, i))
        trained = dpsgd.batched_dpsgd(
            {k: v[sl] for k, v in init.items()},
            lambda p, tgt=tgt: ngram.lazy_loss(p, h, tgt),
            steps=steps,
            lr=torch.as_tensor(lr[sl], dtype=dtype),
            clip=torch.as_tensor(clip[sl], dtype=dtype),
            noise_multiplier=torch.as_tensor(noise_multiplier[sl], dtype=dtype),
            generator=gen,
            active_steps=torch.as_tensor(active_steps[sl]),
        )
        with torch.no_grad():
            logits = ngram.lazy_logits(trained, h)
            guesses[sl] = logits.argmax(1).numpy()
            losses[sl] = (
                torch.nn.functional.cross_entropy(logits, tgt, reduction="none").double().numpy()
            )
    return guesses, losses


def _init(prior_rows, params, dtype):
    return ngram.lazy_setup(
        prior_rows,
        params["prefix"],
        embedding_dim=params["embedding_dim"],
        hidden=params["hidden"],
        seed=params["seed"],
        dtype=dtype,
    )


def _run(conds, eps, prior_mats, targets, clip, lr, steps, params, seed, dtype):
    """Train one model per row (condition index ``conds``) with per-row hyperparameters."""
    # σ depends only on (ε, T): calibrate each distinct pair once
    pairs, inv = np.unique(np.stack([eps[conds], steps]), axis=1, return_inverse=True)
    sigma = np.array(
        [
            dpsgd.full_batch_noise_multiplier(e, params["delta"], int(t), params["adjacency"])
            for e, t in pairs.T
        ]
    )[inv.ravel()]
    # One run per distinct T avoids stepping models that have already finished.
    guesses, losses = np.empty(len(conds), dtype=np.int64), np.empty(len(conds))
    for t in np.unique(steps):
        idx = np.flatnonzero(steps == t)
        rows = prior_mats[conds[idx]]
        h, init = _init(rows, params, dtype)
        g, lo = train_attack(
            rows,
            targets[idx],
            clip=clip[idx],
            lr=lr[idx],
            noise_multiplier=sigma[idx],
            steps=int(t),
            active_steps=np.full(len(idx), int(t)),
            h=h,
            init=init,
            seed=seed + int(t),
            chunk=params["chunk_models"],
            dtype=dtype,
        )
        guesses[idx], losses[idx] = g, lo
    return guesses, losses, sigma


def train_step(params, inputs, outputs) -> None:
    """Grid-search (C, lr, T) per (ε, prior), then train and attack ``trials`` models per cell.

    Writes ``outputs['npz']`` (per-run condition, target, guess, loss; per-cell chosen
    hyperparameters; priors) and ``outputs['tuning']`` (the grid's mean canary loss).
    """
    dtype = torch.float64 if params.get("float64", False) else torch.float32
    eps = _epsilons(params["epsilons"])
    pri, pii_src = priors(params)
    names = list(pri)
    prior_mats = np.stack([pri[n] for n in names])
    n_e, n_p = len(eps), len(names)
    # condition c = (ε index, prior index); prior rows are indexed by condition below
    cond_eps = np.repeat(np.arange(n_e), n_p)
    cond_pri = np.tile(np.arange(n_p), n_e)
    cond_prior = prior_mats[cond_pri]
    eps_of_cond = eps[cond_eps]
    grid = params["grid"]
    combos = [(c, lr, t) for t in grid["steps"] for c in grid["clip"] for lr in grid["lr"]]
    seed = int(params["seed"])

    # --- tuning: every (condition, C, lr, T) x tune_trials models, common random numbers -------
    n_tune = int(params["tune_trials"])
    n_c = len(eps_of_cond)
    cb = np.array(combos, dtype=float)
    log.info(
        "tuning: %d conditions x %d grid points x %d models (common random numbers)",
        n_c,
        len(combos),
        n_tune,
    )
    agg = tune_crn(cond_prior, eps_of_cond, cb, n_tune, params, seed, dtype)
    agg["prior"] = [names[cond_pri[c]] for c in agg["cond"]]
    best = agg[agg["chosen"]].sort_values("cond")
    log.info(
        "tuning done; chosen (C, lr, T) per condition:\n%s",
        best[
            ["epsilon", "prior", "clip", "lr", "steps", "mean_loss", "gap_runner_up", "gap_se"]
        ].to_string(index=False),
    )

    # --- the attack runs ------------------------------------------------------------------------
    n_models = int(params["trials"])
    rng = seeds.rng(seed, 2)
    conds = np.repeat(np.arange(n_c), n_models)
    targets = _draw(rng, cond_prior, conds)
    bc, bl, bt = (best[k].to_numpy() for k in ("clip", "lr", "steps"))
    log.info("attack: %d conditions x %d models = %d models", n_c, n_models, len(conds))
    guesses, losses, sigma = _run(
        conds,
        eps_of_cond,
        cond_prior,
        targets,
        bc[conds],
        bl[conds],
        bt[conds].astype(int),
        params,
        seed + 2000,
        dtype,
    )
    log.info("attack done")
    np.savez_compressed(
        outputs["npz"],
        epsilons=eps,
        priors=np.array(names),
        prior_mats=prior_mats,
        cond_eps=cond_eps,
        cond_prior=cond_pri,
        run_cond=conds,
        target=targets,
        guess=guesses,
        loss=losses,
        clip=bc,
        lr=bl,
        steps=bt.astype(int),
        noise_multiplier=sigma[::n_models] if n_models else sigma,
        delta=params["delta"],
        adjacency=params["adjacency"],
        pii_source=pii_src,
        tune_gap=best["gap_runner_up"].to_numpy(),
        tune_gap_se=best["gap_se"].to_numpy(),
        tune_separated=best["separated"].to_numpy(),
        tune_models=n_tune,
        pii_top_mass=np.nan if params.get("pii_top_mass") is None else params["pii_top_mass"],
        **{f"thread_{k}": v for k, v in thread_record().items()},
    )
    agg.drop(columns=["combo"]).to_csv(outputs["tuning"], index=False)


def _draw(rng, cond_prior, conds):
    """One canary digit per run from its condition's prior (inverse CDF, vectorised)."""
    cdf = np.cumsum(cond_prior, axis=1)
    u = rng.random(len(conds))
    return np.minimum((u[:, None] > cdf[conds]).sum(1), cond_prior.shape[1] - 1)


def tune_crn(
    cond_prior, eps_of_cond, combos, n_tune: int, params, seed: int, dtype
) -> pd.DataFrame:
    """Grid search with common random numbers: for each condition, every grid point trains the
    same ``n_tune`` canaries with the same standard-normal DP-SGD noise draws (model j at step t
    gets the same z whatever C, lr and T), so grid points differ only by their hyperparameters and
    their paired loss differences have small standard errors.

    Returns one row per (condition, grid point): mean canary loss and accuracy, the paired
    difference of the loss to the chosen (lowest-loss) point and its standard error, ``chosen``,
    and per condition the chosen point's margin over the runner-up (``gap_runner_up``, ``gap_se``,
    ``separated`` = margin > 2 s.e.); settings that train exactly the same models as the chosen
    one (``same_as_chosen``) are not counted as runner-up.
    """
    rng = seeds.rng(seed, 1)
    rows = []
    for c in range(len(eps_of_cond)):
        targets = _draw(rng, cond_prior, np.full(n_tune, c))
        losses = np.full((len(combos), n_tune), np.inf)
        correct = np.zeros((len(combos), n_tune), dtype=bool)
        sigmas = np.zeros(len(combos))
        for t in np.unique(combos[:, 2]).astype(int):
            ks = np.flatnonzero(combos[:, 2] == t)
            sigma = dpsgd.full_batch_noise_multiplier(
                eps_of_cond[c], params["delta"], int(t), params["adjacency"]
            )
            m = len(ks) * n_tune
            h, init = _init(np.repeat(cond_prior[c][None], m, axis=0), params, dtype)
            gen = torch.Generator().manual_seed(seeds.torch_seed(seed, "crn", c))
            reps = len(ks)

            def noise(step, name, shape, gen=gen, reps=reps):
                z = torch.randn((n_tune,) + tuple(shape[1:]), generator=gen, dtype=dtype)
                return z.repeat((reps,) + (1,) * (len(shape) - 1))

            tgt = torch.as_tensor(np.tile(targets, len(ks)), dtype=torch.long)
            trained = dpsgd.batched_dpsgd(
                init,
                lambda p, tgt=tgt, h=h: ngram.lazy_loss(p, h, tgt),
                steps=int(t),
                lr=torch.as_tensor(np.repeat(combos[ks, 1], n_tune), dtype=dtype),
                clip=torch.as_tensor(np.repeat(combos[ks, 0], n_tune), dtype=dtype),
                noise_multiplier=torch.as_tensor(np.full(m, sigma), dtype=dtype),
                noise_fn=noise,
            )
            with torch.no_grad():
                logits = ngram.lazy_logits(trained, h)
                lo = (
                    torch.nn.functional.cross_entropy(logits, tgt, reduction="none")
                    .double()
                    .numpy()
                )
                ok = (logits.argmax(1) == tgt).numpy()
            losses[ks] = lo.reshape(len(ks), n_tune)
            correct[ks] = ok.reshape(len(ks), n_tune)
            sigmas[ks] = sigma
        finite = np.where(np.isfinite(losses), losses, np.inf)
        mean = finite.mean(axis=1)
        order = np.argsort(
            mean, kind="stable"
        )  # NaN/inf losses from diverged settings lose; ties -> first
        best = order[0]
        diff = finite - finite[best]  # paired (common random numbers)
        # Settings that train the same models (e.g. C·lr equal while every gradient is clipped)
        # are the chosen one again, not a runner-up: skip them
        # (float32 training: C·lr twins agree to rounding, so compare with a relative tolerance)
        same = np.all(np.abs(diff) <= 1e-4 * (1.0 + np.abs(finite[best])), axis=1)
        others = [k for k in order[1:] if not same[k]]
        runner = others[0] if others else best
        with np.errstate(invalid="ignore"):
            se = (
                diff.std(axis=1, ddof=1) / np.sqrt(n_tune)
                if n_tune > 1
                else np.full(len(combos), np.nan)
            )
        for k in range(len(combos)):
            rows.append(
                {
                    "cond": c,
                    "combo": k,
                    "epsilon": float(eps_of_cond[c]),
                    "clip": float(combos[k, 0]),
                    "lr": float(combos[k, 1]),
                    "steps": int(combos[k, 2]),
                    "mean_loss": float(mean[k]),
                    "accuracy": float(correct[k].mean()),
                    "noise_multiplier": float(sigmas[k]),
                    "loss_minus_chosen": float(mean[k] - mean[best]),
                    "loss_minus_chosen_se": float(se[k]),
                    "chosen": k == best,
                    "same_as_chosen": bool(same[k]) and k != best,
                    "gap_runner_up": float(mean[runner] - mean[best]),
                    "gap_se": float(se[runner]),
                    "separated": bool(mean[runner] - mean[best] > 2 * se[runner]),
                    "n_models": n_tune,
                }
            )
    return pd.DataFrame(rows)
