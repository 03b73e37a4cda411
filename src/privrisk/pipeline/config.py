"""Config loading and validation against the schemas shipped in the package.

The schema is split: ``privrisk/pipeline/config.schema.yaml`` holds the global keys (and the ``$defs``
shared by all papers) and each paper's keys live in its package, ``privrisk/papers/<key>/schema.yaml``
(so one paper's change never touches another's). Both are package data, read with
:mod:`importlib.resources`, so an installed wheel validates configs away from any checkout. :func:`validate` checks
every key before any job starts and raises :class:`ConfigError` naming the offending key
(``thudi2022.fig2.epsilon_max: -1 is less than the minimum of 0``); unknown keys are errors
(``additionalProperties: false`` throughout), so a typo cannot silently fall back to a default.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ..core import discovery, safe_io
from ..core.grids import ConfigError, deep_update, grid  # noqa: F401  (ConfigError, grid: re-exported)
from . import config_checks

#: the global keys' schema (package data)
GLOBAL_SCHEMA = "config.schema.yaml"


def paper_schema_files(key: str) -> list[tuple[str, Any]]:
    """(part, file) of a paper's schema: ``schema.yaml`` (part ``""``) and any ``schema.<part>.yaml``,
    base first."""
    found = [
        (f.name.removeprefix("schema").removesuffix(".yaml").lstrip("."), f)
        for f in discovery.files(key).iterdir()
        if f.name.startswith("schema") and f.name.endswith(".yaml")
    ]
    return sorted(found, key=lambda pf: (pf[0] != "", pf[0]))


def yaml_load(text: str) -> Any:
    """YAML text as Python values, through libyaml's parser where PyYAML has it (the same safe
    constructor and resolver as ``yaml.safe_load``, about 5x faster: every Snakemake start and
    every config test parses the schemas)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


#: most values a config file may hold once its YAML aliases are expanded (a shipped config holds a
#: few hundred): ten lines of nested aliases ("billion laughs") expand to 10⁹ values, and every
#: reader of the config (Snakemake's merge, the schema check, a printed error) would walk them all
MAX_VALUES = 100_000

#: most levels of nested lists and mappings in a config file (a shipped config has 5); deeper
#: nesting would exhaust the recursion of every reader after this one
MAX_DEPTH = 50
#: the largest config file read (the paper-scale overlay is a few KiB): a device or a runaway
#: file is refused before it fills memory
MAX_BYTES = 4 << 20

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Refused(yaml.constructor.ConstructorError):
    """Valid YAML that a config file may not be (a duplicate key, an alias bomb, nesting too deep)."""


