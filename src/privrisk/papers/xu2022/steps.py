"""Expensive steps of xu2022: load data, split 10 %, train one model, save queries for all points.

Each function has the step signature ``f(params, inputs, outputs, threads)``. Its params
(declared in :mod:`.registry`) are the global ``seed``, ``dataset`` (a key of :data:`LOADERS`),
``data`` (that dataset's data block), ``model`` (the model's config), and ``train_fraction``
(WGAN-GP, privGAN), ``model.network`` (WGAN-GP: ``mlp`` or ``conv``) or ``epsilon`` and ``zero_six``
(DP-cGAN; ε = inf is the non-private control). Every model and tensor goes to
``device.resolve(params["device"])``, torch uses the rule's ``threads``. It writes
``outputs["split"]`` (npz: train/hold-out indices and seed), ``outputs["model"]`` (state dicts),
``outputs["queries"]`` (npz: ``scores`` (N, d) for every point of the dataset, ``member`` mask)
and ``outputs["record"]`` (json: data source, sizes, training settings, wall time).
"""

from __future__ import annotations

import json
import logging
import time

import numpy as np
import torch

from ...core import device as devices
from ...data import cifar10, images, mnist
from ...estimators.heldout import query_aucs
from ...models import gan

log = logging.getLogger(__name__)


def _setup(params, threads) -> torch.device:
    """The job's torch device (config key ``device``) and its declared CPU threads."""
    devices.use_threads(threads)
    return devices.resolve(params.get("device", "auto"))


def _placed(dev: torch.device, **modules) -> dict[str, str]:
    """Where every parameter and buffer ended up (recorded, and checked: nothing left behind)."""
    where = {
        k: sorted({str(t.device) for t in [*m.parameters(), *m.buffers()]})
        for k, m in modules.items()
    }
    stray = {k: v for k, v in where.items() if v != [str(dev)]}
    if stray:
        raise RuntimeError(f"modules not on {dev}: {stray}")
    return {k: v[0] for k, v in where.items()}


def _write(outputs, split, member, scores, record, seed, **modules):
    scores = np.asarray(scores, dtype=np.float64).reshape(len(member), -1)
    # the membership signal every estimator depends on, measured before any of them runs
    record["auc"] = query_aucs(scores, member)
    record["devices"] = _placed(torch.device(record["device"]), **modules)
    log.info("member-vs-hold-out AUC of the queries: %s", record["auc"])
    images.save_split(outputs["split"], split[0], split[1], seed)
    gan.save_checkpoint(outputs["model"], **modules)
    np.savez(outputs["queries"], scores=scores, member=member)
    with open(outputs["record"], "w") as f:
        json.dump(record, f, indent=2, default=float)


def _split(n, fraction, seed):
    tr, ho = images.train_split(n, fraction, seed)
    member = np.zeros(n, dtype=bool)
    member[tr] = True
    return (tr, ho), member


#: dataset name -> loader ``f(block, seed) -> (images in [0, 1] (N, H, W[, C]), labels, source)``
LOADERS = {"mnist": mnist.load_mnist, "cifar10": cifar10.load_cifar10}


def _load(params):
    if params["dataset"] not in LOADERS:
        raise ValueError(f"unknown dataset {params['dataset']!r}; known: {', '.join(LOADERS)}")
    return LOADERS[params["dataset"]](params["data"], params["seed"])


def wgan_gp_step(params, inputs, outputs, threads):
    """WGAN-GP, ``model.network`` mlp (E.1 on flattened images) or conv (CIFAR-10, E.2); query =
    critic value D(z) (Eq. 3)."""
    t0 = time.perf_counter()
    dev = _setup(params, threads)
    seed, m = params["seed"], params["model"]
    kind = m["network"]
    x, _, source = _load(params)
    if kind == "conv":
        x = x.transpose(0, 3, 1, 2)  # NHWC -> NCHW
    elif kind != "mlp":
        raise ValueError(f"wgan_gp_step: network must be mlp or conv, got {kind!r}")
    xt = torch.from_numpy(np.ascontiguousarray(x * 2 - 1, dtype=np.float32))
    if kind == "mlp":
        xt = xt.flatten(1)
    split, member = _split(len(xt), params["train_fraction"], seed)
    torch.manual_seed(seed)
    g, d = (net.to(dev) for net in gan.build(kind, m, tuple(xt.shape[1:])))
    xt = xt.to(dev)
    log.info(
        "%s: %s data, %d training / %d hold-out points",
        params["dataset"],
        source,
        member.sum(),
        (~member).sum(),
    )
    gan.train_wgan_gp(
        xt[torch.from_numpy(member).to(dev)],
        g,
        d,
        gen_iters=m["gen_iters"],
        batch_size=m["batch_size"],
        n_critic=m["n_critic"],
        gp_weight=m["gp_weight"],
        lr=m["lr"],
        betas=tuple(float(b) for b in m["betas"]),
        seed=seed,
    )
    s = gan.scores(d, xt)
    record = {
        "dataset": params["dataset"],
        "data_source": source,
        "n": len(xt),
        "n_train": int(member.sum()),
        "model": m,
        "seed": seed,
        "wall_time_s": time.perf_counter() - t0,
        "query": "critic value D(z)",
        "device": str(dev),
        "threads": threads,
    }
    _write(outputs, split, member, s, record, seed, generator=g, critic=d)


