"""xu2022: one training step per model (it saves the model's query values), and figures that
read the queries of the models they list.

Everything is declared in two tables, so that a new dataset is a loader
(:data:`.steps.LOADERS`, :mod:`privrisk.data.sources`) plus rows here, and a new figure is a row
of :func:`figure_reads`; a figure naming a model that is not trained is a
:class:`~privrisk.workflow.RegistryError` when the registry loads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...core.declarations import Figure, Out, Resources, Step
from ...core.grids import eps_tag, grid
from . import skin_registry

PAPER = "xu2022"
_STEPS = "privrisk.papers.xu2022.steps"
_FIGS = "privrisk.papers.xu2022.figures"
_DP_FIGS = "privrisk.papers.xu2022.dp_figures"
_TRAIN = {
    "quick": Resources(mem_mb=2000, runtime=10),
    "paper": Resources(mem_mb=4000, runtime=240, gpu=1),
}
_FIGURE = {"quick": Resources(mem_mb=2000, runtime=10)}


@dataclass(frozen=True)
class Model:
    """One trained model: ``train_<name>`` runs ``steps.<func>`` on ``dataset`` with the config
    ``models.<config>``; ``config`` adds params from the paper's section, ``fixed`` constants
    (a fixed ``model`` replaces the config block)."""

    name: str
    func: str
    dataset: str
    model: str
    config: Mapping[str, str] = field(default_factory=dict)
    fixed: Mapping[str, Any] = field(default_factory=dict)


def dpcgan_name(eps) -> str:
    return f"dpcgan_eps{eps_tag(eps)}"


_SPLIT = {"train_fraction": "data.train_fraction"}


def models(section: Mapping[str, Any]) -> list[Model]:
    """Every model the paper's section trains: the fixed ones and one DP-cGAN per ε."""
    # Each DP-cGAN gets the dpcgan block without the list of ε, so adding an ε to the list trains
    # only the new model instead of rerunning every DP-cGAN (params are part of a rule's state).
    dpcgan = {
        k: v for k, v in section["models"]["dpcgan"].items() if k not in ("epsilons", "control")
    }
    return [
        Model("mnist_wgangp", "wgan_gp_step", "mnist", "mnist_wgangp", _SPLIT),
        Model("cifar10_wgangp", "wgan_gp_step", "cifar10", "cifar10_wgangp", _SPLIT),
        Model("mnist_privgan", "privgan_step", "mnist", "mnist_privgan", _SPLIT),
        *(
            Model(
                dpcgan_name(e),
                "dpcgan_step",
                "mnist",
                "dpcgan",
                {"zero_six": "data.zero_six"},
                {"epsilon": float(e), "model": dpcgan},
            )
            for e in dpcgan_epsilons(section)
        ),
    ]


def dpcgan_epsilons(section: Mapping[str, Any]) -> list[float]:
    """The ε grid of the DP-cGANs, plus ε = ∞ (the non-private control) when ``control`` is on."""
    block = section["models"]["dpcgan"]
    return [*grid(block["epsilons"]), *([float("inf")] if block.get("control", False) else [])]


def _train(m: Model) -> Step:
    return Step(
        name=f"train_{m.name}",
        func=f"{_STEPS}:{m.func}",
        data=(m.dataset,),
        section=None,
        config={"data": f"data.{m.dataset}", "model": f"models.{m.model}", **m.config},
        fixed={"dataset": m.dataset, **m.fixed},
        outputs={
            "split": f"{m.name}_split.npz",
            "model": f"{m.name}.pt",
            "queries": f"{m.name}_queries.npz",
            "record": f"{m.name}_record.json",
        },
        resources=_TRAIN,
        device=True,
    )


def train_steps(section: Mapping[str, Any]) -> list[Step]:
    return [_train(m) for m in models(section)]


def _figure_param(section: Mapping[str, Any], fig: str, key: str):
    """A figure's param as the figure sees it: its own section over ``common``."""
    return {**section.get("common", {}), **(section.get(fig) or {})}[key]


def _by_eps(epsilons, section) -> dict[str, str]:
    """Inputs of a DP figure: one per ε, and the ε = ∞ control when it is trained."""
    control = [float("inf")] if section["models"]["dpcgan"].get("control", False) else []
    return {f"eps_{eps_tag(e)}": dpcgan_name(e) for e in [*grid(epsilons), *control]}


def figure_reads(section: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """figure -> {input name: model whose queries it reads}."""
    return {
        "fig1a": {"queries": "cifar10_wgangp"},
        "fig2a": {"queries": "mnist_privgan"},
        "fig3": {"mnist": "mnist_wgangp", "cifar10": "cifar10_wgangp"},
        "fig5": _by_eps(section["models"]["dpcgan"]["epsilons"], section),
        "fig6": _by_eps(_figure_param(section, "fig6", "epsilons"), section),
    }


def figure_decls(section: Mapping[str, Any]) -> list[Figure]:
    return [
        Figure(
            name=fig,
            func=f"{_DP_FIGS if fig in ('fig5', 'fig6') else _FIGS}:{fig}",
            resources=_FIGURE,
            inputs={k: Out(f"train_{model}", "queries") for k, model in reads.items()},
        )
        for fig, reads in figure_reads(section).items()
    ]


def steps(section: Mapping[str, Any]) -> list[Step]:
    return train_steps(section) + skin_registry.skin_steps(section)


def figures(section: Mapping[str, Any]) -> list[Figure]:
    return figure_decls(section) + skin_registry.skin_figures(section)


STEPS = steps
FIGURES = figures


# --- config checks beyond the schema (called by privrisk.config.validate) ---


def check_config(sec: Mapping[str, Any]) -> list[str]:
    """Keys of the xu2022 section that are each valid but do not fit together (every ε shown
    in Figure 6 has a trained DP-cGAN)."""

    models = sec.get("models", {}).get("dpcgan", {})
    if "epsilons" not in models:
        return []
    trained = {eps_tag(e) for e in grid(models["epsilons"])}
    merged = {**(sec.get("common") or {}), **(sec.get("fig6") or {})}
    if "epsilons" not in merged:
        return [
            "config key xu2022.fig6.epsilons: required (here or in xu2022.common): the ε of the DP-cGANs shown"
        ]
    src = "fig6" if "epsilons" in (sec.get("fig6") or {}) else "common"
    missing = [f"{e:g}" for e in grid(merged["epsilons"]) if eps_tag(e) not in trained]
    if missing:
        return [
            f"config key xu2022.{src}.epsilons: ε {', '.join(missing)} not among the trained DP-cGANs "
            f"(xu2022.models.dpcgan.epsilons: {', '.join(f'{e:g}' for e in grid(models['epsilons']))})"
        ]
    return []
