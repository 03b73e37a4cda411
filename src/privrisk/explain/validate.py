"""Checks of a serialised risk card, each naming the field it is about (``privrisk explain --load``).

Three layers, in order: the **schema** (:func:`.card.check_structure`, which
:meth:`.card.RiskCard.from_dict` applies) (the name and version, every field present with its type,
no unknown field); the **numbers** (each row's value, baseline and values in the range of what the
row is — a probability, a count of targets, an ε — and monotone where the bound is: the 5 / 50 /
95 % counts, the TPR at growing false-positive rates, a success bound at least its baseline);
and the **recomputation**: the card is made again from its recorded inputs and every number and
text must agree (numbers to 10⁻⁹ relative), so a card whose numbers were edited is refused even
when they stay in range.
"""

from __future__ import annotations

import math

from .card import CardError, check_structure

__all__ = ["CardError", "check_structure", "check_numbers", "check_recomputed", "load"]


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


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_recomputed(card):
    """Make the card again from its inputs; CardError naming the first field that differs.
    Returns the recomputed card."""
    from . import BadInput, explain

    try:
        fresh = explain(**card.inputs)
    except (BadInput, TypeError) as err:
        raise CardError("inputs", f"cannot make a card from them: {err}") from None
    if card.guarantee != fresh.guarantee:
        raise CardError("guarantee", f"{card.guarantee!r}, recomputed {fresh.guarantee!r}")
    if len(card.rows) != len(fresh.rows):
        raise CardError("rows", f"{len(card.rows)} rows, recomputed {len(fresh.rows)}")
    for i, (a, b) in enumerate(zip(card.rows, fresh.rows, strict=True)):
        for name in ("key", "value", "baseline", "values", "text", "label", "adjacency"):
            x, y = getattr(a, name), getattr(b, name)
            same = (
                _close(x, y)
                if name in ("value", "baseline")
                else (
                    len(x) == len(y) and all(_close(p, q) for p, q in zip(x, y, strict=True))
                    if name == "values"
                    else x == y
                )
            )
            if not same:
                raise CardError(
                    f"rows[{i}] ({a.key}).{name}",
                    f"{x!r} in the card, {y!r} recomputed from its inputs",
                )
    for i, (a, b) in enumerate(zip(card.settings, fresh.settings, strict=False)):
        if a.text != b.text or not _close(a.value, b.value):
            raise CardError(
                f"settings[{i}] ({a.name})", f"{a.text!r} in the card, {b.text!r} recomputed"
            )
    for i, (a, b) in enumerate(zip(card.headline, fresh.headline, strict=False)):
        if a.text != b.text or not _close(a.value, b.value):
            raise CardError(f"headline[{i}]", f"{a.text!r} in the card, {b.text!r} recomputed")
    return fresh


def load(text: str):
    """A card from JSON text, checked in full (schema, numbers, recomputation)."""
    import json

    from .card import RiskCard

    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise CardError("card", f"not JSON: {err.msg} at line {err.lineno}") from None
    try:
        card = RiskCard.from_dict(data)
    except CardError:
        raise
    except (TypeError, ValueError, KeyError) as err:
        raise CardError("card", str(err)) from None
    check_numbers(card)
    check_recomputed(card)
    return card
