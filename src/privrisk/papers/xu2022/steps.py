"""Training steps of xu2022's image half, and the one run loop and writer every xu2022 step uses.

Each step function has the step signature ``f(params, inputs, outputs, threads)``; its params
(declared in :mod:`.registry`) are the global ``seed``, ``name`` (the model), ``dataset``,
``data`` (that dataset's block), ``model`` (the model's config block: ``runs``,
``train_fraction`` and the architecture and training settings) and, for the DP-cGANs,
``epsilon`` (``inf``: the non-private control) and ``zero_six``. The model is trained ``runs``
times (:func:`train_runs`): run k draws its own training split, initial weights and batches from
``seeds.torch_seed(seed, name, "run", k)``, on the same dataset. Torch uses the device of the
config key ``device`` and the threads the pipeline set for the job (recorded in the record).

Outputs (:func:`write`): ``split`` (npz: ``member`` (runs, N), ``run_seeds``), ``model``
(state dicts, ``run<k>/<module>``), ``queries`` (:mod:`privrisk.estimators.queries`: every
query's value for every point in every run) and ``record`` (json beside the queries: data
source, sizes, settings, seeds, each query's member-vs-hold-out AUC per run, threads, wall time).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
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
    the first run only (e.g. images for a figure)."""

    member: np.ndarray
    values: dict[str, np.ndarray]
    modules: dict[str, torch.nn.Module]
    record: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    first_only: dict[str, np.ndarray] = field(default_factory=dict)


def device(params) -> torch.device:
    """The job's torch device (config key ``device``)."""
    return devices.resolve(params.get("device", "auto"))


def run_seeds(params) -> list[int]:
    """One seed per training run of the model (``model.runs``), from the global seed and its name."""
    return [
        seeds.torch_seed(params["seed"], params["name"], "run", k)
        for k in range(int(params["model"]["runs"]))
    ]


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


def train_runs(
    params, outputs, one_run: Callable[[int, int], Run], *, record: dict[str, Any]
) -> None:
    """Call ``one_run(k, seed_k)`` for every run of the model and :func:`write` the outputs;
    ``record`` holds what the runs share (data source, sizes, what each query is)."""
    t0 = time.perf_counter()
    dev = device(params)
    results, run_records = [], []
    for k, s in enumerate(run_seeds(params)):
        t = time.perf_counter()
        r = one_run(k, s)
        rec = {
            "run": k,
            "seed": s,
            "n_train": int(r.member.sum()),
            "auc": _aucs(r.member, r.values),
            "devices": _placed(dev, r.modules),
            **r.record,
            "wall_time_s": time.perf_counter() - t,
        }
        log.info("%s run %d: member-vs-hold-out AUC %s", params["name"], k, rec["auc"])
        results.append(r)
        run_records.append(rec)
    full = {
        **record,
        "model": params["model"],
        "seed": params["seed"],
        "device": str(dev),
        **devices.thread_record(),
        "runs": run_records,
        "wall_time_s": time.perf_counter() - t0,
    }
    write(outputs, results, full)


def write(outputs, results: list[Run], record: dict[str, Any]) -> None:
    """Write ``split``, ``model``, ``queries`` and ``record`` for every run."""
    member = np.stack([r.member for r in results])
    np.savez(
        outputs["split"],
        member=member,
        run_seeds=np.asarray([rec["seed"] for rec in record["runs"]]),
    )
    torch.save(
        {
            f"run{k}/{n}": m.state_dict()
            for k, r in enumerate(results)
            for n, m in r.modules.items()
        },
        outputs["model"],
    )
    values = {k: np.stack([r.values[k] for r in results]) for k in results[0].values}
    arrays = {k: np.stack([r.arrays[k] for r in results]) for k in results[0].arrays}
    Q.save(
        outputs["queries"],
        member=member,
        values=values,
        record=record,
        **arrays,
        **results[0].first_only,
    )
    written = Q.record_path(outputs["queries"])
    if str(written) != str(outputs["record"]):  # the record is declared as its own output
        with open(outputs["record"], "w") as f:
            json.dump(record, f, indent=2, default=float)


# --- the image GANs ------------------------------------------------------------------------------

#: dataset name -> loader ``f(block, seed) -> (images in [0, 1] (N, H, W[, C]), labels, source)``
LOADERS = {"mnist": mnist.load_mnist, "cifar10": cifar10.load_cifar10}


def _load(params):
    if params["dataset"] not in LOADERS:
        raise ValueError(f"unknown dataset {params['dataset']!r}; known: {', '.join(LOADERS)}")
    return LOADERS[params["dataset"]](params["data"], params["seed"])


