"""xu2022's models at paper width on one device within a time budget: probe, plan, train, report.

    bash benchmarks/gpu_paper_scale.sh [--budget-min 12] [--models mnist_wgangp,...]
        [--configfile config/config.yaml config/paper.yaml] [--runs-per-job N] [--workdir .]

1. **probe** (``probe``): for each model, one training step of its paper-width networks on the
   device with 1 and with 2 runs batched (the pipeline's own trainers and networks, on random
   data of the model's shape), timed after a warm-up: seconds per step of the batched runs, and
   the device memory one more run takes (peak allocated, CUDA only).
2. **plan** (``plan``): shards sized to the device (``runs_per_job``: as many runs as fit in 80 %
   of its memory, all of a model's runs when they fit), the model's predicted training time (its
   steps × the probed seconds per step, with all its runs batched), and the models that fit the
   budget, cheapest first, at 1.5× their prediction plus a minute each for data, start-up and
   evaluation. What does not fit is listed with its prediction, not trained.
3. **train**: the pipeline itself (``snakemake`` on the models' pooled records, with the config
   files given and an overlay setting ``runs_per_job``), stopped at the budget's end. Its files
   are the pipeline's own (shards under ``results/xu2022/intermediate/shards/``, pooled files
   beside them), so ``snakemake --configfile <same files> <overlay>`` carries on from them.
4. **report** (``report``): ``results/gpu_paper_scale/summary.json`` and ``summary.md``: the
   device, each model's probe, prediction, shard size, measured job times (Snakemake's benchmark
   files) and member-vs-hold-out AUCs per query (mean, min, max over the runs, from the pooled
   record).

Tested on the CPU with the tiny config (tests/test_gpu_paper_scale.py); its GPU numbers go into
docs/benchmarks.md only when measured on a GPU.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from privrisk.core import device as devices  # noqa: E402
from privrisk.models import gan, skin  # noqa: E402
from privrisk.papers.xu2022 import registry as xu_registry  # noqa: E402
from privrisk.pipeline import config, workflow  # noqa: E402

PAPER = "xu2022"
OUT = Path("results/gpu_paper_scale")
#: prediction margin and the per-model allowance for data, start-up and evaluation (seconds)
MARGIN, ALLOWANCE = 1.5, 60.0
#: share of the device's memory a shard may take
MEMORY_SHARE = 0.8


# --- the probe: one step of a model's trainer with R runs batched ---------------------------------


def _data_shape(model: xu_registry.Model, section: dict) -> tuple[int, ...]:
    if model.dataset == "cifar10":
        return (3, 32, 32)
    if model.dataset == "dermamnist":
        size = section["data"]["dermamnist"]["image_size"]
        return (3, size, size)
    size = section["data"]["zero_six"].get("image_size", 28) if "epsilon" in model.fixed else 28
    return (size * size,)


_SIZES: dict[str, int] = {}


def dataset_size(model: xu_registry.Model, section: dict, seed: int) -> int:
    """The number of points the model's step trains on: what its loader will read (the real set
    where its files are present, else the configured fallback), without generating a stand-in
    (60,000 CIFAR-10 stand-in images take a minute of CPU). MNIST is loaded: the 0-vs-6 subset
    depends on its labels."""
    from privrisk.data import cifar10, dermamnist, mnist, sources

    key = model.dataset + (":zero_six" if "epsilon" in model.fixed else "")
    if key in _SIZES:
        return _SIZES[key]
    block = section["data"][model.dataset]
    if model.dataset == "mnist":
        x, y, _ = mnist.load_mnist(block, seed)
        if "epsilon" in model.fixed:
            zs = section["data"]["zero_six"]
            x = x[mnist.zero_six_subset(y, zs["n_zeros"], zs["n_sixes"], seed)]
        n = len(x)
    elif sources.resolve(model.dataset, block) != "real":
        default = cifar10.STANDIN_SIZE if model.dataset == "cifar10" else dermamnist.STANDIN_SIZE
        n = int(block.get("standin_size", default))
    elif model.dataset == "cifar10":
        n = 60_000
    else:
        n = min(10_015, block.get("n_images") or 10_015)
    _SIZES[key] = n
    return n


def _members(model: xu_registry.Model, section: dict, block: dict, seed: int = 0) -> int:
    """Training-set size of one run (the step's split: ``train_fraction`` of the points)."""
    return max(2, int(dataset_size(model, section, seed) * block["train_fraction"]))


def steps_per_run(model: xu_registry.Model, section: dict, block: dict, seed: int = 0) -> int:
    """The trainer's steps (a generator step of a WGAN-GP counts its critic steps, as the probe
    does) in one run of the model at ``block``."""
    n = _members(model, section, block, seed)
    bs = block["batch_size"]
    if model.func.endswith("privgan_step"):
        return (block["epochs"] + block["disc_epochs"]) * math.ceil(n / block["r"] / bs)
    if "epsilon" in model.fixed:
        return max(1, int(round(block["epochs"] * n / bs)))
    return block["epochs"] * math.ceil(n / bs)


def _trainer(model: xu_registry.Model, section: dict, block: dict, runs: int, dev):
    """A function training ``runs`` batched runs for ``k`` steps on random data of the model's
    shape at its paper width (the pipeline's networks and trainers)."""
    shape, bs = _data_shape(model, section), block["batch_size"]
    seeds = list(range(runs))
    kind = model.fixed.get("kind")
    if model.func.endswith("wgan_gp_step"):
        nets = [gan.build(block["network"], block, shape) for _ in seeds]
        gs, ds = [n[0].to(dev) for n in nets], [n[1].to(dev) for n in nets]

        def run(k):
            x = torch.rand(runs, bs * k, *shape, device=dev) * 2 - 1
            gan.train_wgan_gp(
                x, gs, ds, seeds=seeds, epochs=1, batch_size=bs, n_critic=block["n_critic"],
                gp_weight=block["gp_weight"], lr=block["lr"], betas=tuple(block["betas"]),
            )  # fmt: skip

        return run
    if model.func.endswith("privgan_step"):
        r, dim = block["r"], shape[0]
        gens = [
            [gan.MLPGenerator(block["z_dim"], block["g_hidden"], dim).to(dev) for _ in range(r)]
            for _ in seeds
        ]
        discs = [[gan.MLPCritic(dim, block["d_hidden"]).to(dev) for _ in range(r)] for _ in seeds]
        privs = [gan.mlp([dim, *block["d_hidden"], r]).to(dev) for _ in seeds]

        def run(k):
            x = torch.rand(runs, r * bs * k, dim, device=dev) * 2 - 1
            gan.train_privgan(
                x, gens, discs, privs, seeds=seeds, epochs=1, batch_size=bs, lr=block["lr"],
                betas=tuple(block["betas"]), privacy_weight=block["privacy_weight"],
            )  # fmt: skip

        return run
    if "epsilon" in model.fixed:
        dim, m = shape[0], model.fixed["model"]
        gs = [
            gan.MLPGenerator(m["z_dim"], m["hidden"], dim, n_classes=2, out_act="sigmoid").to(dev)
            for _ in seeds
        ]
        ds = [gan.MLPCritic(dim, m["hidden"], n_classes=2).to(dev) for _ in seeds]

        def run(k):
            # 4 points per expected batch: epochs = k / 4 gives k steps; ε = ∞ skips the
            # accountant's one-off calibration (its noise costs nothing beside the gradients)
            x, y = (
                torch.rand(runs, bs * 4, dim, device=dev),
                torch.randint(0, 2, (runs, bs * 4), device=dev),
            )
            gan.train_dpcgan(
                x, y, gs, ds, seeds=seeds, epsilon=float("inf"), delta=m["delta"], epochs=k / 4,
                batch_size=bs, max_grad_norm=m["max_grad_norm"], lr_d=m["lr_d"], lr_g=m["lr_g"],
                d_optimizer=m.get("d_optimizer", "sgd"),
            )  # fmt: skip

        return run
    if model.func.endswith("classifier_step"):
        nets = [skin.Classifier(block["channels"], shape[-1]).to(dev) for _ in seeds]

        def run(k):
            x = torch.rand(runs, bs * k, *shape, device=dev) * 2 - 1
            y = torch.randint(0, 2, (runs, bs * k), device=dev)
            skin.train_classifier(x, y, nets, seeds=seeds, epochs=1, batch_size=bs, lr=block["lr"])

        return run
    nets = [skin.build_gan(block, shape[-1], dev) for _ in seeds]
    gs, ds = [n[0] for n in nets], [n[1] for n in nets]

    def run(k):
        x = torch.rand(runs, bs * k, *shape, device=dev) * 2 - 1
        if kind == "jsgan":
            gan.train_jsgan(
                x,
                gs,
                ds,
                seeds=seeds,
                epochs=1,
                batch_size=bs,
                lr=block["lr"],
                betas=tuple(block["betas"]),
            )
        else:
            gan.train_wgan_gp(
                x, gs, ds, seeds=seeds, epochs=1, batch_size=bs, n_critic=block["n_critic"],
                gp_weight=block["gp_weight"], lr=block["lr"], betas=tuple(block["betas"]),
            )  # fmt: skip

    return run


def _sync(dev) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def probe(model, section, block, dev) -> dict:
    """Seconds per step with all the model's runs batched, and the device memory per run (a
    WGAN-GP's probe takes n_critic critic steps, so that it includes one generator step)."""
    runs = int(block["runs"])
    steps = max(3, int(block.get("n_critic", 3)))
    out = {}
    for r in sorted({1, min(2, runs), runs}):
        if dev.type == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(dev)
        run = _trainer(model, section, block, r, dev)
        run(1)  # warm-up: allocations, kernel selection
        _sync(dev)
        t0 = time.perf_counter()
        run(steps)
        _sync(dev)
        peak = torch.cuda.max_memory_allocated(dev) if dev.type == "cuda" else None
        out[r] = {"s_per_step": (time.perf_counter() - t0) / steps, "peak_bytes": peak}
    per_run = None
    if dev.type == "cuda" and 2 in out:
        per_run = max(1, out[2]["peak_bytes"] - out[1]["peak_bytes"])
    return {
        "runs": runs,
        "s_per_step_batched": out[runs]["s_per_step"],
        "s_per_step_one_run": out[1]["s_per_step"],
        "bytes_per_run": per_run,
        "base_bytes": None if per_run is None else out[1]["peak_bytes"] - per_run,
    }


# --- the plan ------------------------------------------------------------------------------------


def runs_per_job(probes: dict, memory: int | None, share: float = MEMORY_SHARE) -> int:
    """The largest shard every model's runs fit in (``share`` of the device's ``memory``): all
    of the largest model's runs when the device's memory is unknown (the CPU)."""
    most = max(p["runs"] for p in probes.values())
    if memory is None:
        return most
    fits = [
        max(1, int((share * memory - p["base_bytes"]) // p["bytes_per_run"]))
        for p in probes.values()
        if p["bytes_per_run"]
    ]
    return max(1, min([most, *fits]))


def predicted_s(probe_: dict, steps: int, per_job: int) -> float:
    """A model's training time: its steps, in ⌈runs / per_job⌉ shards run one after another,
    each at the batched rate (the batched rate of all runs bounds a smaller shard's)."""
    shards = math.ceil(probe_["runs"] / per_job)
    return shards * steps * probe_["s_per_step_batched"]


def choose(predictions: dict[str, float], budget_s: float) -> tuple[list[str], list[str]]:
    """The models to train, cheapest first, while their margined predictions fit the budget."""
    chosen, left, spent = [], [], 0.0
    for name, s in sorted(predictions.items(), key=lambda kv: kv[1]):
        cost = MARGIN * s + ALLOWANCE
        if spent + cost <= budget_s:
            chosen.append(name)
            spent += cost
        else:
            left.append(name)
    return chosen, left


# --- the report ----------------------------------------------------------------------------------


def _benchmark_s(path: Path) -> float | None:
    if not path.is_file():
        return None
    lines = path.read_text().splitlines()
    return float(lines[1].split("\t")[0]) if len(lines) > 1 else None


def model_report(workdir: Path, name: str) -> dict:
    """A trained model's job times (Snakemake's benchmark files) and AUCs (its pooled record)."""
    rec_path = workdir / "results" / PAPER / "intermediate" / f"{name}_record.json"
    if not rec_path.is_file():
        return {"trained": False}
    rec = json.loads(rec_path.read_text())
    jobs = json.loads(rec_path.with_name(f"{name}_shards.json").read_text())["jobs"]
    bench = workdir / "results" / "benchmarks" / PAPER
    times = {p.stem: _benchmark_s(p) for p in sorted(bench.glob(f"train_{name}*.tsv"))}
    aucs: dict[str, list[float]] = {}
    for r in rec["runs"]:
        for q, a in r["auc"].items():
            aucs.setdefault(q, []).append(a)
    return {
        "trained": True,
        "runs": len(rec["runs"]),
        "device": rec["device"],
        "jobs": jobs,
        "job_s": times,
        "training_wall_s": sum(j["wall_time_s"] for j in jobs),
        "auc": {
            q: {"mean": float(np.mean(v)), "min": float(np.min(v)), "max": float(np.max(v))}
            for q, v in aucs.items()
        },
    }


def markdown(summary: dict) -> str:
    lines = [
        f"# xu2022 on {summary['device']}",
        "",
        f"Config files {', '.join(Path(c).name for c in summary['configfiles'])}; budget "
        f"{summary['budget_min']} min; `runs_per_job` {summary['runs_per_job']}; wall time "
        f"{summary.get('wall_s', float('nan')):.0f} s. Job times: Snakemake's benchmark seconds "
        "of each shard (runsA-B) and of the pooling job (pool; the model's only job when unsharded).",
        "",
        "| model | runs | s/step (batched) | predicted | trained | job times (s) | AUC mean (min–max) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in summary["models"].items():
        rep = m.get("report", {})
        auc = "; ".join(
            f"{q} {a['mean']:.3f} ({a['min']:.3f}–{a['max']:.3f})"
            for q, a in rep.get("auc", {}).items()
        )
        jobs = ", ".join(
            f"{k.split('.')[-1] if '.' in k else 'pool'} {v:.0f}"
            for k, v in rep.get("job_s", {}).items()
            if v is not None
        )
        lines.append(
            f"| {name} | {m['probe']['runs']} | {m['probe']['s_per_step_batched']:.4f} | "
            f"{m['predicted_s'] / 60:.1f} min | {'yes' if rep.get('trained') else 'no: ' + m['why_not']} | "
            f"{jobs} | {auc} |"
        )
    return "\n".join(lines) + "\n"


# --- commands --------------------------------------------------------------------------------------


def _load(configfiles: list[str]) -> dict:
    return config.load(*[ROOT / c if not Path(c).is_absolute() else Path(c) for c in configfiles])


def models_of(cfg: dict, only: list[str] | None) -> dict[str, xu_registry.Model]:
    section = cfg[PAPER]
    found = {m.name: m for m in xu_registry.models(section)}
    if only:
        unknown = sorted(set(only) - set(found))
        if unknown:
            raise SystemExit(f"--models: unknown {', '.join(unknown)}; known: {', '.join(found)}")
        return {k: found[k] for k in only}
    return found


def _block(cfg: dict, model: xu_registry.Model) -> dict:
    params = workflow.params(
        cfg, PAPER, workflow.load_registry(PAPER, cfg).step(f"train_{model.name}")
    )
    return params["model"]


def cmd_plan(args) -> int:
    cfg = _load(args.configfile)
    section = cfg[PAPER]
    dev = devices.resolve(args.device)
    devices.use_threads(cfg.get("torch_threads", 1))
    chosen_models = models_of(cfg, args.models.split(",") if args.models else None)
    probes, blocks = {}, {}
    # one probe per architecture: the DP-cGANs of every ε and the corrupted skin JS-GAN share one
    seen: dict[str, str] = {}
    for name, model in chosen_models.items():
        block = _block(cfg, model)
        blocks[name] = block
        key = json.dumps([model.func, model.fixed.get("kind"), block], sort_keys=True, default=str)
        if key in seen:
            probes[name] = probes[seen[key]]
            continue
        seen[key] = name
        print(f"probe {name} on {dev} ...", flush=True)
        probes[name] = probe(model, section, block, dev)
    memory = torch.cuda.get_device_properties(dev).total_memory if dev.type == "cuda" else None
    per_job = args.runs_per_job or runs_per_job(probes, memory)
    predictions = {
        n: predicted_s(probes[n], steps_per_run(m, section, blocks[n]), per_job)
        for n, m in chosen_models.items()
    }
    chosen, left = choose(predictions, args.budget_min * 60 - (time.time() - args.t0))
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else f"CPU ({devices.cpu_model()})"
    summary = {
        "device": name,
        "budget_min": args.budget_min,
        "runs_per_job": per_job,
        "configfiles": args.configfile,
        "models": {
            n: {
                "probe": probes[n],
                "steps_per_run": steps_per_run(m, section, blocks[n]),
                "predicted_s": predictions[n],
                "chosen": n in chosen,
                "why_not": "" if n in chosen else "predicted beyond the budget",
            }
            for n, m in chosen_models.items()
        },
    }
    out = args.workdir / OUT
    out.mkdir(parents=True, exist_ok=True)
    (out / "overlay.yaml").write_text(f"runs_per_job: {per_job}\n")
    (out / "plan.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "targets.txt").write_text(
        "".join(f"results/{PAPER}/intermediate/{n}_record.json\n" for n in chosen)
    )
    for n in chosen_models:
        print(
            f"  {n}: {predictions[n] / 60:.1f} min predicted, {'train' if n in chosen else 'skip'}"
        )
    print(f"runs_per_job {per_job}; {len(chosen)} of {len(chosen_models)} models fit the budget")
    return 0


def cmd_report(args) -> int:
    out = args.workdir / OUT
    summary = json.loads((out / "plan.json").read_text())
    for name, m in summary["models"].items():
        m["report"] = model_report(args.workdir, name)
        if m["chosen"] and not m["report"]["trained"]:
            m["why_not"] = "not finished within the budget"
    summary["wall_s"] = time.time() - args.t0
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "summary.md").write_text(markdown(summary))
    print(markdown(summary))
    print(
        f"results: {out}/summary.md and summary.json; the models' files under results/{PAPER}/intermediate/"
    )
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["plan", "report"])
    ap.add_argument("--budget-min", type=float, default=12.0)
    ap.add_argument("--models", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--configfile", nargs="+", default=["config/config.yaml", "config/paper.yaml"])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--runs-per-job", type=int, default=0, help="0: sized to the device")
    ap.add_argument("--workdir", type=Path, default=Path("."))
    ap.add_argument("--t0", type=float, default=time.time(), help="when the whole run started")
    args = ap.parse_args(argv)
    return {"plan": cmd_plan, "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
