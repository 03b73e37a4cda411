"""CIFAR-10: the real python-pickle batches when present, else a procedural 10-class stand-in.

Real files (the data block's ``path``, e.g. ``data/raw/cifar-10-batches-py/``):
``data_batch_{1..5}`` and ``test_batch`` (the "python version" of the dataset; 50,000 + 10,000
images, concatenated as in spec xu2022 §7.1). When they are absent the fallback is ``standin``
(decided by :func:`privrisk.data.sources.resolve`). :data:`CIFAR10` describes the dataset (the
python tarball, extracted by :func:`convert`).

Stand-in (``standin``): 32×32 RGB images, one geometric pattern per class (disc, square, ring,
horizontal/vertical/diagonal stripes, checkerboard, cross, triangle, gradient blob), each with a
class hue, random position, size, colour jitter, textured background and pixel noise, blended
half and half with an image-specific texture (random plane waves) so that every image has
detail of its own to memorise. It keeps what the MACE experiments need — a 10-class image
distribution a small GAN can learn and over-fit — but it is not CIFAR-10, and absolute
advantages differ from the paper's.
"""

from __future__ import annotations

import pickle
import shutil
import tarfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..core import seeds
from . import images, sources
from .dataset import Dataset, Remote, atomic_output
from .tabular import DataFormatError

BATCHES = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
#: stand-in images when the block gives no ``standin_size``
STANDIN_SIZE = 3000


def real_files(block) -> list[Path]:
    """The six pickle batches a real load reads."""
    return [Path(block["path"]) / b for b in BATCHES]


#: the only globals a CIFAR-10 batch's pickle may name: numpy's array reconstruction (numpy 1 and 2
#: module names) and the codec Python 2 pickles of bytes use. Nothing that runs code.
SAFE_GLOBALS = frozenset(
    {
        (f"numpy.{core}.{mod}", name)
        for core in ("core", "_core")
        for mod, name in (("multiarray", "_reconstruct"), ("numeric", "_frombuffer"))
    }
    | {("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode")}
)


class _ArraysOnly(pickle.Unpickler):
    """An unpickler that refuses every global but :data:`SAFE_GLOBALS`: a file in the data folder
    that names ``os.system`` (or any other callable) is refused before anything runs."""

    def find_class(self, module: str, name: str):
        if (module, name) not in SAFE_GLOBALS:
            raise pickle.UnpicklingError(
                f"it names {module}.{name}, and a CIFAR-10 batch holds only arrays and lists "
                "(refused without running it)"
            )
        return super().find_class(module, name)


