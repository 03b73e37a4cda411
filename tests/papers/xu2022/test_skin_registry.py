"""The skin-lesion declarations: three training steps on the device, seven figures reading them,
the Figure 2b switch, and nothing at all without a skin block."""

import copy

import pytest

from privrisk import config, workflow
from privrisk.papers.xu2022 import skin_registry
from tests.conftest import REPO


@pytest.fixture(scope="module")
def cfg():
    return config.load(REPO / "config/config.yaml")


def test_steps_and_figures(cfg):
    reg = workflow.load_registry("xu2022", cfg)
    steps = [s for s in reg.steps if "skin" in s.name]
    assert [s.name for s in steps] == [
        "train_skin_jsgan",
        "train_skin_jsgan_corrupted",
        "train_skin_classifier",
    ]
    assert all(s.device and s.data == ("dermamnist",) for s in steps)
    assert steps[0].resources_for("paper").gpu == 1
    p = workflow.params(cfg | {"device": "cpu"}, "xu2022", steps[1])
    assert p["device"] == "cpu" and p["corruption"] == cfg["xu2022"]["skin"]["data"]["corruption"]
    assert p["data"] == cfg["xu2022"]["data"]["dermamnist"] and "synthetic" not in p
    ins = {
        f.name: reg.inputs(f)["queries"]
        for f in reg.figures
        if f.name in ("fig1b", "fig1c", "fig2b", "fig4a", "fig4b", "fig7", "fig8")
    }
    q = "results/xu2022/intermediate/{}_queries.npz".format
    assert ins == {
        "fig1b": q("skin_jsgan"),
        "fig1c": q("skin_jsgan"),
        "fig2b": q("skin_jsgan"),
        "fig4a": q("skin_jsgan_corrupted"),
        "fig4b": q("skin_jsgan_corrupted"),
        "fig7": q("skin_jsgan"),
        "fig8": q("skin_classifier"),
    }
    fig1b = next(f for f in reg.figures if f.name == "fig1b")
    assert workflow.params(cfg, "xu2022", fig1b)["est"] == cfg["xu2022"]["skin"]["estimation"]


def test_fig2b_switch_trains_the_wgangp(cfg):
    section = copy.deepcopy(cfg["xu2022"])
    section["skin"]["fig2b"] = {"gan": "wgangp"}
    assert skin_registry.skin_steps(section)[-1].name == "train_skin_wgangp"
    fig2b = next(f for f in skin_registry.skin_figures(section) if f.name == "fig2b")
    assert fig2b.inputs["queries"].step == "train_skin_wgangp" and fig2b.fixed == {"gan": "wgangp"}
    section["skin"]["fig2b"] = {"gan": "lsgan"}
    with pytest.raises(ValueError, match="jsgan or wgangp"):
        skin_registry.skin_steps(section)


def test_no_skin_block_no_declarations(cfg):
    section = {k: v for k, v in cfg["xu2022"].items() if k != "skin"}
    assert skin_registry.skin_steps(section) == [] and skin_registry.skin_figures(section) == []
