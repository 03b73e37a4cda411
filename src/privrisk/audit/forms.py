"""A claimed guarantee in its own form, and the audit's lower bound in that form.

For every form the verdict and the bound are one computation, so that by construction

    refuted  ⇔  lower > claimed

* ``epsilon`` (pure ε, (ε, δ)): ε̂ at the claim's δ against ε (f_{ε,δ} is refuted exactly when
  ε̂(δ) > ε, :func:`.family.epsilon_at`);
* ``mu`` (μ-GDP, a Gaussian mechanism): μ̂ against μ;
* ``rho`` (ρ-zCDP): ρ̂, the largest ρ whose privacy profile (explain's own conversion, at every
  order) the bounds refute, against ρ;
* ``rdp-scale`` (an RDP curve from a file): ĉ, the largest factor c for which the curve c·ε_α
  is refuted, against 1;
* ``profile`` (DP-SGD, a privacy profile from a file): the largest excess ε̂(δᵢ) − εᵢ over the
  claim's pairs (εᵢ, δᵢ), against 0 (the ε̂(δ) curve crosses the claimed profile).

A profile is a set of valid (ε, δ) pairs; its trade-off function is the largest of theirs, so it is
refuted exactly when one pair is. The bisections (ρ̂, ĉ) are seeded with the claim: the claimed
value is tried first and kept on its own side, so the returned bound is above the claim exactly
when the claim itself is refuted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import privrisk.audit.family as fam
from privrisk import accounting
from privrisk.audit.search import seeded_sup
from privrisk.explain import accounted
from privrisk.explain import guarantee as guarantee_mod


@dataclass(frozen=True)
class Form:
    name: str
    parameter: str  # what the bound is a bound on, in words
    claimed: float
    delta: float
    refutes: Callable  # (t_lo (K,), f_hi (K,), θ) -> bool: the claim with parameter θ refuted
    closed: Callable | None = None  # (t_lo (T, K), f_hi) -> (T,) the bound in closed form
    top: float = 1e6

    def refuted(self, t_lo, f_hi) -> np.ndarray:
        """(T,) whether the claim as stated is refuted by each trial's bounds."""
        if self.closed is not None:
            return self.closed(t_lo, f_hi) > self.claimed
        return np.array(
            [bool(self.refutes(t, f, self.claimed)) for t, f in zip(t_lo, f_hi, strict=True)]
        )

    def lower(self, t_lo, f_hi) -> np.ndarray:
        """(T,) the bound in the claim's form: above ``claimed`` exactly where refuted."""
        if self.closed is not None:
            return self.closed(t_lo, f_hi)
        return np.array(
            [
                seeded_sup(
                    lambda th, t=t, f=f: bool(self.refutes(t, f, th)), self.claimed, self.top
                )
                for t, f in zip(t_lo, f_hi, strict=True)
            ]
        )


def _profile_refutes(epsilons, deltas):
    e, d = np.asarray(epsilons, float), np.asarray(deltas, float)

    def margin(t, f):
        t, f = fam.frontier(np.ravel(t), np.ravel(f))
        return fam.epsilon_at(t[None, :], f[None, :], d)[0] - e

    return margin


def curve_profile(orders, values, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The privacy profile of an RDP curve exactly as ``privrisk explain`` builds it (a grid up to
    where δ < 10⁻¹² and the pair at the card's δ; Canonne, Kamath & Steinke at each order)."""
    top = accounting.rdp_epsilon(orders=orders, rdp=values, delta=1e-12)
    e = accounted.profile_grid(top)
    dl = np.asarray(accounting.rdp_delta(orders=orders, rdp=values, epsilon=e), dtype=float)
    exact = accounting.rdp_epsilon(orders=orders, rdp=values, delta=delta)
    return np.r_[e, exact], np.r_[dl, delta]


def _curve_refutes(orders, values, delta: float):
    cache: dict[float, tuple] = {}  # θ → profile: the p-value's bisection tries one θ many times

    def refutes(t, f, theta):
        if theta not in cache:
            cache[theta] = curve_profile(orders, theta * np.asarray(values, float), delta)
        e, d = cache[theta]
        return bool(np.any(_profile_refutes(e, d)(t, f) > 0))

    return refutes


def form_of(claim) -> Form:
    """The form of a parsed claim (:class:`privrisk.audit.claim.Claim`)."""
    g = claim.guarantee
    p = g.as_stated
    if p.mu is not None:
        return Form("mu", "μ (μ-GDP)", float(p.mu), float(p.delta), None, fam.mu_of)
    if g.kind == "zcdp":
        rho = float(g.stated["rho"])
        orders = accounting.ZCDP_ORDERS
        return Form(
            "rho",
            "ρ (ρ-zCDP)",
            rho,
            float(p.delta),
            _curve_refutes(orders, orders, float(p.delta)),
            top=guarantee_mod.MAX_RHO,
        )
    if g.kind == "rdp":
        orders, values = claim.rdp_curve
        return Form(
            "rdp-scale",
            "c: the claimed RDP curve times c is refuted",
            1.0,
            float(p.delta),
            _curve_refutes(orders, values, float(p.delta)),
        )
    if p.has_profile:
        e, d = p.profile
        margin = _profile_refutes(e, d)

        def excess(t_lo, f_hi):
            eh = fam.epsilon_at(t_lo, f_hi, np.asarray(d, float))  # (T, D)
            return np.max(eh - np.asarray(e, float), axis=-1)

        return Form(
            "profile",
            "largest ε̂(δ) − ε(δ) over the claimed privacy profile",
            0.0,
            float(p.delta),
            lambda t, f, th: bool(np.max(margin(t, f)) > th),
            excess,
        )
    delta = float(p.delta)
    return Form(
        "epsilon",
        f"ε at δ = {delta:g}",
        float(p.epsilon),
        delta,
        None,
        lambda t, f: fam.epsilon_at(t, f, delta),
    )
