"""Skin models: shapes of the E.3 networks, the chunked nearest-neighbour distance against brute
force, the AUC, and that a training step runs on (and records) the configured device."""

import json

import numpy as np
import pytest
import torch

from privrisk.core import device
from privrisk.models import skin
from privrisk.papers.xu2022 import skin_steps


def test_e3_networks_have_the_paper_shapes():
    g, d = skin.build_gan(
        {"z_dim": 100, "g_channels": [512, 256, 128, 64], "d_channels": [64, 128, 128, 256]},
        64,
        torch.device("cpu"),
    )
    img = g(torch.randn(2, 100))
    assert img.shape == (2, 3, 64, 64) and img.abs().max() <= 1
    assert d(img).shape == (2,) and d.fc.in_features == 4 * 4 * 256  # spec §7.4: 4,096 features
    c = skin.Classifier(512, 64)
    assert c.hidden.in_features == 512 * 32 * 32  # the 524,288 → 2 dense layer
    wb, bb = c.queries(torch.randn(3, 3, 64, 64))
    assert (
        wb.shape == (3, 2) and (wb >= 0).all() and bb.shape == (3,) and ((bb > 0) & (bb < 1)).all()
    )
    with pytest.raises(ValueError, match="g_channels"):
        skin.build_gan(
            {"z_dim": 8, "g_channels": [8, 4], "d_channels": [4]}, 32, torch.device("cpu")
        )


def test_nearest_distances_match_brute_force_for_every_prefix():
    rng = np.random.default_rng(0)
    x, g = rng.normal(size=(37, 3, 4, 4)), rng.normal(size=(250, 3, 4, 4))
    sizes = [1, 10, 64, 250]
    out = skin.nearest_distances(torch.from_numpy(x), torch.from_numpy(g), sizes, chunk=17)
    d = np.sqrt(((x.reshape(37, 1, -1) - g.reshape(1, 250, -1)) ** 2).sum(-1))
    for k, n in enumerate(sizes):
        np.testing.assert_allclose(out[:, k], d[:, :n].min(1), rtol=1e-10)
    assert (np.diff(out, axis=1) <= 0).all()  # nested sets: the distance can only shrink
    with pytest.raises(ValueError, match="exceeds"):
        skin.nearest_distances(torch.from_numpy(x), torch.from_numpy(g), [10, 300])


def test_member_auc():
    assert skin.member_auc([1, 2, 3], [1, 2, 3]) == pytest.approx(0.5)
    assert skin.member_auc([5, 6], [1, 2, 3]) == 1.0 and skin.member_auc([0], [1, 2]) == 0.0


def _params(tmp_path, dev):
    return {
        "seed": 0,
        "device": dev,
        "kind": "jsgan",
        "train_fraction": 0.2,
        "data": {
            "source": "standin",
            "path": str(tmp_path / "none"),
            "standin_size": 120,
            "image_size": 16,
        },
        "model": {
            "z_dim": 4,
            "g_channels": [8, 4],
            "d_channels": [4, 4],
            "epochs": 1,
            "batch_size": 16,
            "lr": 1e-3,
            "beta1": 0.5,
        },
        "synthetic": {"sizes": [10, 50], "chunk": 16},
    }


def _outputs(tmp_path):
    return {
        k: str(tmp_path / f"m_{k}.{ext}")
        for k, ext in (("split", "npz"), ("model", "pt"), ("queries", "npz"), ("record", "json"))
    }


def test_gan_step_runs_on_the_configured_device_and_records_aucs(tmp_path):
    out = _outputs(tmp_path)
    skin_steps.gan_step(_params(tmp_path, "cpu"), {}, out, threads=1)
    rec = json.loads(open(out["record"]).read())
    q = np.load(out["queries"])
    assert rec["device"] == "cpu" and rec["n"] == 120 and rec["n_train"] == 24
    assert set(rec["auc"]) == {"discriminator", "nn_10", "nn_50"} and all(
        0 <= v <= 1 for v in rec["auc"].values()
    )
    assert q["d"].shape == (120,) and q["nn"].shape == (120, 2) and q["member"].sum() == 24


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_gan_step_refuses_an_absent_device(tmp_path):
    with pytest.raises(device.DeviceError, match="not available"):
        skin_steps.gan_step(_params(tmp_path, "cuda"), {}, _outputs(tmp_path), threads=1)


def test_corrupted_step_and_classifier_step(tmp_path):
    p = _params(tmp_path, "cpu") | {"corruption": {"fraction": 0.25, "box": 4}}
    out = _outputs(tmp_path)
    skin_steps.gan_step(p, {}, out, threads=1)
    q = np.load(out["queries"])
    assert q["corrupted"].sum() == 6 and not (q["corrupted"] & ~q["member"]).any()
    boxed = q["train_images"][q["corrupted"][q["train_idx"]]]
    assert (boxed[:, 6:10, 6:10] == 255).all()
    c = _params(tmp_path, "cpu") | {
        "model": {"channels": 4, "epochs": 1, "batch_size": 16, "lr": 1e-3}
    }
    skin_steps.classifier_step(c, {}, out, threads=1)
    q = np.load(out["queries"])
    assert q["white"].shape == (120, 2) and q["black"].shape == (120,)
    assert json.loads(open(out["record"]).read())["device"] == "cpu"
