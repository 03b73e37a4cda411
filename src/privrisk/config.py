"""Config loading and validation against ``workflow/schemas/``.

The schema is split: ``config.schema.yaml`` holds the global keys and each paper's keys live in
``<key>.schema.yaml`` (so one paper's change never touches another's). :func:`validate` checks
every key before any job starts and raises :class:`ConfigError` naming the offending key
(``thudi2022.fig2.epsilon_max: -1 is less than the minimum of 0``); unknown keys are errors
(``additionalProperties: false`` throughout), so a typo cannot silently fall back to a default.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = REPO_ROOT / "workflow" / "schemas"


class ConfigError(ValueError):
    """A config value is missing, unknown, mistyped or out of range."""


def load_schema(schema_dir: str | Path = SCHEMA_DIR) -> dict[str, Any]:
    """The full schema: the global one with each ``<key>.schema.yaml`` as property ``<key>``."""
    schema_dir = Path(schema_dir)
    schema = yaml.safe_load((schema_dir / "config.schema.yaml").read_text())
    props = schema.setdefault("properties", {})
    # "<key>.schema.yaml" is a paper's section; "<key>.<part>.schema.yaml" adds properties (and
    # $defs) to it, so that separately developed parts of one paper keep separate schema files.
    for path in sorted(schema_dir.glob("*.schema.yaml"), key=lambda p: (p.name.count("."), p.name)):
        key, _, part = path.name.removesuffix(".schema.yaml").partition(".")
        if key == "config":
            continue
        sub = yaml.safe_load(path.read_text())
        if not part:
            props[key] = sub
            continue
        # A part may exist before (or without) its paper's base schema: start from a strict one.
        props.setdefault(key, {"type": "object", "additionalProperties": False, "properties": {}})
        props[key].setdefault("properties", {}).update(sub.get("properties", {}))
        props[key].setdefault("$defs", {}).update(sub.get("$defs", {}))
        props[key].setdefault("required", []).extend(sub.get("required", []))
    return schema


def _path(error: jsonschema.ValidationError) -> str:
    parts = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else (("." if parts else "") + str(p)))
    return "".join(parts) or "<top level>"


def _message(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        where = _path(error)
        full = [f"{where}.{k}" if where != "<top level>" else k for k in extra]
        # An object schema may list keys it used to have: `x-renamed: {old: new}`.
        renamed = error.schema.get("x-renamed", {})
        lines = [f"config key {f} was renamed to {renamed[k]!r}" for k, f in zip(extra, full, strict=True)
                 if k in renamed]
        unknown = [f for k, f in zip(extra, full, strict=True) if k not in renamed]
        if unknown:
            lines.append(f"unknown config key(s) {', '.join(unknown)}; allowed here: {', '.join(allowed)}")
        return "\n  ".join(lines)
    return f"config key {_path(error)}: {error.message}"


def validate(config: Mapping[str, Any], schema: dict[str, Any] | None = None) -> None:
    """Raise ConfigError listing every problem (each naming its key), or return None."""
    schema = load_schema() if schema is None else schema
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(dict(config)), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise ConfigError("invalid config:\n  " + "\n  ".join(_message(e) for e in errors))


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


def load(*paths: str | Path, check: bool = True) -> dict[str, Any]:
    """Load and merge config files in order (later ones override), then validate."""
    cfg: dict[str, Any] = {}
    for p in paths:
        cfg = deep_update(cfg, yaml.safe_load(Path(p).read_text()) or {})
    if check:
        validate(cfg)
    return cfg