def _children(node: Any) -> list:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_depth(text: str) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` from the parser's events, before libyaml
    composes the document: its composer recurses in C, and 200,000 nested brackets crash the
    process (a segmentation fault, not an exception)."""
    depth = 0
    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _Refused(
                    None,
                    None,
                    f"it nests lists or mappings more than {MAX_DEPTH} levels deep",
                    event.start_mark,
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _shape(root: Any) -> tuple[int, int]:
    """(values of the document once its aliases are expanded, capped just above
    :data:`MAX_VALUES`; levels of nesting) of a composed YAML node, without expanding it: each
    node shared through aliases is measured once (an iterative walk, so depth costs no
    recursion). An alias to a list or mapping that contains it is refused."""
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    path: set[int] = set()  # the nodes being measured: the current node's ancestors
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        kids = _children(node)
        if finished:
            size[key] = min(1 + sum(size[id(k)] for k in kids), MAX_VALUES + 1)
            height[key] = 1 + max((height[id(k)] for k in kids), default=0)
            path.discard(key)
            continue
        if key in size:
            continue
        path.add(key)
        stack.append((node, True))
        for kid in kids:
            if id(kid) in path:
                raise _Refused(
                    None,
                    None,
                    "an alias (*name) refers to a list or mapping that contains it",
                    kid.start_mark,
                )
            if id(kid) not in size:
                stack.append((kid, False))
    return size[id(root)], height[id(root)]


class _ConfigLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """``yaml_load``'s loader, stricter where a config file is concerned: a key given twice in
    one mapping is refused (YAML keeps the last one silently), and so is a document whose aliases
    expand it beyond :data:`MAX_VALUES` values (counted without expanding it)."""

    def construct_document(self, node):
        values, depth = _shape(node)
        if values > MAX_VALUES:
            raise _Refused(
                None,
                None,
                f"its YAML aliases (*name) expand it to more than {MAX_VALUES:,} values; write "
                "the values out, or use fewer nested aliases",
                None,
            )
        if depth > MAX_DEPTH:
            raise _Refused(
                None, None, f"it nests lists or mappings more than {MAX_DEPTH} levels deep", None
            )
        return super().construct_document(node)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first: dict[Any, Any] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge" or not isinstance(
                    key_node, yaml.ScalarNode
                ):
                    continue
                key = self.construct_object(key_node)
                if key in first:
                    raise _Refused(
                        None,
                        None,
                        f"duplicate key {key!r} (first given at line {first[key].line + 1}); "
                        "YAML would keep only the last one",
                        key_node.start_mark,
                    )
                first[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def load_schema() -> dict[str, Any]:
    """The full schema: the global one with each paper's schema as property ``<key>``.

    A fresh copy each call (callers may change it); the files are parsed once per version of
    them (path, mtime, size), so an edited schema is read again."""
    files = [resources.files("privrisk.pipeline") / GLOBAL_SCHEMA] + [
        path for key in discovery.paper_keys() for _, path in paper_schema_files(key)
    ]
    version = tuple((str(f), *_stamp(f)) for f in files)
    if version not in _SCHEMAS:
        _SCHEMAS.clear()
        _SCHEMAS[version] = _assemble_schema()
    return copy.deepcopy(_SCHEMAS[version])


def _stamp(f: Any) -> tuple[int, int]:
    try:
        st = Path(str(f)).stat()
    except OSError:  # not a plain file (a zipped package): its name is its version
        return (0, 0)
    return (st.st_mtime_ns, st.st_size)


_SCHEMAS: dict[tuple, dict[str, Any]] = {}


def _assemble_schema() -> dict[str, Any]:
    schema = yaml_load((resources.files("privrisk.pipeline") / GLOBAL_SCHEMA).read_text())
    props = schema.setdefault("properties", {})
    # "schema.yaml" is a paper's section; "schema.<part>.yaml" adds properties (and $defs) to it,
    # so that separately developed parts of one paper keep separate schema files.
    for key in discovery.paper_keys():
        for part, path in paper_schema_files(key):
            sub = yaml_load(path.read_text())
            if not part:
                props[key] = sub
                continue
            # A part may exist without its paper's base schema: start from a strict one.
            props.setdefault(
                key, {"type": "object", "additionalProperties": False, "properties": {}}
            )
            props[key].setdefault("properties", {}).update(sub.get("properties", {}))
            props[key].setdefault("$defs", {}).update(sub.get("$defs", {}))
            props[key].setdefault("required", []).extend(sub.get("required", []))
    return schema


def _path(error: jsonschema.ValidationError) -> str:
    parts = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else (("." if parts else "") + str(p)))
    return "".join(parts) or "<top level>"


def _message(error: jsonschema.ValidationError, schema: dict[str, Any]) -> str:
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        allowed = sorted(error.schema.get("properties", {}))
        if error.validator == "unevaluatedProperties" and "$ref" in error.schema:
            allowed = sorted(
                set(allowed)
                | set(_resolve(schema, {"$ref": error.schema["$ref"]}).get("properties", {}))
            )
        extra = sorted(set(error.instance) - set(allowed))
        where = _path(error)
        full = [f"{where}.{k}" if where != "<top level>" else k for k in extra]
        # An object schema may list keys it used to have: `x-renamed: {old: new}`.
        renamed = error.schema.get("x-renamed", {})
        lines = [
            f"config key {f} was renamed to {renamed[k]!r}"
            for k, f in zip(extra, full, strict=True)
            if k in renamed
        ]
        unknown = [f for k, f in zip(extra, full, strict=True) if k not in renamed]
        if unknown:
            lines.append(
                f"unknown config key(s) {', '.join(unknown)}; allowed here: {', '.join(allowed)}"
            )
        return "\n  ".join(lines)
    if error.validator in ("anyOf", "oneOf") and error.context:
        # Report the alternative that got furthest into the value (e.g. the list item that is
        # out of range), not "is not valid under any of the given schemas".
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return f"config key {_path(error)}: {error.message}"


def _is_integer(_checker, value) -> bool:
    # JSON Schema counts 51.0 as an integer; a job then fails with a TypeError deep inside.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(_checker, value) -> bool:
    # NaN passes every minimum/maximum comparison; refuse it (±inf stays allowed, e.g. ε = .inf).
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not (isinstance(value, float) and math.isnan(value))
    )


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _is_integer, "number": _is_number}
    ),
)


def _grid_errors(node: Any, path: str = "") -> list[str]:
    """What a job would fail on or draw silently wrong, which the schema lets through: a dense
    grid whose min exceeds max (drawn reversed), whose min or max is infinite (np.linspace gives
    NaN, and 0·∞ fails the job), log-spaced from a value <= 0 (np.geomspace refuses it). (NaN is
    refused by the schema's type check: _Validator.)"""
    out = []
    if isinstance(node, Mapping):
        if {"min", "max", "n_points"} <= set(node) and all(
            isinstance(node[k], int | float) and not isinstance(node[k], bool)
            for k in ("min", "max")
        ):
            lo, hi = node["min"], node["max"]
            if not (math.isfinite(lo) and math.isfinite(hi)):
                if not (math.isnan(lo) or math.isnan(hi)):  # NaN: the schema names it
                    out.append(
                        f"config key {path}: a dense grid's min and max must be finite (min "
                        f"{lo}, max {hi}); a list may hold .inf"
                    )
            elif lo > hi:
                out.append(f"config key {path}: min {lo} > max {hi}")
            elif node.get("spacing") == "log" and lo <= 0:
                out.append(f"config key {path}: a log-spaced grid starts above 0 (min {lo})")
        for k, v in node.items():
            out += _grid_errors(v, f"{path}.{k}" if path else str(k))
    return out


def validate(config: Mapping[str, Any], schema: dict[str, Any] | None = None) -> None:
    """Raise ConfigError listing every problem (each naming its key), or return None.

    Checks the schema, reversed dense grids, empty lists, the upper limits of
    :data:`privrisk.pipeline.config_checks.LIMITS` (unless ``allow_large: true``), cross-key consistency
    and that an explicit ``device`` exists on this machine.
    """
    schema = load_schema() if schema is None else schema
    validator = _Validator(schema)
    errors = sorted(
        validator.iter_errors(dict(config)), key=lambda e: list(map(str, e.absolute_path))
    )
    messages = [_message(e, schema) for e in errors] + _grid_errors(config)
    # Beyond the schema: empty lists, upper limits (allow_large overrides them) and, once every
    # key has a valid type, the consistency between keys (privrisk.pipeline.config_checks).
    named = {
        m.split(":")[0] for m in messages
    }  # the schema's minItems may already name an empty list
    messages += [m for m in config_checks.empty_list_errors(config) if m.split(":")[0] not in named]
    messages += config_checks.limit_errors(config)
    if not messages:
        messages += config_checks.cross_key_errors(config) + config_checks.device_errors(config)
    if messages:
        raise ConfigError("invalid config:\n  " + "\n  ".join(messages))


def read_file(path: str | Path) -> dict[str, Any]:
    """One config file as a mapping; a missing, unreadable or malformed file is a ConfigError
    naming it (and the line of a YAML syntax error), never a traceback."""
    try:  # a regular file only: a pipe would hang, /dev/zero fill memory (privrisk.core.safe_io)
        text = safe_io.read_user_file(path, max_bytes=MAX_BYTES, what="config file")
    except safe_io.FileRefused as err:
        raise ConfigError(str(err)) from None
    path = safe_io.shown(path)  # as the messages below name it
    try:
        _check_depth(text)
        data = yaml.load(text, Loader=_ConfigLoader)
    except _Refused as err:
        at = f", line {err.problem_mark.line + 1}" if err.problem_mark else ""
        raise ConfigError(f"config file {path}{at}: {err.problem}") from None
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" if where else ""
        what = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ConfigError(f"config file {path}: not valid YAML{at}: {what}") from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"config file {path}: must be a mapping of keys (key: value), not {type(data).__name__}"
        )
    return dict(data)


def load(*paths: str | Path, check: bool = True) -> dict[str, Any]:
    """Load and merge config files in order (later ones override, key by key), then validate."""
    cfg: dict[str, Any] = {}
    for p in paths:
        cfg = deep_update(cfg, read_file(p))
    if check:
        validate(cfg)
    return cfg


#: what ``--config KEY=VALUE`` may spell a boolean as (Snakemake hands ``true`` over as a string)
BOOLEAN_WORDS = {"true": True, "false": False}


def normalize_booleans(config: dict[str, Any], schema: dict[str, Any] | None = None) -> list[str]:
    """Turn the strings ``true`` / ``false`` (any case) at boolean keys into booleans, in place.

    The one rule for booleans on the command line: ``--config allow_large=true`` and
    ``allow_large=True`` both mean true (Snakemake parses ``True`` itself and passes ``true`` on as
    a string). Any other string at a boolean key stays, and validation names the key. Returns the
    dotted keys converted.
    """
    schema = load_schema() if schema is None else schema
    done: list[str] = []

    def walk(node: Any, sch: dict[str, Any], path: str) -> None:
        if not isinstance(node, dict):
            return
        sch = _resolve(schema, sch)
        props = sch.get("properties", {})
        for key, value in node.items():
            if key not in props:
                continue
            sub = _resolve(schema, props[key])
            where = f"{path}.{key}" if path else key
            if sub.get("type") == "boolean" and isinstance(value, str):
                if value.strip().lower() in BOOLEAN_WORDS:
                    node[key] = BOOLEAN_WORDS[value.strip().lower()]
                    done.append(where)
            else:
                walk(value, sub, where)

    walk(config, schema, "")
    return done


def _deref(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` followed (root-relative JSON pointers), nothing merged."""
    node = dict(node)
    while "$ref" in node:
        target: Any = schema
        for part in node.pop("$ref").removeprefix("#/").split("/"):
            target = target[part]
        node = {**target, **node}
    return node


def _accepts_string(schema: dict[str, Any], node: dict[str, Any]) -> bool:
    """Whether a string can be valid under ``node`` (a schema without a type takes anything)."""
    node = _deref(schema, node)
    if not all(_accepts_string(schema, part) for part in node.get("allOf", [])):
        return False
    for alt in ("anyOf", "oneOf"):
        if alt in node and not any(_accepts_string(schema, a) for a in node[alt]):
            return False
    if "enum" in node:
        return any(isinstance(v, str) for v in node["enum"])
    kind = node.get("type")
    return kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind)


def _child(schema: dict[str, Any], node: dict[str, Any], key: str | None) -> dict[str, Any] | None:
    """The schema a value's entry ``key`` (``None``: a list item) must meet, ``allOf`` / ``anyOf``
    kept as they are; None where the schema says nothing about it."""
    node = _deref(schema, node)
    parts = []
    own = node.get("items") if key is None else node.get("properties", {}).get(key)
    if isinstance(own, dict):
        parts.append(own)
    every = [c for c in (_child(schema, p, key) for p in node.get("allOf", [])) if c]
    parts += every
    for alt in ("anyOf", "oneOf"):
        some = [c for c in (_child(schema, a, key) for a in node.get(alt, [])) if c]
        if some:
            parts.append({"anyOf": some})
    return {"allOf": parts} if parts else None


def normalize_command_line(
    config: dict[str, Any], given: Mapping[str, Any], schema: dict[str, Any] | None = None
) -> list[str]:
    """Give the values of ``--config`` the types a config file would give them, in place.

    Snakemake parses a top-level ``--config seed=3`` as a number but reads a nested value
    (``--config 'swanberg2025={ngram_train: {tune_trials: 11}}'``) with YAML's base loader, which
    makes every scalar a string, so ``11`` would be refused as "'11' is not of type 'integer'".
    Each string of ``given`` (the parsed ``--config``, whose values ``config`` holds at the same
    paths) at a key whose schema takes no string is read as the YAML scalar it spells (``11``,
    ``1e-5``, ``.inf``, ``true``); a string key keeps its string, and a value that is no such
    scalar stays for validation to name. Returns the dotted keys converted.
    """
    schema = load_schema() if schema is None else schema
    done: list[str] = []

    def scalar(text: str) -> Any:
        try:
            value = yaml_load(text)
        except yaml.YAMLError:
            return text
        return value if isinstance(value, bool | int | float) or value is None else text

    def walk(target: Any, cli: Any, sch: dict[str, Any], path: str) -> None:
        if isinstance(cli, Mapping) and isinstance(target, dict):
            for key, value in cli.items():
                sub = _child(schema, sch, str(key))
                if key in target and sub is not None:
                    convert(target, key, value, sub, f"{path}.{key}" if path else str(key))
        elif isinstance(cli, list) and isinstance(target, list) and len(cli) == len(target):
            sub = _child(schema, sch, None)
            if sub is not None:
                for i, value in enumerate(cli):
                    convert(target, i, value, sub, f"{path}[{i}]")

    def convert(target: Any, key: Any, value: Any, sch: dict[str, Any], where: str) -> None:
        if isinstance(value, str):
            if target[key] == value and not _accepts_string(schema, sch):
                new = scalar(value)
                if new is not value and not isinstance(new, str):
                    target[key] = new
                    done.append(where)
        else:
            walk(target[key], value, sch, where)

    walk(config, given, schema, "")
    return done


# --- docs/config.md, generated from the schemas ------------------------------------------------


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow ``$ref`` (:func:`_deref`) and merge ``allOf`` parts, for documentation."""
    node = _deref(schema, node)
    for part in node.pop("allOf", []):
        sub = _resolve(schema, part)
        node.setdefault("properties", {}).update(sub.get("properties", {}))
        node.setdefault("description", sub.get("description"))
        for k in ("type", "enum", "oneOf", "anyOf", "minimum", "maximum"):
            if k in sub:
                node.setdefault(k, sub[k])
    return node


