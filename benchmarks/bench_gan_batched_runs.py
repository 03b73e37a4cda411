"""xu2022's replicate training runs: R runs of one model trained as ONE batched computation
(grouped layers, :mod:`privrisk.training.replicates`) vs the same trainer called once per run.

    python benchmarks/bench_gan_batched_runs.py [--runs 10] [--epochs 2] [--threads 1]
        [--configfile config/config.yaml] [--device cpu] [--models mnist_wgangp,skin_jsgan]

For each xu2022 model at the config's widths, batch sizes and training-set sizes (random data of
the right shape; the data do not change the cost), it times ``--epochs`` epochs of all runs
batched and the loop over runs, after one untimed warm-up epoch each, and prints seconds per
epoch for both and the ratio loop / batched (> 1: batching pays). A DP-cGAN epoch is only
1/q ≈ 2 steps at quick scale, so it is timed over 10 × ``--epochs`` epochs, at ε = ∞: the same
clipped per-sample steps without the accountant's noise calibration (seconds per call, paid once
per model batched but once per run in a loop; the extrapolation below would multiply it by the
epochs) and without the Gaussian noise, which costs nothing next to the clipping. The last lines weigh each model's per-epoch times by its epochs in
the config and the number of models the pipeline trains with it (two skin JS-GANs, one DP-cGAN
per ε and the control): the pipeline's estimated training time batched and looped, and their
ratio. Both sides use the same code, so the ratio is what batching alone buys.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from privrisk.models import gan, skin
from privrisk.pipeline import config

ROOT = Path(__file__).resolve().parents[1]


def _n_train(n: int, fraction: float) -> int:
    return int(round(n * fraction))


def _setups(cfg: dict, dev: torch.device) -> dict:
    """model -> (make(seed) -> modules, train(x, modules, seeds, epochs), data(R))."""
    sec = cfg["xu2022"]
    ms, data = sec["models"], sec["data"]
    out = {}

    def wgan_like(name, dim, n):
        m = ms[name]

        def make(s):
            torch.manual_seed(s)
            return [net.to(dev) for net in gan.build("mlp", m, (dim,))]

        def train(x, nets, seeds, epochs):
            gan.train_wgan_gp(
                x,
                [a for a, _ in nets],
                [b for _, b in nets],
                seeds=seeds,
                epochs=epochs,
                batch_size=m["batch_size"],
                n_critic=m["n_critic"],
                lr=m["lr"],
            )

        k = _n_train(n, m["train_fraction"])
        return make, train, lambda r: torch.rand(r, k, dim, device=dev) * 2 - 1

    out["mnist_wgangp"] = wgan_like("mnist_wgangp", 784, 5000)
    out["cifar10_wgangp"] = wgan_like("cifar10_wgangp", 3072, data["cifar10"]["standin_size"])

    m = ms["mnist_privgan"]

    def make_priv(s):
        torch.manual_seed(s)
        r = m["r"]
        return (
            [gan.MLPGenerator(m["z_dim"], m["g_hidden"], 784).to(dev) for _ in range(r)],
            [gan.MLPCritic(784, m["d_hidden"]).to(dev) for _ in range(r)],
            gan.mlp([784, *m["d_hidden"], r]).to(dev),
        )

    def train_priv(x, nets, seeds, epochs):
        gan.train_privgan(
            x,
            [n[0] for n in nets],
            [n[1] for n in nets],
            [n[2] for n in nets],
            seeds=seeds,
            epochs=epochs,
            batch_size=m["batch_size"],
            lr=m["lr"],
            dp_delay=0,
        )

    k = _n_train(5000, m["train_fraction"])
    out["mnist_privgan"] = (make_priv, train_priv, lambda r: torch.rand(r, k, 784, device=dev))

    dp, zs = ms["dpcgan"], data["zero_six"]
    dim = zs["image_size"] ** 2

    def make_dp(s):
        torch.manual_seed(s)
        g = gan.MLPGenerator(dp["z_dim"], dp["hidden"], dim, n_classes=2, out_act="sigmoid")
        return g.to(dev), gan.MLPCritic(dim, dp["hidden"], n_classes=2).to(dev)

    k_dp = _n_train(551, dp["train_fraction"])  # the bundled 0-vs-6 digits

    def train_dp(x, nets, seeds, epochs):
        y = torch.zeros(x.shape[:2], dtype=torch.long, device=dev)
        gan.train_dpcgan(
            x,
            y,
            [a for a, _ in nets],
            [b for _, b in nets],
            seeds=seeds,
            epsilon=float("inf"),
            delta=dp["delta"],
            epochs=epochs,
            batch_size=dp["batch_size"],
            max_grad_norm=dp["max_grad_norm"],
            lr_d=dp["lr_d"],
            d_optimizer=dp["d_optimizer"],
        )

    out["dpcgan"] = (make_dp, train_dp, lambda r: torch.rand(r, k_dp, dim, device=dev))
    out["dpcgan"] += (10,)

    size = data["dermamnist"]["image_size"]
    n_skin = data["dermamnist"]["n_images"]
    js = ms["skin_jsgan"]

    def make_js(s):
        torch.manual_seed(s)
        return skin.build_gan(js, size, dev)

    def train_js(x, nets, seeds, epochs):
        gan.train_jsgan(
            x,
            [a for a, _ in nets],
            [b for _, b in nets],
            seeds=seeds,
            epochs=epochs,
            batch_size=js["batch_size"],
            lr=js["lr"],
        )

    k = _n_train(n_skin, js["train_fraction"])
    out["skin_jsgan"] = (make_js, train_js, lambda r: torch.rand(r, k, 3, size, size, device=dev))

    cl = ms["skin_classifier"]

    def make_cl(s):
        torch.manual_seed(s)
        return skin.Classifier(cl["channels"], size).to(dev)

    k_cl = _n_train(n_skin, cl["train_fraction"])

    def train_cl(x, nets, seeds, epochs):
        y = (torch.arange(x.shape[1], device=dev) % 2).expand(x.shape[0], -1)
        skin.train_classifier(
            x, y, nets, seeds=seeds, epochs=epochs, batch_size=cl["batch_size"], lr=cl["lr"]
        )

    out["skin_classifier"] = (
        make_cl,
        train_cl,
        lambda r: torch.rand(r, k_cl, 3, size, size, device=dev),
    )
    return out


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--configfile", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--models", default="", help="comma-separated subset (default: all)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    cfg = config.load(ROOT / "config" / "config.yaml", args.configfile)
    setups = _setups(cfg, dev)
    chosen = [m for m in args.models.split(",") if m] or list(setups)
    seeds = list(range(args.runs))
    print(f"{args.runs} runs, {args.epochs} epochs, {args.threads} thread(s), {dev}")
    print(f"{'model':<16} {'batched s/epoch':>16} {'loop s/epoch':>13} {'loop/batched':>13}")
    sec = cfg["xu2022"]
    dp = sec["models"]["dpcgan"]
    count = {"skin_jsgan": 2, "dpcgan": len(dp["epsilons"]) + bool(dp.get("control"))}
    total_b = total_l = 0.0
    for name in chosen:
        make, train, data, *scale = setups[name]
        epochs = args.epochs * (scale[0] if scale else 1)
        x = data(args.runs)
        train(x, [make(s) for s in seeds], seeds, 1)  # warm-up (lazy imports, allocator)
        nets = [make(s) for s in seeds]
        _sync(dev)
        t = time.perf_counter()
        train(x, nets, seeds, epochs)
        _sync(dev)
        batched = (time.perf_counter() - t) / epochs
        nets = [make(s) for s in seeds]
        _sync(dev)
        t = time.perf_counter()
        for k, s in enumerate(seeds):
            train(x[k : k + 1], [nets[k]], [s], epochs)
        _sync(dev)
        loop = (time.perf_counter() - t) / epochs
        weight = count.get(name, 1) * sec["models"][name]["epochs"]
        total_b, total_l = total_b + weight * batched, total_l + weight * loop
        print(f"{name:<16} {batched:16.3f} {loop:13.3f} {loop / batched:13.2f}")
    print(
        f"estimated training time at the config's epochs: batched {total_b:.0f} s, "
        f"loop {total_l:.0f} s; ratio loop/batched {total_l / total_b:.2f}"
    )


if __name__ == "__main__":
    main()
