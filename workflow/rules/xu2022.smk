# xu2022 (Mace) part 1 — Figures 1a, 2a, 3, 5, 6 (issue 8).
# One training rule per model writes the split, the checkpoint and the query values of every
# point; figure rules only read the queries (spec xu2022 §10).

import os

_XU_INTER = "results/xu2022/intermediate"
_XU_STEPS = "privrisk.papers.xu2022.steps"
_XU_FIGS = "privrisk.papers.xu2022.figures"
_XU_PAPER_SCALE = config.get("scale") == "paper"
_XU = config.get("xu2022", {})


def _xu_eps_tag(e):
    return f"{float(e):g}".replace(".", "p")


# model name -> (step function, dataset, model config key, epsilon)
XU_MODELS = {
    "mnist_wgangp": ("wgan_gp_step", "mnist", "mnist_wgangp", None),
    "cifar10_wgangp": ("wgan_gp_step", "cifar10", "cifar10_wgangp", None),
    "mnist_privgan": ("privgan_step", "mnist", "mnist_privgan", None),
}
for _e in _XU.get("models", {}).get("dpcgan", {}).get("epsilons", []):
    XU_MODELS[f"dpcgan_eps{_xu_eps_tag(_e)}"] = ("dpcgan_step", "mnist", "dpcgan", _e)


def _xu_queries(model):
    return f"{_XU_INTER}/{model}_queries.npz"


def _xu_raw(dataset):
    """The real raw files as inputs when they will be used (so adding them reruns training)."""
    src = _XU["data"]["mnist" if dataset == "mnist" else "cifar10"]
    names = (
        [
            "train-images-idx3-ubyte",
            "train-labels-idx1-ubyte",
            "t10k-images-idx3-ubyte",
            "t10k-labels-idx1-ubyte",
        ]
        if dataset == "mnist"
        else [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    )
    paths = [os.path.join(src["root"], n) for n in names]
    # the MNIST loader also reads gzipped idx files
    paths = [
        f"{p}.gz" if not os.path.isfile(p) and os.path.isfile(f"{p}.gz") else p
        for p in paths
    ]
    if src["source"] == "real" or (
        src["source"] == "auto" and all(os.path.isfile(p) for p in paths)
    ):
        return paths
    return []


def _xu_step_params(model):
    func, dataset, key, eps = XU_MODELS[model]
    params = {
        "seed": config.get("seed", 0),
        "dataset": dataset,
        "data": _XU["data"],
        "model": _XU["models"][key],
    }
    if eps is not None:
        params["epsilon"] = eps
    return params


for _model, (_func, _ds, _key, _eps) in XU_MODELS.items():

    rule:
        name:
            f"xu2022_train_{_model}"
        input:
            code=code(f"{_XU_STEPS}:{_func}"),
            raw=_xu_raw(_ds),
        output:
            split=f"{_XU_INTER}/{_model}_split.npz",
            model=f"{_XU_INTER}/{_model}.pt",
            queries=_xu_queries(_model),
            record=f"{_XU_INTER}/{_model}_record.json",
        log:
            f"results/logs/xu2022/train_{_model}.log",
        benchmark:
            f"results/benchmarks/xu2022/train_{_model}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=4000 if _XU_PAPER_SCALE else 2000,
            runtime=240 if _XU_PAPER_SCALE else 10,
            gpu=1 if _XU_PAPER_SCALE else 0,
        params:
            func=f"{_XU_STEPS}:{_func}",
            cfg=_xu_step_params(_model),
        script:
            "../scripts/run_step.py"


def _xu_fig_inputs(fig):
    if fig == "fig1a":
        return {"queries": _xu_queries("cifar10_wgangp")}
    if fig == "fig2a":
        return {"queries": _xu_queries("mnist_privgan")}
    if fig == "fig3":
        return {
            "mnist": _xu_queries("mnist_wgangp"),
            "cifar10": _xu_queries("cifar10_wgangp"),
        }
    eps = (
        _XU["models"]["dpcgan"]["epsilons"]
        if fig == "fig5"
        else paper_params("xu2022", fig)["epsilons"]
    )
    return {
        f"eps_{_xu_eps_tag(e)}": _xu_queries(f"dpcgan_eps{_xu_eps_tag(e)}") for e in eps
    }


XU_FIGURES = ["fig1a", "fig2a", "fig3", "fig5", "fig6"]
PAPER_TARGETS.setdefault("xu2022", []).extend(
    f
    for fig in XU_FIGURES
    for k, f in figure_outputs("xu2022", fig).items()
    if k != "claims"
)

for _fig in XU_FIGURES:

    rule:
        name:
            f"xu2022_{_fig}"
        input:
            **_xu_fig_inputs(_fig),
            code=code(f"{_XU_FIGS}:{_fig}"),
        output:
            **report_outputs("xu2022", _fig),
        log:
            f"results/logs/xu2022/{_fig}.log",
        benchmark:
            f"results/benchmarks/xu2022/{_fig}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=10,
        params:
            func=f"{_XU_FIGS}:{_fig}",
            cfg=paper_params("xu2022", _fig),
            paper="xu2022",
            figure=_fig,
        script:
            "../scripts/make_figure.py"
