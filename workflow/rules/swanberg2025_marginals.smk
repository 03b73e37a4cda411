# swanberg2025 Figures 4-7 — M-AI from noisy 3-way marginals on ACS and FIRE (issue 7).
# Steps: raw table -> BayNet + 100 records (one per dataset); one attack sweep per panel.
# Figure rules only read the sweeps' per-record CSVs.

import os

SWANBERG_MARGINALS = {  # panel -> (dataset, kind of sweep)
    "fig4a": ("acs", "columns"),
    "fig4b": ("fire", "columns"),
    "fig5a": ("acs", "epsilons"),
    "fig5b": ("fire", "epsilons"),
    "fig6a": ("acs", "multi"),
    "fig6b": ("fire", "multi"),
    "fig7a": ("acs", "l1"),
    "fig7b": ("fire", "l1"),
}
_SM_INTER = "results/swanberg2025/intermediate"
_SM_CODE = "privrisk.papers.swanberg2025.marginals"
_SM_STEPS = "privrisk.papers.swanberg2025.marginals_steps"
PAPER_TARGETS.setdefault("swanberg2025", []).extend(
    f
    for fig in SWANBERG_MARGINALS
    for k, f in figure_outputs("swanberg2025", fig).items()
    if k != "claims"
)


def _sm_params(fig, **extra):
    section = config.get("swanberg2025", {})
    params = (
        paper_params("swanberg2025", fig) if fig else {"seed": config.get("seed", 0)}
    )
    params.update(
        marginals_data=section["marginals_data"],
        marginals_attack=section["marginals_attack"],
        **extra,
    )
    return params


def _sm_raw(ds):
    """The real raw file as an input when it will be used (so replacing it reruns the fit)."""
    src = config["swanberg2025"]["marginals_data"][ds]
    path = src["path"]
    if src["source"] == "real" or (src["source"] == "auto" and os.path.isfile(path)):
        return [path]
    return []


for _ds in ("acs", "fire"):

    rule:
        name:
            f"swanberg2025_marginals_dataset_{_ds}"
        input:
            code=code(f"{_SM_STEPS}:dataset_step"),
            raw=_sm_raw(_ds),
        output:
            npz=f"{_SM_INTER}/marginals_{_ds}_dataset.npz",
            json=f"{_SM_INTER}/marginals_{_ds}_dataset.json",
        log:
            f"results/logs/swanberg2025/marginals_dataset_{_ds}.log",
        benchmark:
            f"results/benchmarks/swanberg2025/marginals_dataset_{_ds}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            func=f"{_SM_STEPS}:dataset_step",
            cfg=_sm_params(None, dataset=_ds),
        script:
            "../scripts/run_step.py"


for _fig, (_ds, _kind) in SWANBERG_MARGINALS.items():

    rule:
        name:
            f"swanberg2025_{_fig}_attack"
        input:
            code=code(f"{_SM_STEPS}:attack_step"),
            dataset=f"{_SM_INTER}/marginals_{_ds}_dataset.npz",
        output:
            csv=f"{_SM_INTER}/{_fig}_attack.csv",
        log:
            f"results/logs/swanberg2025/{_fig}_attack.log",
        benchmark:
            f"results/benchmarks/swanberg2025/{_fig}_attack.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            func=f"{_SM_STEPS}:attack_step",
            cfg=_sm_params(_fig, dataset=_ds, kind=_kind, figure=_fig),
        script:
            "../scripts/run_step.py"

    rule:
        name:
            f"swanberg2025_{_fig}"
        input:
            code=code(f"{_SM_CODE}:{_fig}"),
            attack=f"{_SM_INTER}/{_fig}_attack.csv",
            dataset_json=f"{_SM_INTER}/marginals_{_ds}_dataset.json",
        output:
            **report_outputs("swanberg2025", _fig),
        log:
            f"results/logs/swanberg2025/{_fig}.log",
        benchmark:
            f"results/benchmarks/swanberg2025/{_fig}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=5,
        params:
            func=f"{_SM_CODE}:{_fig}",
            cfg=_sm_params(_fig),
            paper="swanberg2025",
            figure=_fig,
        script:
            "../scripts/make_figure.py"
