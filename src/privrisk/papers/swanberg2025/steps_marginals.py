"""Swanberg et al. §6, Figures 4–7: the expensive steps (dataset, attacks), apart from plotting.

``dataset_step``: raw table (real file or stand-in, the data block ``swanberg2025.data.<ds>``)
→ degree-2 BayNet + ``marginals.n_records`` records (npz);
``attack_step``: one figure's conditions → per-record outcomes (csv): the paper's RAP attack and
its prior-term variant (tuned on shadow draws), the informed attacker's ceiling (the exact
posterior attack, :mod:`privrisk.attacks.posterior`) on the same target draws, the prior's MAP
guess, and per record the Bayes success with every other record revealed (one unknown column:
:func:`privrisk.bounds.reconstruction.bayes_success_revealed`), an upper bound on any attack.
The figure functions in :mod:`.figures_marginals` only read these files, so editing a figure never
reruns an attack; this module imports no plotting and no figure code.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...attacks import posterior
from ...bounds.reconstruction import (
    bayes_success_revealed,
    bayes_window_success_revealed,
    beta_multi,
    success_quantiles,
)
from ...core import seeds
from ...core.grids import grid
from ...data import acs, fire
from ...mechanisms import marginals as mm
from ...models import baynet

log = logging.getLogger(__name__)
DATASETS = {"acs": acs, "fire": fire}
LEVELS = (0.05, 0.5, 0.95)


# ------------------------------------------------------------------------------------ bounds


def bound_quantiles(epsilon: float, delta: float, p_star: np.ndarray, levels=LEVELS) -> np.ndarray:
    """Theorem 3.5 high-probability bounds v_UB(c) on the number of records recovered.

    β_i = β(ε, p*_i) with p*_i the prior probability of the a-priori Bayes-optimal guess (the
    BayNet MAP given record i's known columns); v_UB(c) = min{v : B(v+1) <= 1 − c} (spec §2.7).
    """
    return success_quantiles(
        beta_multi(epsilon=epsilon, p=np.clip(p_star, 0.0, 1.0)), levels, delta=delta
    )


# ------------------------------------------------------------------------------------ steps


def world_seeds(common, source: str) -> list[int]:
    """The pre-registered worlds: seeds 0, 1, …, ``marginals.worlds`` − 1 of the stand-in (the
    first integers, fixed before any result); with real data the world is the data: one."""
    return [0] if source not in ("standin",) else list(range(int(common["worlds"])))


def dataset_step(params, inputs, outputs) -> None:
    """Raw table → degree-2 BayNet → ``n_records`` sampled records, for every world (npz + json).

    Params: ``dataset`` (acs | fire), ``data`` (its data block), ``marginals`` (n_records, degree,
    pseudocount, worlds) and the seed.

    A *world* is the stand-in table, the raw-row subsample and the BayNet fit (whose random root
    sets the visit order and so which columns Figures 5-6 reconstruct first). On stand-in data no
    claim may rest on one arbitrary world, so there are ``marginals.worlds`` of them, seeded
    0, 1, … (:func:`world_seeds`), and the attack steps spread their draws over them (the world a
    random effect of every estimate); with real data the world is the data (one world). The run's
    ``seed`` draws the experiment in each (records, noise, attack).
    """
    ds = params["dataset"]
    common = params["marginals"]
    seed = int(params["seed"])
    first = DATASETS[ds].load(params["data"], seed=0)
    out, worlds = {}, []
    for w in world_seeds(common, first.source):
        table = first if w == 0 else DATASETS[ds].load(params["data"], seed=w)
        log.info(
            "%s world %d: %s table with %d rows, domains %s",
            ds,
            w,
            table.source,
            table.n_rows,
            table.domains,
        )
        rng_fit = np.random.default_rng(seeds.seed_sequence(w, ds, "baynet").spawn(2)[0])
        rng_sample = np.random.default_rng(seeds.seed_sequence(seed, ds, "baynet", w).spawn(2)[1])
        bn = baynet.fit_greedy(
            table.codes,
            table.domains,
            degree=common["degree"],
            pseudocount=common["pseudocount"],
            rng=rng_fit,
            names=table.columns,
        )
        records = bn.sample(common["n_records"], rng_sample)
        out |= {f"w{w}_{k}": v for k, v in bn.to_arrays().items()}
        out[f"w{w}_records"] = records
        worlds.append(
            {
                "world_seed": w,
                "raw_rows": table.n_rows,
                "info": table.info,
                "visit_order": [table.columns[v] for v in bn.order],
                "parents": {
                    table.columns[v]: [table.columns[p] for p in bn.parents[v]] for v in range(bn.d)
                },
            }
        )
    Path(outputs["npz"]).parent.mkdir(parents=True, exist_ok=True)
    np.savez(outputs["npz"], columns=np.asarray(first.columns), **out)
    summary = {
        "dataset": ds,
        "source": first.source,
        "domains": dict(zip(first.columns, first.domains, strict=True)),
        "n_records": int(common["n_records"]),
        "worlds": worlds,
        # the first world, as before there were several (its visit order names Fig 6's columns)
        "visit_order": worlds[0]["visit_order"],
        "parents": worlds[0]["parents"],
    }
    Path(outputs["json"]).write_text(json.dumps(summary, indent=2) + "\n")


def _load_dataset(npz_path: str):
    """The worlds' BayNets (in world order), the first world's records and the columns."""
    z = np.load(npz_path, allow_pickle=False)
    cols = [str(c) for c in z["columns"]]
    ids = sorted({int(k[1:].split("_", 1)[0]) for k in z.files if k.startswith("w")})
    nets = [
        baynet.BayesNet.from_arrays(
            {k.split("_", 1)[1]: z[k] for k in z.files if k.startswith(f"w{w}_")}, names=cols
        )
        for w in ids
    ]
    return nets, z[f"w{ids[0]}_records"].astype(np.int64), cols


# ------------------------------------------------------------------------------------ draws


@dataclass
class Draws:
    """R independent (sample, noise) draws of one condition (columns ``unknown`` at ``epsilon``),
    draw r in world ``world[r]`` (the BayNet it is sampled from and whose prior the attack starts
    at).

    records (R, n, d), noisy (R, cells) normalised released marginals, init per unknown column
    (R, n, K) the BayNet conditional prior (the attack's start), z_map (R, n, d') / p_map (R, n)
    the prior's MAP guess and its probability; ``lay`` and ``sigma`` (count-scale noise std) are
    shared by the draws.
    """

    unknown: list[int]
    epsilon: float
    records: np.ndarray
    noisy: np.ndarray
    init: list[np.ndarray]
    z_map: np.ndarray
    p_map: np.ndarray
    lay: mm.Layout
    sigma: float
    world: np.ndarray
    #: each draw's number among the condition's draws (its streams and its row label)
    index: np.ndarray

    @property
    def truth(self) -> np.ndarray:
        return self.records[:, :, self.unknown]


def _nets(bn) -> list:
    return list(bn) if isinstance(bn, list | tuple) else [bn]


def make_draws(
    bn,
    unknown,
    epsilon: float,
    *,
    delta: float,
    n: int,
    draws: int,
    seed: int,
    tag: str,
    kind: str,
    indices: Sequence[int] | None = None,
) -> Draws:
    """``draws`` fresh datasets of ``n`` records, each with fresh release noise; ``bn`` is one
    BayNet or the worlds' (draw r from world r mod W, so any number of draws spreads evenly over
    the worlds). ``indices``: which of the draws 0 … ``draws`` − 1 to make (all by default).

    ``kind`` names the stream: ``target`` draws (the ones reported) are the same records in every
    figure of a dataset (their seed names only the dataset and the draw); ``shadow`` draws (the
    attacker's tuning data, sampled from the same BayNets) are independent of them.
    """
    nets = _nets(bn)
    unknown = [int(u) for u in unknown]
    idx = list(range(draws)) if indices is None else [int(r) for r in indices]
    world = np.array([r % len(nets) for r in idx], dtype=np.int64)
    recs, noisy = [], []
    lay, sigma = None, 0.0
    for r, w in zip(idx, world, strict=True):
        x = nets[w].sample(n, seeds.rng(seed, tag, kind, "records", r))
        lay, nz, sigma = mm.release(
            x,
            nets[w].domains,
            unknown,
            epsilon=epsilon,
            delta=delta,
            k=3,
            rng=seeds.rng(seed, tag, kind, "noise", r, *unknown, str(epsilon)),
        )
        recs.append(x)
        noisy.append(nz)
    records = np.stack(recs)
    r_all = records.shape[0]
    init = [np.zeros((r_all, n, nets[0].domains[u])) for u in unknown]
    z = np.zeros((r_all, n, len(unknown)), dtype=np.int64)
    p = np.zeros((r_all, n))
    for w in np.unique(world):
        sel = world == w
        flat = records[sel].reshape(-1, records.shape[2])
        for j, u in enumerate(unknown):
            init[j][sel] = baynet.conditional_marginal(nets[w], flat, unknown, u).reshape(
                int(sel.sum()), n, -1
            )
        zw, pw = baynet.conditional_map(nets[w], flat, unknown)
        z[sel] = zw.reshape(int(sel.sum()), n, -1)
        p[sel] = pw.reshape(int(sel.sum()), n)
    return Draws(
        unknown,
        float(epsilon),
        records,
        np.stack(noisy),
        init,
        z,
        p,
        lay,
        float(sigma),
        world,
        np.asarray(idx, dtype=np.int64),
    )


def run_settings(dr: Draws, settings, checkpoints, *, domains, chunk: int = 64):
    """Attack every draw with every setting (optimiser, lr, λ) as batched tensor computations.

    Returns (guess, probs): guess (C, S, R, n, d') and probs per unknown column (C, S, R, n, K)
    at each checkpoint (number of steps) C, for the S settings and R draws.
    """
    from ...attacks import rap  # torch: imported by the attack steps only, not by the figures

    r = dr.records.shape[0]
    elems = [(si, ri) for si in range(len(settings)) for ri in range(r)]
    guesses, probs = [], [[] for _ in dr.unknown]
    for lo in range(0, len(elems), chunk):
        part = elems[lo : lo + chunk]
        si = np.array([e[0] for e in part])
        ri = np.array([e[1] for e in part])
        res = rap.rap_attack_batch(
            dr.records[ri],
            domains,
            dr.unknown,
            dr.lay,
            dr.noisy[ri],
            [p[ri] for p in dr.init],
            checkpoints=checkpoints,
            optimiser=[settings[i][0] for i in si],
            lr=[float(settings[i][1]) for i in si],
            prior_weight=[float(settings[i][2]) for i in si],
            noise_std=dr.sigma,
        )
        guesses.append(res.guess)
        for j, p in enumerate(res.probs):
            probs[j].append(p)
    c = len(set(int(k) for k in checkpoints))
    s, n = len(settings), dr.records.shape[1]
    guess = np.concatenate(guesses, axis=1).reshape(c, s, r, n, -1)
    probs = [np.concatenate(p, axis=1).reshape(c, s, r, n, -1) for p in probs]
    return guess, probs


def successes(dr: Draws, guess, probs, metric: str, radii=None) -> np.ndarray:
    """Per-draw successes (…, R) of guesses (…, R, n, d') under ``metric``: ``exact`` = records with
    every unknown column right; ``l1`` = mean over the radii E of records within L1 error E of
    the centre of the most probable window of the relaxed row (one ordinal column)."""
    if metric == "exact":
        return (guess == dr.truth).all(axis=-1).sum(axis=-1)
    truth = dr.truth[..., 0]
    p = probs[0]
    flat = p.reshape(-1, p.shape[-1])
    out = []
    for e in radii:
        centre, _ = baynet.best_window(flat, int(e))
        ok = np.abs(centre.reshape(p.shape[:-1]) - truth) <= e
        out.append(ok.sum(axis=-1))
    return np.mean(out, axis=0)


def tune(
    shadow: Sequence[Draws],
    grid,
    lambdas,
    checkpoints,
    *,
    domains,
    metric="exact",
    radii=None,
    chunk: int = 64,
):
    """The informed attacker's tuning: every (optimiser, lr) of ``grid`` × step count of
    ``checkpoints``, per prior weight λ, scored by mean successes on the shadow draws (one or more
    conditions sharing a (dataset, ε, d') key). Returns (table, chosen): one row per setting with
    its shadow mean and standard error, its paired difference to the chosen setting of its λ and
    that difference's standard error (all settings attack the same shadow draws), and per λ the
    best (optimiser, lr, steps)."""
    settings = [(o, lr, lam) for lam in lambdas for (o, lr) in grid]
    ck = sorted({int(c) for c in checkpoints})
    per = []
    for dr in shadow:
        guess, probs = run_settings(dr, settings, ck, domains=domains, chunk=chunk)
        per.append(successes(dr, guess, probs, metric, radii))  # (C, S, R)
    scores = np.concatenate(per, axis=2)
    rows = []
    for ci, c in enumerate(ck):
        for si, (o, lr, lam) in enumerate(settings):
            v = scores[ci, si]
            rows.append(
                {
                    "lambda": float(lam),
                    "optimiser": o,
                    "lr": float(lr),
                    "steps": c,
                    "shadow_mean": float(v.mean()),
                    "shadow_se": float(v.std(ddof=1) / np.sqrt(v.size))
                    if v.size > 1
                    else float("nan"),
                    "shadow_n": int(v.size),
                }
            )
    table = pd.DataFrame(rows)
    table["chosen"] = False
    table["minus_chosen"] = np.nan
    table["minus_chosen_se"] = np.nan
    flat = scores.reshape(len(ck) * len(settings), -1)  # row order of ``table``
    chosen = {}
    for lam in lambdas:
        sub = table[table["lambda"] == float(lam)]
        best = sub["shadow_mean"].idxmax()  # first maximum: earliest setting in grid order
        table.loc[best, "chosen"] = True
        r = table.loc[best]
        chosen[float(lam)] = (str(r["optimiser"]), float(r["lr"]), int(r["steps"]))
        # Every setting attacks the same shadow draws (same records, same noise): paired differences.
        diff = flat[sub.index] - flat[best]
        table.loc[sub.index, "minus_chosen"] = diff.mean(axis=1)
        if diff.shape[1] > 1:
            table.loc[sub.index, "minus_chosen_se"] = diff.std(axis=1, ddof=1) / np.sqrt(
                diff.shape[1]
            )
    return table, chosen


def attack_draws(dr: Draws, chosen: dict, *, domains, chunk: int = 64):
    """The target attack with each λ's chosen setting: guess and probs per λ, (R, n, d') / (R, n, K)."""
    lams = list(chosen)
    settings = [(chosen[lam][0], chosen[lam][1], lam) for lam in lams]
    ck = sorted({chosen[lam][2] for lam in lams})
    guess, probs = run_settings(dr, settings, ck, domains=domains, chunk=chunk)
    out = {}
    for si, lam in enumerate(lams):
        ci = ck.index(chosen[lam][2])
        out[lam] = (guess[ci, si], [p[ci, si] for p in probs])
    return out


def ceiling(dr: Draws, bn, cfg: dict, *, seed: int, tag: str, radii=None) -> dict | None:
    """The informed attacker's ceiling on the target draws, and the revealed-others bound.

    Returns ``guess`` (R, n, d') the exact-posterior attack's guesses, ``probs`` its posterior
    marginals per unknown column, ``info`` its diagnostics and, for one unknown column, ``bound``
    (R, n) or (R, n, radii) the Bayes success of each record with every other record revealed at
    the release's noise (μ = √(2m)/σ of the whole release; Monte Carlo for L1 windows E > 0).
    ``bn``: one BayNet or the worlds' (each draw's posterior under its own world's). None when
    the unknown columns have more joint values than ``max_tuples`` (the block sampler enumerates
    them): no ceiling is drawn there.
    """
    nets = _nets(bn)
    n_t = int(np.prod([nets[0].domains[u] for u in dr.unknown]))
    if len(dr.unknown) > 1 and n_t > int(cfg["max_tuples"]):
        log.info("ceiling skipped: %d joint values > max_tuples %s", n_t, cfg["max_tuples"])
        return None
    guess = np.zeros_like(dr.truth)
    probs = [np.zeros_like(p) for p in dr.init]
    info: dict = {}
    for w in np.unique(dr.world):
        sel = dr.world == w
        res = posterior.posterior_attack(
            nets[w],
            dr.records[sel],
            dr.unknown,
            dr.lay,
            dr.noisy[sel],
            noise_std=dr.sigma,
            sweeps=int(cfg["sweeps"]),
            burn_in=int(cfg["burn_in"]),
            chains=int(cfg["chains"]),
            anneal=float(cfg["anneal"]),
            max_tuples=int(cfg["max_tuples"]),
            rng=seeds.rng(seed, tag, "ceiling", *dr.unknown, str(dr.epsilon), "world", int(w)),
        )
        guess[sel] = res.guess
        for j, pr in enumerate(res.probs):
            probs[j][sel] = pr
        info.setdefault("method", res.info.get("method"))
        if "chain_disagreement" in res.info:
            info["chain_disagreement"] = max(
                info.get("chain_disagreement", 0.0), float(res.info["chain_disagreement"])
            )
        if "undetermined" in res.info:
            und = info.setdefault("undetermined", np.zeros(len(dr.world)))
            und[sel] = np.asarray(res.info["undetermined"])
    out = {"guess": guess, "probs": probs, "info": info, "bound": None}
    if len(dr.unknown) == 1:
        m = len(dr.lay.triples)
        mu = math.inf if dr.sigma == 0 else math.sqrt(2 * m) / dr.sigma
        p = dr.init[0]
        if radii is None:
            out["bound"] = np.asarray(bayes_success_revealed(mu=mu, p=p))
        else:
            out["bound"], _ = bayes_window_success_revealed(
                mu=mu,
                p=p,
                radii=list(radii),
                draws=int(cfg["window_draws"]),
                rng=seeds.rng(seed, tag, "window-bound", str(dr.epsilon)),
            )
    return out


def outcome_rows(dr: Draws, attacks: dict, radii=None, ceil: dict | None = None) -> pd.DataFrame:
    """Per (draw, record) outcomes of the target draws: ``prior_ok``, ``p_star``,
    ``attack_l<λ>_ok`` and, with ``ceil`` (:func:`ceiling`), ``ceiling_ok`` and ``ceiling_bound``;
    per (radius, draw, record) when ``radii`` is given (one ordinal column)."""
    r, n = dr.p_map.shape
    base = {
        "epsilon": dr.epsilon,
        "n_unknown": len(dr.unknown),
        "m": len(dr.lay.triples),
        "sigma_count": dr.sigma,
        "draw": np.repeat(dr.index, n),
        "world": np.repeat(dr.world, n),
        "record": np.tile(np.arange(n), r),
        "ambiguous": np.concatenate([ambiguous_records(x, dr.unknown) for x in dr.records]),
    }
    truth = dr.truth
    if radii is None:
        out = pd.DataFrame(
            base | {"prior_ok": (dr.z_map == truth).all(-1).ravel(), "p_star": dr.p_map.ravel()}
        )
        for lam, (g, _) in attacks.items():
            out[f"attack_l{lam:g}_ok"] = (g == truth).all(-1).ravel()
        if ceil is not None:
            out["ceiling_ok"] = (ceil["guess"] == truth).all(-1).ravel().astype(float)
            out["ceiling_bound"] = ceil["bound"].ravel() if ceil["bound"] is not None else np.nan
        return out
    frames = []
    flat_init = dr.init[0].reshape(r * n, -1)
    for k, e in enumerate(radii):
        centre, mass = baynet.best_window(flat_init, int(e))
        f = pd.DataFrame(
            base
            | {
                "radius": int(e),
                "prior_ok": np.abs(centre - truth[..., 0].ravel()) <= e,
                "p_star": mass,
            }
        )
        for lam, (_, probs) in attacks.items():
            # Like the prior, the attack guesses the centre of its most probable window
            # (its relaxed row); at E = 0 this is its rounded (argmax) output.
            g, _ = baynet.best_window(probs[0].reshape(r * n, -1), int(e))
            f[f"attack_l{lam:g}_ok"] = np.abs(g - truth[..., 0].ravel()) <= e
        if ceil is not None:
            # the Bayes guess for a window: the centre of the posterior marginal's best window
            g, _ = baynet.best_window(ceil["probs"][0].reshape(r * n, -1), int(e))
            f["ceiling_ok"] = (np.abs(g - truth[..., 0].ravel()) <= e).astype(float)
            f["ceiling_bound"] = ceil["bound"][..., k].ravel()
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


def _conditions(params, nets, cols):
    """The figure's conditions: (x, {world: unknown columns}, ε, {world: extra columns}); the
    unknown columns are the same in every world except for Fig 6 (the last d' of each world's
    visit order)."""
    kind = params["kind"]
    worlds = range(len(nets))

    def same(unknown):
        return {w: unknown for w in worlds}, {w: {} for w in worlds}

    eps = float(params.get("epsilon", 0.0) or 0.0)
    if kind == "columns":
        return [(name, *same([_col(cols, name)]), eps) for name in params["columns"]]
    if kind == "epsilons":
        j = _col(cols, params["column"])
        return [(float(e), *same([j]), float(e)) for e in grid(params["epsilons"])]
    if kind == "multi":
        if params["max_unknown"] > len(cols) - 3:
            raise ValueError(
                f"{params['figure']}.max_unknown = {params['max_unknown']} leaves fewer than 3 known columns"
            )
        out = []
        for k in range(1, params["max_unknown"] + 1):
            unknown = {w: list(nets[w].order)[-k:] for w in worlds}
            extra = {w: {"columns": "|".join(cols[v] for v in unknown[w])} for w in worlds}
            out.append((k, unknown, extra, eps))
        return out
    if kind == "l1":
        return [(params["column"], *same([_col(cols, params["column"])]), eps)]
    raise ValueError(f"unknown attack kind {kind!r}")


def _groups(unknown: dict[int, list[int]], indices: Sequence[int], n_worlds: int):
    """The draws of a condition grouped by their unknown columns: [(unknown, draw indices)]
    (draw r lies in world r mod W; one group unless the worlds attack different columns)."""
    by: dict[tuple, list[int]] = {}
    for r in indices:
        by.setdefault(tuple(unknown[r % n_worlds]), []).append(int(r))
    return [(list(u), rs) for u, rs in by.items()]


def attack_step(params, inputs, outputs) -> None:
    """One figure's conditions (kind = columns | epsilons | multi | l1): tune on shadow draws per
    (ε, d') key, attack the target draws with the chosen settings and with the informed attacker's
    ceiling, write per-record rows (with the per-record bound for one unknown column) and the
    tuning table. A figure's ``draws`` overrides ``marginals_attack.draws``; ``headline_draws``
    gives single conditions (a column of Fig 4) more draws. Draws (shadow and target) are spread
    over the dataset's worlds, draw r in world r mod W."""
    nets, _, cols = _load_dataset(inputs["dataset"])
    n_worlds = len(nets)
    att = dict(params["marginals_attack"])
    for key in ("draws", "shadow_draws"):  # a figure may override (Fig 6's attacks are costly)
        if key in params:
            att[key] = params[key]
    headline = {str(k): int(v) for k, v in (params.get("headline_draws") or {}).items()}
    ceil_cfg = dict(att["ceiling"]) | dict(params.get("ceiling") or {})  # a figure may override
    tun = dict(att["tuning"])
    if "tuning_steps" in params:  # a figure may override the step grid (Fig 6 is the costly one)
        tun["steps"] = list(params["tuning_steps"])
    grid_ = [("adam", lr) for lr in tun["adam_lr"]] + [("sgd", lr) for lr in tun["sgd_lr"]]
    lambdas = [float(v) for v in att["prior_weights"]]
    delta, seed, tag = att["delta"], int(params["seed"]), params["dataset"]
    n = int(params["n_records"])
    chunk = int(att["batch_elements"])
    domains = nets[0].domains
    conds = _conditions(params, nets, cols)
    kind = params["kind"]
    metric = "l1" if kind == "l1" else "exact"
    keys: dict[tuple, list] = {}
    for c in conds:
        keys.setdefault((c[3], len(c[1][0])), []).append(c)
    frames, tables = [], []
    for (eps, k), members in keys.items():
        radii = range(domains[members[0][1][0][0]]) if metric == "l1" else None
        shadow = [
            make_draws(
                nets,
                u,
                eps,
                delta=delta,
                n=n,
                draws=int(att["shadow_draws"]),
                seed=seed,
                tag=f"{tag}:{params['figure']}",
                kind="shadow",
                indices=rs,
            )
            for _, unknown, _, _ in members
            for u, rs in _groups(unknown, range(int(att["shadow_draws"])), n_worlds)
        ]
        table, chosen = tune(
            shadow,
            grid_,
            lambdas,
            tun["steps"],
            domains=domains,
            metric=metric,
            radii=radii,
            chunk=chunk,
        )
        tables.append(
            table.assign(epsilon=eps, n_unknown=k, conditions="|".join(str(m[0]) for m in members))
        )
        log.info("%s eps=%s d'=%d: chosen %s", tag, eps, k, chosen)
        for x, unknown, extra, e in members:
            n_draws = headline.get(str(x), int(att["draws"]))
            for u, rs in _groups(unknown, range(n_draws), n_worlds):
                dr = make_draws(
                    nets,
                    u,
                    e,
                    delta=delta,
                    n=n,
                    draws=n_draws,
                    seed=seed,
                    tag=tag,
                    kind="target",
                    indices=rs,
                )
                res = attack_draws(dr, chosen, domains=domains, chunk=chunk)
                ceil = ceiling(dr, nets, ceil_cfg, seed=seed, tag=tag, radii=radii)
                f = outcome_rows(dr, res, radii, ceil)
                f = f.assign(x=f["radius"] if radii is not None else x)
                for col in extra[int(dr.world[0])]:
                    f[col] = extra[int(dr.world[0])][col]
                for lam in lambdas:
                    o, lr, st = chosen[lam]
                    f[f"setting_l{lam:g}"] = f"{o} lr={lr:g} steps={st}"
                info = ceil["info"] if ceil is not None else {}
                f["ceiling_method"] = info.get("method", "none")
                f["ceiling_disagreement"] = float(info.get("chain_disagreement", np.nan))
                if "undetermined" in info:  # ε = ∞: records whose group the marginals do not pin
                    pos = np.searchsorted(dr.index, f["draw"].to_numpy())
                    f["ceiling_undetermined"] = np.asarray(info["undetermined"])[pos]
                frames.append(f)
                if radii is None:
                    per = f.groupby("draw")[[c for c in f if c.endswith("_ok")]].sum().mean()
                    log.info(
                        "%s x=%s worlds %s: mean over %d draws %s (ceiling: %s)",
                        tag,
                        x,
                        sorted({int(w) for w in dr.world}),
                        len(rs),
                        per.round(2).to_dict(),
                        {k_: v for k_, v in info.items() if not isinstance(v, np.ndarray)},
                    )
    Path(outputs["csv"]).parent.mkdir(parents=True, exist_ok=True)
    pd.concat(frames, ignore_index=True).to_csv(outputs["csv"], index=False)
    pd.concat(tables, ignore_index=True).to_csv(outputs["tuning"], index=False)
