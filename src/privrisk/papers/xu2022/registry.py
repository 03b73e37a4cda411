"""xu2022: one training step per model (it trains the model ``runs`` times and saves every run's
query values; with the config's ``runs_per_job`` the runs train in shards, pooled by
:func:`.steps.pool`), and figures that read the queries of the models they list.

Everything is declared in two tables, so that a new model is a row of :func:`models` (a step
function in :mod:`.steps` or :mod:`.steps_skin` and a config block ``models.<name>``) and a new
figure is a row of :func:`figure_reads`; a figure naming a model that is not trained is a
:class:`~privrisk.core.declarations.RegistryError` when the registry loads.

* image half: WGAN-GPs on MNIST and CIFAR-10 (Figs 1a, 3), privGAN (Fig 2a), one DP-cGAN per ε
  and the non-private control (Figs 5, 6);
* skin-lesion half: the JS-GAN (Figs 1b, 1c, 2b, 7), the JS-GAN on a training set with white
  boxes (Fig 4), the WGAN-GP of the Fig 2b caption (only when ``fig2b.gan`` is ``wgangp``,
  erratum E7) and the E.3.3 classifier (Fig 8).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...core.declarations import Figure, Out, Paper, Resources, Shards, Step
from ...core.grids import eps_tag, grid

PAPER = Paper(
    title="Mace: a flexible framework for membership privacy estimation in generative models",
    authors="Xu et al.",
    venue="TMLR 2022",
    summary="GANs (WGAN-GP, JS-GAN, privGAN, DP-cGAN), a skin-lesion classifier, MACE estimators",
    order=5,
)


_MOD = "privrisk.papers.xu2022"
_IMAGE = {
    "quick": Resources(mem_mb=2000, runtime=10),
    "paper": Resources(mem_mb=4000, runtime=240, gpu=1),
}
_SKIN = {
    "quick": Resources(mem_mb=2000, runtime=15),
    "paper": Resources(mem_mb=16000, runtime=720, gpu=1),
}
_FIGURE = {"quick": Resources(mem_mb=2000, runtime=10)}


@dataclass(frozen=True)
class Model:
    """One trained model: ``train_<name>`` runs ``<func>`` on ``dataset`` with the config block
    ``models.<block>`` (as param ``model``); ``config`` adds params from the paper's section,
    ``fixed`` constants."""

    name: str
    func: str
    dataset: str
    block: str
    config: Mapping[str, str] = field(default_factory=dict)
    fixed: Mapping[str, Any] = field(default_factory=dict)
    resources: Mapping[str, Resources] = field(default_factory=lambda: _IMAGE)


def dpcgan_name(eps) -> str:
    return f"dpcgan_eps{eps_tag(eps)}"


def dpcgan_epsilons(section: Mapping[str, Any]) -> list[float]:
    """The ε grid of the DP-cGANs, plus ε = ∞ (the non-private control) when ``control`` is on."""
    block = section["models"]["dpcgan"]
    return [*grid(block["epsilons"]), *([float("inf")] if block.get("control", False) else [])]


def fig2b_gan(section: Mapping[str, Any]) -> str:
    """``jsgan`` (the text, default) or ``wgangp`` (the caption, erratum E7) for Figure 2b."""
    gan = (section.get("fig2b") or {}).get("gan", "jsgan")
    if gan not in ("jsgan", "wgangp"):
        raise ValueError(f"xu2022.fig2b.gan must be jsgan or wgangp, got {gan!r}")
    return gan


def models(section: Mapping[str, Any]) -> list[Model]:
    """Every model the paper's section trains."""
    # Each DP-cGAN gets the dpcgan block without the list of ε, so adding an ε to the list trains
    # only the new model instead of rerunning every DP-cGAN (params are part of a rule's state).
    dpcgan = {
        k: v for k, v in section["models"]["dpcgan"].items() if k not in ("epsilons", "control")
    }
    syn = {"synthetic": "synthetic"}
    skin = [
        Model(
            "skin_jsgan",
            "steps_skin:gan_step",
            "dermamnist",
            "skin_jsgan",
            syn,
            {"kind": "jsgan"},
            _SKIN,
        ),
        Model(
            "skin_jsgan_corrupted",
            "steps_skin:gan_step",
            "dermamnist",
            "skin_jsgan",
            {"corruption": "data.corruption"},
            {"kind": "jsgan"},
            _SKIN,
        ),
        Model(
            "skin_classifier",
            "steps_skin:classifier_step",
            "dermamnist",
            "skin_classifier",
            resources=_SKIN,
        ),
    ]
    if fig2b_gan(section) == "wgangp":
        skin.append(
            Model(
                "skin_wgangp",
                "steps_skin:gan_step",
                "dermamnist",
                "skin_wgangp",
                syn,
                {"kind": "wgangp"},
                _SKIN,
            )
        )
    return [
        Model("mnist_wgangp", "steps:wgan_gp_step", "mnist", "mnist_wgangp"),
        Model("cifar10_wgangp", "steps:wgan_gp_step", "cifar10", "cifar10_wgangp"),
        Model("mnist_privgan", "steps:privgan_step", "mnist", "mnist_privgan"),
        *(
            Model(
                dpcgan_name(e),
                "steps:dpcgan_step",
                "mnist",
                "dpcgan",
                {"zero_six": "data.zero_six"},
                {"epsilon": float(e), "model": dpcgan},
            )
            for e in dpcgan_epsilons(section)
        ),
        *skin,
    ]


