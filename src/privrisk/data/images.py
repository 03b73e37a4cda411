"""Shared helpers of the image datasets: checks of raw pixels and labels, and the random
training split (spec xu2022 §7.1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core import seeds
from .tabular import DataFormatError


def _array(values, path, what: str) -> np.ndarray:
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as err:  # e.g. ragged nested lists in a pickle
        raise DataFormatError(f"{path}: {what} are not a regular array ({err})") from None


def check_pixels(x: np.ndarray, path: str | Path, *, shape: tuple[int, ...]) -> np.ndarray:
    """Raw images as uint8 of shape ``(N, *shape)``, N >= 1, else DataFormatError naming ``path``.

    Raw MNIST and CIFAR-10 pixels are bytes 0..255. Anything else is refused rather than cast:
    floats in [0, 1] would become all-zero images after ``astype(uint8)``, and values over 255
    would wrap around, both silently giving a figure labelled ``real``.
    """
    x = _array(x, path, "images")
    if x.ndim == 0 or x.shape[1:] != tuple(shape):
        raise DataFormatError(
            f"{path}: images of shape {x.shape[1:] if x.ndim else ()}, expected "
            f"{'×'.join(map(str, shape))} per image"
        )
    if x.shape[0] == 0:
        raise DataFormatError(f"{path}: no images")
    if x.dtype.kind not in "ui":
        raise DataFormatError(
            f"{path}: pixel values of type {x.dtype}, expected integers 0..255 "
            "(unsigned bytes, not floats in [0, 1])"
        )
    lo, hi = int(x.min()), int(x.max())
    if lo < 0 or hi > 255:
        raise DataFormatError(f"{path}: pixel values in [{lo}, {hi}], expected 0..255")
    return x.astype(np.uint8, copy=False)


def check_labels(y: np.ndarray, path: str | Path, *, n: int, classes: int = 10) -> np.ndarray:
    """Labels as int64, one integer in ``0..classes-1`` per image (``n`` of them), else DataFormatError."""
    y = _array(y, path, "labels")
    if y.ndim != 1:
        raise DataFormatError(f"{path}: labels of shape {y.shape}, expected one label per image")
    if len(y) != n:
        raise DataFormatError(f"{path}: {len(y)} labels but {n} images")
    if y.dtype.kind not in "ui":
        raise DataFormatError(
            f"{path}: labels of type {y.dtype}, expected integers 0..{classes - 1}"
        )
    bad = (y < 0) | (y >= classes)
    if bad.any():
        raise DataFormatError(
            f"{path}: {int(bad.sum())} label(s) outside 0..{classes - 1} "
            f"(e.g. {int(y[bad][0])} at position {int(np.flatnonzero(bad)[0])})"
        )
    return y.astype(np.int64)


def train_split(n: int, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random ``fraction`` of ``range(n)`` as the training set S; the rest is the hold-out set.

    Returns sorted (train_idx, holdout_idx). ``fraction`` must leave both sets non-empty.
    """
    if not 0 < fraction < 1:
        raise ValueError(f"train fraction must be in (0, 1), got {fraction}")
    k = int(round(n * fraction))
    if k < 1 or k >= n:
        raise ValueError(f"a {fraction} split of {n} points leaves an empty set")
    perm = seeds.rng(seed).permutation(n)
    return np.sort(perm[:k]), np.sort(perm[k:])


def save_split(path: str | Path, train_idx, holdout_idx, seed: int, **extra) -> None:
    """Write the split (indices, seed and anything else, e.g. a corruption mask) as npz."""
    np.savez(
        path,
        train_idx=np.asarray(train_idx),
        holdout_idx=np.asarray(holdout_idx),
        seed=np.asarray(seed),
        **{k: np.asarray(v) for k, v in extra.items()},
    )
