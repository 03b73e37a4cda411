"""The risk card: a small frozen dataclass of rows, serialisable to JSON and back.

Each :class:`Row` is one threat model: its number (``value``; None where the bound does not
apply to this guarantee, with the reason in ``note``), what the attacker gets without the release
(``baseline``), the paper and theorem, one plain sentence of who the attacker is and what it
knows, the adjacency the number is computed under, and the library function that computed it.
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import asdict, dataclass, field, fields, replace

GROUPS = ("membership", "attribute", "reconstruction", "reverse")


@dataclass(frozen=True)
class Row:
    key: str
    group: str
    label: str
    value: float | None
    text: str
    source: str
    attacker: str
    adjacency: str
    baseline: float | None = None
    values: tuple[float, ...] = ()
    note: str = ""
    function: str = ""

    @property
    def applies(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class Setting:
    """One line of the card's header (the guarantee or the attacker): a label, the value as
    shown, the number where there is one, and whether it is a default."""

    name: str
    label: str
    text: str
    value: float | None = None
    default: bool = False


@dataclass(frozen=True)
class Headline:
    """One of the three numbers to quote: the row it comes from and a short phrase."""

    key: str
    phrase: str
    text: str
    value: float | None = None


@dataclass(frozen=True)
class Section:
    """Rows attached to a card beside the threat models (e.g. an audit's lower bounds):
    :meth:`RiskCard.with_section` adds one; the card's own row keys never change."""

    key: str
    title: str
    rows: tuple[Row, ...] = ()
    notes: tuple[str, ...] = ()


#: the JSON's schema name and version: a card of another version is refused on load
SCHEMA = "privrisk.riskcard"
SCHEMA_VERSION = 3


@dataclass(frozen=True)
class RiskCard:
    guarantee: str
    settings: tuple[Setting, ...]
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()
    headline: tuple[Headline, ...] = ()
    #: the arguments of :func:`privrisk.explain.explain` the card was made from (as given)
    inputs: dict = field(default_factory=dict, compare=False)
    sections: tuple[Section, ...] = ()
    #: the card in one plain sentence (:mod:`.reading`)
    reading: str = ""

    def row(self, key: str) -> Row:
        for r in self.rows:
            if r.key == key:
                return r
        for sec in self.sections:
            for r in sec.rows:
                if r.key == key:
                    return r
        raise KeyError(f"no row {key!r}; rows: {', '.join(r.key for r in self.rows)}")

    def setting(self, name: str) -> Setting:
        for s in self.settings:
            if s.name == name:
                return s
        raise KeyError(f"no setting {name!r}")

    def with_section(self, section: Section) -> RiskCard:
        """A copy with ``section`` added after the card's own rows (its row keys must be new)."""
        taken = {r.key for r in self.rows} | {r.key for s in self.sections for r in s.rows}
        clash = sorted(taken & {r.key for r in section.rows})
        if clash or section.key in {s.key for s in self.sections}:
            raise ValueError(f"section {section.key!r} reuses keys of the card: {clash}")
        sections = self.sections
        if section.key == "audit":  # a DP-SGD card's third line is the audit's ε̂ (.dpsgd_lines)
            sections = _join_audit(sections, section)
        return replace(self, sections=(*sections, section))

    # --- JSON ------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        d = asdict(self)
        head = {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "privrisk": _version("privrisk"),
            "libraries": {n: _version(n) for n in LIBRARIES},
        }
        return _encode(head | d)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=kw.pop("indent", 2), **kw)

    @classmethod
    def from_dict(cls, d: dict) -> RiskCard:
        """The card of a JSON dict; CardError naming the field if it is not a well-formed card
        of this schema version (see :mod:`.validate` for the checks of its numbers)."""
        check_structure(d)
        settings = tuple(Setting(**(s | {"value": _num(s.get("value"))})) for s in d["settings"])
        rows = tuple(_row(r) for r in d["rows"])
        sections = tuple(
            Section(
                key=s["key"],
                title=s["title"],
                rows=tuple(_row(r) for r in s.get("rows", ())),
                notes=tuple(s.get("notes", ())),
            )
            for s in d.get("sections", ())
        )
        headline = tuple(Headline(**(h | {"value": _num(h.get("value"))})) for h in d["headline"])
        return cls(
            guarantee=d["guarantee"],
            settings=settings,
            rows=rows,
            notes=tuple(d["notes"]),
            headline=headline,
            inputs=dict(d.get("inputs", {})),
            sections=sections,
            reading=d.get("reading", ""),
        )

    @classmethod
    def from_json(cls, text: str) -> RiskCard:
        return cls.from_dict(json.loads(text))


def _join_audit(sections: tuple[Section, ...], audit: Section) -> tuple[Section, ...]:
    """The card's sections with the audit's ε̂ joined to the DP-SGD lines as the third line
    (this attack's lower bound); unchanged if either is missing. Here, not in .dpsgd_lines (which
    makes the first two lines): the card sits below every module that makes rows."""
    lower = next((r for r in audit.rows if r.key == "audit.epsilon_lower"), None)
    if lower is None or not any(s.key == "dpsgd" for s in sections):
        return sections
    at = lower.label.split("at δ = ", 1)[-1] if "at δ = " in lower.label else "the audit's δ"
    row = Row(
        key="dpsgd.audit",
        group="dpsgd",
        label="This attack: the audit's lower bound",
        value=lower.value,
        text=f"ε ≥ {_eps_text(lower.value)} at δ = {at}",
        source=lower.source,
        attacker="Threat model: this attack, as run (an empirical lower bound: the true ε of "
        "what was released is at least this, at the audit's confidence).",
        adjacency=lower.adjacency,
        function=lower.function,
    )
    out = []
    for s in sections:
        if s.key == "dpsgd":
            rows = tuple(r for r in s.rows if r.key != row.key) + (row,)
            s = Section(key=s.key, title=s.title, rows=rows, notes=s.notes[:0])
        out.append(s)
    return tuple(out)


