import pytest
import torch

from privrisk.core import device
from privrisk.pipeline.workflow import Step, params


def test_auto_is_cuda_only_when_present():
    assert device.resolve("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert device.resolve("cpu") == torch.device("cpu")


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "", "CPU"])
def test_malformed_setting_names_the_key(bad):
    with pytest.raises(device.DeviceError, match="config key device"):
        device.resolve(bad)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_absent_cuda_is_an_error_not_a_silent_cpu_run():
    with pytest.raises(device.DeviceError, match="not available"):
        device.resolve("cuda")


def test_device_reaches_params_only_of_steps_that_declare_it():
    uses = Step(name="a", func="m:f", outputs={"o": "o"}, device=True)
    plain = Step(name="b", func="m:f", outputs={"o": "o"})
    cfg = {"seed": 1, "device": "cuda:1"}
    assert params(cfg, "xu2022", uses)["device"] == "cuda:1"
    assert "device" not in params(cfg, "xu2022", plain)
    assert params({"seed": 1}, "xu2022", uses)["device"] == "auto"
