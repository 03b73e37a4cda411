"""The atlas data file's schema: frozen dataclasses, built by a validator that names the entry and
the field of the first thing wrong in one line (:class:`AtlasError`).

An entry holds a deployment's facts as published: who, when, the variant of DP, the privacy unit,
the adjacency (``unknown`` unless a source states it), the period a budget is spent per (and the
horizon, if stated), the model (central or local), the mechanism family, and one or more
parameter sets exactly as printed (several where a publisher prints several: totals and parts,
ρ beside ε at δ). An entry whose parameters were never published has none and says so.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

SCHEMA = "privrisk.atlas"
VERSION = 1

VARIANTS = ("pure", "approx", "zcdp", "gdp", "unknown")
ADJACENCIES = ("add-remove", "replace-one", "unknown")
MODELS = ("central", "local", "varies")
#: the numbers a parameter set may print
NUMBERS = ("epsilon", "delta", "rho", "mu")


class AtlasError(ValueError):
    """One line naming the file or entry and the field."""


@dataclass(frozen=True)
class Parameters:
    """One parameter set as printed: any of ε, δ, ρ, μ, a δ given as a formula, and its own unit
    where it differs from the entry's (the Census person and housing-unit tables)."""

    printed: str
    label: str = ""
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None
    mu: float | None = None
    delta_formula: str = ""
    unit: str = ""
    #: a local randomizer's channel where its source publishes it: {"kind": rr | cms | hcms,
    #: "m": buckets (cms), "text": what the source says} (:mod:`.channels`)
    channel: dict | None = None


@dataclass(frozen=True)
class Split:
    """A budget the source states as a total and its parts (summed, times ``factor``)."""

    parameter: str
    total: float
    parts: tuple[float, ...]
    text: str
    factor: float = 1.0


@dataclass(frozen=True)
class Horizon:
    periods: int
    text: str


@dataclass(frozen=True)
class OtherUnit:
    unit: str
    source: str


@dataclass(frozen=True)
class Entry:
    key: str
    name: str
    organisation: str
    year: int
    variant: str
    unit: str
    unit_as_printed: str
    adjacency: str
    period: str
    model: str
    mechanism: str
    parameters: tuple[Parameters, ...]
    registry: str | None
    urls: tuple[str, ...]
    adjacency_quote: str = ""
    horizon: Horizon | None = None
    split: Split | None = None
    other_units: tuple[OtherUnit, ...] = ()
    not_published: str = ""
    stated_variant: str = ""

    @property
    def published(self) -> bool:
        return bool(self.parameters)

    @property
    def per_period(self) -> bool:
        return self.period != "release"

    def unit_of(self, p: Parameters) -> str:
        return p.unit or self.unit


@dataclass(frozen=True)
class Atlas:
    entries: tuple[Entry, ...]
    repository: str
    commit: str
    licence: str

    def entry(self, key: str) -> Entry:
        for e in self.entries:
            if e.key == key:
                return e
        raise KeyError(key)


_REQUIRED = (
    "key name organisation year variant unit unit_as_printed adjacency period model mechanism "
    "parameters source"
).split()
_OPTIONAL = {
    "adjacency_quote",
    "horizon",
    "split",
    "other_units",
    "not_published",
    "stated_variant",
}


def _fail(where: str, msg: str):
    raise AtlasError(f"{where}: {msg}")


def _str(where, d, name, *, required=True) -> str:
    v = d.get(name)
    if v is None and not required:
        return ""
    if not isinstance(v, str) or not v.strip():
        _fail(where, f"{name} must be a non-empty string, got {v!r}")
    return v


def _choice(where, d, name, choices) -> str:
    v = d.get(name)
    if v not in choices:
        _fail(where, f"{name} must be one of {', '.join(choices)}, got {v!r}")
    return v


def _positive(where, name, v) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
        _fail(where, f"{name} must be a positive finite number, got {v!r}")
    return float(v)


