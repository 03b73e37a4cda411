"""Which conversion reproduces a publisher's second parameterisation (ρ and ε at δ; μ and ε).

A published number is rounded, and so is the parameter it was converted from: ρ = 4.96 stands for
any ρ in [4.955, 4.965]. A conversion *reproduces* the published ε when the ε it gives over that
interval, widened by half a unit of ε's own last printed digit, contains it; it does so *exactly*
when it does at the printed ρ itself. The ρ that the conversion would need (``implied``) says how
far off a conversion is when it does not.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from scipy import optimize

import privrisk.explain.atlas.adapter as adapter

from .schema import Entry, Parameters

#: name -> (what it is, ε of the parameter at δ)
CONVERSIONS = {
    "simple": ("ρ + 2√(ρ ln 1/δ) (Bun & Steinke)", adapter.zcdp_simple),
    "tight": ("Canonne, Kamath & Steinke's RDP conversion", adapter.zcdp_tight),
    "gaussian": (
        "μ-GDP with μ = √(2ρ) (exact for a Gaussian mechanism)",
        lambda rho, d: adapter.gdp_epsilon(math.sqrt(2 * rho), d),
    ),
}


@dataclass(frozen=True)
class Check:
    conversion: str
    what: str
    source: str  # the parameter converted, as printed ("ρ = 4.96")
    value: float  # ε it gives at the printed parameter
    exact: bool
    within_rounding: bool
    implied: float | None  # the parameter that gives the published ε exactly


@dataclass(frozen=True)
class Finding:
    """The checks of one parameter set and the verdict in words."""

    label: str
    published: str
    checks: tuple[Check, ...]
    verdict: str

    @property
    def reproduced_by(self) -> tuple[str, ...]:
        exact = tuple(c.conversion for c in self.checks if c.exact)
        return exact or tuple(c.conversion for c in self.checks if c.within_rounding)


def decimals(value: float, printed: str) -> int:
    """Digits after the point with which ``value`` appears in ``printed`` (7.70 has 2, though the
    float is 7.7); from the float's shortest form when the text does not show it."""
    for m in re.finditer(r"\d+(?:\.\d+)?", printed):
        if float(m.group()) == value:
            return len(m.group().partition(".")[2])
    return len(repr(float(value)).partition(".")[2].rstrip("0"))


def _half_ulp(value: float, printed: str) -> float:
    return 0.5 * 10.0 ** -decimals(value, printed)


def _check(
    name: str, x: float, hx: float, eps: float, he: float, delta: float, shown: str
) -> Check:
    what, f = CONVERSIONS[name]
    at = f(x, delta)
    lo, hi = f(max(x - hx, 1e-12), delta), f(x + hx, delta)
    implied = None
    g = lambda r: f(r, delta) - eps  # noqa: E731 (increasing in the parameter)
    a, b = 1e-9, max(2 * x, 1.0)
    while g(b) < 0 and b < 1e4:
        b *= 2
    if g(a) < 0 < g(b):
        implied = float(optimize.brentq(g, a, b, xtol=1e-10))
    return Check(
        conversion=name,
        what=what,
        source=shown,
        value=at,
        exact=abs(at - eps) <= he + 1e-12,
        within_rounding=lo - he <= eps <= hi + he,
        implied=implied,
    )


def check(entry: Entry, p: Parameters) -> Finding | None:
    """The conversions of a set that prints ρ (or μ) and ε at δ; None for any other set."""
    if p.epsilon is None or p.delta is None or (p.rho is None and p.mu is None):
        return None
    he = _half_ulp(p.epsilon, p.printed)
    checks = []
    if p.rho is not None:
        hr = _half_ulp(p.rho, p.printed)
        for name in CONVERSIONS:
            shown = f"ρ = {p.rho:.{decimals(p.rho, p.printed)}f}"
            checks.append(_check(name, p.rho, hr, p.epsilon, he, p.delta, shown))
    if p.mu is not None:
        # μ-GDP's ε at δ: the conversion is exact, so only rounding can separate them
        hm = _half_ulp(p.mu, p.printed)
        rho_of_mu = p.mu**2 / 2
        c = _check("gaussian", rho_of_mu, p.mu * hm, p.epsilon, he, p.delta, "")
        implied_mu = math.sqrt(2 * c.implied) if c.implied is not None else None
        checks.append(
            Check(
                "gdp",
                "μ-GDP's exact ε at δ (Dong, Roth & Su)",
                f"μ = {p.mu:.{decimals(p.mu, p.printed)}f}",
                c.value,
                c.exact,
                c.within_rounding,
                implied_mu,
            )
        )
    published = f"ε = {p.epsilon:g} at δ = {p.delta:g}"
    f = Finding(p.label or entry.key, published, tuple(checks), "")
    return Finding(f.label, published, f.checks, _verdict(f))


def _verdict(f: Finding) -> str:
    """At the printed parameter first; rounding of the parameter second, with what it needs."""
    exact = [c for c in f.checks if c.exact]
    if exact:
        return "reproduced at the printed value by " + ", ".join(
            f"{c.conversion} ({c.source} → {c.value:.4g})" for c in exact
        )
    at = ", ".join(f"{c.conversion} {c.value:.4g}" for c in f.checks)
    near = [c for c in f.checks if c.within_rounding]
    if near:
        return f"reproduced by none at the printed value ({at}); " + "; ".join(
            f"{c.conversion} does if {c.source} was rounded from {_implied(c)}" for c in near
        )
    return f"reproduced by none ({at}), even allowing for the rounding of the printed values"


def _implied(c: Check) -> str:
    sym = c.source.split()[0]
    return f"{c.implied:.4g}" if c.implied is not None else f"no {sym}"


def findings(entry: Entry) -> tuple[Finding, ...]:
    out = (check(entry, p) for p in entry.parameters)
    return tuple(f for f in out if f is not None)
