"""Training steps of xu2022's skin-lesion half: the JS-GAN (clean and with corrupted training
images), the WGAN-GP of the Fig. 2b caption and the E.3.3 classifier; each trains ``runs`` times
(one batched computation) and saves every run's queries for every image (:func:`.steps.finish`).

Params (declared in :mod:`.registry`): ``seed``, ``name``, ``device``, ``data`` (the
``data.dermamnist`` block), ``model`` (the model's block, with ``runs`` and ``train_fraction``),
and ``synthetic`` (clean GANs: the synthetic-set sizes of Eq. 2) or ``corruption``.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import torch

from ...attacks.membership import nearest_distances
from ...core import seeds
from ...data import dermamnist
from ...models import gan, skin
from .steps import Run, built, device, finish, members, run_indices, train_indices

log = logging.getLogger(__name__)


def _tensor(x: np.ndarray, dev) -> torch.Tensor:
    """NHWC images in [0, 1] → NCHW in [−1, 1] on the device."""
    return torch.from_numpy(
        np.ascontiguousarray(x.transpose(0, 3, 1, 2) * 2 - 1, dtype=np.float32)
    ).to(dev)


def gan_step(params, inputs, outputs):
    """A JS-GAN (``kind`` jsgan) or WGAN-GP (``kind`` wgangp) on the skin split, optionally with
    ``corruption`` ({fraction, box}) applied to that fraction of each run's training images.

    Queries: ``d`` = the discriminator logit D(z) (Eq. 3) for every image; without corruption
    also ``nn`` (N, len(sizes)) = Eq. 2's distance to the first n synthetic images for each n in
    ``synthetic.sizes`` (nested prefixes of one generated set). With corruption: the per-run mask
    ``corrupted`` and, from run 0, its training images (``train_images``, uint8) and
    their indices (``train_idx``) for Fig. 4a.
    """
    t0 = time.perf_counter()
    dev, m, kind = device(params), params["model"], params["kind"]
    if kind not in ("jsgan", "wgangp"):
        raise ValueError(f"gan_step: kind must be jsgan or wgangp, got {kind!r}")
    x0, _, source = dermamnist.load_dermamnist(params["data"], params["seed"])
    corruption = params.get("corruption")
    sizes = None if corruption else sorted(int(s) for s in params["synthetic"]["sizes"])
    log.info(
        "%s on %s skin data (%d images, %d×%d, %s)%s",
        kind,
        source,
        len(x0),
        x0.shape[1],
        x0.shape[1],
        dev,
        f", {corruption['fraction']:.0%} of each training set corrupted" if corruption else "",
    )
    seeds_, member = members(params, len(x0))
    tr = [np.flatnonzero(mk) for mk in member]
    images, masks = [x0] * len(seeds_), []
    if corruption:  # each run corrupts its own training images
        for k, s in enumerate(seeds_):
            images[k], mask = dermamnist.corrupt(
                x0, tr[k], corruption["fraction"], corruption["box"], s
            )
            masks.append(mask)
    train = torch.stack([_tensor(im[t], dev) for im, t in zip(images, tr, strict=True)])
    nets = [built(s, lambda: skin.build_gan(m, x0.shape[1], dev)) for s in seeds_]
    gs, ds = [n[0] for n in nets], [n[1] for n in nets]
    common = {"epochs": m["epochs"], "batch_size": m["batch_size"], "lr": m["lr"]}
    if kind == "jsgan":
        hist = gan.train_jsgan(train, gs, ds, seeds=seeds_, betas=tuple(m["betas"]), **common)
    else:
        hist = gan.train_wgan_gp(
            train,
            gs,
            ds,
            seeds=seeds_,
            n_critic=m["n_critic"],
            gp_weight=m["gp_weight"],
            betas=tuple(m["betas"]),
            **common,
        )
    results = []
    for k, s in enumerate(seeds_):
        xt = _tensor(images[k], dev)
        values = {"d": gan.scores(ds[k], xt)}
        rec, arrays, first = {"final_losses": hist[k, -1].tolist()}, {}, {}
        if sizes:
            syn = gan.generate(gs[k], sizes[-1], seeds.torch_seed(s, "synthetic"))
            values["nn"] = nearest_distances(xt, syn, sizes, chunk=params["synthetic"]["chunk"])
        if corruption:
            arrays["corrupted"] = masks[k]
            rec["n_corrupted"] = int(masks[k].sum())
            if run_indices(params)[k] == 0:  # run 0, in whichever shard trains it
                first = {
                    "train_images": (images[k][tr[k]] * 255).round().astype(np.uint8),
                    "train_idx": tr[k],
                }
        results.append(
            Run(member[k], values, {"generator": gs[k], "discriminator": ds[k]}, rec, arrays, first)
        )

    queries = {"d": "discriminator logit D(z) (Eq. 3)"}
    extra = {}
    if sizes:
        queries["nn"] = (
            "L2 distance to the nearest of the first n synthetic images (Eq. 2), one column per n"
        )
        extra["nn_sizes"] = sizes
    finish(
        params,
        outputs,
        results,
        seeds_,
        t0=t0,
        record={
            "dataset": "dermamnist",
            "data_source": source,
            "n": len(x0),
            "image_size": int(x0.shape[1]),
            "kind": kind,
            "queries": queries,
            "corruption": corruption or None,
            **extra,
        },
    )


def classifier_step(params, inputs, outputs):
    """The E.3.3 classifier (malignant vs benign) on the skin split; queries ``white`` (N, 2): the
    penultimate Dense(2) outputs, and ``black`` (N,): the output logit."""
    t0 = time.perf_counter()
    dev, m = device(params), params["model"]
    x, y, source = dermamnist.load_dermamnist(params["data"], params["seed"])
    xt, yt = _tensor(x, dev), torch.from_numpy(y).to(dev)
    log.info("E.3.3 classifier on %s skin data (%d images)", source, len(x))
    seeds_, member = members(params, len(x))
    models = [built(s, lambda: skin.Classifier(m["channels"], x.shape[1]).to(dev)) for s in seeds_]
    tr = train_indices(member, dev)
    hist = skin.train_classifier(
        xt[tr],
        yt[tr],
        models,
        seeds=seeds_,
        epochs=m["epochs"],
        batch_size=m["batch_size"],
        lr=m["lr"],
    )
    results = []
    for k, model in enumerate(models):
        white, black = model.queries(xt)
        acc = {
            k2: float(np.mean((black[s2] > 0) == y[s2]))
            for k2, s2 in (("train", member[k]), ("holdout", ~member[k]))
        }
        # a unit that is constant on every image makes the 2-d query 1-d (a test refuses it)
        alive = [bool(np.ptp(white[:, j]) > 0) for j in range(white.shape[1])]
        results.append(
            Run(
                member[k],
                {"white": white, "black": black},
                {"classifier": model},
                {
                    "accuracy": acc,
                    "final_loss": float(hist[k, -1]),
                    "white_units_vary": alive,
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
            "dataset": "dermamnist",
            "data_source": source,
            "n": len(x),
            "image_size": int(x.shape[1]),
            "target": "malignant (akiec, bcc, mel) vs benign",
            "malignant_fraction": float(y.mean()),
            "queries": {
                "white": "penultimate Dense(2) outputs (LeakyReLU 0.2)",
                "black": "output logit (the sigmoid's argument)",
            },
        },
    )
