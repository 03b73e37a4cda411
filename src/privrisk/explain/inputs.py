"""The one error of ``privrisk explain`` (bad input, naming the argument it is about) and the
checks of numeric inputs that raise it."""

from __future__ import annotations

import math


class BadInput(ValueError):
    """A user input the card cannot be made from. ``argument`` is the keyword of
    :func:`privrisk.explain.explain` (the command's flag is ``--`` + argument with ``-`` for ``_``)."""

    def __init__(self, argument: str, message: str):
        self.argument = argument
        self.message = message
        super().__init__(f"{argument}: {message}")

    @property
    def flag(self) -> str:
        return "--" + self.argument.replace("_", "-")


def number(name: str, value, *, lo=None, hi=None, lo_open=False, hi_open=False, inf_ok=False):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise BadInput(name, f"must be a number, got {value!r}") from None
    if math.isnan(x):
        raise BadInput(name, "must be a number, got NaN")
    if math.isinf(x) and not inf_ok:
        raise BadInput(name, f"must be finite, got {value!r}")
    if lo is not None and (x < lo or (lo_open and x == lo)):
        raise BadInput(name, f"must be {'>' if lo_open else '>='} {lo:g}, got {value!r}")
    if hi is not None and (x > hi or (hi_open and x == hi)):
        raise BadInput(name, f"must be {'<' if hi_open else '<='} {hi:g}, got {value!r}")
    return x


def integer(name: str, value, *, lo: int) -> int:
    x = number(name, value, lo=lo)
    if x != int(x):
        raise BadInput(name, f"must be a whole number, got {value!r}")
    return int(x)
