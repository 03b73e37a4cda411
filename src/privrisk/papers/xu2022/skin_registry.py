"""xu2022, the skin-lesion half (spec §7–§11): Figures 1b, 1c, 2b, 4a, 4b, 7, 8.

Declared apart from the image-GAN half so the two can grow independently;
:mod:`.registry` appends these declarations to its own. Everything is configured in the
section's ``skin`` block (and the ``data.dermamnist`` data block):

* ``train_skin_jsgan`` — the JS-GAN of Figs. 1b, 1c, 2b, 7 (queries: D(z) and NN distances);
* ``train_skin_jsgan_corrupted`` — the JS-GAN on the training set with white boxes (Fig. 4);
* ``train_skin_wgangp`` — only when ``skin.fig2b.gan`` is ``wgangp`` (the caption's reading, E7);
* ``train_skin_classifier`` — the E.3.3 classifier (Fig. 8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.declarations import Figure, Out, Resources, Step

_STEPS = "privrisk.papers.xu2022.skin_steps"
_GAN_FIGS = "privrisk.papers.xu2022.skin_figures"
_RISK_FIGS = "privrisk.papers.xu2022.skin_risk_figures"
_TRAIN = {
    "quick": Resources(mem_mb=2000, runtime=15),
    "paper": Resources(mem_mb=16000, runtime=720, gpu=1),
}
_FIGURE = {"quick": Resources(mem_mb=2000, runtime=10)}


def _train(
    name: str, func: str, model: str, config: Mapping[str, str], fixed: Mapping[str, Any]
) -> Step:
    files = {
        "split": f"{name}_split.npz",
        "model": f"{name}.pt",
        "queries": f"{name}_queries.npz",
        "record": f"{name}_record.json",
    }
    return Step(
        name=f"train_{name}",
        func=f"{_STEPS}:{func}",
        data=("dermamnist",),
        section=None,
        config={
            "data": "data.dermamnist",
            "train_fraction": "skin.data.train_fraction",
            "model": f"skin.models.{model}",
            **config,
        },
        fixed=fixed,
        device=True,
        outputs=files,
        resources=_TRAIN,
    )


def fig2b_gan(section: Mapping[str, Any]) -> str:
    """``jsgan`` (the text, default) or ``wgangp`` (the caption) for Figure 2b."""
    gan = (section.get("skin", {}).get("fig2b") or {}).get("gan", "jsgan")
    if gan not in ("jsgan", "wgangp"):
        raise ValueError(f"xu2022.skin.fig2b.gan must be jsgan or wgangp, got {gan!r}")
    return gan


def skin_steps(section: Mapping[str, Any]) -> list[Step]:
    if "skin" not in section:
        return []
    syn = {"synthetic": "skin.synthetic"}
    steps = [
        _train("skin_jsgan", "gan_step", "jsgan", syn, {"kind": "jsgan"}),
        _train(
            "skin_jsgan_corrupted",
            "gan_step",
            "jsgan",
            {"corruption": "skin.data.corruption"},
            {"kind": "jsgan"},
        ),
        _train("skin_classifier", "classifier_step", "classifier", {}, {}),
    ]
    if fig2b_gan(section) == "wgangp":
        steps.append(_train("skin_wgangp", "gan_step", "wgangp", syn, {"kind": "wgangp"}))
    return steps


def _fig(name: str, module: str, model: str, config: Mapping[str, str], fixed=None) -> Figure:
    return Figure(
        name=name,
        func=f"{module}:{name}",
        section=None,
        resources=_FIGURE,
        inputs={"queries": Out(f"train_{model}", "queries")},
        config={"est": "skin.estimation", **config},
        fixed=fixed or {},
    )


def skin_figures(section: Mapping[str, Any]) -> list[Figure]:
    if "skin" not in section:
        return []
    n_syn = {"n_synthetic": "skin.synthetic.n"}
    gan = fig2b_gan(section)
    return [
        _fig("fig1b", _GAN_FIGS, "skin_jsgan", n_syn),
        _fig("fig1c", _GAN_FIGS, "skin_jsgan", n_syn),
        _fig("fig2b", _GAN_FIGS, f"skin_{gan}", n_syn, {"gan": gan}),
        _fig("fig4a", _RISK_FIGS, "skin_jsgan_corrupted", {"examples": "skin.fig4a.examples"}),
        _fig("fig4b", _RISK_FIGS, "skin_jsgan_corrupted", {}),
        _fig("fig7", _GAN_FIGS, "skin_jsgan", {}),
        _fig("fig8", _RISK_FIGS, "skin_classifier", {}),
    ]
