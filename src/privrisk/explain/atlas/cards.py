"""Each deployment's headline numbers, and one deployment's full card.

Three numbers per parameter set, each with the unit and the period it is for: the membership
advantage bound (TPR − FPR of any test, from the trade-off curve), the posterior of an attacker who
would guess a yes/no secret with probability ``prior`` (default ½) without the release, and the
reconstruction success of one who would guess one of ``1/reconstruction_prior`` equally likely
values (default 1 %). A per-period budget is shown per period and, where a horizon is stated or
``periods`` is given, composed over it (:mod:`.compose`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import privrisk.explain.atlas.adapter as adapter
import privrisk.explain.atlas.channels as channels

from .reading import (  # noqa: F401  (re-exported: the atlas's public reading API)
    PRIOR,
    DeploymentReading,
    _composed,
    _set_key,
    check_periods,
    find,
    read,
)
from .schema import Atlas, AtlasError, Entry, load

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
    #: a local randomizer's channel the numbers are read through (:mod:`.channels`), by name
    channel: str = ""

    @property
    def has_numbers(self) -> bool:
        return self.membership_advantage is not None


def card(r: adapter.Reading, *, prior: float, **attacker):
    """The risk card of ``r``'s guarantee against an attacker with prior success ``prior`` for
    one secret (and any other attacker argument of :func:`privrisk.explain.explain`)."""
    from privrisk.explain import BadInput, explain

    try:
        return explain(r.guarantee, prior=prior, **attacker)
    except BadInput as err:  # e.g. a composed profile whose δ never gets as small as asked
        raise adapter.NoCard(f"the card refuses it: {err}") from None


def _headline(e, p, scope, g, *, prior, reconstruction_prior, note="") -> Headline:
    a = card(g, prior=prior)
    b = card(g, prior=reconstruction_prior)
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


def _dp_note(e: Entry) -> str:
    if e.model == "central":
        return ""
    return (
        f"{e.model} model: the randomizer ({e.mechanism}) is not published in enough detail to "
        "read its channel; shown as ε-DP, a bound for every mechanism with this ε"
    )


def _local(e, p, scope, g, *, prior, reconstruction_prior) -> Headline | None:
    """A local randomizer's numbers through its published channel (:mod:`.channels`), or None
    when it has none."""
    ch = channels.of(p.channel, p.epsilon)
    if ch is None:
        return None
    return Headline(
        key=_set_key(e, p),
        entry=e,
        label=p.label,
        unit=e.unit_of(p),
        scope=scope,
        printed=g.description,
        membership_advantage=ch.advantage(),
        posterior=ch.binary_success(prior),
        reconstruction=ch.reconstruction(reconstruction_prior),
        epsilon=p.epsilon,
        note=f"local model, through its channel: {ch.name}, {p.channel['text']} (one report; "
        "the advantage is between two values of one user's report)",
        assumptions=g.assumptions,
        channel=ch.name,
    )


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
            out.append(
                _local(e, p, per, g, **kw) or _headline(e, p, per, g, **kw, note=_dp_note(e))
            )
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
                why_dp = (
                    "composed as ε-DP (the channel is read for one report)"
                    if p.channel
                    else _dp_note(e)
                )
                out.append(_headline(e, p, scope, _composed(e, p, n, adjacency), **kw, note=why_dp))
            except adapter.NoCard as err:
                out.append(Headline(_set_key(e, p), e, p.label, e.unit_of(p), scope, p.printed,
                                    note=str(err)))  # fmt: skip
    return out


def headlines(atlas: Atlas | None = None, **kw) -> list[Headline]:
    atlas = atlas or load()
    return [h for e in atlas.entries for h in entry_headlines(e, **kw)]


def card_for(
    key: str,
    *,
    prior: float | None = None,
    periods: int | None = None,
    adjacency: str | None = None,
):
    """The full risk card of one deployment's parameter set (``KEY`` or ``KEY/LABEL``), over
    ``periods`` periods if given (else its stated horizon, else one period), with the facts it
    was read from and every assumption added (adjacency, horizon, prior) in its settings: the
    card of ``privrisk.explain(deployment=key, ...)``; AtlasError naming the flag."""
    from privrisk.explain import BadInput, explain

    try:
        return explain(deployment=key, periods=periods, adjacency=adjacency, prior=prior)
    except BadInput as err:
        raise AtlasError(f"{err.flag}: {err.message}") from None
