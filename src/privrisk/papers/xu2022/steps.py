"""Training steps of xu2022's image half, and the run bookkeeping, writer and pooling every xu2022
step uses.

Each step function has the step signature ``f(params, inputs, outputs)``; its params
(declared in :mod:`.registry`) are the global ``seed``, ``name`` (the model), ``dataset``,
``data`` (that dataset's block), ``model`` (the model's config block: ``runs``,
``train_fraction`` and the architecture and training settings) and, for the DP-cGANs,
``epsilon`` (``inf``: the non-private control) and ``zero_six``. The model is trained ``runs``
times as one batched computation (:mod:`privrisk.training.replicates`): run k draws its own
training split, initial weights and batches from ``seeds.torch_seed(seed, name, "run", k)``, on
the same dataset. Torch uses the device of the config key ``device`` and the thread count the
step runner applied for the job (``torch_threads``, recorded in the record).

Shards (config key ``runs_per_job``; :class:`privrisk.core.declarations.Shards`): a shard's
params hold ``shard = {first, stop}`` instead of ``model.runs`` and it trains runs first..stop-1
only, each from its own seed as above, so run k is the same run whichever job trains it;
:func:`pool` then writes the model's outputs from the shards' through the same :func:`write`
an unsharded step uses.

Outputs (:func:`write`): ``split`` (npz: ``member`` (runs, N), ``run_seeds``), ``model``
(state dicts, ``run<k>/<module>``), ``queries`` (:mod:`privrisk.estimators.queries`: every
query's value for every point in every run), ``record`` (json beside the queries: data source,
sizes, settings, seeds, each query's member-vs-hold-out AUC per run, device, threads, CPU: what
the runs are, nothing about how they were laid out over jobs) and ``shards`` (json: each job's
runs, wall time, device, threads, CPU and host).
"""

from __future__ import annotations

import json
import logging
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from ...attacks.membership import query_aucs
from ...core import device as devices
from ...core import seeds
from ...data import cifar10, images, mnist
from ...estimators import queries as Q
from ...models import gan

log = logging.getLogger(__name__)


@dataclass
class Run:
    """What one training run leaves: the member mask (N,), query values (name -> (N,) or (N, d)),
    the trained modules, its own record, per-run arrays (stacked over runs) and arrays kept from
    run 0 only (e.g. images for a figure)."""

    member: np.ndarray
    values: dict[str, np.ndarray]
    modules: dict[str, torch.nn.Module]
    record: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    first_only: dict[str, np.ndarray] = field(default_factory=dict)


def device(params) -> torch.device:
    """The job's torch device (config key ``device``)."""
    return devices.resolve(params.get("device", "auto"))


def run_indices(params) -> range:
    """The runs this job trains: all ``model.runs``, or a shard's ``first``..``stop - 1``."""
    shard = params.get("shard")
    if shard is None:
        return range(int(params["model"]["runs"]))
    return range(int(shard["first"]), int(shard["stop"]))


def run_seed(params, k: int) -> int:
    """Run k's seed: from the global seed, the model's name and k alone (not the sharding)."""
    return seeds.torch_seed(params["seed"], params["name"], "run", k)


def run_seeds(params) -> list[int]:
    """One seed per run this job trains (:func:`run_indices`)."""
    return [run_seed(params, k) for k in run_indices(params)]


def split(n: int, fraction: float, seed: int) -> np.ndarray:
    """The member mask of a random ``fraction`` of ``range(n)``."""
    tr, _ = images.train_split(n, fraction, seed)
    member = np.zeros(n, dtype=bool)
    member[tr] = True
    return member


def _placed(dev: torch.device, modules: Mapping[str, torch.nn.Module]) -> dict[str, str]:
    """Where every parameter and buffer ended up (recorded, and checked: nothing left behind)."""
    where = {
        k: sorted({str(t.device) for t in [*m.parameters(), *m.buffers()]})
        for k, m in modules.items()
    }
    stray = {k: v for k, v in where.items() if v != [str(dev)]}
    if stray:
        raise RuntimeError(f"modules not on {dev}: {stray}")
    return {k: v[0] for k, v in where.items()}


