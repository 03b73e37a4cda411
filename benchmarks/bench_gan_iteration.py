"""xu2022 GANs at paper width: CPU time and FLOPs per training iteration, and the GPU time
per model they imply (prints a table).

    python benchmarks/bench_gan_iteration.py [--iters 3] [--threads 2] [--gpu-tflops 10]

One "iteration" is one generator step with its critic steps (WGAN-GP: n_critic = 5 critic steps
with the gradient penalty), one epoch-step over both pairs (privGAN), one DP-SGD step
(DP-cGAN: per-sample gradients of a real and a fake batch), or one batch of the skin-lesion
models (JS-GAN, WGAN-GP critic step, classifier), at config/paper.yaml's widths and batch sizes;
the totals are for one training run and for all ``runs`` of the model. Forward FLOPs per sample of each
network are counted by torch.utils.flop_counter (it cannot trace the penalty's double backward);
an iteration's FLOPs then count a backward pass as 2 forwards and the gradient penalty's double
backward as 2 more forwards of the critic on the interpolates. The GPU estimate divides the paper-scale FLOPs by an
*assumed* effective throughput (default 10 TFLOP/s: the spec's 10–20 for an H100 on these small,
overhead-bound models) — a planning number, not a measurement. On a shared machine the CPU
times are inflated; the FLOP counts are exact.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch
from torch.utils.flop_counter import FlopCounterMode

from privrisk.models import gan, skin
from privrisk.pipeline import config

ROOT = Path(__file__).resolve().parents[1]


def _fwd(model, *inputs) -> float:
    """Forward FLOPs per sample (matmuls and convolutions)."""
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        model(*inputs)
    return fc.get_total_flops() / len(inputs[0])


def _wgan(m, shape, n):
    kind = m["network"]
    g, d = gan.build(kind, m, shape)
    bs = m["batch_size"]
    x = torch.rand(max(n, bs * m["n_critic"] * 8), *shape) * 2 - 1
    fg, fd = _fwd(g, torch.randn(4, m["z_dim"])), _fwd(d, x[:4])
    # critic step: G forward; D forward+backward on real and fake; D on interpolates with the
    # penalty's double backward (~5 forwards); generator step: forward+backward through G and D
    flops = m["n_critic"] * bs * (fg + 2 * 3 * fd + 5 * fd) + bs * 3 * (fg + fd)

    def run(k, seed):
        # k generator steps: one epoch over k · n_critic critic batches
        gan.train_wgan_gp(
            x[None, : bs * m["n_critic"] * k],
            [g],
            [d],
            seeds=[seed],
            epochs=1,
            batch_size=bs,
            n_critic=m["n_critic"],
            gp_weight=m["gp_weight"],
            lr=m["lr"],
            betas=tuple(m["betas"]),
        )

    return run, m["epochs"] * math.ceil(n / bs) // m["n_critic"], flops


def _privgan(m, n):
    gens = [gan.MLPGenerator(m["z_dim"], m["g_hidden"], 784) for _ in range(m["r"])]
    discs = [gan.MLPCritic(784, m["d_hidden"]) for _ in range(m["r"])]
    priv = gan.mlp([784, *m["d_hidden"], m["r"]])
    x = torch.rand(n, 784) * 2 - 1
    bs = m["batch_size"]
    steps_per_epoch = math.ceil(n / m["r"] / bs)
    fg, fd, fp = _fwd(gens[0], torch.randn(4, m["z_dim"])), _fwd(discs[0], x[:4]), _fwd(priv, x[:4])
    # per pair: D step on real + fake, G step through D and the privacy D; one privacy-D step
    flops = m["r"] * bs * (fg + 2 * 3 * fd + 3 * (fg + fd + fp)) + m["r"] * bs * (fg + 3 * fp)

    def run(k, seed):
        # one epoch over parts of r·bs points = one step of every pair
        gan.train_privgan(
            x[None, : m["r"] * bs * k],
            [gens],
            [discs],
            [priv],
            seeds=[seed],
            epochs=1,
            batch_size=bs,
            lr=m["lr"],
            betas=tuple(m["betas"]),
            privacy_weight=m["privacy_weight"],
        )

    return run, (m["epochs"] + m["disc_epochs"]) * steps_per_epoch, flops


def _dpcgan(m, n, pixels):
    g = gan.MLPGenerator(m["z_dim"], m["hidden"], pixels, n_classes=2, out_act="sigmoid")
    d = gan.MLPCritic(pixels, m["hidden"], n_classes=2)
    bs = m["batch_size"]
    yy = torch.randint(0, 2, (4,))
    fg, fd = _fwd(g, torch.randn(4, m["z_dim"]), yy), _fwd(d, torch.rand(4, pixels), yy)
    # D: per-sample-gradient step on a real and a fake batch (G forward for the fakes); G step
    flops = bs * 3 * fd + bs * (fg + 3 * fd) + bs * 3 * (fg + fd)

    def run(k, seed):
        # 4 points per expected batch: epochs = k/4 gives k steps. ε = ∞ skips the accountant's
        # noise calibration (seconds, once per model, which would swamp a few steps); the
        # Gaussian noise it would add costs nothing next to the per-sample gradients
        x, y = torch.rand(bs * 4, pixels), torch.randint(0, 2, (bs * 4,))
        gan.train_dpcgan(
            x[None],
            y[None],
            [g],
            [d],
            seeds=[seed],
            epsilon=float("inf"),
            delta=m["delta"],
            epochs=k / 4,
            batch_size=bs,
            max_grad_norm=m["max_grad_norm"],
            lr_d=m["lr_d"],
            lr_g=m["lr_g"],
            d_optimizer=m.get("d_optimizer", "sgd"),
        )

    return run, int(round(m["epochs"] * n / bs)), flops


def _skin_gan(m, size, n, kind):
    """The E.3 pair at 64×64; one iteration = one batch (a JS-GAN D and G step; a WGAN-GP critic
    step, with a generator step every n_critic batches)."""
    g, d = skin.build_gan(m, size, torch.device("cpu"))
    bs = m["batch_size"]
    fg, fd = _fwd(g, torch.randn(4, m["z_dim"])), _fwd(d, torch.rand(4, 3, size, size))
    if kind == "jsgan":  # D on real and fake (forward + backward), G through D
        flops = bs * (fg + 2 * 3 * fd) + bs * 3 * (fg + fd)
    else:  # as _wgan, per critic step
        flops = bs * (fg + 2 * 3 * fd + 5 * fd) + bs * 3 * (fg + fd) / m["n_critic"]

    def run(k, seed):
        x = torch.rand(bs * k, 3, size, size) * 2 - 1
        if kind == "jsgan":
            gan.train_jsgan(
                x[None],
                [g],
                [d],
                seeds=[seed],
                epochs=1,
                batch_size=bs,
                lr=m["lr"],
                betas=tuple(m["betas"]),
            )
        else:
            gan.train_wgan_gp(
                x[None],
                [g],
                [d],
                seeds=[seed],
                epochs=1,
                batch_size=bs,
                lr=m["lr"],
                n_critic=m["n_critic"],
                gp_weight=m["gp_weight"],
                betas=tuple(m["betas"]),
            )

    return run, m["epochs"] * math.ceil(n / bs), flops


def _skin_classifier(m, size, n):
    model = skin.Classifier(m["channels"], size)
    bs = m["batch_size"]
    flops = 3 * bs * _fwd(model, torch.rand(4, 3, size, size))

    def run(k, seed):
        x, y = torch.rand(bs * k, 3, size, size) * 2 - 1, torch.randint(0, 2, (bs * k,))
        skin.train_classifier(
            x[None], y[None], [model], seeds=[seed], epochs=1, batch_size=bs, lr=m["lr"]
        )

    return run, m["epochs"] * math.ceil(n / bs), flops


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--gpu-tflops", type=float, default=10.0)
    ap.add_argument("--only", default="", help="run only the models whose name contains this")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    cfg = config.load(ROOT / "config/config.yaml", ROOT / "config/paper.yaml")["xu2022"]
    models = cfg["models"]

    def members(total: int, model: str) -> int:
        return int(total * models[model]["train_fraction"])

    zs = cfg["data"]["zero_six"]
    # the real 0-vs-6 set (6,900 zeros, 700 sixes); the bundled sample has 551 such digits
    n_zs = members(zs["n_zeros"] + zs["n_sixes"], "dpcgan")
    size = cfg["data"]["dermamnist"]["image_size"]
    n_skin = members(10_015, "skin_jsgan")
    cases = {
        "WGAN-GP MNIST (E.1)": (
            "mnist_wgangp",
            _wgan(models["mnist_wgangp"], (784,), members(70_000, "mnist_wgangp")),
        ),
        "WGAN-GP CIFAR-10 (E.2)": (
            "cifar10_wgangp",
            _wgan(models["cifar10_wgangp"], (3, 32, 32), members(60_000, "cifar10_wgangp")),
        ),
        "privGAN MNIST (r = 2, E.1)": (
            "mnist_privgan",
            _privgan(models["mnist_privgan"], members(70_000, "mnist_privgan")),
        ),
        "DP-cGAN MNIST 0/6 (one ε)": (
            "dpcgan",
            _dpcgan(models["dpcgan"], n_zs, zs.get("image_size", 28) ** 2),
        ),
        "JS-GAN skin 64×64 (E.3)": (
            "skin_jsgan",
            _skin_gan(models["skin_jsgan"], size, n_skin, "jsgan"),
        ),
        "WGAN-GP skin 64×64 (Fig. 2b)": (
            "skin_wgangp",
            _skin_gan(models["skin_wgangp"], size, n_skin, "wgangp"),
        ),
        "classifier skin (E.3.3)": (
            "skin_classifier",
            _skin_classifier(models["skin_classifier"], size, members(10_015, "skin_classifier")),
        ),
    }
    print(
        f"{'model':30s} {'s/iter (CPU)':>12s} {'GFLOP/iter':>11s} {'CPU GFLOP/s':>11s} {'paper iters':>11s} "
        f"{'CPU / run':>10s} {'GPU / run':>9s} {'runs':>4s} {'CPU all':>9s} {'GPU all':>8s}"
    )
    for name, (model, (run, paper_iters, flops)) in cases.items():
        if args.only not in name:
            continue
        run(1, 0)  # warm-up: allocations, opacus hooks
        t0 = time.perf_counter()
        run(args.iters, 2)
        per = (time.perf_counter() - t0) / args.iters
        gpu = paper_iters * flops / (args.gpu_tflops * 1e12)
        runs = models[model]["runs"]
        print(
            f"{name:30s} {per:12.3f} {flops / 1e9:11.2f} {flops / 1e9 / per:11.1f} {paper_iters:11d} "
            f"{paper_iters * per / 3600:9.2f}h {gpu / 60:8.1f}m {runs:4d} "
            f"{runs * paper_iters * per / 3600:8.1f}h {runs * gpu / 60:7.1f}m"
        )


if __name__ == "__main__":
    main()