def _eps_text(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "∞" if math.isinf(x) else f"{x:.3g}"


#: the libraries whose versions a serialised card records (its numbers depend on them)
LIBRARIES = ("numpy", "scipy", "dp-accounting")


def _version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def _row(r: dict) -> Row:
    numbers = {
        "value": _num(r.get("value")),
        "baseline": _num(r.get("baseline")),
        "values": tuple(_num(v) for v in r.get("values", ())),
    }
    return Row(**(r | numbers))


# JSON has no ∞ or NaN: non-finite floats travel as the strings "inf", "-inf", "nan" (what they
# are; strict parsers accept them)
def _encode(x):
    if isinstance(x, enum.Enum):  # an Adjacency: its spelling, a plain string
        return _encode(x.value)
    if isinstance(x, str):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: _encode(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_encode(v) for v in x]
    return x


def _num(x):
    if x is None:
        return None
    if isinstance(x, str):
        if x not in ("inf", "-inf", "nan"):
            raise ValueError(f"not a number in the card: {x!r}")
        return float(x)
    return x


# --- the schema of a serialised card ----------------------------------------------------------


class CardError(ValueError):
    """A card that is not what it claims; ``field`` names the first offending field."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


_REQUIRED = {
    "guarantee": str,
    "settings": list,
    "rows": list,
    "notes": list,
    "headline": list,
    "inputs": dict,
    "sections": list,
    "reading": str,
}
_FIELD_TYPES = {
    Row: {
        "key": str,
        "group": str,
        "label": str,
        "text": str,
        "source": str,
        "attacker": str,
        "adjacency": str,
        "note": str,
        "function": str,
    },
    Setting: {"name": str, "label": str, "text": str, "default": bool},
    Headline: {"key": str, "phrase": str, "text": str},
    Section: {"key": str, "title": str},
}
_NUMBERS = {Row: ("value", "baseline"), Setting: ("value",), Headline: ("value",)}


def _is_number(x) -> bool:
    if x is None:
        return True
    if isinstance(x, bool):
        return False
    if isinstance(x, int | float):
        return True
    return x in ("inf", "-inf", "nan")


def _check_object(where: str, kind, obj) -> None:
    if not isinstance(obj, dict):
        raise CardError(where, f"must be an object, got {type(obj).__name__}")
    names = {f.name for f in fields(kind)}
    unknown = sorted(set(obj) - names)
    if unknown:
        raise CardError(f"{where}.{unknown[0]}", f"unknown field of a {kind.__name__}")
    for name, typ in _FIELD_TYPES[kind].items():
        if name not in obj and name in ("key", "name", "label", "text", "group", "title"):
            raise CardError(f"{where}.{name}", "missing")
        if name in obj and not isinstance(obj[name], typ):
            raise CardError(f"{where}.{name}", f"must be a {typ.__name__}, got {obj[name]!r}")
    for name in _NUMBERS.get(kind, ()):
        if not _is_number(obj.get(name)):
            raise CardError(f"{where}.{name}", f"must be a number or null, got {obj[name]!r}")
    if kind is Row:
        vals = obj.get("values", [])
        if not isinstance(vals, list) or not all(_is_number(v) and v is not None for v in vals):
            raise CardError(f"{where}.values", f"must be a list of numbers, got {vals!r}")


def _check_strings(where: str, items) -> None:
    for i, x in enumerate(items):
        if not isinstance(x, str):
            raise CardError(f"{where}[{i}]", f"must be a string, got {x!r}")


def check_structure(d) -> None:
    """The schema: name, version and every field's presence and type (``notes`` a list of
    strings, not a string; every section an object with a key, a title, rows and notes)."""
    if not isinstance(d, dict):
        raise CardError("card", "must be a JSON object")
    if d.get("schema") != SCHEMA:
        raise CardError("schema", f"must be {SCHEMA!r}, got {d.get('schema')!r}")
    if d.get("schema_version") != SCHEMA_VERSION:
        raise CardError(
            "schema_version",
            f"this privrisk reads version {SCHEMA_VERSION}, got {d.get('schema_version')!r}",
        )
    for name, typ in _REQUIRED.items():
        if name not in d:
            raise CardError(name, "missing")
        if not isinstance(d[name], typ):
            raise CardError(name, f"must be a {typ.__name__}, got {type(d[name]).__name__}")
    known = set(_REQUIRED) | {"schema", "schema_version", "privrisk", "libraries"}
    unknown = sorted(set(d) - known)
    if unknown:
        raise CardError(unknown[0], "unknown field of a card")
    _check_strings("notes", d["notes"])
    for i, s in enumerate(d["settings"]):
        _check_object(f"settings[{i}]", Setting, s)
    for i, r in enumerate(d["rows"]):
        _check_object(f"rows[{i}]", Row, r)
    for i, h in enumerate(d["headline"]):
        _check_object(f"headline[{i}]", Headline, h)
    for i, sec in enumerate(d["sections"]):
        where = f"sections[{i}]"
        if not isinstance(sec, dict):
            raise CardError(where, "must be an object")
        _check_object(where, Section, {k: v for k, v in sec.items() if k not in ("rows", "notes")})
        if not isinstance(sec.get("rows", []), list):
            raise CardError(f"{where}.rows", "must be a list")
        if not isinstance(sec.get("notes", []), list):
            raise CardError(f"{where}.notes", "must be a list of strings")
        _check_strings(f"{where}.notes", sec.get("notes", []))
        for j, r in enumerate(sec.get("rows", [])):
            _check_object(f"{where}.rows[{j}]", Row, r)