def _aucs(member: np.ndarray, values: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Member-vs-hold-out AUC of every query column (``<query>`` or ``<query>[j]``)."""
    out = {}
    for k, v in values.items():
        a = {c: auc for c, auc in query_aucs(v, member).items() if c != "max"}
        out |= {k: a["d0"]} if len(a) == 1 else {f"{k}[{c[1:]}]": auc for c, auc in a.items()}
    return out


def members(params, n: int) -> tuple[list[int], np.ndarray]:
    """The run seeds and each run's member mask (runs, n) of a ``train_fraction`` split."""
    seeds_ = run_seeds(params)
    return seeds_, np.stack([split(n, params["model"]["train_fraction"], s) for s in seeds_])


def built(seed: int, make: Callable[[], Any]):
    """``make()`` under run ``seed``'s initial weights (torch's global stream, as one run alone)."""
    torch.manual_seed(seed)
    return make()


def train_indices(member: np.ndarray, dev: torch.device) -> torch.Tensor:
    """Each run's training-point indices (runs, n_train) on the device (every run's split has the
    same size, so the runs' training sets stack)."""
    return torch.from_numpy(np.stack([np.flatnonzero(m) for m in member])).to(dev)


# --- the record, the writer and the pooling of shards --------------------------------------------

#: record keys that describe the machine a job ran on (equal over the shards of one machine)
MACHINE = ("device", "torch_threads", "cpu")


def _record(
    params, shared: Mapping[str, Any], machine: Mapping[str, Any], runs: list
) -> dict[str, Any]:
    """The record of a model (or of a shard): one construction for both, so that a pooled record
    and an unsharded one are the same bytes."""
    return {
        **shared,
        "model": params["model"],
        "seed": params["seed"],
        **{k: machine[k] for k in MACHINE},
        "runs": runs,
    }


def finish(
    params, outputs, results: list[Run], seeds_: list[int], *, record: dict[str, Any], t0: float
) -> None:
    """Record every run (its index, seed, size, query AUCs, where its modules sit) and
    :func:`write` it all; ``record`` holds what the runs share (data source, sizes, what each
    query is). The runs were trained as one batched computation, so the wall time (in the
    ``shards`` output) is the job's, not a run's."""
    dev = device(params)
    indices = list(run_indices(params))
    if len(indices) != len(results):
        raise ValueError(f"{len(results)} runs trained for runs {indices[0]}..{indices[-1]}")
    run_records = []
    for k, r, s in zip(indices, results, seeds_, strict=True):
        rec = {
            "run": k,
            "seed": s,
            "n_train": int(r.member.sum()),
            "auc": _aucs(r.member, r.values),
            "devices": _placed(dev, r.modules),
            **r.record,
        }
        log.info("%s run %d: member-vs-hold-out AUC %s", params["name"], k, rec["auc"])
        run_records.append(rec)
    first = list(results[0].first_only) if indices[0] == 0 else []
    machine = {"device": str(dev), **devices.thread_record()}
    job = {
        "runs": [indices[0], indices[-1] + 1],
        **machine,
        "host": platform.node(),
        "wall_time_s": time.perf_counter() - t0,
    }
    write(
        outputs,
        member=np.stack([r.member for r in results]),
        values={k: np.stack([r.values[k] for r in results]) for k in results[0].values},
        arrays={
            **{k: np.stack([r.arrays[k] for r in results]) for k in results[0].arrays},
            **results[0].first_only,
        },
        states={
            f"run{k}/{n}": m.state_dict()
            for k, r in zip(indices, results, strict=True)
            for n, m in r.modules.items()
        },
        record=_record(
            params, {**record, **({"run0_arrays": first} if first else {})}, machine, run_records
        ),
        jobs=[job],
    )


def write(
    outputs,
    *,
    member: np.ndarray,
    values: Mapping[str, np.ndarray],
    arrays: Mapping[str, np.ndarray],
    states: Mapping[str, Any],
    record: Mapping[str, Any],
    jobs: Sequence[Mapping[str, Any]],
) -> None:
    """Write ``split``, ``model``, ``queries``, ``record`` and ``shards`` (the jobs' layout and
    times) for the runs of ``record["runs"]``."""
    np.savez(
        outputs["split"],
        member=member,
        run_seeds=np.asarray([rec["seed"] for rec in record["runs"]]),
    )
    torch.save(dict(states), outputs["model"])
    Q.save(outputs["queries"], member=member, values=values, record=record, **arrays)
    written = Q.record_path(outputs["queries"])
    if str(written) != str(outputs["record"]):  # the record is declared as its own output
        with open(outputs["record"], "w") as f:
            json.dump(record, f, indent=2, default=float)
    with open(outputs["shards"], "w") as f:
        total = sum(j["wall_time_s"] for j in jobs)
        json.dump({"jobs": list(jobs), "wall_time_s": total}, f, indent=2)
        f.write("\n")


def _one_or_all(values: list) -> Any:
    """The shards' common value of a machine key, or the list of their distinct values when they
    ran on different machines (another CPU, device or thread count: the record says so)."""
    distinct = list({json.dumps(v, sort_keys=True): v for v in values}.values())
    return distinct[0] if len(distinct) == 1 else distinct


#: record keys a pooled record takes from the pool's own params or builds from the shards'
_NOT_SHARED = ("model", "seed", "runs", "run0_arrays", *MACHINE)


class PoolError(ValueError):
    """The shards given to :func:`pool` are not the consecutive runs of one model."""


def pool(params, shards: Sequence[Mapping[str, str]], outputs) -> None:
    """Write the model's outputs from its shards' (in run order): the member masks, query values,
    per-run arrays, state dicts and per-run records concatenated, run 0's arrays from its shard,
    the shards' jobs listed in ``shards``. The shards must cover runs 0..runs-1 in order and
    agree on everything the runs share (data, sizes, settings), else nothing is written."""
    name, count = params["name"], int(params["model"]["runs"])
    parts = []
    for files in shards:
        qs = Q.load(files["queries"])
        states = torch.load(files["model"], weights_only=True)
        with open(files["shards"]) as f:
            jobs = json.load(f)["jobs"]
        parts.append((qs, states, jobs))
    runs = [r["run"] for qs, _, _ in parts for r in qs.record["runs"]]
    if runs != list(range(count)):
        raise PoolError(f"{name}: the shards hold runs {runs}, not 0..{count - 1}")
    shared = [{k: v for k, v in qs.record.items() if k not in _NOT_SHARED} for qs, _, _ in parts]
    differ = sorted(
        {k for s in shared[1:] for k in s.keys() | shared[0].keys() if s.get(k) != shared[0].get(k)}
    )
    if differ:
        raise PoolError(f"{name}: the shards disagree on {', '.join(differ)} (retrain them)")
    first = parts[0][0].record.get("run0_arrays", [])
    machine = {k: _one_or_all([qs.record[k] for qs, _, _ in parts]) for k in MACHINE}
    per_run = [k for k in parts[0][0].arrays if k not in first]
    write(
        outputs,
        member=np.concatenate([qs.member for qs, _, _ in parts]),
        values={
            k: np.concatenate([qs.values[k] for qs, _, _ in parts]) for k in parts[0][0].values
        },
        arrays={
            **{k: np.concatenate([qs.arrays[k] for qs, _, _ in parts]) for k in per_run},
            **{k: parts[0][0].arrays[k] for k in first},
        },
        states={k: v for _, states, _ in parts for k, v in states.items()},
        record=_record(
            params,
            {**shared[0], **({"run0_arrays": first} if first else {})},
            machine,
            [r for qs, _, _ in parts for r in qs.record["runs"]],
        ),
        jobs=[j for _, _, jobs in parts for j in jobs],
    )


# --- the image GANs ------------------------------------------------------------------------------

#: dataset name -> loader ``f(block, seed) -> (images in [0, 1] (N, H, W[, C]), labels, source)``
LOADERS = {"mnist": mnist.load_mnist, "cifar10": cifar10.load_cifar10}


def _load(params):
    if params["dataset"] not in LOADERS:
        raise ValueError(f"unknown dataset {params['dataset']!r}; known: {', '.join(LOADERS)}")
    return LOADERS[params["dataset"]](params["data"], params["seed"])


def wgan_gp_step(params, inputs, outputs):
    """WGAN-GP, ``model.network`` mlp (E.1 on flattened images) or conv (CIFAR-10, E.2); query
    ``d`` = the critic value D(z) (Eq. 3)."""
    t0 = time.perf_counter()
    dev, m = device(params), params["model"]
    kind = m["network"]
    x, _, source = _load(params)
    if kind == "conv":
        x = x.transpose(0, 3, 1, 2)  # NHWC -> NCHW
    elif kind != "mlp":
        raise ValueError(f"wgan_gp_step: network must be mlp or conv, got {kind!r}")
    xt = torch.from_numpy(np.ascontiguousarray(x * 2 - 1, dtype=np.float32))
    if kind == "mlp":
        xt = xt.flatten(1)
    xt = xt.to(dev)
    log.info("%s: %s data, %d points, %s networks", params["dataset"], source, len(xt), kind)
    seeds_, member = members(params, len(xt))
    nets = [
        built(s, lambda: [net.to(dev) for net in gan.build(kind, m, tuple(xt.shape[1:]))])
        for s in seeds_
    ]
    gs, ds = [n[0] for n in nets], [n[1] for n in nets]
    hist = gan.train_wgan_gp(
        xt[train_indices(member, dev)],
        gs,
        ds,
        seeds=seeds_,
        epochs=m["epochs"],
        batch_size=m["batch_size"],
        n_critic=m["n_critic"],
        gp_weight=m["gp_weight"],
        lr=m["lr"],
        betas=tuple(m["betas"]),
    )
    results = [
        Run(
            member[k],
            {"d": gan.scores(ds[k], xt)},
            {"generator": gs[k], "critic": ds[k]},
            {"final_losses": hist[k, -1].tolist()},
        )
        for k in range(len(seeds_))
    ]
    finish(
        params,
        outputs,
        results,
        seeds_,
        t0=t0,
        record={
            "dataset": params["dataset"],
            "data_source": source,
            "n": len(xt),
            "queries": {"d": "critic value D(z) (Eq. 3)"},
        },
    )


def privgan_step(params, inputs, outputs):
    """privGAN with r generator–discriminator pairs on MNIST; query ``d`` = (D_1(z), …, D_r(z))
    as logits (Eq. 6; Eq. 5's max_i D_i is their maximum)."""
    t0 = time.perf_counter()
    dev, m = device(params), params["model"]
    x, _, source = _load(params)
    xt = torch.from_numpy((x * 2 - 1).reshape(len(x), -1).astype(np.float32)).to(dev)
    r, dim = m["r"], xt.shape[1]
    log.info("privGAN r=%d on %s (%s)", r, params["dataset"], source)
    seeds_, member = members(params, len(xt))

    def make():
        return (
            [gan.MLPGenerator(m["z_dim"], m["g_hidden"], dim).to(dev) for _ in range(r)],
            [gan.MLPCritic(dim, m["d_hidden"]).to(dev) for _ in range(r)],
            gan.mlp([dim, *m["d_hidden"], r]).to(dev),
        )

    nets = [built(s, make) for s in seeds_]
    part = gan.train_privgan(
        xt[train_indices(member, dev)],
        [n[0] for n in nets],
        [n[1] for n in nets],
        [n[2] for n in nets],
        seeds=seeds_,
        epochs=m["epochs"],
        batch_size=m["batch_size"],
        lr=m["lr"],
        betas=tuple(m["betas"]),
        privacy_weight=m["privacy_weight"],
        dp_delay=m["dp_delay"],
        disc_epochs=m["disc_epochs"],
    )
    results = []
    for k, (gens, discs, priv) in enumerate(nets):
        mods = {f"generator{i}": gg for i, gg in enumerate(gens)}
        mods |= {f"discriminator{i}": dd for i, dd in enumerate(discs)}
        results.append(
            Run(
                member[k],
                {"d": np.stack([gan.scores(dd, xt) for dd in discs], 1)},
                {**mods, "privacy_discriminator": priv},
                {"part_sizes": np.bincount(part[k], minlength=r).tolist()},
            )
        )
    finish(
        params,
        outputs,
        results,
        seeds_,
        t0=t0,
        record={
            "dataset": params["dataset"],
            "data_source": source,
            "n": len(xt),
            "queries": {"d": "logits of D_1 … D_r (Eq. 6); Eq. 5's max_i D_i is their maximum"},
        },
    )


def dpcgan_step(params, inputs, outputs):
    """DP-cGAN on the MNIST 0-vs-6 set at (ε, δ) (ε = inf: the non-private control); query
    ``d`` = the conditional discriminator's logit D(x, y)."""
    t0 = time.perf_counter()
    dev, m, eps = device(params), params["model"], float(params["epsilon"])
    x, y, source = _load(params)
    zs = params["zero_six"]
    idx = mnist.zero_six_subset(y, zs["n_zeros"], zs["n_sixes"], params["seed"])
    x, y = x[idx], (y[idx] == 6).astype(np.int64)  # class 0 = digit 0, class 1 = digit 6
    size = int(zs.get("image_size", x.shape[1]))
    xt = torch.from_numpy(x)
    if size != x.shape[1]:  # average-pooled at quick scale (the per-sample gradients cost ∝ pixels)
        xt = torch.nn.functional.adaptive_avg_pool2d(xt[:, None], size)[:, 0]
    xt, yt = xt.reshape(len(x), -1).to(dev), torch.from_numpy(y).to(dev)
    log.info(
        "DP-cGAN ε=%g on MNIST 0/6 (%s, %d×%d): %d zeros, %d sixes",
        eps,
        source,
        size,
        size,
        (y == 0).sum(),
        (y == 1).sum(),
    )
    seeds_, member = members(params, len(xt))

    def make():
        g = gan.MLPGenerator(m["z_dim"], m["hidden"], xt.shape[1], n_classes=2, out_act="sigmoid")
        return g.to(dev), gan.MLPCritic(xt.shape[1], m["hidden"], n_classes=2).to(dev)

    nets = [built(s, make) for s in seeds_]
    gs, ds = [n[0] for n in nets], [n[1] for n in nets]
    tr = train_indices(member, dev)
    acct = gan.train_dpcgan(
        xt[tr],
        yt[tr],
        gs,
        ds,
        seeds=seeds_,
        epsilon=eps,
        delta=m["delta"],
        epochs=m["epochs"],
        batch_size=m["batch_size"],
        max_grad_norm=m["max_grad_norm"],
        lr_d=m["lr_d"],
        lr_g=m["lr_g"],
        d_optimizer=m.get("d_optimizer", "sgd"),
    )
    empty = acct.pop("empty_batches")
    results = []
    for k in range(len(seeds_)):
        logit = gan.scores(ds[k], xt, yt)
        sig = 1 / (1 + np.exp(-logit[member[k]]))
        results.append(
            Run(
                member[k],
                {"d": logit},
                {"generator": gs[k], "discriminator": ds[k]},
                {
                    "accounting": {**acct, "empty_batches": empty[k]},
                    "median_sigmoid_members": float(np.median(sig)),
                },
            )
        )
    finish(
        params,
        outputs,
        results,
        seeds_,
        t0=t0,
        record={
            "dataset": "mnist_zero_six",
            "data_source": source,
            "n": len(xt),
            "image_size": size,
            "n_zeros": int((y == 0).sum()),
            "n_sixes": int((y == 1).sum()),
            "subset_index": idx.tolist(),
            "epsilon": eps,
            "queries": {"d": "logit of the conditional discriminator D(x, y)"},
        },
    )
