"""Malformed MNIST idx files and CIFAR-10 batches are refused with a DataFormatError naming the
file: wrong shape, float data, out-of-range labels or pixels, count mismatches,
truncated or corrupt files. Each case writes the real format with one defect."""

import gzip
import pickle
import struct

import numpy as np
import pytest

from privrisk.data import cifar10, mnist
from privrisk.data.tabular import DataFormatError

IDX_CODES = {np.dtype(np.uint8): 0x08, np.dtype(">i2"): 0x0B, np.dtype(">f4"): 0x0D}


def idx_bytes(arr) -> bytes:
    arr = np.asarray(arr)
    head = struct.pack(">BBBB", 0, 0, IDX_CODES[arr.dtype], arr.ndim) + struct.pack(
        f">{arr.ndim}I", *arr.shape
    )
    return head + arr.tobytes()


def write_mnist(root, **override):
    """Four valid idx files (3 + 2 digits); ``override`` maps a FILES key to raw bytes."""
    rng = np.random.default_rng(0)
    good = {
        "train_images": idx_bytes(rng.integers(0, 256, (3, 28, 28), dtype=np.uint8)),
        "train_labels": idx_bytes(np.array([0, 1, 9], dtype=np.uint8)),
        "test_images": idx_bytes(rng.integers(0, 256, (2, 28, 28), dtype=np.uint8)),
        "test_labels": idx_bytes(np.array([5, 6], dtype=np.uint8)),
    }
    for key, data in (good | override).items():
        (root / mnist.FILES[key]).write_bytes(data)
    return {"source": "real", "path": str(root)}


def test_valid_files_load(tmp_path):
    x, y, src = mnist.load_mnist(write_mnist(tmp_path))
    assert src == "real-unverified" and x.shape == (5, 28, 28) and y.tolist() == [0, 1, 9, 5, 6]


_U8 = np.uint8
MNIST_CASES = {
    "32x32 images": ("train_images", idx_bytes(np.zeros((3, 32, 32), _U8)), "expected 28×28"),
    "float idx data": (
        "train_images",
        idx_bytes(np.full((3, 28, 28), 0.5, ">f4")),
        "expected unsigned bytes",
    ),
    "values over 255": ("test_images", idx_bytes(np.full((2, 28, 28), 300, ">i2")), "[300, 300]"),
    "label 255": (
        "train_labels",
        idx_bytes(np.array([0, 255, 1], _U8)),
        "outside 0..9 (e.g. 255 at position 1)",
    ),
    "label count mismatch": ("train_labels", idx_bytes(np.array([0, 1], _U8)), "2 labels but"),
    "2-d labels": ("test_labels", idx_bytes(np.zeros((2, 2), _U8)), "expected one label per image"),
    "truncated data": ("train_images", idx_bytes(np.zeros((3, 28, 28), _U8))[:-10], "truncated"),
    "truncated header": (
        "train_images",
        idx_bytes(np.zeros((3, 28, 28), _U8))[:9],
        "truncated header",
    ),
    "trailing bytes": (
        "test_labels",
        idx_bytes(np.array([5, 6], _U8)) + b"\0",
        "longer than its header",
    ),
    "bad magic": ("test_images", b"\x1f\x8b\x08\x00" + bytes(20), "bad magic"),
    "unknown type": ("test_images", b"\0\0\x07\x01" + bytes(8), "unknown idx data type"),
    "no images": ("test_images", idx_bytes(np.zeros((0, 28, 28), _U8)), "no images"),
}


@pytest.mark.parametrize("case", MNIST_CASES)
def test_malformed_mnist_is_refused_naming_the_file(tmp_path, case):
    key, data, message = MNIST_CASES[case]
    block = write_mnist(tmp_path, **{key: data})
    with pytest.raises(DataFormatError) as err:
        mnist.load_mnist(block)
    # the defective file is named (a count mismatch names the labels file and its images file)
    assert str(tmp_path / mnist.FILES[key]) in str(err.value)
    assert message in str(err.value)