def _parameters(where: str, raw) -> Parameters:
    if not isinstance(raw, dict):
        _fail(where, f"a parameter set must be a mapping, got {raw!r}")
    extra = set(raw) - {*NUMBERS, "printed", "label", "delta_formula", "unit", "channel"}
    if extra:
        _fail(where, f"unknown field(s) {', '.join(sorted(extra))}")
    nums = {k: _positive(where, k, raw[k]) for k in NUMBERS if raw.get(k) is not None}
    if "delta" in nums and nums["delta"] >= 1:
        _fail(where, f"delta must be below 1, got {nums['delta']}")
    if not nums:
        _fail(where, "a parameter set prints none of epsilon, delta, rho, mu")
    if "delta" in nums and raw.get("delta_formula"):
        _fail(where, "delta and delta_formula both given")
    channel = _channel(where, raw.get("channel"), nums)
    return Parameters(
        channel=channel,
        printed=_str(where, raw, "printed"),
        label=_str(where, raw, "label", required=False),
        delta_formula=_str(where, raw, "delta_formula", required=False),
        unit=_str(where, raw, "unit", required=False),
        **nums,
    )


CHANNELS = ("rr", "cms", "hcms")


def _channel(where: str, raw, nums: dict) -> dict | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("kind") not in CHANNELS:
        _fail(where, f"channel: a mapping with kind one of {', '.join(CHANNELS)}, got {raw!r}")
    extra = set(raw) - {"kind", "m", "text"}
    if extra:
        _fail(where, f"channel: unknown field(s) {', '.join(sorted(extra))}")
    if "epsilon" not in nums or "delta" in nums or "rho" in nums or "mu" in nums:
        _fail(where, "channel: a local randomizer's channel is read for a pure ε only")
    m = raw.get("m")
    if raw["kind"] == "cms":
        if isinstance(m, bool) or not isinstance(m, int) or m < 2:
            _fail(
                where, f"channel: cms needs m, the number of buckets (an integer >= 2), got {m!r}"
            )
    elif m is not None:
        _fail(where, f"channel: m applies only to cms, got m for {raw['kind']}")
    if not isinstance(raw.get("text", ""), str) or not raw.get("text"):
        _fail(where, "channel: text, what the source says of the mechanism, is required")
    return dict(raw)


def _entry(i: int, raw) -> Entry:
    where = f"entry {i + 1}"
    if not isinstance(raw, dict):
        _fail(where, "must be a mapping")
    if isinstance(raw.get("key"), str):
        where = f"entry {raw['key']!r}"
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        _fail(where, f"missing field(s) {', '.join(missing)}")
    extra = set(raw) - set(_REQUIRED) - _OPTIONAL
    if extra:
        _fail(where, f"unknown field(s) {', '.join(sorted(extra))}")
    key = _str(where, raw, "key")
    if not key.replace("-", "").isalnum() or key.lower() != key:
        _fail(where, "key must be lower-case letters, digits and hyphens")
    year = raw["year"]
    if isinstance(year, bool) or not isinstance(year, int) or not 2000 <= year <= 2100:
        _fail(where, f"year must be a year, got {year!r}")
    params_raw = raw["parameters"]
    if not isinstance(params_raw, list):
        _fail(where, "parameters must be a list (empty when none are published)")
    params = tuple(_parameters(f"{where}: parameters[{j}]", p) for j, p in enumerate(params_raw))
    not_published = _str(where, raw, "not_published", required=False)
    if not params and not not_published:
        _fail(where, "no parameters: say so in not_published")
    if params and not_published:
        _fail(where, "not_published given beside published parameters")
    adjacency = _choice(where, raw, "adjacency", ADJACENCIES)
    quote = _str(where, raw, "adjacency_quote", required=False)
    if adjacency != "unknown" and not quote:
        _fail(where, f"adjacency {adjacency} needs the adjacency_quote that states it")
    src = raw["source"]
    if not isinstance(src, dict) or set(src) != {"registry", "urls"}:
        _fail(where, "source must have exactly registry (a path or null) and urls")
    reg = src["registry"]
    if reg is not None and not (isinstance(reg, str) and reg.startswith("deployments/")):
        _fail(where, f"source.registry must be a deployments/... path or null, got {reg!r}")
    urls = src["urls"]
    if (
        not isinstance(urls, list)
        or not urls
        or not all(isinstance(u, str) and u.startswith("https://") for u in urls)
    ):
        _fail(where, "source.urls must be a non-empty list of https:// addresses")
    horizon = None
    if raw.get("horizon") is not None:
        h = raw["horizon"]
        n = h.get("periods") if isinstance(h, dict) else None
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            _fail(where, f"horizon.periods must be a positive integer, got {n!r}")
        horizon = Horizon(n, _str(where, h, "text"))
    split = None
    if raw.get("split") is not None:
        s = raw["split"]
        if not isinstance(s, dict) or not isinstance(s.get("parts"), list) or not s["parts"]:
            _fail(where, "split needs parameter, total, parts (a list) and text")
        split = Split(
            parameter=_choice(where, s, "parameter", NUMBERS),
            total=_positive(where, "split.total", s.get("total")),
            parts=tuple(_positive(where, "split.parts", x) for x in s["parts"]),
            text=_str(where, s, "text"),
            factor=_positive(where, "split.factor", s.get("factor", 1.0)),
        )
    others = tuple(
        OtherUnit(_str(where, o, "unit"), _str(where, o, "source"))
        if isinstance(o, dict)
        else _fail(where, "other_units must be a list of {unit, source}")
        for o in raw.get("other_units") or ()
    )
    model = _choice(where, raw, "model", MODELS)
    if model == "central" and any(p.channel for p in params):
        _fail(where, "channel: only a local randomizer has one (model local or varies)")
    return Entry(
        key=key,
        name=_str(where, raw, "name"),
        organisation=_str(where, raw, "organisation"),
        year=year,
        variant=_choice(where, raw, "variant", VARIANTS),
        unit=_str(where, raw, "unit"),
        unit_as_printed=_str(where, raw, "unit_as_printed"),
        adjacency=adjacency,
        adjacency_quote=quote,
        period=_str(where, raw, "period"),
        model=model,
        mechanism=_str(where, raw, "mechanism"),
        parameters=params,
        registry=reg,
        urls=tuple(urls),
        horizon=horizon,
        split=split,
        other_units=others,
        not_published=not_published,
        stated_variant=_str(where, raw, "stated_variant", required=False),
    )