def wgan_gp_step(params, inputs, outputs, threads):
    """WGAN-GP, ``model.network`` mlp (E.1 on flattened images) or conv (CIFAR-10, E.2); query
    ``d`` = the critic value D(z) (Eq. 3)."""
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

    def one_run(k: int, s: int) -> Run:
        member = split(len(xt), m["train_fraction"], s)
        torch.manual_seed(s)
        g, d = (net.to(dev) for net in gan.build(kind, m, tuple(xt.shape[1:])))
        hist = gan.train_wgan_gp(
            xt[torch.from_numpy(member).to(dev)],
            g,
            d,
            epochs=m["epochs"],
            batch_size=m["batch_size"],
            n_critic=m["n_critic"],
            gp_weight=m["gp_weight"],
            lr=m["lr"],
            betas=tuple(m["betas"]),
            seed=s,
        )
        return Run(
            member,
            {"d": gan.scores(d, xt)},
            {"generator": g, "critic": d},
            {"final_losses": hist[-1]},
        )

    train_runs(
        params,
        outputs,
        one_run,
        record={
            "dataset": params["dataset"],
            "data_source": source,
            "n": len(xt),
            "queries": {"d": "critic value D(z) (Eq. 3)"},
        },
    )


def privgan_step(params, inputs, outputs, threads):
    """privGAN with r generator–discriminator pairs on MNIST; query ``d`` = (D_1(z), …, D_r(z))
    as logits (Eq. 6; Eq. 5's max_i D_i is their maximum)."""
    dev, m = device(params), params["model"]
    x, _, source = _load(params)
    xt = torch.from_numpy((x * 2 - 1).reshape(len(x), -1).astype(np.float32)).to(dev)
    r = m["r"]

    def one_run(k: int, s: int) -> Run:
        member = split(len(xt), m["train_fraction"], s)
        torch.manual_seed(s)
        gens = [gan.MLPGenerator(m["z_dim"], m["g_hidden"], xt.shape[1]).to(dev) for _ in range(r)]
        discs = [gan.MLPCritic(xt.shape[1], m["d_hidden"]).to(dev) for _ in range(r)]
        priv = gan.mlp([xt.shape[1], *m["d_hidden"], r]).to(dev)
        part = gan.train_privgan(
            xt[torch.from_numpy(member).to(dev)],
            gens,
            discs,
            priv,
            epochs=m["epochs"],
            batch_size=m["batch_size"],
            lr=m["lr"],
            betas=tuple(m["betas"]),
            privacy_weight=m["privacy_weight"],
            dp_delay=m["dp_delay"],
            disc_epochs=m["disc_epochs"],
            seed=s,
        )
        mods = {f"generator{i}": gg for i, gg in enumerate(gens)}
        mods |= {f"discriminator{i}": dd for i, dd in enumerate(discs)}
        return Run(
            member,
            {"d": np.stack([gan.scores(dd, xt) for dd in discs], 1)},
            {**mods, "privacy_discriminator": priv},
            {"part_sizes": np.bincount(part).tolist()},
        )

    log.info("privGAN r=%d on %s (%s)", r, params["dataset"], source)
    train_runs(
        params,
        outputs,
        one_run,
        record={
            "dataset": params["dataset"],
            "data_source": source,
            "n": len(xt),
            "queries": {"d": "logits of D_1 … D_r (Eq. 6); Eq. 5's max_i D_i is their maximum"},
        },
    )


def dpcgan_step(params, inputs, outputs, threads):
    """DP-cGAN on the MNIST 0-vs-6 set at (ε, δ) (ε = inf: the non-private control); query
    ``d`` = the conditional discriminator's logit D(x, y)."""
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

    def one_run(k: int, s: int) -> Run:
        member = split(len(xt), m["train_fraction"], s)
        torch.manual_seed(s)
        g = gan.MLPGenerator(
            m["z_dim"], m["hidden"], xt.shape[1], n_classes=2, out_act="sigmoid"
        ).to(dev)
        d = gan.MLPCritic(xt.shape[1], m["hidden"], n_classes=2).to(dev)
        mt = torch.from_numpy(member).to(dev)
        acct = gan.train_dpcgan(
            xt[mt],
            yt[mt],
            g,
            d,
            epsilon=eps,
            delta=m["delta"],
            epochs=m["epochs"],
            batch_size=m["batch_size"],
            max_grad_norm=m["max_grad_norm"],
            lr_d=m["lr_d"],
            lr_g=m["lr_g"],
            d_optimizer=m.get("d_optimizer", "sgd"),
            seed=s,
        )
        logit = gan.scores(d, xt, yt)
        sig = 1 / (1 + np.exp(-logit[member]))
        return Run(
            member,
            {"d": logit},
            {"generator": g, "discriminator": d},
            {"accounting": acct, "median_sigmoid_members": float(np.median(sig))},
        )

    train_runs(
        params,
        outputs,
        one_run,
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
