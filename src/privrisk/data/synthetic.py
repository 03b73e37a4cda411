"""Synthetic populations: Gaussian points around a centre, a few scaled outliers, ℓ2-clipped.

The data sets of Lowy et al. (2024) are drawn this way (spec §3.1.1): x_i = c + σ z_i with z_i
standard normal, ``n_outliers`` points multiplied by ``outlier_scale``, then every point clipped
to norm C. Everything is batched over a leading "trials" axis (T independent populations).
The standard-normal draws and the outlier choice are separate from the scaling
(:func:`gaussian_draws`, then :func:`population`), so one set of draws serves every grid point
of a sweep over σ, C or d (common random numbers).
"""

from __future__ import annotations

import numpy as np


def clip_rows(x: np.ndarray, c: float) -> np.ndarray:
    """Scale each row (last axis) to ℓ2 norm at most ``c`` (x · min(1, c/‖x‖))."""
    if c < 0:
        raise ValueError(f"clip threshold must be >= 0, got {c}")
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(norm > c, c / np.where(norm > 0, norm, 1.0), 1.0)
    return x * factor


def outlier_mask(rng: np.random.Generator, trials: int, population: int, n_out: int) -> np.ndarray:
    """(trials, population) bool mask with ``n_out`` points per trial chosen uniformly."""
    if not 0 <= n_out <= population:
        raise ValueError(f"n_out must be in [0, {population}], got {n_out}")
    keys = rng.random((trials, population))
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    return ranks < n_out


def gaussian_draws(
    rng: np.random.Generator, trials: int, points: int, d: int, n_outliers: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Standard-normal draws z (trials, points, d), then the outlier mask (trials, points)."""
    z = rng.standard_normal((trials, points, d))
    return z, outlier_mask(rng, trials, points, n_outliers)


def population(
    center: np.ndarray,
    z: np.ndarray,
    sigma: float,
    clip: float,
    outliers: np.ndarray | None = None,
    outlier_scale: float = 1.0,
) -> np.ndarray:
    """x_i = center + σ z_i, chosen outliers multiplied by ``outlier_scale``, then clipped to C.

    ``center`` is (trials, d) (the first candidate w₁ in Lowy et al.'s Figures 1–3, 0 for the
    Gaussian mechanism), ``z`` (trials, points, d) standard normal. Outliers are scaled before
    clipping, so a small C limits their effect (the paper's reading, spec §3.1.1).
    """
    x = center[:, None, :] + sigma * z
    if outliers is not None:
        x = np.where(outliers[..., None], outlier_scale * x, x)
    return clip_rows(x, clip)
