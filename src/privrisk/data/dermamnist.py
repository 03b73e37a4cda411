"""Skin lesions (HAM10000 as DermaMNIST): the real MedMNIST+ 64×64 file, else a procedural stand-in.

Real file (the data block's ``path``, e.g. ``data/raw/dermamnist/``): ``dermamnist_64.npz`` of
the MedMNIST+ release, with ``{train,val,test}_images`` (n, 64, 64, 3) uint8 and
``{train,val,test}_labels`` (n, 1) in 0..6 (akiec, bcc, bkl, df, mel, nv, vasc). The three parts
are concatenated (10,015 images), as the paper uses the whole set before its 10 % split (spec
xu2022 §7.1). The Kaggle HAM10000 layout (600×450 JPEGs + metadata CSV) is not read: it needs a
resize the paper does not state, and its 10,015 files would each become a rule input.

Stand-in (``standin``): 64×64 (or ``image_size``) RGB images of an irregular pigmented blob on a
shaded skin tone. About a fifth are "malignant-like" (HAM10000: 19.5 % akiec + bcc + mel): a more
irregular border and several colours (dark brown, black, blue-grey, red). ``standin_texture``
adds each image's own shading field, so that images differ in detail as photographs do. It keeps what the MACE
skin experiments need — a natural-looking image distribution with a binary label that a small
GAN or classifier can over-fit — but it is not HAM10000; absolute advantages differ.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npformat

from ..core import seeds
from . import sources
from .dataset import Dataset, Remote
from .tabular import DataFormatError

FILE = "dermamnist_64.npz"
PARTS = ("train", "val", "test")
CLASSES = ("akiec", "bcc", "bkl", "df", "mel", "nv", "vasc")
#: classes counted as malignant for the E.3.3 classifier's target (spec §7.4 proposal)
MALIGNANT = (0, 1, 4)
STANDIN_SIZE = 2400
MALIGNANT_FRACTION = 0.195
_SIZE = 64


def real_files(block) -> list[Path]:
    return [Path(block["path"]) / FILE]


#: most images a real file may hold: 10× DermaMNIST's 10,015 (about 1.2 GB of 64×64 RGB), so a
#: member whose header claims billions of images is refused before anything is allocated
MAX_IMAGES = 100_000


def _short(err: BaseException, limit: int = 100) -> str:
    """An exception as one short printable line (a corrupted header quotes its own bytes)."""
    text = "".join(c if c.isprintable() else "?" for c in str(err).split("\n")[0])
    return f"{type(err).__name__}: {text if len(text) <= limit else text[: limit - 1] + '…'}"


def _check_member(z: Any, key: str, path: Path) -> None:
    """The ``.npy`` header of member ``key``, read without loading the array: a member that is
    no ``.npy`` (``np.load`` would hand back its raw bytes), a header numpy cannot parse, or one
    whose shape does not match the bytes the member holds (a corrupted shape would otherwise
    allocate terabytes, or read past the data) is a DataFormatError naming the file and member."""
    info = z.zip.getinfo(f"{key}.npy")
    try:
        with z.zip.open(info) as f:
            version = npformat.read_magic(f)
            read = (
                npformat.read_array_header_1_0
                if version == (1, 0)
                else npformat.read_array_header_2_0
            )
            shape, _, dtype = read(f)
            header = f.tell()
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        raise DataFormatError(
            f"{path}: member {key}.npy has no valid .npy header ({_short(e)}); the "
            "file is corrupted: download it again"
        ) from None
    n = int(np.prod(shape, dtype=object))
    if shape and shape[0] > MAX_IMAGES:
        raise DataFormatError(
            f"{path}: member {key}.npy claims {shape[0]:,} rows (at most {MAX_IMAGES:,}); the "
            "file is corrupted or not DermaMNIST"
        )
    if header + n * dtype.itemsize != info.file_size:
        raise DataFormatError(
            f"{path}: member {key}.npy: its header says {dtype} {shape} ({n * dtype.itemsize:,} "
            f"data bytes), the member holds {info.file_size - header:,}; the file is corrupted: "
            "download it again"
        )


def read_npz(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(uint8 images (N, 64, 64, 3), int labels in 0..6) of all three parts, checked.

    Raises:
        DataFormatError: a key is missing, a member's header is corrupt, or shapes, dtype or
            label range are wrong (names the file).
    """
    path = Path(path)
    try:
        z = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        raise DataFormatError(f"{path}: not a readable npz file ({e})") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise DataFormatError(f"{path}: a single array, not an npz archive of the six arrays")
    xs, ys = [], []
    with z:
        for part in PARTS:
            for key in (f"{part}_images", f"{part}_labels"):
                if key not in z.files:
                    raise DataFormatError(f"{path}: no array {key!r} (has {sorted(z.files)})")
                _check_member(z, key, path)
            try:  # the arrays are read lazily: a truncated or corrupted member fails only here
                x, y = z[f"{part}_images"], z[f"{part}_labels"]
            except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as e:
                raise DataFormatError(
                    f"{path}: {part} arrays unreadable, the file is truncated or corrupted "
                    f"({type(e).__name__}: {e}); download it again"
                ) from None
            if x.dtype != np.uint8 or x.ndim != 4 or x.shape[1:] != (_SIZE, _SIZE, 3):
                raise DataFormatError(
                    f"{path}: {part}_images is {x.dtype} {x.shape}, expected uint8 (n, 64, 64, 3)"
                )
            y = y.reshape(len(y), -1) if y.ndim > 1 else y[:, None]
            if y.shape != (len(x), 1):
                raise DataFormatError(
                    f"{path}: {part}_labels has shape {y.shape} for {len(x)} images"
                )
            if (
                not np.issubdtype(y.dtype, np.integer)
                or y.min(initial=0) < 0
                or y.max(initial=0) >= len(CLASSES)
            ):
                raise DataFormatError(
                    f"{path}: {part}_labels must be integers in 0..{len(CLASSES) - 1}"
                )
            xs.append(x)
            ys.append(y[:, 0].astype(np.int64))
    return np.concatenate(xs), np.concatenate(ys)


