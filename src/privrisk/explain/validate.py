"""Checks of a serialised risk card, each naming the field it is about (``privrisk explain --load``).

A saved card is data, not text: it is rebuilt from the inputs it records (the guarantee, the
attacker, and what any file held), and it is accepted only if every field it would display is
what the rebuilt card displays. Three layers, in order: the **schema**
(:func:`.card.check_structure`, which :meth:`.card.RiskCard.from_dict` applies: the name and
version, every field present with its type, no unknown field); the **numbers** (each row's value,
baseline and values in the range of what the row is — a probability, a count of targets, an ε —
and monotone where the bound is), which gives the clearest message for a number edited out of
range; and the **recomputation**: the card is made again from its inputs and every field must be
equal (numbers to 10⁻⁹ relative, text exactly): the guarantee, every row's number, text, label,
source, attacker sentence, note and function, every setting, the headline, the notes, the plain
reading and the sections. What ``--load`` then shows is the rebuilt card, never the file's text.

Sections (rows attached beside the card's own, :meth:`.card.RiskCard.with_section`) cannot be
rebuilt from a card's inputs alone; a caller that can rebuild one passes a ``sections`` mapping
from the section's key to a function (the card's inputs, the saved section, the card rebuilt so
far) → the rebuilt :class:`.card.Section`, and a saved section with no such function is refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from .card import CardError, Section, check_structure

__all__ = ["CardError", "check_structure", "check_numbers", "check_recomputed", "load"]

#: fields of a saved card that describe the software that wrote it, not the card: not compared
PROVENANCE = ("privrisk", "libraries")


#: what a row's number is: a probability (in [baseline, 1] or [0, 1]), a count, an ε
def _kind(key: str) -> str:
    if key == "reconstruction.quantiles":
        return "count"
    if key in ("reconstruction.epsilon_protect", "reverse"):
        return "parameter"
    if key.endswith("advantage") or key.startswith("attribute.") or "advantage_" in key:
        return "advantage"
    return "probability"


def check_numbers(card) -> None:
    """Ranges and monotonicity of the card's own rows (sections are the attacher's to check)."""
    targets = None
    try:
        targets = card.setting("targets").value
    except KeyError:
        pass
    for i, r in enumerate(card.rows):
        where = f"rows[{i}] ({r.key})"
        v = r.value
        if v is not None and math.isnan(v):
            raise CardError(f"{where}.value", "is NaN: no row of a card is")
        kind = _kind(r.key)
        if kind in ("probability", "advantage") and v is not None:
            if not 0 <= v <= 1:
                raise CardError(f"{where}.value", f"must be a probability in [0, 1], got {v!r}")
            if r.baseline is not None and kind == "probability" and v < r.baseline - 1e-12:
                raise CardError(
                    f"{where}.value",
                    f"{v!r} is below the row's baseline {r.baseline!r} (an upper bound is not)",
                )
        if r.baseline is not None and kind != "count" and not 0 <= r.baseline <= 1:
            raise CardError(f"{where}.baseline", f"must be in [0, 1], got {r.baseline!r}")
        if kind == "count" and r.values:
            vals = list(r.values)
            if vals != sorted(vals):
                raise CardError(f"{where}.values", f"the 5 / 50 / 95 % bounds must grow: {vals}")
            if any(x < 0 or (targets is not None and x > targets) for x in vals):
                raise CardError(f"{where}.values", f"counts must lie in [0, {targets}]: {vals}")
        if kind == "parameter" and v is not None and v < 0:
            raise CardError(f"{where}.value", f"must be >= 0, got {v!r}")
    tpr = [(i, r) for i, r in enumerate(card.rows) if r.key.startswith("membership.tpr_at_fpr_")]
    for (_, a), (j, b) in zip(tpr, tpr[1:], strict=False):
        if a.value is not None and b.value is not None and b.value < a.value:
            raise CardError(
                f"rows[{j}] ({b.key}).value",
                f"TPR must grow with the false-positive rate ({a.value!r} then {b.value!r})",
            )


def _number(x):
    if isinstance(x, str) and x in ("inf", "-inf", "nan"):
        return float(x)
    return x


def _close(a, b) -> bool:
    a, b = _number(a), _number(b)
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if not (isinstance(a, int | float) and isinstance(b, int | float)):
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _short(x, n: int = 80) -> str:
    text = repr(x)
    return text if len(text) <= n else text[: n - 1] + "…"


def first_difference(path: str, saved, fresh) -> tuple[str, str] | None:
    """The first place where ``saved`` (from the file) and ``fresh`` (rebuilt) differ, as
    (path, message), or None. Numbers compare to 10⁻⁹ relative, everything else exactly; a row's
    path names its key."""
    numeric = (int, float)
    if isinstance(fresh, dict):
        if not isinstance(saved, dict):
            return path, f"{_short(saved)} in the card, an object recomputed"
        for k in fresh:
            if k not in saved:
                return f"{path}.{k}" if path else k, "missing from the card"
        for k in saved:
            if k not in fresh:
                return f"{path}.{k}" if path else k, "not part of a card rebuilt from its inputs"
        for k in fresh:
            found = first_difference(f"{path}.{k}" if path else k, saved[k], fresh[k])
            if found:
                return found
        return None
    if isinstance(fresh, list):
        if not isinstance(saved, list):
            return path, f"{_short(saved)} in the card, a list recomputed"
        if len(saved) != len(fresh):
            return path, f"{len(saved)} entries in the card, {len(fresh)} recomputed"
        for i, (x, y) in enumerate(zip(saved, fresh, strict=True)):
            label = f"{path}[{i}]"
            if isinstance(y, dict) and "key" in y and path.endswith("rows"):
                label += f" ({y['key']})"
            found = first_difference(label, x, y)
            if found:
                return found
        return None
    is_num = isinstance(fresh, numeric) and not isinstance(fresh, bool)
    if is_num or fresh in ("inf", "-inf", "nan"):
        if not _close(saved, fresh):
            return path, f"{_short(saved)} in the card, {_short(fresh)} recomputed from its inputs"
        return None
    if saved != fresh or type(saved) is not type(fresh):
        return path, f"{_short(saved)} in the card, {_short(fresh)} recomputed from its inputs"
    return None


#: the order in which a rebuilt card is compared with the saved one (the clearest first)
_ORDER = ("guarantee", "rows", "settings", "headline", "notes", "reading", "sections", "inputs")

SectionBuilder = Callable[[dict, dict, object], Section]


def check_recomputed(card, saved: dict | None = None, sections: Mapping[str, SectionBuilder] = ()):
    """Make the card again from its inputs; CardError naming the first field that differs from
    ``saved`` (the card's JSON dict; by default the card's own). Returns the rebuilt card, with
    its sections rebuilt by ``sections``."""
    from . import BadInput, explain

    if saved is None:
        saved = card.to_dict()
    try:
        fresh = explain(**card.inputs)
    except BadInput as err:
        raise CardError(
            "inputs", f"cannot make a card from them: {err.flag}: {err.message}"
        ) from None
    except TypeError as err:
        raise CardError("inputs", f"cannot make a card from them: {err}") from None
    built = {s.key for s in fresh.sections}  # sections explain makes itself (the DP-SGD lines)
    for i, sec in enumerate(saved.get("sections", [])):
        if sec.get("key") in built:
            continue  # rebuilt with the card; compared with the rest below
        build = dict(sections).get(sec.get("key"))
        if build is None:
            raise CardError(
                f"sections[{i}] ({sec.get('key')})",
                "a section that privrisk explain cannot rebuild from the card's inputs; a saved "
                "card holds only what it can rebuild",
            )
        try:
            fresh = fresh.with_section(build(dict(card.inputs), sec, fresh))
        except CardError:
            raise
        except (TypeError, ValueError, KeyError) as err:  # what it is rebuilt from is damaged
            raise CardError(
                f"sections[{i}] ({sec.get('key')})", f"cannot be rebuilt: {err}"
            ) from None
    rebuilt = fresh.to_dict()
    for name in _ORDER:
        found = first_difference(name, saved.get(name), rebuilt.get(name))
        if found:
            raise CardError(*found)
    extra = sorted(set(saved) - set(rebuilt) - set(PROVENANCE))
    if extra:
        raise CardError(extra[0], "not part of a card rebuilt from its inputs")
    return fresh


def load(text, sections: Mapping[str, SectionBuilder] = ()):
    """A card from JSON text (or its parsed dict: ``privrisk explain --load`` parses with
    :func:`privrisk.core.safe_io.read_json`), checked in full (schema, numbers, recomputation);
    returns the card rebuilt from its inputs (never the file's text)."""
    import json

    from .card import RiskCard

    if not isinstance(text, str):
        data = text
    else:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as err:
            msg = f"{err.msg} at line {err.lineno}" if hasattr(err, "msg") else "nested too deeply"
            raise CardError("card", f"not JSON: {msg}") from None
    try:
        card = RiskCard.from_dict(data)
    except CardError:
        raise
    except (TypeError, ValueError, KeyError) as err:
        raise CardError("card", str(err)) from None
    check_numbers(card)
    return check_recomputed(card, data, sections)
