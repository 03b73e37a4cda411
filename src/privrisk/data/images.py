"""Shared helpers of the image datasets: the random training split (spec xu2022 §7.1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import seeds


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
    np.savez(path, train_idx=np.asarray(train_idx), holdout_idx=np.asarray(holdout_idx),
             seed=np.asarray(seed), **{k: np.asarray(v) for k, v in extra.items()})
