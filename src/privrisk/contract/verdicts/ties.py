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
"""

from __future__ import annotations

import math

from scipy import stats

from .levels import Z, alpha_of


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
    q = z if df is None else float(stats.t.isf(alpha_of(z) / 2.0, df))
    return step / n * (1.0 + q)


def tie_interval(
    value: float,
    bounds: tuple[float, float],
    n: int,
    z: float = Z,
    *,
    cluster: float = 1.0,
    step: float | None = None,
    df: float | None = None,
) -> tuple[float, float]:
    """The interval of the mean of ``n`` units that all showed ``value``, each unit's outcome in
    ``bounds = (a, b)``, the units in clusters of ``cluster`` (module docstring): the exact bound
    over the n / cluster independent clusters, narrowed to the near-tie bound when the outcome's
    ``step`` is known."""
    a, b = bounds
    q = tie_share(max(n / cluster, 1.0), z)
    lo, hi = value - q * (value - a), value + q * (b - value)
    if step is not None and n >= 2:
        w = near_tie(n, step, df, z)
        lo, hi = max(lo, value - w), min(hi, value + w)
    return lo, hi
