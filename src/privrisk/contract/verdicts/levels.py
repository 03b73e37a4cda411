"""The levels every rule decides at: the reported ±z, the robust factor, the planner's power, and
the conversions between a z and its two-sided level (the package docstring says why each)."""

from __future__ import annotations

import functools
import math

from scipy import stats

#: default half-width of an interval in standard errors (the reported level)
Z = 2.0
#: an experimental estimate decides at ROBUST · z (module docstring, "Robust decisions")
ROBUST = 1.5
#: the probability of deciding that the runs-to-decide planner aims for
POWER = 0.8
#: the planner reports "more than" this many units rather than searching further
PLAN_MAX = 10**9


def alpha_of(z: float) -> float:
    """Two-sided level of a ±z interval: 2(1 − Φ(z))."""
    return _alpha_of(float(z))


def t_quantile(z: float, df: float) -> float:
    """Student's t quantile with ``df`` degrees of freedom at the two-sided level of ±z."""
    return _t_isf(alpha_of(z) / 2.0, float(df))


# A keep-probability (keep.py) re-decides a row at a few hundred shifted estimates, each through
# these scalar scipy calls (tens of µs each) at the same handful of (z, df): remembering them
# returns the very same floats and made the rules several times faster.
@functools.lru_cache(maxsize=4096)
def _alpha_of(z: float) -> float:
    return float(2.0 * stats.norm.sf(z))


@functools.lru_cache(maxsize=4096)
def _t_isf(alpha: float, df: float) -> float:
    return float(stats.t.isf(alpha, df))


def bonferroni_z(z: float, k: int) -> float:
    """The z of each of k tests whose union keeps the level of one ±z test."""
    if k <= 1:
        return z
    return float(stats.norm.isf(alpha_of(z) / (2.0 * k)))


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "nan")
    return f"{x:.4g}"