def _train(m: Model) -> Step:
    config = {"data": f"data.{m.dataset}", **m.config}
    if "model" not in m.fixed:
        config["model"] = f"models.{m.block}"
    return Step(
        name=f"train_{m.name}",
        func=f"{_MOD}.{m.func}",
        data=(m.dataset,),
        section=None,
        config=config,
        fixed={"dataset": m.dataset, "name": m.name, **m.fixed},
        outputs={
            "split": f"{m.name}_split.npz",
            "model": f"{m.name}.pt",
            "queries": f"{m.name}_queries.npz",
            "record": f"{m.name}_record.json",
            "shards": f"{m.name}_shards.json",
        },
        resources=m.resources,
        device=True,
        shards=Shards(count="model.runs", pool=f"{_MOD}.steps:pool"),
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


#: figure -> module (figures, figures_dp, figures_skin)
_MODULE = {
    **dict.fromkeys(("fig1a", "fig2a", "fig3"), "figures"),
    **dict.fromkeys(("fig5", "fig6"), "figures_dp"),
    **dict.fromkeys(("fig1b", "fig1c", "fig2b", "fig4a", "fig4b", "fig7", "fig8"), "figures_skin"),
}
#: extra params of a figure: param name -> dotted path in the section
_CONFIG = {
    "fig1b": {"n_synthetic": "synthetic.n"},
    "fig1c": {"n_synthetic": "synthetic.n"},
    "fig2b": {"n_synthetic": "synthetic.n"},
}


def figure_reads(section: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """figure -> {input name: model whose queries it reads}."""
    return {
        "fig1a": {"queries": "cifar10_wgangp"},
        "fig2a": {"queries": "mnist_privgan"},
        "fig3": {"mnist": "mnist_wgangp", "cifar10": "cifar10_wgangp"},
        "fig5": _by_eps(section["models"]["dpcgan"]["epsilons"], section),
        "fig6": _by_eps(_figure_param(section, "fig6", "epsilons"), section),
        "fig1b": {"queries": "skin_jsgan"},
        "fig1c": {"queries": "skin_jsgan"},
        "fig2b": {"queries": f"skin_{fig2b_gan(section)}"},
        "fig4a": {"queries": "skin_jsgan_corrupted"},
        "fig4b": {"queries": "skin_jsgan_corrupted"},
        "fig7": {"queries": "skin_jsgan"},
        "fig8": {"queries": "skin_classifier"},
    }


def figure_decls(section: Mapping[str, Any]) -> list[Figure]:
    return [
        Figure(
            name=fig,
            func=f"{_MOD}.{_MODULE[fig]}:{fig}",
            resources=_FIGURE,
            inputs={k: Out(f"train_{model}", "queries") for k, model in reads.items()},
            config=_CONFIG.get(fig, {}),
        )
        for fig, reads in figure_reads(section).items()
    ]


STEPS = train_steps
FIGURES = figure_decls


# --- config checks beyond the schema (called by privrisk.pipeline.config.validate) ---


def check_config(sec: Mapping[str, Any]) -> list[str]:
    """Keys of the xu2022 section that are each valid but do not fit together: every ε shown in
    Figure 6 has a trained DP-cGAN, the synthetic-set size of Figures 1b, 1c, 2b is one of the
    sizes Figure 7 generates, and the figure-only keys sit in their figure's section."""
    out = []
    for fig, key in (("fig2b", "gan"), ("fig4a", "examples")):
        wrong = [s for s, v in sec.items() if isinstance(v, Mapping) and key in v and s != fig]
        out += [f"config key xu2022.{s}.{key}: only xu2022.{fig} takes {key}" for s in wrong]
    syn = sec.get("synthetic") or {}
    if "n" in syn and "sizes" in syn and syn["n"] not in syn["sizes"]:
        out.append(
            f"config key xu2022.synthetic.n: {syn['n']} is not one of xu2022.synthetic.sizes "
            f"{syn['sizes']} (Figures 1b, 1c, 2b read that column of the distances)"
        )
    models_ = sec.get("models", {}).get("dpcgan", {})
    if "epsilons" not in models_:
        return out
    trained = {eps_tag(e) for e in grid(models_["epsilons"])}
    merged = {**(sec.get("common") or {}), **(sec.get("fig6") or {})}
    if "epsilons" not in merged:
        return out + [
            "config key xu2022.fig6.epsilons: required (here or in xu2022.common): the ε of the DP-cGANs shown"
        ]
    src = "fig6" if "epsilons" in (sec.get("fig6") or {}) else "common"
    missing = [f"{e:g}" for e in grid(merged["epsilons"]) if eps_tag(e) not in trained]
    if missing:
        out.append(
            f"config key xu2022.{src}.epsilons: ε {', '.join(missing)} not among the trained DP-cGANs "
            f"(xu2022.models.dpcgan.epsilons: {', '.join(f'{e:g}' for e in grid(models_['epsilons']))})"
        )
    return out


# The project's own audit of every DP-cGAN and the control (figures_audit; ledger rows
# ``derived``): reads the models' query files, trains nothing; confidence from ``common``.
def _with_audit(section: Mapping[str, Any]) -> list[Figure]:
    reads = _by_eps(section["models"]["dpcgan"]["epsilons"], section)
    audit = Figure(
        name="audit_dpcgan",
        func=f"{_MOD}.figures_audit:audit_dpcgan",
        section="fig5",
        inputs={k: Out(f"train_{model}", "queries") for k, model in reads.items()},
        config={"delta": "models.dpcgan.delta"},
        resources=_FIGURE,
    )
    return [*figure_decls(section), audit]


FIGURES = _with_audit


# --- privrisk plan (privrisk.pipeline.plan): the key that holds what a claim's plan counts ---

#: claims of a figure that reads several models of different blocks: claim id -> the input of
#: :func:`figure_reads` whose runs decide it
_CLAIM_INPUT = {
    "fig3_mnist_acc_comparable": "mnist",
    "fig3_mnist_am_comparable": "mnist",
    "fig3_cifar10_acc_comparable": "cifar10",
    "fig3_cifar10_am_comparable": "cifar10",
}


def plan_keys(section: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Figure or claim id -> the key of this section that holds the runs an uninformative claim's
    plan counts, and the training jobs whose cost grows with it, from the two tables above: a
    figure reads models (:func:`figure_reads`), a model trains ``models.<block>.runs`` times, and
    raising a block's runs retrains every model of that block (the skin JS-GAN on the corrupted
    set too, every DP-cGAN). A figure whose models come from several blocks is planned per claim
    (``_CLAIM_INPUT``)."""
    blocks = {m.name: m.block for m in models(section)}

    def entry(names: list[str]) -> dict[str, Any] | None:
        if len(block := {blocks[n] for n in names}) != 1:
            return None
        (b,) = block
        return {
            "unit": "runs",
            "key": f"models.{b}.runs",
            "jobs": tuple(f"train_{n}" for n, nb in blocks.items() if nb == b),
        }

    reads = figure_reads(section)
    out = {fig: e for fig, r in reads.items() if (e := entry(list(r.values()))) is not None}
    for claim, name in _CLAIM_INPUT.items():
        out[claim] = entry([reads["fig3"][name]])
    return out


PLAN_KEYS = plan_keys
