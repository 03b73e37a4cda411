"""What a config needs beyond its JSON Schema: upper limits on sizes and consistency between keys.

:func:`privrisk.config.validate` runs these after the schema, so a config whose keys are each
fine but do not fit together (a claim value outside its sweep, an unknown column name, an ε of
Figure 6 with no trained DP-cGAN) or that asks for an absurd amount of work (``trials: 100000000``)
is refused before any job starts, naming the key, instead of failing deep inside a job.

Every function returns a list of messages ``config key <path>: <problem>`` (empty: fine).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

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
    "n": 10**6,  # half the population of lowy2024 (100)
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
    fig7 = [
        (f, s)
        for f, s in cfg.get("thudi2022", {}).items()
        if f.startswith("fig7") and isinstance(s, Mapping)
    ]
    for name, sec in fig7:  # its c grid has c_max / c_step points
        if _is_number(sec.get("c_max")) and _is_number(sec.get("c_step")) and sec["c_step"] > 0:
            n = sec["c_max"] / sec["c_step"]
            if n > LIMITS["n_points"]:
                out.append(
                    f"config key thudi2022.{name}.c_step: c_max / c_step = {n:,.0f} grid points, above "
                    f"the limit of {LIMITS['n_points']:,} for 'n_points' ({hint})"
                )
    return out


def _is_number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


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
    """Keys that are each valid but do not fit together, per paper."""
    out = []
    for paper, check in (
        ("thudi2022", _thudi),
        ("lowy2024", _lowy),
        ("swanberg2025", _swanberg),
        ("xu2022", _xu),
    ):
        if isinstance(cfg.get(paper), Mapping):
            out += check(cfg[paper])
    return out


def _thudi(sec) -> list[str]:
    return [
        f"config key thudi2022.{f}.c_step: {s['c_step']} > c_max {s['c_max']} (an empty grid of c)"
        for f, s in sec.items()
        if isinstance(s, Mapping)
        and _is_number(s.get("c_step"))
        and _is_number(s.get("c_max"))
        and s["c_step"] > s["c_max"]
    ]


# lowy2024: the grid each figure plots against (its code labels that axis), the claim values it
# reads (each must be a point of the grid of the same parameter) and the data parameters each
# mechanism needs unless they are the swept one.
_LOWY_SWEEP = {
    "fig1": "sigmas",
    "fig2": "clips",
    "fig3": "dims",
    "fig4": "epsilons",
    "fig4_epsX": "epsilons",
    "fig5": "clips",
    "fig5_epsX": "clips",
    "fig6": "dims",
    "fig6_epsX": "dims",
}
_LOWY_CLAIMS = {
    "fig1": ("claim_sigma",),
    "fig2": ("claim_clip", "claim_larger_n"),
    "fig4": ("claim_epsilon",),
    "fig4_epsX": ("claim_epsilon",),
    "fig5": ("claim_clip",),
    "fig5_epsX": ("claim_clip",),
}
_CLAIM_GRID = {"claim_sigma": "sigmas", "claim_clip": "clips", "claim_epsilon": "epsilons"}
_SWEPT = {"sigmas": "sigma", "clips": "clip", "dims": "d", "epsilons": "epsilon"}


def _lowy(sec) -> list[str]:
    from .config import grid

    out = []
    common = sec.get("common") or {}
    for fig, s in sec.items():
        if fig not in _LOWY_SWEEP or not isinstance(s, Mapping):
            continue
        where = f"config key lowy2024.{fig}"
        want = _LOWY_SWEEP[fig]
        given = [k for k in _SWEPT if k in s]
        if given and given != [want]:
            out.append(
                f"{where}: this figure plots against {_SWEPT[want]}; give its grid {want} "
                f"(not {', '.join(given)})"
            )
            continue
        gaussian = fig[3] in "456"  # Figures 4-6 also need the fixed DP parameter
        data = ("sigma", "clip", "d") + (("epsilon",) if gaussian else ())
        out += [
            f"{where}.{k}: required (it is not the swept parameter)"
            for k in data
            if k != _SWEPT[want] and s.get(k) is None
        ]
        if "trials" not in s and "trials" not in common:
            out.append(f"{where}.trials: required here or in lowy2024.common")
        out += [
            f"{where}.{k}: required (the paper's quoted number is checked there)"
            for k in _LOWY_CLAIMS.get(fig, ())
            if k not in s
        ]
        n = s.get("n")
        if _is_int(n) and _is_int(s.get("n_outliers")) and s["n_outliers"] > 2 * n:
            out.append(
                f"{where}.n_outliers: {s['n_outliers']} outliers in a population of 2n = {2 * n}"
            )
        if _is_int(n) and _is_int(s.get("claim_larger_n")) and s["claim_larger_n"] <= n:
            out.append(
                f"{where}.claim_larger_n: {s['claim_larger_n']} is not larger than n = {n} "
                "(the claim compares the ratios at a larger n)"
            )
        for key, grid_key in _CLAIM_GRID.items():
            if key in s and grid_key in s:
                values = grid(s[grid_key])
                if not np.isclose(values, float(s[key])).any():
                    out.append(
                        f"{where}.{key}: {s[key]} is not a point of {grid_key} "
                        f"{[float(f'{v:.6g}') for v in values]}; the claim is read at that point"
                    )
    return out


def _swanberg(sec) -> list[str]:
    from .data import acs, fire
    from .papers.swanberg2025.registry import MARGINALS

    columns = {"acs": acs.COLUMNS, "fire": fire.COLUMNS}
    out = []
    for fig, (dataset, kind) in MARGINALS.items():
        s = sec.get(fig)
        if not isinstance(s, Mapping):
            continue
        cols, where = columns[dataset], f"config key swanberg2025.{fig}"
        named = [(f"{where}.columns[{i}]", c) for i, c in enumerate(s.get("columns", []))]
        if "column" in s:
            named.append((f"{where}.column", s["column"]))
        out += [
            f"{p}: {c!r} is not a column of {dataset.upper()}; its columns: {', '.join(cols)}"
            for p, c in named
            if c not in cols
        ]
        if kind == "multi" and _is_int(s.get("max_unknown")) and s["max_unknown"] > len(cols) - 3:
            out.append(
                f"{where}.max_unknown: {s['max_unknown']} leaves fewer than 3 of the {len(cols)} "
                f"{dataset.upper()} columns known (at most {len(cols) - 3})"
            )
    return out


def _xu(sec) -> list[str]:
    from .config import grid
    from .papers.xu2022.registry import eps_tag

    models = sec.get("models", {}).get("dpcgan", {})
    if "epsilons" not in models:
        return []
    trained = {eps_tag(e) for e in grid(models["epsilons"])}
    merged = {**(sec.get("common") or {}), **(sec.get("fig6") or {})}
    if "epsilons" not in merged:
        return [
            "config key xu2022.fig6.epsilons: required (here or in xu2022.common): the ε of the DP-cGANs shown"
        ]
    src = "fig6" if "epsilons" in (sec.get("fig6") or {}) else "common"
    missing = [f"{e:g}" for e in grid(merged["epsilons"]) if eps_tag(e) not in trained]
    if missing:
        return [
            f"config key xu2022.{src}.epsilons: ε {', '.join(missing)} not among the trained DP-cGANs "
            f"(xu2022.models.dpcgan.epsilons: {', '.join(f'{e:g}' for e in grid(models['epsilons']))})"
        ]
    return []


def errors(cfg: Mapping[str, Any]) -> list[str]:
    """Every problem of this module's checks."""
    return empty_list_errors(cfg) + limit_errors(cfg) + cross_key_errors(cfg)
