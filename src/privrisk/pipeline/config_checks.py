"""What a config needs beyond its JSON Schema: upper limits on sizes and consistency between keys.

:func:`privrisk.pipeline.config.validate` runs these after the schema, so a config whose keys are each
fine but do not fit together (a claim value outside its sweep, an unknown column name, an ε of
Figure 6 with no trained DP-cGAN) or that asks for an absurd amount of work (``trials: 100000000``)
is refused before any job starts, naming the key, instead of failing deep inside a job.

Every function returns a list of messages ``config key <path>: <problem>`` (empty: fine).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ..core.discovery import paper_keys, registry_module

#: key name -> largest value accepted anywhere in the config unless ``allow_large: true``.
#: At least 50× the largest value a shipped config uses (quick or paper scale), so that paper scale
#: is far inside and a slip of a few digits (``trials: 100000000``) is caught before a run that
#: would never finish or end in a MemoryError. A list of integers (``dims``, ``steps``) is
#: checked item by item.
LIMITS: dict[str, int] = {
    "trials": 10**7,  # repetitions / Monte Carlo draws (largest shipped: 200,000 Laplace draws)
    "tune_trials": 10**6,  # tuning models per grid point (2,000)
    "n_points": 10**6,  # points of a grid (2,001)
    "gen_iters": 10**6,  # generator iterations of a GAN (4,400)
    "epochs": 10**5,  # training epochs (200)
    "disc_epochs": 10**5,  # pre-training epochs (50)
    "dp_delay": 10**5,  # epochs before privGAN's privacy term (100)
    "steps": 10**6,  # optimisation steps or checkpoints (400)
    "tuning_steps": 10**6,  # (100)
    "draws": 10**4,  # target draws per point (30)
    "shadow_draws": 10**3,  # shadow draws per condition (5)
    "standin_size": 10**7,  # rows or images of a stand-in (200,000)
    "n_records": 10**6,  # records of the private dataset (100)
    "pii_sequences": 10**6,  # masked-name sequences (500)
    "n": 10**6,  # half the population of a membership game (100)
    "d": 10**5,  # data dimension (20)
    "dims": 10**5,  # grid of data dimensions (100)
    "m": 10**6,  # candidate outputs (32)
    "bins": 10**4,  # bins per query dimension (100; a 2-d query has bins² cells)
    "vocab": 10**4,  # values of the reconstructed digit (10)
    "batch_elements": 10**5,  # attacks per batched computation (64)
}
OVERRIDE = "allow_large"

#: lists that may be empty (an MLP without hidden layers; one optimiser's grid, see below)
EMPTY_OK = frozenset({"g_hidden", "d_hidden", "hidden", "adam_lr", "sgd_lr"})


def _walk(node: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, key, value) of every mapping entry below ``node``."""
    if isinstance(node, Mapping):
        for k, v in node.items():
            p = f"{path}.{k}" if path else str(k)
            yield p, str(k), v
            yield from _walk(v, p)


def _is_int(v) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def limit_errors(cfg: Mapping[str, Any]) -> list[str]:
    """Values above :data:`LIMITS` (nothing when the top-level ``allow_large`` is true)."""
    if cfg.get(OVERRIDE) is True:
        return []
    out = []
    hint = f"set {OVERRIDE}: true at the top level of the config if you mean it"
    for path, key, value in _walk(cfg):
        if key not in LIMITS:
            continue
        items = (
            [(path, value)]
            if _is_int(value)
            else (
                [(f"{path}[{i}]", v) for i, v in enumerate(value) if _is_int(v)]
                if isinstance(value, list)
                else []
            )
        )
        out += [
            f"config key {p}: {v:,} is above the limit of {LIMITS[key]:,} for {key!r} ({hint})"
            for p, v in items
            if v > LIMITS[key]
        ]
    # a paper's own limits on sizes derived from several keys (a grid of c_max / c_step points)
    for paper in paper_keys():
        check = getattr(registry_module(paper), "check_limits", None)
        if check is not None and isinstance(cfg.get(paper), Mapping):
            out += check(cfg[paper], limits=LIMITS, hint=hint)
    return out


def empty_list_errors(cfg: Mapping[str, Any]) -> list[str]:
    """Empty lists (a figure over no values), except where :data:`EMPTY_OK` allows one."""
    out = [
        f"config key {p}: [] is empty; give at least one value"
        for p, k, v in _walk(cfg)
        if isinstance(v, list) and not v and k not in EMPTY_OK
    ]
    for p, k, v in _walk(cfg):
        if k == "tuning" and isinstance(v, Mapping) and {"adam_lr", "sgd_lr"} <= set(v):
            if not v["adam_lr"] and not v["sgd_lr"]:
                out.append(
                    f"config key {p}: adam_lr and sgd_lr are both empty; the attack needs at "
                    "least one optimiser's learning rate"
                )
    return out


def cross_key_errors(cfg: Mapping[str, Any]) -> list[str]:
    """Keys that are each valid but do not fit together: each paper's own ``check_config`` (in
    ``privrisk.papers.<key>.registry``), so that a paper's rules never depend on another's checks."""
    out = []
    for paper in paper_keys():
        check = getattr(registry_module(paper), "check_config", None)
        if check is not None and isinstance(cfg.get(paper), Mapping):
            out += check(cfg[paper])
    return out


def device_errors(cfg: Mapping[str, Any]) -> list[str]:
    """An explicit ``device`` (``cuda``, ``cuda:N``, ``mps``) this machine does not have, found
    before any job starts rather than when the first training step asks torch for it. ``auto``
    and ``cpu`` need no check (and no torch import: most runs never load torch here)."""
    setting = cfg.get("device", "auto")
    if not isinstance(setting, str) or setting in ("auto", "cpu"):
        return []
    from ..core import device

    try:
        device.resolve(setting)
    except device.DeviceError as err:
        cluster = (
            "; `auto` still picks CUDA in every job that finds it (a cluster's GPU nodes)"
            if setting.startswith("cuda")
            else ""
        )
        return [f"{err}{cluster}"]
    return []


def errors(cfg: Mapping[str, Any]) -> list[str]:
    """Every problem of this module's checks."""
    return empty_list_errors(cfg) + limit_errors(cfg) + cross_key_errors(cfg) + device_errors(cfg)
