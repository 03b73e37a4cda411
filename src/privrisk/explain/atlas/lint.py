"""What is inconsistent in what was published, as data: one :class:`Lint` per finding.

Each check reads only the entry's transcribed facts (and, for ``conversion``, the conversions of
:mod:`.conversions`): pure DP printed with δ > 0, δ printed as a formula, a split whose parts do
not add up to its total, a per-period budget with no stated horizon, a unit that differs between
sources, and a second parameterisation that no standard conversion reproduces at its printed value.
"""

from __future__ import annotations

from dataclasses import dataclass

import privrisk.explain.atlas.conversions as conversions

from .schema import Atlas, Entry

KINDS = {
    "pure-with-delta": "pure DP stated with δ > 0",
    "formula-delta": "δ printed as a formula, not a number",
    "split": "a split whose parts do not add up to its total",
    "no-horizon": "a per-period budget with no stated horizon",
    "unit": "the unit differs between sources",
    "conversion": "a second parameterisation no standard conversion reproduces at its printed value",
}


@dataclass(frozen=True)
class Lint:
    key: str
    kind: str
    text: str


def _half_ulp(x: float) -> float:
    return 0.5 * 10.0 ** -conversions.decimals(x, "")


def entry_lints(e: Entry) -> list[Lint]:
    out = []
    pure = e.variant == "pure" or e.stated_variant.lower() == "pure dp"
    for p in e.parameters:
        if pure and p.delta:
            out.append(Lint(e.key, "pure-with-delta", f"stated as pure DP, yet δ = {p.delta:g}"))
        if p.delta_formula:
            out.append(
                Lint(e.key, "formula-delta", f"δ = {p.delta_formula} depends on the data size n")
            )
    if e.split is not None:
        s = e.split
        total = s.factor * sum(s.parts)
        tol = _half_ulp(s.total) + s.factor * sum(_half_ulp(x) for x in s.parts)
        if abs(total - s.total) > tol:
            factor = f"{s.factor:g} × " if s.factor != 1 else ""
            out.append(
                Lint(
                    e.key,
                    "split",
                    f"{s.text}: {factor}({' + '.join(f'{x:g}' for x in s.parts)}) = {total:.4g}, "
                    f"not the stated {s.parameter} = {s.total:g}",
                )
            )
    if e.published and e.per_period and e.horizon is None:
        out.append(
            Lint(
                e.key,
                "no-horizon",
                f"a budget per {e.period} with no stated horizon: the total over time is unbounded "
                "(see --periods N)",
            )
        )
    for o in e.other_units:
        if o.unit != e.unit:
            out.append(Lint(e.key, "unit", f"unit {e.unit} here, {o.unit} in {o.source}"))
    for f in conversions.findings(e):
        if not any(c.exact for c in f.checks):
            out.append(Lint(e.key, "conversion", f"{f.label}: {f.published}: {f.verdict}"))
    return out


def lints(atlas: Atlas) -> list[Lint]:
    return [x for e in atlas.entries for x in entry_lints(e)]
