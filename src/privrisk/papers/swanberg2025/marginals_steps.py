"""Swanberg et al. §6, Figures 4–7: the expensive steps (dataset, attacks), apart from plotting.

``dataset_step``: raw table (real file or stand-in, the data block ``swanberg2025.data.<ds>``)
→ degree-2 BayNet + ``marginals.n_records`` records (npz);
``attack_step``: one figure's conditions → per-record outcomes (csv). The figure functions in
:mod:`.marginals` only read these files, so editing a figure never reruns an attack; this module
imports no plotting and no figure code.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from ... import config, seeds
from ...attacks import rap
from ...bounds.reconstruction import beta_multi, success_quantiles
from ...data import acs, fire
from ...mechanisms import marginals as mm
from ...models import baynet

log = logging.getLogger(__name__)
PAPER = "swanberg2025"
DATASETS = {"acs": acs, "fire": fire}
LEVELS = (0.05, 0.5, 0.95)


# ------------------------------------------------------------------------------------ bounds


def bound_quantiles(epsilon: float, delta: float, p_star: np.ndarray, levels=LEVELS) -> np.ndarray:
    """Theorem 3.5 high-probability bounds v_UB(c) on the number of records recovered.

    β_i = β(ε, p*_i) with p*_i the prior probability of the a-priori Bayes-optimal guess (the
    BayNet MAP given record i's known columns); v_UB(c) = min{v : B(v+1) <= 1 − c} (spec §2.7).
    """
    return success_quantiles(beta_multi(epsilon, np.clip(p_star, 0.0, 1.0)), levels, delta)


# ------------------------------------------------------------------------------------ steps


def dataset_step(params, inputs, outputs, threads) -> None:
    """Raw table → degree-2 BayNet → ``n_records`` sampled records (npz + json summary).

    Params: ``dataset`` (acs | fire), ``data`` (its data block), ``marginals`` (n_records, degree,
    pseudocount) and the seed.
    """
    ds = params["dataset"]
    common = params["marginals"]
    seed = int(params["seed"])
    table = DATASETS[ds].load(params["data"], seed=seed)
    log.info("%s: %s table with %d rows, domains %s", ds, table.source, table.n_rows, table.domains)
    ss = seeds.seed_sequence(seed, ds, "baynet")
    rng_fit, rng_sample = (np.random.default_rng(s) for s in ss.spawn(2))
    bn = baynet.fit_greedy(table.codes, table.domains, degree=common["degree"],
                           pseudocount=common["pseudocount"], rng=rng_fit, names=table.columns)
    records = bn.sample(common["n_records"], rng_sample)
    Path(outputs["npz"]).parent.mkdir(parents=True, exist_ok=True)
    np.savez(outputs["npz"], records=records, columns=np.asarray(table.columns), **bn.to_arrays())
    summary = {
        "dataset": ds, "source": table.source, "raw_rows": table.n_rows, "info": table.info,
        "domains": dict(zip(table.columns, table.domains, strict=True)),
        "visit_order": [table.columns[v] for v in bn.order],
        "parents": {table.columns[v]: [table.columns[p] for p in bn.parents[v]] for v in range(bn.d)},
        "n_records": int(records.shape[0]),
    }
    Path(outputs["json"]).write_text(json.dumps(summary, indent=2) + "\n")


def _load_dataset(npz_path: str):
    z = np.load(npz_path, allow_pickle=False)
    cols = [str(c) for c in z["columns"]]
    return baynet.BayesNet.from_arrays(z, names=cols), z["records"].astype(np.int64), cols


def run_condition(bn, records, unknown, epsilon, *, delta, attack, seed, tag, radii=None):
    """One release + attack: per-record outcomes for every attack variant and the prior.

    Returns a DataFrame with one row per record (or per (radius, record) if ``radii`` is given
    for a single ordinal column): ``prior_ok``, ``p_star`` and ``attack_l<λ>_ok`` columns.
    """
    unknown = [int(u) for u in unknown]
    rng = seeds.rng(seed, tag, unknown, epsilon)
    lay, noisy, sigma = mm.release(records, bn.domains, unknown, epsilon=epsilon, delta=delta, rng=rng, k=3)
    init = [baynet.conditional_marginal(bn, records, unknown, u) for u in unknown]
    z_map, p_map = baynet.conditional_map(bn, records, unknown)
    truth = records[:, unknown]
    guesses, relaxed = {}, {}
    for lam in attack["prior_weights"]:
        res = rap.rap_attack(records, bn.domains, unknown, lay, noisy, init, steps=attack["steps"],
                             lr=attack["lr"], noise_std=sigma, prior_weight=float(lam))
        guesses[lam], relaxed[lam] = res.guess, res.probs
        log.info("%s eps=%s unknown=%s lambda=%s: loss %.4g -> %.4g, %d/%d exact", tag, epsilon,
                 unknown, lam, res.loss[0], res.loss[-1], int((res.guess == truth).all(1).sum()), len(truth))
    n = records.shape[0]
    base = {"epsilon": epsilon, "n_unknown": len(unknown), "m": len(lay.triples), "sigma_count": sigma,
            "record": np.arange(n), "ambiguous": ambiguous_records(records, unknown)}
    if radii is None:
        out = pd.DataFrame(base | {"prior_ok": (z_map == truth).all(1), "p_star": p_map})
        for lam, g in guesses.items():
            out[f"attack_l{lam:g}_ok"] = (g == truth).all(1)
        return out
    frames = []
    for e in radii:
        centre, mass = baynet.best_window(init[0], int(e))
        f = pd.DataFrame(base | {"radius": int(e), "prior_ok": np.abs(centre - truth[:, 0]) <= e, "p_star": mass})
        for lam, probs in relaxed.items():
            # Like the prior, the attack guesses the centre of its most probable window
            # (its relaxed row); at E = 0 this is its rounded (argmax) output.
            guess_e, _ = baynet.best_window(probs[0], int(e))
            f[f"attack_l{lam:g}_ok"] = np.abs(guess_e - truth[:, 0]) <= e
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def ambiguous_records(records: np.ndarray, unknown) -> np.ndarray:
    """Records sharing all known columns with another record whose unknown columns differ.

    Swapping their unknown values leaves every marginal unchanged, so even exact marginals cannot
    tell them apart: at most one of each such group can be recovered with certainty.
    """
    known = [v for v in range(records.shape[1]) if v not in set(unknown)]
    _, kid = np.unique(records[:, known], axis=0, return_inverse=True)
    _, fid = np.unique(records, axis=0, return_inverse=True)
    kid, fid = kid.ravel(), fid.ravel()
    # A known-group is ambiguous if it holds more than one distinct full record.
    n_full = pd.Series(fid).groupby(kid).nunique().to_numpy()
    return n_full[kid] > 1


def _col(cols, name):
    if name not in cols:
        raise ValueError(f"column {name!r} is not in the dataset; columns: {cols}")
    return cols.index(name)


def attack_step(params, inputs, outputs, threads) -> None:
    """Run one figure's conditions (kind = columns | epsilons | multi | l1) and write per-record rows."""
    bn, records, cols = _load_dataset(inputs["dataset"])
    attack = dict(params["marginals_attack"])
    if "steps" in params:  # a figure may override the iteration budget (Fig 6 is the costly one)
        attack["steps"] = int(params["steps"])
    delta, seed, kind, fig = params["marginals_attack"]["delta"], int(params["seed"]), params["kind"], params["figure"]
    frames = []
    if kind == "columns":
        for name in params["columns"]:
            f = run_condition(bn, records, [_col(cols, name)], params["epsilon"], delta=delta, attack=attack,
                              seed=seed, tag=params["dataset"])
            frames.append(f.assign(x=name))
    elif kind == "epsilons":
        j = _col(cols, params["column"])
        for eps in config.grid(params["epsilons"]):
            eps = float(eps)
            f = run_condition(bn, records, [j], eps, delta=delta, attack=attack, seed=seed, tag=params["dataset"])
            frames.append(f.assign(x=eps))
    elif kind == "multi":
        order = list(bn.order)
        if params["max_unknown"] > len(order) - 3:
            raise ValueError(f"{fig}.max_unknown = {params['max_unknown']} leaves fewer than 3 known columns")
        for k in range(1, params["max_unknown"] + 1):
            f = run_condition(bn, records, order[-k:], params["epsilon"], delta=delta, attack=attack,
                              seed=seed, tag=params["dataset"])
            frames.append(f.assign(x=k, columns="|".join(cols[v] for v in order[-k:])))
    elif kind == "l1":
        j = _col(cols, params["column"])
        f = run_condition(bn, records, [j], params["epsilon"], delta=delta, attack=attack, seed=seed,
                          tag=params["dataset"], radii=range(bn.domains[j]))
        frames.append(f.assign(x=f["radius"]))
    else:
        raise ValueError(f"unknown attack kind {kind!r}")
    out = pd.concat(frames, ignore_index=True)
    Path(outputs["csv"]).parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(outputs["csv"], index=False)


# ----------------------------------------------------------------------------------- figures