def downsample(x: np.ndarray, size: int) -> np.ndarray:
    """Average-pool (N, S, S, C) images to (N, size, size, C); S must be a multiple of size."""
    s = x.shape[1]
    if size == s:
        return x
    if s % size:
        raise ValueError(f"image_size {size} must divide {s}")
    f = s // size
    return x.reshape(len(x), size, f, size, f, x.shape[-1]).mean(axis=(2, 4), dtype=np.float32)


def standin(
    n: int, seed: int, size: int = _SIZE, texture: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` procedural lesion images (float32 in [0, 1], (n, size, size, 3)) and malignant labels.

    ``texture``: amplitude of a per-image multiplicative shading field (8 random plane waves of
    0.5–4 cycles per image: skin texture, uneven illumination), which gives each image
    individual detail beyond its ~25 shape and colour parameters, as real photographs have.
    It has its own random stream, so ``texture`` 0 gives the same images as before it existed.
    """
    rng = seeds.rng(seed, "dermamnist-standin")
    mal = (rng.random(n) < MALIGNANT_FRACTION).astype(np.int64)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / (size - 1) * 2 - 1  # [-1, 1]
    cx, cy = rng.uniform(-0.2, 0.2, (2, n, 1, 1)).astype(np.float32)
    dx, dy = xx[None] - cx, yy[None] - cy
    r, th = np.sqrt(dx**2 + dy**2), np.arctan2(dy, dx)
    # border radius r0 (1 + Σ_k a_k cos(kθ + φ_k)): low orders only and small a_k for benign
    # lesions, higher orders and larger a_k (an irregular border) for malignant-like ones
    k = np.arange(2, 9, dtype=np.float32)[:, None, None, None]
    amp = (
        rng.uniform(0, 1, (7, n, 1, 1)).astype(np.float32)
        / k ** np.where(mal, 0.7, 1.6)[None, :, None, None]
    )
    amp *= np.where(mal, 0.35, 0.18)[None, :, None, None]
    phase = rng.uniform(0, 2 * np.pi, (7, n, 1, 1)).astype(np.float32)
    r0 = rng.uniform(0.3, 0.55, (n, 1, 1)).astype(np.float32)
    border = r0 * (1 + (amp * np.cos(k * th[None] + phase)).sum(0))
    inside = 1 / (1 + np.exp(-(border - r) / 0.03))  # soft edge
    skin = rng.choice(
        np.array(
            [[0.93, 0.78, 0.67], [0.85, 0.66, 0.52], [0.72, 0.52, 0.38], [0.55, 0.38, 0.27]],
            np.float32,
        ),
        n,
    )[:, None, None, :] * rng.uniform(0.9, 1.05, (n, 1, 1, 3))
    skin = skin * (1 - 0.12 * (xx**2 + yy**2))[None, :, :, None]  # vignetting of the dermatoscope
    red = rng.uniform(0.3, 0.55, n)
    green = red * rng.uniform(0.5, 0.7, n)
    base = np.stack([red, green, green * rng.uniform(0.5, 0.8, n)], 1).astype(np.float32)[
        :, None, None, :
    ]
    lesion = base * (1 - 0.4 * (r / np.maximum(border, 1e-3)))[..., None].clip(0, 1) ** 0.5
    # malignant-like lesions carry up to three extra colour patches placed by angle and radius
    colours = np.array([[0.1, 0.07, 0.06], [0.35, 0.38, 0.5], [0.6, 0.2, 0.2]], np.float32)
    for c in range(3):
        ang = rng.uniform(0, 2 * np.pi, (n, 1, 1))
        rad = rng.uniform(0, 0.6, (n, 1, 1)) * r0
        px, py = cx + rad * np.cos(ang), cy + rad * np.sin(ang)
        blob = np.exp(-((xx[None] - px) ** 2 + (yy[None] - py) ** 2) / (2 * (0.35 * r0) ** 2))
        on = (mal * (rng.random(n) < 0.8))[:, None, None]
        w = (on * blob * inside)[..., None] * 0.85
        lesion = lesion * (1 - w) + colours[c] * w
    img = skin * (1 - inside[..., None]) + lesion * inside[..., None]
    if texture > 0:
        trng = seeds.rng(seed, "dermamnist-standin-texture")
        f, ang, ph = (
            trng.uniform(lo, hi, (n, 8, 1, 1)).astype(np.float32)
            for lo, hi in ((0.5, 4.0), (0, 2 * np.pi), (0, 2 * np.pi))
        )
        u = np.pi * f * (xx[None, None] * np.cos(ang) + yy[None, None] * np.sin(ang)) + ph
        img = img * (1 + texture * np.cos(u).sum(1) / np.sqrt(8))[..., None]
    img = img + rng.normal(0, 0.025, img.shape).astype(np.float32)
    return np.clip(img, 0, 1).astype(np.float32), mal


def load_dermamnist(block, seed: int = 0):
    """(images float32 in [0, 1] (N, s, s, 3), malignant labels 0/1, source ``real`` | ``standin``).

    Args:
        block: ``{source: auto | real | standin, path, standin_size, image_size, n_images}``;
            ``image_size`` (64 by default) downsamples the real images by averaging and sets the
            stand-in's size; ``n_images`` keeps a seeded random subset of the real images;
            ``standin_texture`` is :func:`standin`'s ``texture``.
        seed: seed of the stand-in and of the subset.

    Raises:
        DataUnavailable: ``source: real`` and the file is missing.
        DataFormatError: the real file is malformed.
    """
    size = int(block.get("image_size", _SIZE))
    if sources.resolve("dermamnist", block) == "real":
        (path,) = real_files(block)
        x, y = read_npz(path)
        keep = block.get("n_images")
        if keep is not None and keep < len(x):
            idx = np.sort(
                seeds.rng(seed, "dermamnist-subset").choice(len(x), int(keep), replace=False)
            )
            x, y = x[idx], y[idx]
        x = downsample(x.astype(np.float32) / 255.0, size)
        src = sources.label("dermamnist", block)
        return x.astype(np.float32), np.isin(y, MALIGNANT).astype(np.int64), src
    x, y = standin(
        int(block.get("standin_size", STANDIN_SIZE)),
        seed,
        size,
        float(block.get("standin_texture", 0.0)),
    )
    return x, y, "standin"


def corrupt(x: np.ndarray, member_idx: np.ndarray, fraction: float, box: int, seed: int):
    """A copy of ``x`` with a centred white ``box``×``box`` square on ``fraction`` of the members.

    Returns (images, mask over all points) — hold-out images are never changed (paper §6.3).
    """
    rng = seeds.rng(seed, "dermamnist-corruption")
    k = int(round(len(member_idx) * fraction))
    chosen = rng.choice(member_idx, k, replace=False)
    out = x.copy()
    s = x.shape[1]
    if not 0 < box <= s:
        raise ValueError(f"corruption box {box} must be in 1..{s}")
    a = (s - box) // 2
    out[chosen, a : a + box, a : a + box, :] = 1.0
    mask = np.zeros(len(x), dtype=bool)
    mask[chosen] = True
    return out, mask


# --- the dataset: download table, conversion, description ---


def convert(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """The MedMNIST+ npz is read as it is; check it has the arrays the loader needs."""
    (archive,) = archives.values()
    with np.load(archive) as npz:
        missing = {f"{s}_{k}" for s in PARTS for k in ("images", "labels")} - set(npz.files)
    if missing:
        raise ValueError(
            f"{what}: {archive} lacks the arrays {sorted(missing)}; not a MedMNIST npz?"
        )
    for out in outputs:
        if not out.exists():
            raise ValueError(
                f"{what}: the loader reads {out}, but the download is {archive}; set the block's "
                f"path to {archive.parent}"
            )


DERMAMNIST = Dataset(
    name="dermamnist",
    real_files=real_files,
    fallback="standin",
    obtain=(
        f"Download {FILE} (MedMNIST+, https://zenodo.org/records/10519652) into the block's path."
    ),
    # MedMNIST+ v3 (medmnist.INFO: url and MD5_64 in medmnist 3.0.2); downloaded into the path
    remotes=(
        Remote(
            FILE,
            f"https://zenodo.org/records/10519652/files/{FILE}?download=1",
            "md5:b70a2f5635c6199aeaa28c31d7202e1f",
            "about 60 MB",
        ),
    ),
    convert=convert,
    archive_dir="path",
    licence="CC BY-NC 4.0 (MedMNIST / HAM10000)",
)
