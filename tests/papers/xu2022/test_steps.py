"""xu2022 training steps at tiny scale: the ``device`` setting reaches every module and tensor,
torch gets the rule's threads, and the record carries the membership AUC of the queries."""

import json

import numpy as np
import pytest
import torch

from privrisk import config, workflow
from privrisk.estimators.heldout import membership_auc
from privrisk.models import gan
from privrisk.papers.xu2022 import steps
from tests.conftest import REPO


@pytest.fixture(scope="module")
def tiny():
    return config.load(REPO / "config/config.yaml", REPO / "config/tiny.yaml")


def run(cfg, name, tmp_path, monkeypatch, setting="cpu", threads=1):
    reg = workflow.load_registry("xu2022", cfg)
    step = reg.step(name)
    assert step.device  # declared, so params carry the global setting
    params = workflow.params({**cfg, "device": setting}, "xu2022", step)
    seen = []

    def spy(s):
        seen.append(s)
        return torch.device("cpu")

    monkeypatch.setattr(steps.devices, "resolve", spy)
    outs = {k: str(tmp_path / v.split("/")[-1]) for k, v in reg.step_outputs(step).items()}
    getattr(steps, step.func.split(":")[1])(params, {}, outs, threads)
    return seen, json.loads(open(outs["record"]).read()), np.load(outs["queries"])


@pytest.mark.parametrize(
    "name",
    ["train_mnist_wgangp", "train_cifar10_wgangp", "train_mnist_privgan", "train_dpcgan_epsinf"],
)
def test_device_setting_reaches_every_module(tiny, name, tmp_path, monkeypatch):
    before = torch.get_num_threads()
    try:
        seen, rec, q = run(tiny, name, tmp_path, monkeypatch, setting="cuda:1", threads=2)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert seen == ["cuda:1"]  # the config's setting, resolved once by the step
    assert rec["device"] == "cpu" and rec["threads"] == 2
    assert set(rec["devices"].values()) == {"cpu"} and len(rec["devices"]) >= 2
    m = q["member"].astype(bool)
    assert rec["auc"]["d0"] == pytest.approx(membership_auc(q["scores"][m, 0], q["scores"][~m, 0]))


def test_control_is_non_private(tiny, tmp_path, monkeypatch):
    _, rec, _ = run(tiny, "train_dpcgan_epsinf", tmp_path, monkeypatch)
    assert rec["epsilon"] == float("inf") and rec["accounting"]["noise_multiplier"] == 0.0
    assert rec["accounting"]["epsilon_spent"] == float("inf")


def test_training_tensors_follow_the_models_device():
    # on the meta device no value exists, so any tensor made on the CPU would raise on mixing
    crit = gan.MLPCritic(6, [8]).to("meta")
    real, fake = torch.empty(4, 6, device="meta"), torch.empty(4, 6, device="meta")
    gp = gan.gradient_penalty(crit, real, fake, torch.Generator(device="cpu"))
    assert gp.device.type == "meta"
    with pytest.raises(ValueError, match="one device"):
        gan._device(gan.MLPCritic(6, [8]), crit)
    assert gan._device(crit) == torch.device("meta")
