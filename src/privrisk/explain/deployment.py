"""A published deployment as the card's guarantee (``privrisk explain --deployment KEY``).

The atlas (:mod:`.atlas`) holds each deployment's facts as published; this module reads one
parameter set of it as the :class:`~.guarantee.Guarantee` the card is made of (over the horizon
the source states, or ``--periods N``; under the adjacency the source states, else add/remove,
or ``--adjacency``), and adds the facts and every assumption the reading added to the card's
settings, so that the card says what it was read from and what it took for granted.
"""

from __future__ import annotations

from dataclasses import replace

from .card import RiskCard, Setting
from .guarantee import Guarantee
from .inputs import BadInput, integer

#: explain's keyword arguments a deployment takes beside its key (the rest of the guarantee is the
#: deployment's own)
ARGS = ("deployment", "periods")


def _bad(err) -> BadInput:
    """The atlas's one-line error (``--flag: message``) as explain's error naming the flag."""
    text = str(err)
    flag, sep, message = text.partition(": ")
    if sep and flag.startswith("--") and " " not in flag:
        return BadInput(flag[2:].replace("-", "_"), message)
    return BadInput("deployment", text)


def resolve(key, periods, *, adjacency, prior_given: bool):
    """The deployment's reading (:class:`privrisk.explain.atlas.reading.DeploymentReading`);
    BadInput naming --deployment, --periods or --adjacency if it cannot be read."""
    # the reading only, never the atlas's cards: they call explain back (no import cycle)
    import privrisk.explain.atlas.reading as atlas_reading
    from privrisk.explain.atlas.schema import AtlasError

    if not isinstance(key, str) or not key.strip():
        raise BadInput("deployment", "needs a key (`privrisk atlas` lists them)")
    if periods is not None:
        periods = integer("periods", periods, lo=1)
    if adjacency is not None:
        Guarantee(epsilon=1, adjacency=adjacency)  # BadInput naming --adjacency if unknown
        adjacency = str(Guarantee(epsilon=1, adjacency=adjacency).adjacency)
    try:
        return atlas_reading.read(
            key.strip(), periods=periods, adjacency=adjacency, prior_given=prior_given
        )
    except AtlasError as err:
        raise _bad(err) from None


def unreadable(reading, err: BadInput) -> BadInput:
    """The card's refusal of a composed profile, said in the deployment's terms: n periods of
    (ε, δ) under add/remove reach no small δ once read as replace-one by group privacy (δ grows
    by 1 + e^{nε}), which the reconstruction rows need."""
    n, e = reading.periods, reading.entry
    what = f"{e.key} over {n} × {e.period}" if n else e.key
    return BadInput(
        "periods" if n else "deployment",
        f"{what}: the composed guarantee cannot be read as a card ({err.message}); under "
        f"{reading.reading.guarantee.adjacency} adjacency its replace-one reading goes through "
        "group privacy, which multiplies δ by 1 + e^ε: give fewer --periods, or --adjacency "
        "replace-one if the source's neighbours differ in one unit's value",
    )


def check_alone(guarantee_args: dict) -> None:
    """A deployment is the guarantee: no other form of it beside (the adjacency excepted)."""
    other = [k for k, v in guarantee_args.items() if v is not None and k != "adjacency"]
    if other:
        flag = "--" + other[0].replace("_", "-")
        raise BadInput(
            other[0],
            f"--deployment is the guarantee already; drop {flag} (or drop --deployment)",
        )


def decorate(card: RiskCard, reading) -> RiskCard:
    """The card with the deployment's facts and every assumption added first in its settings."""
    e = reading.entry
    settings = tuple(Setting(f"atlas.{name}", name, text) for name, text in reading.facts)
    settings += tuple(
        Setting(f"atlas.assumed.{a.split(':', 1)[0]}", "assumed", a) for a in reading.assumptions
    )
    settings += tuple(_adjacency_setting(s, reading) for s in card.settings)
    return replace(
        card,
        guarantee=f"{e.name} ({e.organisation}): {reading.reading.description} — {card.guarantee}",
        settings=settings,
    )


def _adjacency_setting(s: Setting, reading) -> Setting:
    """The adjacency line says where the deployment's adjacency came from (the guarantee value
    holds it as given, so the card's own line would say "(given)")."""
    if s.name != "adjacency":
        return s
    assumed = [a for a in reading.assumptions if a.startswith("adjacency:")]
    if not assumed:
        why = "(as the source states; override with --adjacency)"
    elif "(given;" in assumed[0]:
        why = assumed[0].split("(", 1)[1].rstrip(")").join("()")
    else:
        why = "(assumed: no source states it, and add-remove is the safe reading; override with --adjacency)"
    head = s.text.rsplit(" (", 1)[0] if s.text.endswith(")") else s.text
    return replace(s, text=f"{head} {why}")
