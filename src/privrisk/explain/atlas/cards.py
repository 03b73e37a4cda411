"""Each deployment's headline numbers, and one deployment's full card.

Three numbers per parameter set, each with the unit and the period it is for: the membership
advantage bound (TPR − FPR of any test, from the trade-off curve), the posterior of an attacker who
would guess a yes/no secret with probability ``prior`` (default ½) without the release, and the
reconstruction success of one who would guess one of ``1/reconstruction_prior`` equally likely
values (default 1 %). A per-period budget is shown per period and, where a horizon is stated or
``periods`` is given, composed over it (:mod:`.compose`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import privrisk.explain.atlas.adapter as adapter
import privrisk.explain.atlas.compose as compose

from .schema import Atlas, AtlasError, Entry, Parameters, load

PRIOR = 0.5
RECONSTRUCTION_PRIOR = 0.01
#: the card's rows the three numbers come from
ROWS = {
    "membership_advantage": "membership.advantage_fdp",
    "posterior": "reconstruction.beta",
    "reconstruction": "reconstruction.beta",
}


@dataclass(frozen=True)
class Headline:
    key: str  # KEY or KEY/LABEL
    entry: Entry
    label: str
    unit: str
    scope: str  # "per day", "per release", "over 1019 days (stated horizon)", ...
    printed: str
    membership_advantage: float | None = None
    posterior: float | None = None
    reconstruction: float | None = None
    #: the ε the card accounts (at the entry's δ, else the card's default 10⁻⁵), for the figure
    epsilon: float | None = None
    note: str = ""
    assumptions: tuple[str, ...] = field(default=())

    @property
    def has_numbers(self) -> bool:
        return self.membership_advantage is not None


def _set_key(e: Entry, p: Parameters) -> str:
    return f"{e.key}/{p.label}" if p.label and len(e.parameters) > 1 else e.key


def _composed(e: Entry, p: Parameters, n: int, adjacency) -> adapter.Guarantee:
    """The guarantee of n periods of ``p`` by the exact accountant of its variant."""
    where = f"over {n} {e.period} periods"
    if p.rho is not None:
        return adapter.guarantee(
            e, p, adjacency=adjacency, rho=n * p.rho, description=f"ρ = {n} × {p.rho:g} ({where})"
        )
    if p.mu is not None:
        return adapter.guarantee(
            e, p, adjacency=adjacency, mu=p.mu * math.sqrt(n), description=f"μ√{n} ({where})"
        )
    if p.epsilon is None or p.delta_formula:
        return adapter.guarantee(e, p, adjacency=adjacency)  # raises NoCard with the reason
    prof = compose.profile(p.epsilon, p.delta or 0.0, n, name=f"{e.key} × {n}")
    # n periods of δ each cannot get below 1 − (1 − δ)^n: read the card's (ε, δ) rows at twice that
    floor = -math.expm1(n * math.log1p(-p.delta)) if p.delta else 0.0
    return adapter.guarantee(
        e,
        p,
        adjacency=adjacency,
        profile=prof,
        delta=max(p.delta, 2 * floor) if p.delta else None,
        description=f"{n}-fold optimal composition of {p.printed} ({where})",
    )


def _headline(e, p, scope, g, *, prior, reconstruction_prior, note="") -> Headline:
    a = adapter.card(g, prior=prior)
    b = adapter.card(g, prior=reconstruction_prior)
    return Headline(
        key=_set_key(e, p),
        entry=e,
        label=p.label,
        unit=e.unit_of(p),
        scope=scope,
        printed=g.description,
        membership_advantage=a.row(ROWS["membership_advantage"]).value,
        posterior=a.row(ROWS["posterior"]).value,
        reconstruction=b.row(ROWS["reconstruction"]).value,
        epsilon=a.setting("epsilon").value,
        note=note,
        assumptions=g.assumptions,
    )


def check_periods(periods) -> int | None:
    if periods is None:
        return None
    if isinstance(periods, bool) or not isinstance(periods, int) or periods < 1:
        raise AtlasError(f"--periods: must be a positive whole number, got {periods!r}")
    return periods


def entry_headlines(
    e: Entry,
    *,
    periods: int | None = None,
    prior: float = PRIOR,
    reconstruction_prior: float = RECONSTRUCTION_PRIOR,
    adjacency: str | None = None,
) -> list[Headline]:
    """The rows of one entry: per parameter set, per period, and over the horizon."""
    periods = check_periods(periods)
    if not e.published:
        return [Headline(e.key, e, "", e.unit, "—", "not published", note=e.not_published)]
    out = []
    kw = {"prior": prior, "reconstruction_prior": reconstruction_prior}
    for p in e.parameters:
        per = f"per {e.period}" if e.per_period else "per release"
        try:
            g = adapter.guarantee(e, p, adjacency=adjacency)
        except adapter.NoCard as err:
            out.append(Headline(_set_key(e, p), e, p.label, e.unit_of(p), per, p.printed,
                                note=str(err)))  # fmt: skip
            continue
        try:
            out.append(_headline(e, p, per, g, **kw))
        except adapter.NoCard as err:
            out.append(Headline(_set_key(e, p), e, p.label, e.unit_of(p), per, p.printed,
                                note=str(err)))  # fmt: skip
            continue
        n, why = (
            (periods, "--periods")
            if periods
            else ((e.horizon.periods, "stated horizon") if e.horizon else (None, ""))
        )
        if e.per_period and n:
            scope = f"over {n} × {e.period} ({why})"
            try:
                out.append(_headline(e, p, scope, _composed(e, p, n, adjacency), **kw))
            except adapter.NoCard as err:
                out.append(Headline(_set_key(e, p), e, p.label, e.unit_of(p), scope, p.printed,
                                    note=str(err)))  # fmt: skip
    return out


def headlines(atlas: Atlas | None = None, **kw) -> list[Headline]:
    atlas = atlas or load()
    return [h for e in atlas.entries for h in entry_headlines(e, **kw)]


def find(atlas: Atlas, key: str, flag: str = "--deployment") -> tuple[Entry, Parameters]:
    """The entry and parameter set of ``KEY`` (its first set) or ``KEY/LABEL``."""
    base, _, label = key.partition("/")
    try:
        e = atlas.entry(base)
    except KeyError:
        raise AtlasError(
            f"{flag}: no deployment {base!r} in the atlas (`privrisk atlas` lists the keys)"
        ) from None
    if not e.published:
        raise AtlasError(f"{flag}: {e.key} publishes no parameters ({e.not_published})")
    if not label:
        return e, e.parameters[0]
    for p in e.parameters:
        if p.label == label:
            return e, p
    labels = ", ".join(f"{e.key}/{p.label}" for p in e.parameters if p.label)
    raise AtlasError(f"{flag}: {e.key} has no parameter set {label!r}; choose {labels}")


def card_for(
    key: str,
    *,
    prior: float | None = None,
    periods: int | None = None,
    adjacency: str | None = None,
    atlas: Atlas | None = None,
):
    """The full risk card of one deployment's parameter set (``KEY`` or ``KEY/LABEL``), over
    ``periods`` periods if given (else its stated horizon, else one period), with the facts it
    was read from and every assumption added (adjacency, horizon, prior) in its settings."""
    atlas = atlas or load()
    e, p = find(atlas, key)
    periods = check_periods(periods)
    n = periods or (e.horizon.periods if e.per_period and e.horizon else None)
    try:
        g = (
            _composed(e, p, n, adjacency)
            if (e.per_period and n)
            else adapter.guarantee(e, p, adjacency=adjacency)
        )
    except adapter.NoCard as err:
        raise AtlasError(f"--deployment: {err}") from None
    assumptions = list(g.assumptions)
    if e.per_period and not n:
        assumptions.append(
            f"horizon: one {e.period} (the source states none; give --periods N for N of them)"
        )
    elif e.per_period and not periods:
        assumptions.append(f"horizon: {n} × {e.period} ({e.horizon.text}; override with --periods)")
    if prior is None:
        assumptions.append(f"prior: {PRIOR:g} for one yes/no secret (override with --prior)")
    facts = [
        ("deployment", f"{e.name} ({e.organisation}, {e.year})"),
        ("published", p.printed),
        ("unit", f"{e.unit_of(p)} (as printed: {e.unit_as_printed}); {e.model} model"),
        ("period", e.period + (f"; horizon {e.horizon.text}" if e.horizon else "")),
        (
            "source",
            ", ".join(
                ([f"{atlas.repository}@{atlas.commit[:7]}:{e.registry}"] if e.registry else [])
                + list(e.urls)
            ),
        ),  # fmt: skip
    ]
    try:
        card = adapter.card(g, prior=PRIOR if prior is None else prior)
    except adapter.NoCard as err:
        raise AtlasError(f"--deployment: {e.key}: {err}") from None
    return adapter.with_facts(card, facts, tuple(assumptions))
