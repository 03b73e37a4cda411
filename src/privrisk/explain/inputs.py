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


def read_pairs(argument: str, path, *, what: str) -> tuple[tuple[float, float], ...]:
    """Two numeric columns (comma, tab, space or semicolon separated) from a text file: an
    optional header line, blank lines and ``#`` comments ignored. BadInput naming ``argument``
    and the line for anything else."""
    from pathlib import Path

    p = Path(str(path))
    if not p.is_file():
        raise BadInput(argument, f"no such file: {p}")
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise BadInput(argument, f"cannot read {p}: {err}") from None
    out: list[tuple[float, float]] = []
    header_seen = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.replace(",", " ").replace(";", " ").split()
        if len(fields) != 2:
            raise BadInput(
                argument, f"{p}: line {lineno}: expected two columns ({what}), got {len(fields)}"
            )
        try:
            x, y = float(fields[0]), float(fields[1])
        except ValueError:
            if out or header_seen:
                raise BadInput(argument, f"{p}: line {lineno}: not two numbers: {line!r}") from None
            header_seen = True  # column names
            continue
        if math.isnan(x) or math.isnan(y):
            raise BadInput(argument, f"{p}: line {lineno}: NaN is not a number here")
        out.append((x, y))
    if not out:
        raise BadInput(argument, f"{p}: no rows of {what}")
    return tuple(out)
