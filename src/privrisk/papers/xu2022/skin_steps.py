"""Training steps of the xu2022 skin-lesion half: the JS-GAN (clean and corrupted), the WGAN-GP
of the Fig. 2b caption, and the E.3.3 classifier; each saves its queries for every image.

Step signature ``f(params, inputs, outputs, threads)``. Params (declared in
:mod:`.skin_registry`): ``seed``, ``device``, ``data`` (the ``data.dermamnist`` block),
``train_fraction``, ``model`` (the model's block), and ``synthetic`` (GANs: the synthetic-set
sizes) or ``corruption`` (the corrupted JS-GAN). Outputs: ``split`` (npz), ``model`` (state
dicts), ``queries`` (npz: ``member`` and one array per query for every image) and ``record``
(json: data source, sizes, settings, the member-vs-non-member AUC of every query, wall time).
"""

from __future__ import annotations

import json
import logging
import time

import numpy as np
import torch

from ...core import device as devices
from ...core import seeds
from ...data import dermamnist, images
from ...models import skin

log = logging.getLogger(__name__)


def _setup(params, threads):
    devices.use_threads(threads)
    dev = devices.resolve(params["device"])
    x, y, source = dermamnist.load_dermamnist(params["data"], params["seed"])
    tr, ho = images.train_split(len(x), params["train_fraction"], params["seed"])
    member = np.zeros(len(x), dtype=bool)
    member[tr] = True
    return dev, x, y, source, (tr, ho), member


def _tensor(x: np.ndarray, dev) -> torch.Tensor:
    """NHWC images in [0, 1] → NCHW in [−1, 1] on the device."""
    return torch.from_numpy(
        np.ascontiguousarray(x.transpose(0, 3, 1, 2) * 2 - 1, dtype=np.float32)
    ).to(dev)


def _aucs(member: np.ndarray, **queries: np.ndarray) -> dict[str, float]:
    """AUC of each 1-d query as a membership score (sign: larger = member)."""
    return {k: skin.member_auc(v[member], v[~member]) for k, v in queries.items()}


def _write(outputs, split, seed, record, arrays, extra_split=None, **modules):
    images.save_split(outputs["split"], *split, seed, **(extra_split or {}))
    torch.save({k: m.state_dict() for k, m in modules.items()}, outputs["model"])
    np.savez(outputs["queries"], **arrays)
    with open(outputs["record"], "w") as f:
        json.dump(record, f, indent=2, default=float)


def _record(params, source, x, member, dev, t0, **kw):
    return {
        "dataset": "dermamnist",
        "data_source": source,
        "n": len(x),
        "n_train": int(member.sum()),
        "image_size": int(x.shape[1]),
        "model": params["model"],
        "seed": params["seed"],
        "device": str(dev),
        **kw,
        "wall_time_s": time.perf_counter() - t0,
    }


