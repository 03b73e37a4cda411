"""Ties of a bounded outcome: a sample whose every unit showed the same value is not an exact
number. Two bounds turn it into an interval, and the narrower one is used (package docstring,
"Ties of a bounded outcome get an exact bound"):

* **the exact bound**: at most a share q = 1 − (α/2)^(1/k) of the k independent units could
  differ (:func:`tie_share`), each by at most the distance to the end of its range — k counts
  draws, or **worlds** when the draws come in clusters (draws in one stand-in world are not
  independent evidence);
* **the near-tie bound**: a tie is at least as much evidence as the sample one ``step`` away
  (the smallest difference one unit's outcome can show: one record of a count, one success):
  n − 1 units at v and one at v ± step. That sample's mean is v ± step/n and its standard error
  step/n (over draws, and over k worlds of m draws each alike), so its interval at ±z reaches
  v ± (step/n)(1 + t_df) with the tie's degrees of freedom (n − 1, or k − 1 over worlds). Without
  it, 30 draws tied at a ceiling decided less than 29 ties and one draw one record below (the
  exact bound lets a differing draw be the whole range off; the near-tie's interval is the t
  interval the rules use for it): **a perfect tie never decides less than a near-tie**.

An outcome whose step is unknown (``step=None``: a continuous outcome, or one made from summaries
that do not say it is a count) has near-ties at every distance: n − 1 units at v and one at
v ± δ, or every unit within δ of v. Their t intervals are proportional to δ (the one-unit
near-tie's is v + (δ/n)(1 ± t)) and shrink onto v as δ → 0, from either side; so the tie is
**their limit**, the point v with open ends (:func:`tie_interval`): it decides what every near-tie
close enough to it decides, on either side, and where v sits on a rule's boundary (to round-off,
:data:`ROUND`) it decides nothing, as the near-ties there do (their intervals straddle v). Before,
such a tie kept the exact bound alone, and 30 draws tied at a ceiling read ``uninformative``
while every near-tie a hair below read ``ok`` (swanberg2025 Fig 5a at ε = ∞, whose summary rows
carry no step). This holds with or without a stated range: the near-ties' t intervals do not use
it. The exact bound stays where the step is known: there the nearest near-tie is a whole step
away, and the tie is the narrower of the two bounds.
"""

from __future__ import annotations

import math

from .levels import Z, alpha_of, t_quantile


def tie_share(n: float, z: float = Z) -> float:
    """The largest share of units that could differ from a value that all ``n`` units showed: the
    q with (1 − q)^n = α(z)/2, the one-sided exact binomial bound at the level of one side of a
    ±z interval (30 ties at the robust ±3: 19.8 %; the "rule of three" is its 95 % cousin)."""
    if not n >= 1:
        raise ValueError(f"a tie needs n >= 1 units, got {n!r}")
    return float(-math.expm1(math.log(alpha_of(z) / 2.0) / n))


def near_tie(n: float, step: float, df: float | None, z: float = Z) -> float:
    """The half-width (step/n)(1 + t) of the interval at ±z of the near-tie one ``step`` away from
    a tie of ``n`` units (``df``: its degrees of freedom; None: normal)."""
    q = z if df is None else t_quantile(z, df)
    return step / n * (1.0 + q)


#: the open ends of a tie of unknown step, relative to max(1, |v|): a tie within this of a rule's
#: boundary sits on it (the round-off of a mean of equal floats, 0.1 + 0.2 ≠ 0.3, is far smaller)
ROUND = 1e-9


def open_point(value: float) -> tuple[float, float]:
    """The limit of the near-ties of a tie at ``value`` of unknown step: the point with open ends
    (half-width :data:`ROUND` · max(1, |value|)), so that a rule comparing an end with its
    boundary decides as the near-ties do on both sides, and nothing at the boundary itself."""
    w = ROUND * max(1.0, abs(value))
    return value - w, value + w


def tie_interval(
    value: float,
    bounds: tuple[float, float] | None,
    n: int | None,
    z: float = Z,
    *,
    cluster: float = 1.0,
    step: float | None = None,
    df: float | None = None,
) -> tuple[float, float]:
    """The interval of the mean of ``n`` units that all showed ``value``, each unit's outcome in
    ``bounds = (a, b)`` (None: no stated range), the units in clusters of ``cluster`` (module
    docstring): with a known ``step`` the exact bound over the n / cluster independent clusters
    (when the range is stated), narrowed to the near-tie bound one step away; with an unknown
    step the limit of the near-ties, :func:`open_point`."""
    if step is None:
        return open_point(value)
    if n is None or n < 2:
        raise ValueError(f"a tie with a known step needs n >= 2 units, got {n!r}")
    lo, hi = -math.inf, math.inf
    if bounds is not None:
        a, b = bounds
        q = tie_share(max(n / cluster, 1.0), z)
        lo, hi = value - q * (value - a), value + q * (b - value)
    w = near_tie(n, step, df, z)
    return max(lo, value - w), min(hi, value + w)
