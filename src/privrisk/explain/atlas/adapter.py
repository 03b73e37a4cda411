"""The one place the atlas meets the rest of privrisk: an entry's parameter set as the project's one
guarantee value, :class:`privrisk.explain.Guarantee` (:func:`guarantee`, with the assumptions the
reading added), its risk card (:func:`card`), and the conversions between ρ, μ and (ε, δ) the lint
compares with the published numbers. Nothing else in this package imports
:mod:`privrisk.explain` or :mod:`privrisk.accounting`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from privrisk.explain.guarantee import Guarantee

from .schema import Entry, Parameters

#: the adjacency a card assumes when no source states one: add/remove is the safe reading (the
#: reconstruction rows read a replace-one guarantee from it by group privacy, so they can only grow)
ASSUMED_ADJACENCY = "add-remove"


class NoCard(ValueError):
    """This parameter set cannot be read as a guarantee (a δ given as a formula, no parameters)."""


@dataclass(frozen=True)
class Reading:
    """A parameter set read as a guarantee: the :class:`privrisk.explain.Guarantee` value the card
    is made of, the assumptions the reading added to the published facts (each printed beside
    the card, each overridable) and how the card names it. Not a second guarantee type: the
    guarantee is ``guarantee``; the rest is what the atlas says about it."""

    guarantee: Guarantee
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
) -> Reading:
    """The guarantee of one parameter set (or of a composed profile, ρ or μ that :mod:`.compose`
    made from it), as a :class:`Reading`. ρ wins over μ over ε where several are printed: it is
    the object the publisher accounted with; the others are conversions the lint checks."""
    from privrisk.explain.inputs import BadInput

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
    try:
        value = Guarantee(**kw)
    except BadInput as err:  # e.g. an adjacency the guarantee does not know
        raise NoCard(f"{entry.key}: {err.flag}: {err.message}") from None
    return Reading(value, tuple(assumptions), description or params.printed)


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
