"""The risk card: a small frozen dataclass of rows, serialisable to JSON and back.

Each :class:`Row` is one threat model: its number (``value``; None where the bound does not
apply to this guarantee, with the reason in ``note``), what the attacker gets without the release
(``baseline``), the paper and theorem, one plain sentence of who the attacker is and what it
knows, the adjacency the number is computed under, and the library function that computed it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields

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
class RiskCard:
    guarantee: str
    settings: tuple[Setting, ...]
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()

    def row(self, key: str) -> Row:
        for r in self.rows:
            if r.key == key:
                return r
        raise KeyError(f"no row {key!r}; rows: {', '.join(r.key for r in self.rows)}")

    def setting(self, name: str) -> Setting:
        for s in self.settings:
            if s.name == name:
                return s
        raise KeyError(f"no setting {name!r}")

    # --- JSON ------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        return _encode(asdict(self))

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=kw.pop("indent", 2), **kw)

    @classmethod
    def from_dict(cls, d: dict) -> RiskCard:
        settings = []
        for s in d["settings"]:
            s = _only(Setting, s)
            settings.append(Setting(**(s | {"value": _num(s.get("value"))})))
        rows = []
        for r in d["rows"]:
            r = _only(Row, r)
            numbers = {
                "value": _num(r.get("value")),
                "baseline": _num(r.get("baseline")),
                "values": tuple(_num(v) for v in r.get("values", ())),
            }
            rows.append(Row(**(r | numbers)))
        return cls(
            guarantee=d["guarantee"],
            settings=tuple(settings),
            rows=tuple(rows),
            notes=tuple(d.get("notes", ())),
        )

    @classmethod
    def from_json(cls, text: str) -> RiskCard:
        return cls.from_dict(json.loads(text))


def _only(kind, d: dict) -> dict:
    names = {f.name for f in fields(kind)}
    unknown = set(d) - names
    if unknown:
        raise ValueError(f"unknown {kind.__name__} fields in the card: {sorted(unknown)}")
    return dict(d)


# JSON has no ∞ or NaN: non-finite floats travel as the strings "inf", "-inf", "nan" (what they
# are; strict parsers accept them)
def _encode(x):
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
        if x not in ("inf", "-inf"):
            raise ValueError(f"not a number in the card: {x!r}")
        return float(x)
    return x