def _kind(schema: dict[str, Any], node: dict[str, Any]) -> str:
    if "enum" in node:
        return " \\| ".join(f"`{v}`" for v in node["enum"])
    for alt in ("oneOf", "anyOf"):
        if alt in node:
            return " or ".join(_kind(schema, _resolve(schema, n)) for n in node[alt])
    t = node.get("type", "")
    if isinstance(t, list):
        t = " \\| ".join(t)
    if t == "array":
        items = _resolve(schema, node.get("items", {}))
        return f"list of {_kind(schema, items) or 'values'}"
    if t == "object" and "properties" in node and not node.get("description"):
        return "mapping"
    bounds = [
        f">= {node['minimum']}" if "minimum" in node else "",
        f"<= {node['maximum']}" if "maximum" in node else "",
    ]
    return " ".join(x for x in [t, *bounds] if x)


def _rows(schema: dict[str, Any], node: dict[str, Any], prefix: str) -> list[str]:
    rows = []
    for key, sub in node.get("properties", {}).items():
        sub = _resolve(schema, sub)
        path = f"{prefix}.{key}" if prefix else key
        desc = " ".join(str(sub.get("description", "")).split())
        rows.append(f"| `{path}` | {_kind(schema, sub)} | {desc} |")
        if sub.get("properties"):
            rows += _rows(schema, sub, path)
    return rows


