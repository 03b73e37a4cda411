"""Swanberg et al. (v1), Figure 3, the expensive step: tune, train and attack the DP-SGD n-gram models.

Spec: ../shared/spec/swanberg2025.md §3 "Figure 3", §4(a), §2.11 item 7. The experiment is
described in :mod:`.ngram` (the figure, which only reads this step's npz). This module imports
no plotting and no figure code, so editing a figure never retrains a model.

Hyperparameters (C, lr, T) are chosen per (ε, prior) by a grid search for the lowest mean canary
loss on separately seeded tuning models (paper: "the lowest loss on the canary for each privacy
level"), then fresh models are trained and attacked.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import torch

from ... import config, seeds
from ...data import enron
from ...models import ngram
from ...priors import pii as pii_prior
from ...priors import scaled_prior
from ...training import dpsgd

log = logging.getLogger(__name__)


def _epsilons(spec) -> np.ndarray:
    """The ε grid (a list, .inf or "inf" allowed, or a dense grid); every ε must be > 0."""
    values = config.grid(spec) if isinstance(spec, Mapping) else spec
    out = []
    for v in values:
        e = math.inf if (isinstance(v, str) and v.strip().lower() in ("inf", ".inf", "infinity")) else float(v)
        if not e > 0:
            raise ValueError(f"swanberg2025.ngram_train.epsilons: every ε must be > 0 (or inf), got {v!r}")
        out.append(e)
    return np.array(out, dtype=float)


def priors(params) -> tuple[dict[str, np.ndarray], str]:
    """{name: 10-value prior} for the configured ``prior_names``, and the PII prior's data source.

    The PII prior reads the data block ``params["enron"]`` (``{source, path}``; default: auto).
    """
    out, src = {}, "analytic"
    for name in params["prior_names"]:
        if name == "pii":
            opts = {"normalisation": params["pii_normalisation"]} if "pii_normalisation" in params else {}
            block = params.get("enron", {"source": "auto"})
            p = pii_prior.build(source=block["source"], path=block.get("path", enron.DEFAULT_PATH),
                                n_sequences=params.get("pii_sequences", 500), seed=params["seed"], **opts)
            src = p.source
            out[name] = scaled_prior("pii", params["vocab"], pii_pooled=p.pooled)
        elif name in ("uniform", "password"):
            out[name] = scaled_prior(name, params["vocab"], s=params.get("password_s", 1.1))
        else:
            raise ValueError(f"swanberg2025.ngram_train.prior_names: unknown prior {name!r}")
    return out, src


def train_attack(prior_rows: np.ndarray, targets: np.ndarray, *, clip, lr, noise_multiplier, steps: int,
                 active_steps, h: torch.Tensor, init: dict, seed: int, chunk: int, dtype=torch.float32):
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
            {k: v[sl] for k, v in init.items()}, lambda p, tgt=tgt: ngram.lazy_loss(p, h, tgt),
            steps=steps, lr=torch.as_tensor(lr[sl], dtype=dtype), clip=torch.as_tensor(clip[sl], dtype=dtype),
            noise_multiplier=torch.as_tensor(noise_multiplier[sl], dtype=dtype), generator=gen,
            active_steps=torch.as_tensor(active_steps[sl]),
        )
        with torch.no_grad():
            logits = ngram.lazy_logits(trained, h)
            guesses[sl] = logits.argmax(1).numpy()
            losses[sl] = torch.nn.functional.cross_entropy(logits, tgt, reduction="none").double().numpy()
    return guesses, losses


def _init(prior_rows, params, dtype):
    return ngram.lazy_setup(prior_rows, params["prefix"], embedding_dim=params["embedding_dim"],
                            hidden=params["hidden"], seed=params["seed"], dtype=dtype)


def _run(conds, eps, prior_mats, targets, clip, lr, steps, params, seed, dtype):
    """Train one model per row (condition index ``conds``) with per-row hyperparameters."""
    # σ depends only on (ε, T): calibrate each distinct pair once
    pairs, inv = np.unique(np.stack([eps[conds], steps]), axis=1, return_inverse=True)
    sigma = np.array([dpsgd.full_batch_noise_multiplier(e, params["delta"], int(t), params["adjacency"])
                      for e, t in pairs.T])[inv.ravel()]
    # One run per distinct T avoids stepping models that have already finished.
    guesses, losses = np.empty(len(conds), dtype=np.int64), np.empty(len(conds))
    for t in np.unique(steps):
        idx = np.flatnonzero(steps == t)
        rows = prior_mats[conds[idx]]
        h, init = _init(rows, params, dtype)
        g, lo = train_attack(rows, targets[idx], clip=clip[idx], lr=lr[idx], noise_multiplier=sigma[idx],
                             steps=int(t), active_steps=np.full(len(idx), int(t)), h=h, init=init,
                             seed=seed + int(t), chunk=params["chunk_models"], dtype=dtype)
        guesses[idx], losses[idx] = g, lo
    return guesses, losses, sigma


def train_step(params, inputs, outputs, threads) -> None:
    """Grid-search (C, lr, T) per (ε, prior), then train and attack ``trials`` models per cell.

    Writes ``outputs['npz']`` (per-run condition, target, guess, loss; per-cell chosen
    hyperparameters; priors) and ``outputs['tuning']`` (the grid's mean canary loss).
    """
    torch.set_num_threads(max(1, int(threads)))
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

    # --- tuning: every (condition, C, lr, T) x tune_trials models in batched runs -----------------
    n_tune = int(params["tune_trials"])
    rng = seeds.rng(seed, 1)
    n_c = len(eps_of_cond)
    conds = np.repeat(np.arange(n_c), len(combos) * n_tune)
    combo_idx = np.tile(np.repeat(np.arange(len(combos)), n_tune), n_c)
    cb = np.array(combos, dtype=float)
    targets = _draw(rng, cond_prior, conds)
    log.info("tuning: %d conditions x %d grid points x %d models = %d models", n_c, len(combos), n_tune, len(conds))
    g, lo, sig = _run(conds, eps_of_cond, cond_prior, targets, cb[combo_idx, 0], cb[combo_idx, 1],
                      cb[combo_idx, 2].astype(int), params, seed + 1000, dtype)
    tune = pd.DataFrame({"cond": conds, "combo": combo_idx, "loss": lo, "correct": g == targets, "sigma": sig})
    agg = tune.groupby(["cond", "combo"], sort=True).agg(mean_loss=("loss", "mean"), accuracy=("correct", "mean"),
                                                          noise_multiplier=("sigma", "first")).reset_index()
    agg["epsilon"] = eps_of_cond[agg["cond"]]
    agg["prior"] = [names[cond_pri[c]] for c in agg["cond"]]
    agg["clip"], agg["lr"], agg["steps"] = (cb[agg["combo"], j] for j in range(3))
    agg["steps"] = agg["steps"].astype(int)
    # lowest mean loss per condition (NaN/inf losses from diverged settings lose); ties -> first
    agg["rank_loss"] = agg["mean_loss"].where(np.isfinite(agg["mean_loss"]), np.inf)
    best = agg.loc[agg.groupby("cond")["rank_loss"].idxmin()].sort_values("cond")
    agg["chosen"] = agg.index.isin(best.index)
    log.info("tuning done; chosen (C, lr, T) per condition:\n%s",
             best[["epsilon", "prior", "clip", "lr", "steps", "mean_loss"]].to_string(index=False))

    # --- the attack runs ------------------------------------------------------------------------
    n_models = int(params["trials"])
    rng = seeds.rng(seed, 2)
    conds = np.repeat(np.arange(n_c), n_models)
    targets = _draw(rng, cond_prior, conds)
    bc, bl, bt = (best[k].to_numpy() for k in ("clip", "lr", "steps"))
    log.info("attack: %d conditions x %d models = %d models", n_c, n_models, len(conds))
    guesses, losses, sigma = _run(conds, eps_of_cond, cond_prior, targets, bc[conds], bl[conds],
                                  bt[conds].astype(int), params, seed + 2000, dtype)
    log.info("attack done")
    np.savez_compressed(
        outputs["npz"], epsilons=eps, priors=np.array(names), prior_mats=prior_mats,
        cond_eps=cond_eps, cond_prior=cond_pri, run_cond=conds, target=targets, guess=guesses, loss=losses,
        clip=bc, lr=bl, steps=bt.astype(int), noise_multiplier=sigma[::n_models] if n_models else sigma,
        delta=params["delta"], adjacency=params["adjacency"], pii_source=pii_src,
    )
    agg.drop(columns=["rank_loss", "combo"]).to_csv(outputs["tuning"], index=False)


def _draw(rng, cond_prior, conds):
    """One canary digit per run from its condition's prior (inverse CDF, vectorised)."""
    cdf = np.cumsum(cond_prior, axis=1)
    u = rng.random(len(conds))
    return np.minimum((u[:, None] > cdf[conds]).sum(1), cond_prior.shape[1] - 1)