def validate(doc, where: str = "atlas") -> Atlas:
    """The atlas of a parsed YAML document; AtlasError (one line) for the first problem."""
    if not isinstance(doc, dict):
        _fail(where, "must be a mapping with schema, version, registry and entries")
    if doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
        _fail(where, f"schema must be {SCHEMA} version {VERSION}")
    reg = doc.get("registry")
    if not isinstance(reg, dict) or {"repository", "commit", "licence"} - set(reg):
        _fail(where, "registry needs repository, commit and licence")
    commit = str(reg["commit"])
    if len(commit) != 40 or any(c not in "0123456789abcdef" for c in commit):
        _fail(where, f"registry.commit must be 40 hex digits, got {commit!r}")
    raw = doc.get("entries")
    if not isinstance(raw, list) or not raw:
        _fail(where, "entries must be a non-empty list")
    entries = tuple(_entry(i, r) for i, r in enumerate(raw))
    seen: set[str] = set()
    for e in entries:
        if e.key in seen:
            _fail(where, f"key {e.key!r} appears twice")
        seen.add(e.key)
    return Atlas(entries, str(reg["repository"]), commit, str(reg["licence"]))


DATA = Path(__file__).with_name("deployments.yaml")


def load(path: Path | str = DATA) -> Atlas:
    """The atlas in ``path`` (default: the package's data file)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as err:
        raise AtlasError(f"{p}: cannot read ({err.strerror})") from None
    return _parsed(text, str(p))


# Every card reads the atlas (its context section places the guarantee among the published
# deployments), and the atlas page and the flag walk build hundreds of cards: parsing the 30 KB
# file each time was most of the time of a card. The cache is keyed by the file's text (not its
# path or mtime), so an edited file is always parsed again; the values are frozen dataclasses.
@functools.lru_cache(maxsize=8)
def _parsed(text: str, where: str) -> Atlas:
    import yaml

    try:
        # libyaml's parser where PyYAML has it: the same safe constructor and resolver as
        # yaml.safe_load, several times faster
        doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        raise AtlasError(f"{where}:{line} not valid YAML") from None
    return validate(doc, where)
