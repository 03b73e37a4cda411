"""Calibration: the parameter of a mechanism that meets a target ε, by one generic bisection.

Like dp_accounting's ``calibrate_dp_mechanism`` (a function from the parameter to ε, a target, a
bracket), and with opacus' bracket and stopping rule (``get_noise_multiplier``): the parameter
(noise) starts at ``start`` and doubles until ε is at most the target, then [``low``, that] is
halved until ε is within ``tolerance`` below it. The answer is always on the safe side (its ε is
<= the target), and a calibration made with opacus is reproduced wherever the ε functions agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable


class CalibrationLimit(ValueError):
    """No parameter up to ``limit`` meets the target."""

    def __init__(self, limit: float):
        self.limit = limit
        super().__init__(f"the target needs a parameter above {limit:g}")


def calibrate(
    epsilon_of: Callable[[float], float],
    target: float,
    *,
    tolerance: float,
    start: float = 20.0,
    limit: float = 1e6,
    low: float = 0.0,
) -> float:
    """The parameter x with ``epsilon_of(x)`` <= ``target`` and within ``tolerance`` of it, for an
    ε that falls as x grows (a noise scale). ``epsilon_of`` may return ∞ (no privacy to speak of
    at that x). CalibrationLimit when even ``limit`` does not meet the target."""
    if not tolerance > 0:
        raise ValueError(f"tolerance must be > 0, got {tolerance}")
    high, eps_high = start / 2, math.inf
    while eps_high > target:
        high *= 2
        if high > limit:
            raise CalibrationLimit(limit)
        eps_high = epsilon_of(high)
    while target - eps_high > tolerance:
        mid = (low + high) / 2
        e = epsilon_of(mid)
        if e < target:
            high, eps_high = mid, e
        else:
            low = mid
    return high
