"""Is my ε acceptable? The card's answer is context, not a verdict.

A privacy officer asks "is ε = 8 acceptable for my table of 10,000 people?". The rows say what
the worst-case attacker can do; this section of every card adds what a decision needs beside
them, in three parts:

* **the nearest published deployments** of the same unit (:mod:`.atlas`): the ε (at its δ) each
  published for its unit and period, side by side with this guarantee's, nearest on a log scale
  (an ε per user-day is not an ε per person: the unit is matched, ``--unit`` names it, and a card
  without one compares across units and says so);
* **what would change the reading**: the table size (``--records N``: the reconstruction count is
  for N people; the card asks for it when it is not given), the attribute's prior (the one-guess
  bound at a rare and at a yes/no secret beside the card's), and the attacker's knowledge;
* the worst-case sentence, kept: no deployment's choice makes an ε safe, and an attacker who
  knows less is not promised to do worse.
"""

from __future__ import annotations

import math

from .card import Row, Section
from .inputs import BadInput
from .rows import num, prob

KEY = "context"
TITLE = "Is this acceptable? Published deployments beside it, and what would change the reading"
#: how many published deployments the card places the guarantee among
NEAREST = 5
#: the priors the one-guess bound is shown at beside the card's: a rare attribute (or one of 100
#: equally likely values) and a yes/no secret
OTHER_PRIORS = (0.01, 0.5)
#: δ at which a ρ or μ that its publisher printed without an ε is read (the card's default)
READ_DELTA = 1e-5


def published(exclude: str | None = None) -> list[dict]:
    """Every atlas parameter set with a number, as (ε at its δ, unit, period, ...): ε as printed
    where printed, else ρ or μ converted at the printed δ (or 10⁻⁵) by the tight conversion."""
    import privrisk.explain.atlas.adapter as adapter
    from privrisk.explain.atlas.schema import load

    out = []
    for e in load().entries:
        if not e.published or e.key == exclude:
            continue
        for p in e.parameters:
            if p.epsilon is not None:
                eps, delta, how = p.epsilon, p.delta, "as published"
            elif p.rho is not None:
                delta = p.delta or READ_DELTA
                eps, how = adapter.zcdp_tight(p.rho, delta), f"from ρ = {p.rho:g}"
            elif p.mu is not None:
                delta = p.delta or READ_DELTA
                eps, how = adapter.gdp_epsilon(p.mu, delta), f"from μ = {p.mu:g}"
            else:
                continue
            label = f"{e.key}/{p.label}" if p.label and len(e.parameters) > 1 else e.key
            out.append(
                {
                    "key": label,
                    "name": f"{e.name} ({e.organisation}, {e.year})",
                    "unit": e.unit_of(p),
                    "period": e.period,
                    "per_period": e.per_period,
                    "horizon": e.horizon.text if e.horizon else "",
                    "model": e.model,
                    "adjacency": e.adjacency,
                    "epsilon": float(eps),
                    "delta": delta,
                    "how": how,
                }
            )
    return out


def units() -> list[str]:
    return sorted({d["unit"] for d in published()})


def check_unit(unit) -> str | None:
    if unit is None:
        return None
    u = str(unit).strip().lower()
    known = units()
    if u not in known:
        raise BadInput(
            "unit", f"no published deployment has unit {unit!r}; units: {', '.join(known)}"
        )
    return u


def check_records(records) -> int | None:
    from .inputs import integer

    return None if records is None else integer("records", records, lo=1)


def _scope(d: dict) -> str:
    if not d["per_period"]:
        return "per release"
    return f"per {d['period']}" + (f" (horizon: {d['horizon']})" if d["horizon"] else "")


def nearest(epsilon: float, unit: str | None, exclude: str | None) -> list[dict]:
    pool = [d for d in published(exclude) if unit is None or d["unit"] == unit]
    if not math.isfinite(epsilon) or epsilon <= 0:
        key = (lambda d: -d["epsilon"]) if math.isinf(epsilon) else (lambda d: d["epsilon"])
    else:

        def key(d):
            return abs(math.log(d["epsilon"]) - math.log(epsilon)) if d["epsilon"] > 0 else math.inf

    return sorted(pool, key=key)[:NEAREST]