def read_batch(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """One pickle batch → (uint8 images (N, 32, 32, 3), labels).

    The batch is unpickled with every global refused but numpy's array reconstruction
    (:data:`SAFE_GLOBALS`), so a planted file cannot run code in the pipeline.

    Raises:
        DataFormatError: the file (named) is not a pickled dict with ``data`` (N × 3072
            integers 0..255) and ``labels`` (N integers 0..9).
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:
            d = _ArraysOnly(f, encoding="bytes").load()
    except FileNotFoundError:
        raise
    # A truncated or foreign file raises any of these from inside pickle (not only UnpicklingError).
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        ImportError,
        IndexError,
        KeyError,
        MemoryError,
        OSError,
    ) as err:
        raise DataFormatError(
            f"{path}: not a readable pickle ({type(err).__name__}: {err})"
        ) from None
    if not isinstance(d, dict):
        raise DataFormatError(
            f"{path}: not a CIFAR-10 python batch (a {type(d).__name__}, not a dict)"
        )
    data = d.get(b"data", d.get("data"))
    labels = d.get(b"labels", d.get("labels"))
    if data is None or labels is None:
        raise DataFormatError(f"{path}: not a CIFAR-10 python batch (no data/labels)")
    data = np.asarray(data)
    if data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
        raise DataFormatError(
            f"{path}: data of shape {data.shape}, expected (N, 3072): one row of "
            "3×32×32 channel-first bytes per image"
        )
    x = images.check_pixels(data.reshape(-1, 3, 32, 32), path, shape=(3, 32, 32)).transpose(
        0, 2, 3, 1
    )
    return x, images.check_labels(labels, path, n=len(x))


def standin(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` procedural images (float32 in [0, 1], (n, 32, 32, 3)) with balanced labels."""
    rng = seeds.rng(seed)
    y = np.arange(n) % 10
    rng.shuffle(y)
    yy, xx = np.mgrid[0:32, 0:32].astype(np.float32) / 31.0
    cx, cy = rng.uniform(0.3, 0.7, (2, n, 1, 1)).astype(np.float32)
    size = rng.uniform(0.15, 0.3, (n, 1, 1)).astype(np.float32)
    freq = rng.uniform(3, 6, (n, 1, 1)).astype(np.float32)
    dx, dy = xx[None] - cx, yy[None] - cy
    r = np.sqrt(dx**2 + dy**2)
    masks = np.stack(
        [
            r < size,  # 0 disc
            np.maximum(abs(dx), abs(dy)) < size,  # 1 square
            abs(r - size) < 0.06,  # 2 ring
            np.sin(2 * np.pi * freq * yy[None]) > 0,  # 3 horizontal stripes
            np.sin(2 * np.pi * freq * xx[None]) > 0,  # 4 vertical stripes
            np.sin(2 * np.pi * freq * (xx + yy)[None] / 1.4) > 0,  # 5 diagonal stripes
            (np.sin(2 * np.pi * freq * xx[None]) * np.sin(2 * np.pi * freq * yy[None]))
            > 0,  # 6 checker
            (abs(dx) < size / 3) | (abs(dy) < size / 3),  # 7 cross
            (dy > -size) & (abs(dx) < (size - dy) / 2),  # 8 triangle
            np.exp(-((r / size) ** 2)) > 0.5 * rng.uniform(0.5, 1, (n, 1, 1)),  # 9 soft blob
        ]
    ).astype(np.float32)
    mask = masks[y, np.arange(n)]
    hue = (y / 10.0 + rng.normal(0, 0.03, n))[:, None, None, None]
    phase = 2 * np.pi * (hue + np.array([0, 1 / 3, 2 / 3], dtype=np.float32))
    fg = 0.5 + 0.45 * np.cos(phase) * rng.uniform(0.7, 1, (n, 1, 1, 1))
    bg = rng.uniform(0.1, 0.6, (n, 1, 1, 3)) + 0.1 * np.sin(
        2 * np.pi * rng.uniform(0.5, 2, (n, 1, 1, 1)) * (xx + 0.5 * yy)[None, :, :, None]
    )
    img = np.clip(
        mask[..., None] * fg + (1 - mask[..., None]) * bg + rng.normal(0, 0.04, (n, 32, 32, 3)),
        0,
        1,
    )
    # Half of every pixel is an image-specific texture: six plane waves per channel with random
    # frequency, orientation and phase. Like photographs, no two images then share their detail,
    # so a model that memorises its training images can be told apart from one that has only
    # learnt the ten classes (without it a WGAN-GP critic's membership AUC stays at 0.5).
    field = np.zeros_like(img)
    for _ in range(6):
        f, th, ph = (
            rng.uniform(lo, hi, (n, 1, 1, 3)) for lo, hi in ((1, 6), (0, 2 * np.pi), (0, 2 * np.pi))
        )
        field += np.sin(
            2 * np.pi * f * (np.cos(th) * xx[None, :, :, None] + np.sin(th) * yy[None, :, :, None])
            + ph
        )
    img = 0.5 * img + 0.5 * (0.5 + 0.15 * field)
    return np.clip(img, 0, 1).astype(np.float32), y.astype(np.int64)


def load_cifar10(block, seed: int = 0):
    """(images float32 in [0, 1] (N, 32, 32, 3), labels, source ``real`` | ``real-unverified`` |
    ``standin``; :func:`privrisk.data.sources.label`).

    Args:
        block: the data block ``{source: auto | real | standin, path, standin_size}``.
        seed: seed of the stand-in.

    Raises:
        DataUnavailable: ``source: real`` and a batch is missing.
        DataFormatError: a batch is corrupt, truncated or not CIFAR-10-shaped (the message names it).
    """
    if sources.resolve("cifar10", block) == "real":
        parts = [read_batch(p) for p in real_files(block)]
        x = np.concatenate([p[0] for p in parts]).astype(np.float32) / 255.0
        return x, np.concatenate([p[1] for p in parts]), sources.label("cifar10", block)
    x, y = standin(block.get("standin_size", STANDIN_SIZE), seed)
    return x, y, "standin"


# --- the dataset: download table, conversion, description ---


def convert(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Extract the files of ``cifar-10-batches-py/`` from the tarball into the block's path."""
    wanted = {p.name: p for p in outputs if not p.exists()}
    (archive,) = archives.values()
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            name = Path(member.name)
            if (
                member.isfile()
                and name.parent.name == "cifar-10-batches-py"
                and name.name in wanted
            ):
                with (
                    atomic_output(wanted.pop(name.name)) as part,
                    tar.extractfile(member) as src,
                    open(part, "wb") as dst,
                ):
                    shutil.copyfileobj(src, dst, 1 << 20)
    if wanted:
        raise ValueError(
            f"{what}: {archive} has no cifar-10-batches-py/{sorted(wanted)}; not the CIFAR-10 "
            f"python tarball?"
        )


CIFAR10 = Dataset(
    name="cifar10",
    real_files=real_files,
    fallback="standin",
    obtain=(
        f"Download {URL} and extract it so that data_batch_1 .. data_batch_5 and test_batch are "
        "in the block's path."
    ),
    # torchvision's MD5; saved in the parent of the block's path, as torchvision does
    remotes=(
        Remote("cifar-10-python.tar.gz", URL, "md5:c58f30108f718f92721af3b95e74349a", "163 MB"),
    ),
    convert=convert,
    licence="none stated; cite Krizhevsky (2009)",
)