def privgan_step(params, inputs, outputs, threads):
    """privGAN (r pairs) on MNIST; query = (σ(D_1(z)), …, σ(D_r(z))) (Eq. 6)."""
    t0 = time.perf_counter()
    dev = _setup(params, threads)
    seed, m = params["seed"], params["model"]
    x, _, source = _load(params)
    xt = torch.from_numpy((x * 2 - 1).reshape(len(x), -1).astype(np.float32))
    split, member = _split(len(xt), params["train_fraction"], seed)
    torch.manual_seed(seed)
    r = m["r"]
    gens = [gan.MLPGenerator(m["z_dim"], m["g_hidden"], xt.shape[1]).to(dev) for _ in range(r)]
    discs = [gan.MLPCritic(xt.shape[1], m["d_hidden"]).to(dev) for _ in range(r)]
    priv = gan.mlp([xt.shape[1], *m["d_hidden"], r]).to(dev)
    xt = xt.to(dev)
    log.info(
        "privGAN r=%d on %s (%s), %d training points", r, params["dataset"], source, member.sum()
    )
    part = gan.train_privgan(
        xt[torch.from_numpy(member).to(dev)],
        gens,
        discs,
        priv,
        epochs=m["epochs"],
        batch_size=m["batch_size"],
        lr=m["lr"],
        beta1=m["beta1"],
        privacy_weight=m["privacy_weight"],
        dp_delay=m["dp_delay"],
        disc_epochs=m["disc_epochs"],
        seed=seed,
    )
    s = np.stack([1 / (1 + np.exp(-gan.scores(dd, xt))) for dd in discs], 1)
    record = {
        "dataset": params["dataset"],
        "data_source": source,
        "n": len(xt),
        "n_train": int(member.sum()),
        "model": m,
        "seed": seed,
        "part_sizes": np.bincount(part).tolist(),
        "wall_time_s": time.perf_counter() - t0,
        "query": "sigmoid outputs of D_1..D_r",
        "device": str(dev),
        "threads": threads,
    }
    mods = {f"generator{i}": gg for i, gg in enumerate(gens)} | {
        f"discriminator{i}": dd for i, dd in enumerate(discs)
    }
    _write(outputs, split, member, s, record, seed, privacy_discriminator=priv, **mods)


def dpcgan_step(params, inputs, outputs, threads):
    """DP-cGAN on the MNIST 0-vs-6 set at (ε, δ); query = σ(D(x, y)) (conditional score)."""
    t0 = time.perf_counter()
    dev = _setup(params, threads)
    seed, m, eps = params["seed"], params["model"], float(params["epsilon"])
    x, y, source = _load(params)
    zs = params["zero_six"]
    idx = mnist.zero_six_subset(y, zs["n_zeros"], zs["n_sixes"], seed)
    x, y = x[idx], (y[idx] == 6).astype(np.int64)  # class 0 = digit 0, class 1 = digit 6
    xt, yt = torch.from_numpy(x.reshape(len(x), -1)).to(dev), torch.from_numpy(y).to(dev)
    (tr, ho), member = _split(len(xt), zs["train_fraction"], seed)
    torch.manual_seed(seed)
    g = gan.MLPGenerator(m["z_dim"], m["hidden"], xt.shape[1], n_classes=2, out_act="sigmoid").to(
        dev
    )
    d = gan.MLPCritic(xt.shape[1], m["hidden"], n_classes=2).to(dev)
    log.info(
        "DP-cGAN ε=%g on MNIST 0/6 (%s): %d zeros, %d sixes, %d training points",
        eps,
        source,
        (y == 0).sum(),
        (y == 1).sum(),
        member.sum(),
    )
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
        seed=seed,
    )
    s = 1 / (1 + np.exp(-gan.scores(d, xt, yt)))
    record = {
        "dataset": "mnist_zero_six",
        "data_source": source,
        "n": len(xt),
        "n_train": int(member.sum()),
        "n_zeros": int((y == 0).sum()),
        "n_sixes": int((y == 1).sum()),
        "subset_index": idx.tolist(),
        "model": m,
        "epsilon": eps,
        "accounting": acct,
        "seed": seed,
        "wall_time_s": time.perf_counter() - t0,
        "query": "sigmoid of the conditional discriminator D(x, y)",
        "device": str(dev),
        "threads": threads,
    }
    _write(outputs, (tr, ho), member, s, record, seed, generator=g, discriminator=d)
