"""A claimed guarantee, parsed by ``privrisk explain``'s own parser, in the forms an audit tests.

Any form ``explain`` accepts (ε; (ε, δ); μ; σ with sensitivity; DP-SGD parameters) is parsed and
accounted by :func:`privrisk.explain.guarantee.parse`, never here. An audit then needs:

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
from privrisk.explain import GUARANTEE_ARGS
from privrisk.explain import guarantee as guarantee_mod
from privrisk.explain.inputs import BadInput, read_pairs

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


def parse(args: dict) -> Claim | None:
    """The claim given by ``args`` (keys of :data:`privrisk.explain.GUARANTEE_ARGS`), or None when none is given."""
    given = {k: v for k, v in args.items() if v is not None}
    if not any(k in given for k in GUARANTEE_ARGS if k not in ("delta", "adjacency")):
        return None
    try:
        g = guarantee_mod.parse(**{k: given.get(k) for k in GUARANTEE_ARGS})
    except BadInput as err:
        raise AuditInputError(flag(err.argument), err.message) from None
    p = g.as_stated
    curve = None
    if g.kind == "rdp":
        pairs = read_pairs("rdp", given["rdp"], what="order α and RDP ε_α")
        curve = (np.array([a for a, _ in pairs]), np.array([v for _, v in pairs]))
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