def test_corrupt_and_truncated_gzip_are_refused_naming_the_file(tmp_path):
    name = mnist.FILES["train_images"] + ".gz"
    write_mnist(tmp_path)
    (tmp_path / mnist.FILES["train_images"]).unlink()
    full = gzip.compress(idx_bytes(np.zeros((3, 28, 28), np.uint8)))
    for data, what in ((b"not gzip at all", "BadGzipFile"), (full[: len(full) // 2], "EOFError")):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(DataFormatError, match=what) as err:
            mnist.load_mnist({"source": "auto", "path": str(tmp_path)})
        assert str(tmp_path / name) in str(err.value)


def write_cifar(root, bad: dict | None = None, raw: bytes | None = None):
    """Six valid batches of 2 images; batch 3 gets the dict ``bad`` (or the raw bytes ``raw``)."""
    for i, b in enumerate(cifar10.BATCHES):
        d = {b"data": np.full((2, 3072), 200, np.uint8), b"labels": [1, 2]}
        if i == 2 and bad is not None:
            d = bad
        with open(root / b, "wb") as f:
            pickle.dump(d, f)
        if i == 2 and raw is not None:
            (root / b).write_bytes(raw)
    return {"source": "real", "path": str(root)}


CIFAR_CASES = {
    "floats in [0, 1]": (
        {b"data": np.full((2, 3072), 0.8), b"labels": [1, 2]},
        "expected integers 0..255",
    ),
    "values over 255": (
        {b"data": np.full((2, 3072), 256), b"labels": [1, 2]},
        "pixel values in [256, 256]",
    ),
    "negative values": (
        {b"data": np.full((2, 3072), -1), b"labels": [1, 2]},
        "pixel values in [-1, -1]",
    ),
    "wrong row length": (
        {b"data": np.zeros((2, 1024), np.uint8), b"labels": [1, 2]},
        "expected (N, 3072)",
    ),
    "label count mismatch": (
        {b"data": np.zeros((2, 3072), np.uint8), b"labels": [1, 2, 3]},
        "3 labels but 2 images",
    ),
    "label 10": ({b"data": np.zeros((2, 3072), np.uint8), b"labels": [1, 10]}, "outside 0..9"),
    "float labels": (
        {b"data": np.zeros((2, 3072), np.uint8), b"labels": [1.0, 2.5]},
        "labels of type float64",
    ),
    "no labels key": ({b"data": np.zeros((2, 3072), np.uint8)}, "no data/labels"),
    "not a dict": ([1, 2, 3], "not a dict"),
}


@pytest.mark.parametrize("case", CIFAR_CASES)
def test_malformed_cifar_is_refused_naming_the_file(tmp_path, case):
    bad, message = CIFAR_CASES[case]
    with pytest.raises(DataFormatError) as err:
        cifar10.load_cifar10(write_cifar(tmp_path, bad=bad))
    assert str(tmp_path / cifar10.BATCHES[2]) in str(err.value) and message in str(err.value)


def test_truncated_and_corrupt_cifar_pickles_are_refused(tmp_path):
    whole = pickle.dumps({b"data": np.zeros((2, 3072), np.uint8), b"labels": [1, 2]})
    for raw in (whole[: len(whole) // 2], b"\x80\x04garbage", b""):
        with pytest.raises(DataFormatError, match="not a readable pickle") as err:
            cifar10.load_cifar10(write_cifar(tmp_path, raw=raw))
        assert str(tmp_path / cifar10.BATCHES[2]) in str(err.value)


def test_valid_cifar_batch_values_survive(tmp_path):
    x, y, src = cifar10.load_cifar10(write_cifar(tmp_path))
    assert src == "real-unverified" and x.shape == (12, 32, 32, 3) and y.tolist() == [1, 2] * 6
    np.testing.assert_allclose(x, 200 / 255)


@pytest.mark.slow
def test_pipeline_job_fails_naming_the_malformed_file(tmp_path):
    """End to end: 32×32 images in place of MNIST's make the training job fail (no output labelled
    `real`), and the job's log ends with the DataFormatError naming the file."""
    import yaml

    from tests.conftest import REPO, run_pipeline

    raw = tmp_path / "mnist"
    raw.mkdir()
    write_mnist(raw, train_images=idx_bytes(np.zeros((3, 32, 32), np.uint8)))
    cfg = yaml.safe_load((REPO / "config/tiny.yaml").read_text())
    cfg["xu2022"]["data"]["mnist"] = {"source": "auto", "path": str(raw)}
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(cfg))
    target = "results/xu2022/intermediate/mnist_wgangp_queries.npz"
    proc = run_pipeline(
        tmp_path,
        target,
        configfiles=("config/config.yaml", str(tmp_path / "bad.yaml")),
        check=False,
    )
    assert proc.returncode != 0 and not (tmp_path / target).exists()
    log = (tmp_path / "results/logs/xu2022/train_mnist_wgangp.log").read_text()
    assert f"DataFormatError: {raw / mnist.FILES['train_images']}: images of shape (32, 32)" in log


class _Planted:
    """What someone who can write the data folder could plant: a pickle that runs a function."""

    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        import os

        return (os.mkdir, (str(self.target),))


def test_a_cifar_pickle_that_would_run_code_is_refused_without_running_it(tmp_path):
    planted = tmp_path / "data_batch_1"
    planted.write_bytes(pickle.dumps({b"data": _Planted(tmp_path / "pwned"), b"labels": [1]}))
    with pytest.raises(DataFormatError, match=r"data_batch_1.*names posix\.mkdir.*refused"):
        cifar10.read_batch(planted)
    assert not (tmp_path / "pwned").exists()
    # what numpy 1 and 2 write for an array, at every protocol, still reads
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        batch = {b"data": np.full((2, 3072), 7, np.uint8), b"labels": [1, 2]}
        planted.write_bytes(pickle.dumps(batch, protocol=protocol))
        x, y = cifar10.read_batch(planted)
        assert x.shape == (2, 32, 32, 3) and y.tolist() == [1, 2]
