"""A claimed guarantee, the same value ``privrisk explain`` takes, in the forms an audit tests.

Any form ``explain`` accepts (ε; (ε, δ); μ; σ with sensitivity; DP-SGD with its accountant; ρ;
an RDP curve; a profile) is a :class:`privrisk.explain.Guarantee`, parsed and checked there and
accounted by :func:`privrisk.explain.accounted.account`, never here. An audit then needs:

* membership: the trade-off function f of the guarantee *as stated* (a canary in or out of the
  training data is the stated adjacency's neighbouring pair): G_μ for μ-GDP, the profile's f for
  DP-SGD, f_{ε,δ} otherwise;
* reconstruction: (ε, δ) pairs under replace-one (Swanberg et al.'s Theorem 3.5 is stated for
  replacing one record), every pair of the privacy profile where one is known;
* one-run audits: (ε, δ) pairs as stated (each canary is included or not).

A profile gives many valid (ε, δ) pairs; each gives a valid bound on the same probability, so the
smallest p-value over them is still valid (no multiplicity: the bounds hold together).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privrisk.bounds import tradeoff
from privrisk.explain import accounted
from privrisk.explain.guarantee import GUARANTEE_ARGS, Guarantee
from privrisk.explain.inputs import BadInput

from .errors import AuditInputError, flag

#: (ε, δ) pairs of a profile used by the pair-based tests (evenly spaced along the profile)
PROFILE_PAIRS = 40
_BELOW_ONE = float(np.nextafter(1.0, 0.0))


@dataclass(frozen=True)
class Claim:
    description: str
    stated: dict
    adjacency: str
    epsilon: float
    delta: float
    mu: float | None
    guarantee: object
    #: an RDP claim's curve (orders, values), read from its file
    rdp_curve: tuple | None = None

    def tradeoff(self, alpha):
        """f(α) of the guarantee as stated (membership)."""
        p = self.guarantee.as_stated
        if p.mu is not None:
            return tradeoff.tradeoff_gdp(alpha, mu=p.mu)
        if p.has_profile:
            eps, deltas = p.profile
            return tradeoff.tradeoff_from_profile(alpha, epsilons=eps, deltas=deltas)
        return tradeoff.tradeoff_approx(alpha, epsilon=p.epsilon, delta=min(p.delta, _BELOW_ONE))

    def pairs(self, view: str) -> list[tuple[float, float]]:
        """(ε, δ) pairs of the guarantee as stated (``"stated"``) or as replace-one."""
        p = self.guarantee.as_stated if view == "stated" else self.guarantee.replace_one
        out = [(float(p.epsilon), float(p.delta))]
        if p.has_profile:
            eps, deltas = p.profile
            idx = np.unique(np.linspace(0, eps.size - 1, PROFILE_PAIRS).astype(int))
            out += [(float(eps[i]), float(deltas[i])) for i in idx]
        return out


def from_arguments(guarantee: Guarantee | None, args: dict) -> tuple[dict, Claim | None]:
    """(the claim's arguments as given, by field: what the report records; the claim, or None
    when none is given). ``args`` are :class:`~privrisk.explain.Guarantee`'s fields as keywords;
    ``delta`` (and ``adjacency``) alone make no claim (``delta`` is then the audit's own δ). A
    keyword that is not a field is a TypeError, as for any function."""
    unknown = sorted(set(args) - set(GUARANTEE_ARGS))
    if unknown:
        raise TypeError(f"audit() got unexpected keyword arguments {unknown}")
    given = {k: args.get(k) for k in GUARANTEE_ARGS}
    if guarantee is not None:
        extra = [k for k, v in given.items() if v is not None]
        if extra:
            raise AuditInputError(flag(extra[0]), "the claim is given already as a Guarantee")
        recorded = guarantee.to_args()
        if guarantee.curve is not None:  # a curve by its name, as a file is recorded by its path
            recorded[guarantee.way] = guarantee.curve.name
        return {k: recorded.get(k) for k in GUARANTEE_ARGS}, of(guarantee)
    return given, parse(given)


def parse(args: dict) -> Claim | None:
    """The claim given by ``args`` (keys of :data:`privrisk.explain.GUARANTEE_ARGS`), or None
    when none is given."""
    given = {k: v for k, v in args.items() if v is not None}
    if not any(k in given for k in GUARANTEE_ARGS if k not in ("delta", "adjacency")):
        return None
    try:
        g = Guarantee(**given)
    except BadInput as err:
        raise AuditInputError(flag(err.argument), err.message) from None
    return of(g)


def of(value: Guarantee) -> Claim:
    """The claim of a guarantee: accounted (AuditInputError naming the argument where accounting
    finds what checking cannot, e.g. too little noise to account)."""
    try:
        g = accounted.account(value)
    except BadInput as err:
        raise AuditInputError(flag(err.argument), err.message) from None
    p = g.as_stated
    curve = None
    if value.rdp is not None:
        curve = (
            np.array([a for a, _ in value.rdp.pairs]),
            np.array([v for _, v in value.rdp.pairs]),
        )
    return Claim(
        description=g.description,
        stated=dict(g.stated),
        adjacency=str(getattr(g.adjacency, "value", g.adjacency)),  # a str or a str enum
        epsilon=float(p.epsilon),
        delta=float(p.delta),
        mu=p.mu,
        guarantee=g,
        rdp_curve=curve,
    )