def section(g, a, card_rows: dict, *, unit=None, records=None, exclude=None, own_unit=None):
    """The context section of a card of ``g`` (:class:`~.accounted.Accounted`) against ``a``."""
    import privrisk.explain.attacker as attacker_mod  # not `from . import`: that reads as
    import privrisk.explain.rows as rows_mod  # importing the package, which imports this module

    s = g.as_stated
    compare_unit = unit or own_unit
    near = nearest(s.epsilon, compare_unit, exclude)
    this_text = f"ε = {num(s.epsilon)}" + (f" at δ = {s.delta:.3g}" if s.delta > 0 else "")
    mine = Row(
        key=f"{KEY}.this",
        group=KEY,
        label="this guarantee" + (f" (unit: {compare_unit})" if compare_unit else ""),
        value=s.epsilon,
        text=this_text,
        source="this card",
        attacker="the guarantee on this card, as accounted",
        adjacency=str(s.adjacency),
    )
    out = []
    for i, d in enumerate(near):
        dtext = f" at δ = {d['delta']:.3g}" if d["delta"] else ""
        out.append(
            Row(
                key=f"{KEY}.nearest.{i + 1}",
                group=KEY,
                label=d["name"],
                value=d["epsilon"],
                text=f"ε = {num(d['epsilon'])}{dtext} {_scope(d)}",
                source=f"privrisk atlas: {d['key']} ({d['how']})",
                attacker=f"unit: {d['unit']}; {d['model']} model; "
                f"privrisk explain --deployment {d['key']}",
                adjacency=d["adjacency"],
            )
        )
    rows = sorted([mine, *out], key=lambda r: (r.value, r.key != mine.key))
    notes = []
    if compare_unit is None:
        notes.append(
            "Unit: not given, so the nearest deployments of any unit are shown; an ε per "
            "user-day or per event protects far less than the same ε per person. Give --unit "
            f"(one of: {', '.join(units())}) to compare like with like."
        )
    notes.append(
        "A deployment beside it is not a judgement that its ε was safe: published budgets range "
        "over orders of magnitude, and each protects its unit for its period only."
    )
    notes.append(_records_note(card_rows, a, records))
    notes.append(_prior_note(g, a, rows_mod, attacker_mod))
    notes.append(
        "The attacker's knowledge: every bound assumes an attacker who knows the release and "
        "every other record (for the reconstruction rows, also the prior); outside data linked to "
        "the release counts as such knowledge. An attacker who knows less is not promised to do "
        "worse than these bounds: the guarantee promises only them."
    )
    return Section(key=KEY, title=TITLE, rows=tuple(rows), notes=tuple(notes))


def _records_note(card_rows: dict, a, records) -> str:
    q = card_rows.get("reconstruction.quantiles")
    if records is None:
        return (
            "How many people are in your table? Give --records N: the reconstruction count "
            f"above is for {a.targets:,} targets"
            + (" (a default)" if "targets" in a.defaults else "")
            + ", not for your table."
        )
    if q is None or q.value is None:
        return f"The table size: {records:,} people (--records)."
    n = a.targets
    of = f"{n:,} of the {records:,} people" if n < records else f"the {records:,} people"
    return (
        f"The table size: for {of} (--records), with probability 95 % at most "
        f"{int(q.value):,} are reconstructed (prior alone: {int(q.baseline):,}); a larger table "
        "puts more people at the same per-person risk."
    )


def _prior_note(g, a, rows_mod, attacker_mod) -> str:
    parts = []
    for p in OTHER_PRIORS:
        b = rows_mod.beta(g, attacker_mod.parse(prior=p)).value
        parts.append(f"{prob(b)} at prior {prob(p)}")
    return (
        f"The attribute's prior: the card reads a secret guessed right {prob(a.prior)} of the time "
        f"without the release; with it one guess is right at most {' and '.join(parts)}. The "
        "bound depends on how guessable the attribute already is: give --prior (or --values) "
        "for yours."
    )