_GLOBAL = ("scale", "seed", "device", "torch_threads", "runs_per_job", "allow_large")


def _limits_section() -> list[str]:
    limits = config_checks.LIMITS
    return [
        "",
        "## Upper limits",
        "",
        "A key with one of these names is refused above its limit, wherever it appears (a list of",
        f"integers item by item), unless the config sets `{config_checks.OVERRIDE}: true` at the top level. The",
        "limits are at least 50× the largest value a shipped config uses, so paper scale is far inside.",
        "",
        "| key | limit |",
        "|---|---|",
        *[f"| `{k}` | {v:,} |" for k, v in limits.items()],
    ]


def readme(schema: dict[str, Any] | None = None) -> str:
    """docs/config.md: every section and key with its type and description, from the schemas."""
    schema = load_schema() if schema is None else schema
    out = [
        "# Configuration reference",
        "",
        "Generated from the schemas (`src/privrisk/pipeline/config.schema.yaml` and each paper's",
        "`src/privrisk/papers/<key>/schema.yaml`) by `privrisk docs --write`;",
        "a test fails when this file and the schemas disagree. `config/config.yaml` is the quick scale,",
        "`config/paper.yaml` the paper-scale overrides, `config/tiny.yaml` the tests' overrides. Every key",
        "is validated before any job starts; unknown keys and old names are refused, naming the key.",
        "",
        "One name per concept across papers: `trials` (independent repetitions), `epsilons` (ε grids: a",
        "list or `{min, max, n_points, spacing}`), `prior_probs` (probabilities) vs `prior_names`,",
        "`confidence` (interval coverage) vs `delta` (DP's δ), data blocks `<paper>.data.<dataset>` =",
        "`{source, path, standin_size, …}` with `source` one of `auto`, `real`, `bundled-real`, `standin`.",
        "",
    ]
    top = schema.get("properties", {})
    out += ["## Global keys", "", "| key | type | description |", "|---|---|---|"]
    out += [r for k in top if k in _GLOBAL for r in _rows(schema, {"properties": {k: top[k]}}, "")]
    out += _limits_section()
    for key, sub in top.items():
        if key in _GLOBAL:
            continue
        sub = _resolve(schema, sub)
        out += [
            "",
            f"## `{key}`",
            "",
            " ".join(str(sub.get("description", "")).split()),
            "",
            "| key | type | description |",
            "|---|---|---|",
            *_rows(schema, sub, key),
        ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    # `python -m privrisk.pipeline.config --readme` (the CI's check) without importing the CLI
    # module, which imports this one: the two stay free of an import cycle.
    import sys

    if sys.argv[1:] == ["--readme"]:
        print(readme(), end="")
        raise SystemExit(0)
    try:
        load(*(sys.argv[1:] or ["config/config.yaml"]))
    except ConfigError as err:
        print(err, file=sys.stderr)
        raise SystemExit(2) from None
    print("config valid")
