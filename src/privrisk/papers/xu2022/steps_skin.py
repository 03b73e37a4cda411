"""Training steps of xu2022's skin-lesion half: the JS-GAN (clean and with corrupted training
images), the WGAN-GP of the Fig. 2b caption and the E.3.3 classifier; each trains ``runs`` times
and saves every run's queries for every image (:func:`.steps.train_runs`).

Params (declared in :mod:`.registry`): ``seed``, ``name``, ``device``, ``data`` (the
``data.dermamnist`` block), ``model`` (the model's block, with ``runs`` and ``train_fraction``),
and ``synthetic`` (clean GANs: the synthetic-set sizes of Eq. 2) or ``corruption``.
"""

from __future__ import annotations

import logging

import numpy as np
import torch

from ...attacks.membership import nearest_distances
from ...core import seeds
from ...data import dermamnist
from ...models import gan, skin
from .steps import Run, device, split, train_runs

log = logging.getLogger(__name__)


def _tensor(x: np.ndarray, dev) -> torch.Tensor:
    """NHWC images in [0, 1] → NCHW in [−1, 1] on the device."""
    return torch.from_numpy(
        np.ascontiguousarray(x.transpose(0, 3, 1, 2) * 2 - 1, dtype=np.float32)
    ).to(dev)


def gan_step(params, inputs, outputs, threads):
    """A JS-GAN (``kind`` jsgan) or WGAN-GP (``kind`` wgangp) on the skin split, optionally with
    ``corruption`` ({fraction, box}) applied to that fraction of each run's training images.

    Queries: ``d`` = the discriminator logit D(z) (Eq. 3) for every image; without corruption
    also ``nn`` (N, len(sizes)) = Eq. 2's distance to the first n synthetic images for each n in
    ``synthetic.sizes`` (nested prefixes of one generated set). With corruption: the per-run mask
    ``corrupted`` and, from the first run, its training images (``train_images``, uint8) and
    their indices (``train_idx``) for Fig. 4a.
    """
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

    def one_run(k: int, s: int) -> Run:
        member = split(len(x0), m["train_fraction"], s)
        tr = np.flatnonzero(member)
        arrays, first = {}, {}
        x = x0
        if corruption:
            x, mask = dermamnist.corrupt(x0, tr, corruption["fraction"], corruption["box"], s)
            arrays["corrupted"] = mask
            if k == 0:
                first = {
                    "train_images": (x[tr] * 255).round().astype(np.uint8),
                    "train_idx": tr,
                }
        xt = _tensor(x, dev)
        torch.manual_seed(s)
        g, d = skin.build_gan(m, x.shape[1], dev)
        train = xt[torch.from_numpy(member).to(dev)]
        common = {"epochs": m["epochs"], "batch_size": m["batch_size"], "lr": m["lr"]}
        if kind == "jsgan":
            hist = gan.train_jsgan(train, g, d, betas=tuple(m["betas"]), seed=s, **common)
        else:
            hist = gan.train_wgan_gp(
                train,
                g,
                d,
                n_critic=m["n_critic"],
                gp_weight=m["gp_weight"],
                betas=tuple(m["betas"]),
                seed=s,
                **common,
            )
        values = {"d": gan.scores(d, xt)}
        rec = {"final_losses": hist[-1]}
        if sizes:
            syn = gan.generate(g, sizes[-1], seeds.torch_seed(s, "synthetic"))
            values["nn"] = nearest_distances(xt, syn, sizes, chunk=params["synthetic"]["chunk"])
        if corruption:
            rec["n_corrupted"] = int(mask.sum())
        return Run(member, values, {"generator": g, "discriminator": d}, rec, arrays, first)

    queries = {"d": "discriminator logit D(z) (Eq. 3)"}
    extra = {}
    if sizes:
        queries["nn"] = (
            "L2 distance to the nearest of the first n synthetic images (Eq. 2), one column per n"
        )
        extra["nn_sizes"] = sizes
    train_runs(
        params,
        outputs,
        one_run,
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


def classifier_step(params, inputs, outputs, threads):
    """The E.3.3 classifier (malignant vs benign) on the skin split; queries ``white`` (N, 2): the
    penultimate Dense(2) outputs, and ``black`` (N,): the output logit."""
    dev, m = device(params), params["model"]
    x, y, source = dermamnist.load_dermamnist(params["data"], params["seed"])
    xt, yt = _tensor(x, dev), torch.from_numpy(y).to(dev)

    def one_run(k: int, s: int) -> Run:
        member = split(len(x), m["train_fraction"], s)
        torch.manual_seed(s)
        model = skin.Classifier(m["channels"], x.shape[1]).to(dev)
        mt = torch.from_numpy(member).to(dev)
        hist = skin.train_classifier(
            xt[mt],
            yt[mt],
            model,
            epochs=m["epochs"],
            batch_size=m["batch_size"],
            lr=m["lr"],
            seed=s,
        )
        white, black = model.queries(xt)
        acc = {
            k2: float(np.mean((black[s2] > 0) == y[s2]))
            for k2, s2 in (("train", member), ("holdout", ~member))
        }
        # a unit that is constant on every image makes the 2-d query 1-d (a test refuses it)
        alive = [bool(np.ptp(white[:, j]) > 0) for j in range(white.shape[1])]
        return Run(
            member,
            {"white": white, "black": black},
            {"classifier": model},
            {"accuracy": acc, "final_loss": hist[-1], "white_units_vary": alive},
        )

    log.info("E.3.3 classifier on %s skin data (%d images)", source, len(x))
    train_runs(
        params,
        outputs,
        one_run,
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
