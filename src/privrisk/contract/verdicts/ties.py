"""Ties of a bounded outcome: a sample whose every unit showed the same value is not an exact
number; the exact binomial bound on the share of units that could differ turns it into an interval
(package docstring, "Ties of a bounded outcome get an exact bound")."""

from __future__ import annotations

import math

from .levels import Z, alpha_of


def tie_share(n: int, z: float = Z) -> float:
    """The largest share of units that could differ from a value that all ``n`` units showed: the
    q with (1 − q)^n = α(z)/2, the one-sided exact binomial bound at the level of one side of a
    ±z interval (30 ties at the robust ±3: 19.8 %; the "rule of three" is its 95 % cousin)."""
    if not n >= 1:
        raise ValueError(f"a tie needs n >= 1 units, got {n!r}")
    return float(-math.expm1(math.log(alpha_of(z) / 2.0) / n))


def tie_interval(
    value: float, bounds: tuple[float, float], n: int, z: float = Z
) -> tuple[float, float]:
    """The exact interval of the mean of ``n`` units that all showed ``value``, each unit's outcome
    in ``bounds = (a, b)``: at most a share :func:`tie_share` of them could differ, each by at most
    the distance to the end of its range: [v − q(v − a), v + q(b − v)]."""
    q = tie_share(n, z)
    a, b = bounds
    return value - q * (value - a), value + q * (b - value)
