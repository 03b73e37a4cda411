"""One deployment read as a guarantee: its entry and parameter set found by key, composed over
its periods where it publishes a budget per period, with the facts it was read from and every
assumption added. Nothing here builds a card, so :mod:`privrisk.explain` can read a deployment
(``explain --deployment``) without importing the atlas's cards, which call it back."""

from __future__ import annotations

import math
from dataclasses import dataclass

import privrisk.explain.atlas.adapter as adapter
import privrisk.explain.atlas.channels as channels
import privrisk.explain.atlas.compose as compose

from .schema import Atlas, AtlasError, Entry, Parameters, load

#: the prior of one yes/no secret a deployment's card is read at unless --prior is given
PRIOR = 0.5


def _set_key(e: Entry, p: Parameters) -> str:
    return f"{e.key}/{p.label}" if p.label and len(e.parameters) > 1 else e.key


def _composed(e: Entry, p: Parameters, n: int, adjacency) -> adapter.Reading:
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


def check_periods(periods) -> int | None:
    if periods is None:
        return None
    if isinstance(periods, bool) or not isinstance(periods, int) or periods < 1:
        raise AtlasError(f"--periods: must be a positive whole number, got {periods!r}")
    return periods


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


@dataclass(frozen=True)
class DeploymentReading:
    """One deployment's parameter set read as a guarantee for its full card: the reading (the
    :class:`privrisk.explain.Guarantee` and the assumptions it added), the published facts as
    (name, text) pairs, and every assumption the card adds (adjacency, horizon, prior)."""

    entry: Entry
    params: Parameters
    reading: adapter.Reading
    facts: tuple[tuple[str, str], ...]
    assumptions: tuple[str, ...]
    periods: int | None


def read(
    key: str,
    *,
    periods: int | None = None,
    adjacency: str | None = None,
    prior_given: bool = False,
    atlas: Atlas | None = None,
) -> DeploymentReading:
    """The guarantee of one deployment's parameter set (``KEY`` or ``KEY/LABEL``) over
    ``periods`` periods if given (else its stated horizon, else one period), with the facts it
    was read from and every assumption added; AtlasError (one line, naming the flag) if it
    cannot be read."""
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
    elif periods and not e.per_period:
        raise AtlasError(
            f"--periods: {e.key} publishes a budget per {e.period}, not per period; drop --periods"
        )
    if not prior_given:
        assumptions.append(f"prior: {PRIOR:g} for one yes/no secret (override with --prior)")
    facts = (
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
    )
    if e.model != "central":
        facts += (("channel", _channel_fact(e, p)),)
    return DeploymentReading(e, p, g, facts, tuple(assumptions), n if e.per_period else None)


def _channel_fact(e: Entry, p: Parameters) -> str:
    """What a local randomizer's published channel gives for one report, beside the card's ε-DP
    rows (which hold for every ε-DP randomizer)."""
    ch = channels.of(p.channel, p.epsilon)
    if ch is None:
        return (
            f"{e.model} model; the randomizer ({e.mechanism}) is not published in enough detail "
            "to read its channel: the rows below are the ε-DP bounds"
        )
    return (
        f"through its published channel, {ch.name} ({p.channel['text']}), one report: two values "
        f"told apart with TPR − FPR at most {ch.advantage():.3g}; a yes/no secret at even odds "
        f"guessed right at most {ch.binary_success(0.5):.3g}; a one-in-a-hundred value at most "
        f"{ch.reconstruction(0.01):.3g}. The rows below are the ε-DP bounds, which hold for "
        "every ε-DP randomizer"
    )
