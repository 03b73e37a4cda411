"""The one place the atlas meets the rest of privrisk: an entry's parameter set as a guarantee and
its risk card (:func:`card`), and the conversions between ρ, μ and (ε, δ) the lint compares with
the published numbers. Nothing else in this package imports :mod:`privrisk.explain` or
:mod:`privrisk.accounting`, so moving to another guarantee type is an edit here alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .schema import Entry, Parameters

#: the adjacency a card assumes when no source states one: add/remove is the safe reading (the
#: reconstruction rows read a replace-one guarantee from it by group privacy, so they can only grow)
ASSUMED_ADJACENCY = "add-remove"


class NoCard(ValueError):
    """This parameter set cannot be read as a guarantee (a δ given as a formula, no parameters)."""


@dataclass(frozen=True)
class Guarantee:
    """What :func:`card` hands to ``privrisk.explain``: the keyword arguments, and the assumptions
    it added to the published facts (each printed beside the card, each overridable)."""

    kwargs: dict
    assumptions: tuple[str, ...]
    description: str


def guarantee(
    entry: Entry,
    params: Parameters,
    *,
    adjacency: str | None = None,
    profile: dict | None = None,
    delta: float | None = None,
    rho: float | None = None,
    mu: float | None = None,
    description: str = "",
) -> Guarantee:
    """The explain arguments of one parameter set (or of a composed profile, ρ or μ that
    :mod:`.compose` made from it). ρ wins over μ over ε where several are printed: it is the
    object the publisher accounted with; the others are conversions the lint checks."""
    assumptions = []
    if adjacency is None:
        if entry.adjacency == "unknown":
            adjacency = ASSUMED_ADJACENCY
            assumptions.append(
                "adjacency: not stated by any source; read as add-remove, the safe reading "
                "(override with --adjacency)"
            )
        else:
            adjacency = entry.adjacency
    else:
        assumptions.append(f"adjacency: {adjacency} (given; the source says {entry.adjacency})")
    kw: dict = {"adjacency": adjacency}
    delta = params.delta if delta is None else delta
    if profile is not None:
        kw["profile"] = profile
    elif rho is not None or params.rho is not None:
        kw["rho"] = rho if rho is not None else params.rho
    elif mu is not None or params.mu is not None:
        kw["mu"] = mu if mu is not None else params.mu
    elif params.epsilon is not None:
        if params.delta_formula:
            raise NoCard(
                f"{entry.key}: δ is printed as a formula ({params.delta_formula}), not a number; "
                "no card without a δ"
            )
        kw["epsilon"] = params.epsilon
        if delta is not None:
            kw["delta"] = delta
        delta = None  # used as the guarantee's own δ above
    else:
        raise NoCard(f"{entry.key}: the parameter set prints no ε, ρ or μ")
    if delta is not None:
        kw["delta"] = delta
    return Guarantee(kw, tuple(assumptions), description or params.printed)


def card(g: Guarantee, *, prior: float):
    """The risk card of ``g`` against an attacker with prior success ``prior`` for one secret."""
    from privrisk.explain import BadInput, explain

    try:
        return explain(**g.kwargs, prior=prior)
    except BadInput as err:  # e.g. a composed profile whose δ never gets as small as asked
        raise NoCard(f"the card refuses it: {err}") from None


# --- conversions (the lint's and the tests') ---------------------------------------------------


def zcdp_simple(rho: float, delta: float) -> float:
    """Bun & Steinke's bound: ρ-zCDP ⇒ (ρ + 2√(ρ ln 1/δ), δ)-DP."""
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def zcdp_tight(rho: float, delta: float) -> float:
    """Canonne, Kamath & Steinke's conversion of ρ-zCDP (RDP ρα) to (ε, δ), as accounting does."""
    from privrisk import accounting

    orders, rdp = accounting.zcdp_rdp(rho=rho)
    return float(accounting.rdp_epsilon(orders=orders, rdp=rdp, delta=delta))


def gdp_epsilon(mu: float, delta: float) -> float:
    """The exact ε at δ of μ-GDP (Dong, Roth & Su)."""
    from privrisk import accounting

    return float(accounting.gaussian_epsilon(delta=delta, mu=mu))


def with_facts(card, facts, assumptions: tuple[str, ...]):
    """The card with the deployment's facts as settings and the assumptions as notes."""
    from dataclasses import replace

    from privrisk.explain import Setting

    settings = tuple(Setting(f"atlas.{name}", name, text) for name, text in facts)
    notes = tuple(f"assumed: {a}" for a in assumptions)
    return replace(card, settings=settings + card.settings, notes=notes + card.notes)


def dpsgd_epsilon(*, noise_multiplier: float, sample_rate: float, steps: int, delta: float):
    """The accountant's ε of DP-SGD (add/remove, every iterate released): the card's bound."""
    from privrisk import accounting

    return float(
        accounting.dpsgd_epsilon(
            noise_multiplier=noise_multiplier,
            sample_rate=sample_rate,
            steps=steps,
            delta=delta,
            accountant="pld",
        )
    )
