"""The DermaMNIST loader: the real MedMNIST+ layout is read and checked, the stand-in is
deterministic and shaped like it, the corruption touches only the chosen training images."""

import numpy as np
import pytest

from privrisk.data import dermamnist, sources
from privrisk.data.tabular import DataFormatError


def write_npz(path, n=(6, 2, 3), size=64, labels=None, **override):
    rng = np.random.default_rng(0)
    arrays = {}
    for part, k in zip(dermamnist.PARTS, n, strict=True):
        arrays[f"{part}_images"] = rng.integers(0, 256, (k, size, size, 3), dtype=np.uint8)
        arrays[f"{part}_labels"] = (
            rng.integers(0, 7, (k, 1)) if labels is None else labels[part]
        ).astype(np.uint8)
    arrays.update(override)
    np.savez(path / dermamnist.FILE, **arrays)
    return arrays


def block(path, **kw):
    return {"source": "real", "path": str(path), **kw}


def test_real_layout_is_read_and_labels_map_to_malignant(tmp_path):
    labels = {
        "train": np.array([[0], [1], [2], [3], [4], [5]]),
        "val": np.array([[6], [4]]),
        "test": np.array([[5], [5], [1]]),
    }
    arrays = write_npz(tmp_path, labels=labels)
    x, y, src = dermamnist.load_dermamnist(block(tmp_path))
    assert src == "real-unverified" and x.shape == (11, 64, 64, 3) and x.dtype == np.float32
    # akiec (0), bcc (1) and mel (4) are malignant; parts are concatenated train, val, test
    assert y.tolist() == [1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    assert x[0, 5, 7, 2] == pytest.approx(arrays["train_images"][0, 5, 7, 2] / 255.0)
    assert sources.rule_inputs("dermamnist", block(tmp_path, source="auto")) == [
        str(tmp_path / dermamnist.FILE)
    ]


def test_downsampling_averages_blocks_and_subset_is_seeded(tmp_path):
    arrays = write_npz(tmp_path)
    x, _, _ = dermamnist.load_dermamnist(block(tmp_path, image_size=16))
    assert x.shape == (11, 16, 16, 3)
    assert x[0, 1, 2, 0] == pytest.approx(
        arrays["train_images"][0, 4:8, 8:12, 0].mean() / 255.0, rel=1e-5
    )
    a, _, _ = dermamnist.load_dermamnist(block(tmp_path, n_images=4), seed=3)
    b, _, _ = dermamnist.load_dermamnist(block(tmp_path, n_images=4), seed=3)
    assert a.shape[0] == 4 and np.array_equal(a, b)


@pytest.mark.parametrize(
    "override, match",
    [
        ({"val_images": np.zeros((2, 32, 32, 3), np.uint8)}, "val_images"),
        ({"train_images": np.zeros((6, 64, 64, 3), np.float32)}, "train_images"),
        ({"test_labels": np.array([[7], [0], [1]])}, "0..6"),
        ({"test_labels": np.array([[1], [0]])}, "test_labels"),
    ],
)
def test_malformed_file_is_refused_naming_it(tmp_path, override, match):
    write_npz(tmp_path, **override)
    with pytest.raises(DataFormatError, match=match) as err:
        dermamnist.load_dermamnist(block(tmp_path))
    assert dermamnist.FILE in str(err.value)


def test_missing_key_and_missing_file(tmp_path):
    np.savez(tmp_path / dermamnist.FILE, train_images=np.zeros((1, 64, 64, 3), np.uint8))
    with pytest.raises(DataFormatError, match="train_labels"):
        dermamnist.load_dermamnist(block(tmp_path))
    with pytest.raises(sources.DataUnavailable, match="dermamnist_64.npz"):
        dermamnist.load_dermamnist(block(tmp_path / "absent"))


def test_standin_is_deterministic_and_about_a_fifth_malignant(tmp_path):
    b = {"source": "auto", "path": str(tmp_path), "standin_size": 2000, "image_size": 16}
    x, y, src = dermamnist.load_dermamnist(b, seed=1)
    x2, y2, _ = dermamnist.load_dermamnist(b, seed=1)
    assert (
        src == "standin"
        and x.shape == (2000, 16, 16, 3)
        and np.array_equal(x, x2)
        and np.array_equal(y, y2)
    )
    assert 0 <= x.min() and x.max() <= 1 and abs(y.mean() - 0.195) < 0.03  # binomial s.d. 0.009
    # a lesion is darker than the skin around it: the centre is darker than the corners
    assert x[:, 6:10, 6:10].mean() < x[:, :2, :2].mean() - 0.1
    assert not np.array_equal(dermamnist.load_dermamnist(b, seed=2)[0], x)


def test_standin_texture_is_per_image_detail_on_its_own_stream(tmp_path):
    b = {"source": "standin", "path": str(tmp_path), "standin_size": 300, "image_size": 16}
    smooth, y, _ = dermamnist.load_dermamnist(b, seed=3)
    rough, y2, _ = dermamnist.load_dermamnist(b | {"standin_texture": 0.2}, seed=3)
    assert np.array_equal(y, y2)  # same lesions and labels: only the shading differs
    assert np.array_equal(
        dermamnist.load_dermamnist(b | {"standin_texture": 0.0}, seed=3)[0], smooth
    )
    diff = rough - smooth
    # a multiplicative field of s.d. ≈ 0.2 on pixels of ≈ 0.5: a few hundredths on average,
    # different in every image (not a fixed pattern added to all)
    assert 0.02 < np.abs(diff).mean() < 0.15
    assert np.abs(diff - diff.mean(0)).mean() > 0.5 * np.abs(diff).mean()


def test_corruption_boxes_only_chosen_members():
    x = np.zeros((50, 16, 16, 3), np.float32)
    members = np.arange(0, 50, 2)
    out, mask = dermamnist.corrupt(x, members, 0.2, 4, seed=0)
    assert mask.sum() == 5 and set(np.flatnonzero(mask)) <= set(members)
    assert (out[mask][:, 6:10, 6:10] == 1).all() and out[mask].sum() == 5 * 16 * 3
    assert (out[~mask] == 0).all() and (x == 0).all()


@pytest.mark.parametrize("damage", ["truncate", "flip_bytes", "compressed_flip"])
def test_a_truncated_or_corrupted_npz_is_refused_naming_the_file(tmp_path, damage):
    write_npz(tmp_path)
    path = tmp_path / dermamnist.FILE
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip_bytes":
        data[200:260] = bytes(60)  # inside the first member's data
    else:
        np.savez_compressed(path, **{k: v for k, v in np.load(path).items()})
        data = bytearray(path.read_bytes())
        data[300:340] = b"\xff" * 40
    path.write_bytes(bytes(data))
    with pytest.raises(dermamnist.DataFormatError) as err:
        dermamnist.read_npz(path)
    assert str(path) in str(err.value), err.value
