"""Grids and config helpers every layer uses: :func:`grid`, :func:`deep_update`, :func:`eps_tag`.

They live in the core (not in :mod:`privrisk.pipeline.config`, the pipeline's validator) so that a paper's
figure code can read its grids without importing the validator, which knows every paper: an
import of the validator would make every paper's rules depend on every other paper's code.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


class ConfigError(ValueError):
    """A config value is missing, unknown, mistyped or out of range."""


def grid(spec: Sequence[float] | Mapping[str, Any]) -> np.ndarray:
    """The values of a grid key (``epsilons``, ``prior_probs``, …): a list as it is, or a dense
    ``{min, max, n_points, spacing: linear | log}`` grid (``$defs/grid`` in the schema)."""
    if isinstance(spec, Mapping):
        lo, hi, n = float(spec["min"]), float(spec["max"]), int(spec["n_points"])
        if lo > hi:
            raise ConfigError(f"grid {dict(spec)}: min > max")
        if spec.get("spacing", "linear") == "log":
            return np.geomspace(lo, hi, n)
        return np.linspace(lo, hi, n)
    return np.asarray(list(spec), dtype=float)


def deep_update(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Recursive dict update, as Snakemake merges ``--configfile`` over ``configfile:``."""
    out = copy.deepcopy(base)
    for k, v in override.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), dict):
            out[k] = deep_update(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def eps_tag(eps) -> str:
    """ε as it appears in file and input names: 1 -> "1", 0.5 -> "0p5"."""
    return f"{float(eps):g}".replace(".", "p")