def gan_step(params, inputs, outputs, threads):
    """A JS-GAN (``kind`` jsgan) or WGAN-GP (``kind`` wgangp) on the skin split, optionally with
    ``corruption`` ({fraction, box}) applied to that fraction of the training images.

    Queries: ``d`` = D(z) (logit, Eq. 3) for every image; GANs without corruption also
    ``nn`` (N, len(sizes)) = Eq. 2's distance to the first n synthetic samples for n in
    ``synthetic.sizes``; with corruption, ``corrupted`` (mask) and the training images
    ``train_images`` (uint8) for Fig. 4a.
    """
    t0 = time.perf_counter()
    seed, m, kind = params["seed"], params["model"], params["kind"]
    dev, x, _, source, split, member = _setup(params, threads)
    extra, arrays = {}, {}
    corruption = params.get("corruption")
    if corruption:
        x, mask = dermamnist.corrupt(x, split[0], corruption["fraction"], corruption["box"], seed)
        extra, arrays["corrupted"] = {"corrupted": mask}, mask
        arrays["train_images"] = (x[split[0]] * 255).round().astype(np.uint8)
        arrays["train_idx"] = split[0]
    xt = _tensor(x, dev)
    torch.manual_seed(seeds.torch_seed(seed, "skin", kind))
    g, d = skin.build_gan(m, x.shape[1], dev)
    log.info(
        "%s on %s skin data (%d×%d, %s): %d training / %d hold-out images%s",
        kind,
        source,
        x.shape[1],
        x.shape[1],
        dev,
        member.sum(),
        (~member).sum(),
        f", {mask.sum()} corrupted" if corruption else "",
    )
    train_seed = seeds.torch_seed(seed, "skin", kind, "train")
    common = {
        "epochs": m["epochs"],
        "batch_size": m["batch_size"],
        "lr": m["lr"],
        "seed": train_seed,
    }
    if kind == "jsgan":
        hist = skin.train_jsgan(
            xt[torch.from_numpy(member).to(dev)], g, d, beta1=m["beta1"], **common
        )
    elif kind == "wgangp":
        hist = skin.train_wgangp(
            xt[torch.from_numpy(member).to(dev)],
            g,
            d,
            n_critic=m["n_critic"],
            gp_weight=m["gp_weight"],
            **common,
        )
    else:
        raise ValueError(f"gan_step: kind must be jsgan or wgangp, got {kind!r}")
    arrays["d"] = skin.logits(d, xt)
    query_note = {"d": "discriminator logit D(z) (Eq. 3)"}
    if not corruption:
        sizes = sorted(int(s) for s in params["synthetic"]["sizes"])
        syn = skin.generate(g, sizes[-1], seeds.torch_seed(seed, "skin", kind, "synthetic"))
        arrays["nn"] = skin.nearest_distances(xt, syn, sizes, chunk=params["synthetic"]["chunk"])
        arrays["nn_sizes"] = np.asarray(sizes)
        query_note["nn"] = (
            "L2 distance to the nearest of the first n synthetic samples (Eq. 2), one column per n"
        )
    arrays["member"] = member
    scores = {"discriminator": arrays["d"]}
    if "nn" in arrays:
        scores |= {f"nn_{n}": -arrays["nn"][:, k] for k, n in enumerate(arrays["nn_sizes"])}
    aucs = _aucs(member, **scores)
    if corruption:
        aucs["discriminator_corrupted_members"] = skin.member_auc(
            arrays["d"][mask], arrays["d"][~member]
        )
    log.info("membership AUC: %s", {k: round(v, 3) for k, v in aucs.items()})
    rec = _record(
        params,
        source,
        x,
        member,
        dev,
        t0,
        kind=kind,
        queries=query_note,
        auc=aucs,
        final_losses=hist[-1],
        corruption=corruption or None,
        n_corrupted=int(arrays["corrupted"].sum()) if corruption else 0,
    )
    _write(outputs, split, seed, rec, arrays, extra, generator=g, discriminator=d)


def classifier_step(params, inputs, outputs, threads):
    """The E.3.3 classifier (malignant vs benign) on the skin split; queries ``white`` (N, 2)
    penultimate Dense(2, relu) outputs and ``black`` (N,) sigmoid outputs."""
    t0 = time.perf_counter()
    seed, m = params["seed"], params["model"]
    dev, x, y, source, split, member = _setup(params, threads)
    xt, yt = _tensor(x, dev), torch.from_numpy(y).to(dev)
    torch.manual_seed(seeds.torch_seed(seed, "skin", "classifier"))
    model = skin.Classifier(m["channels"], x.shape[1]).to(dev)
    mt = torch.from_numpy(member).to(dev)
    hist = skin.train_classifier(
        xt[mt],
        yt[mt],
        model,
        epochs=m["epochs"],
        batch_size=m["batch_size"],
        lr=m["lr"],
        seed=seeds.torch_seed(seed, "skin", "classifier", "train"),
    )
    white, black = skin.Classifier.queries(model, xt)
    # the black-box AUC uses the per-image loss (a confident correct output is member-like),
    # since the sigmoid itself is high for malignant images whatever their membership
    loss = -(y * np.log(np.clip(black, 1e-12, 1)) + (1 - y) * np.log(np.clip(1 - black, 1e-12, 1)))
    aucs = _aucs(member, black_box_loss=-loss, black_box_sigmoid=black)
    acc = {
        k: float(np.mean((black[s] > 0.5) == y[s]))
        for k, s in (("train", member), ("holdout", ~member))
    }
    log.info("classifier accuracy %s, membership AUC %s", acc, aucs)
    rec = _record(
        params,
        source,
        x,
        member,
        dev,
        t0,
        target="malignant (akiec, bcc, mel) vs benign",
        malignant_fraction=float(y.mean()),
        accuracy=acc,
        auc=aucs,
        final_loss=hist[-1],
        queries={"white": "penultimate Dense(2, relu) output", "black": "sigmoid output"},
    )
    _write(
        outputs,
        split,
        seed,
        rec,
        {"white": white, "black": black, "label": y, "member": member},
        classifier=model,
    )
