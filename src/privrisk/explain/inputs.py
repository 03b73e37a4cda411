"""The one error of ``privrisk explain`` (bad input, naming the argument it is about), the checks of
numeric inputs that raise it, and the files a card reads (an RDP curve, a privacy profile, per-target
priors), each turned into data that a saved card carries (:class:`Curve`), so that a card never
depends on a file that may change after it was made."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path


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
    if isinstance(value, bool):  # JSON true/false is not a number (a crafted saved card)
        raise BadInput(name, f"must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
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


# --- files ------------------------------------------------------------------------------------

#: the largest input file read (a curve or priors file of this size holds ~10⁶ lines)
MAX_FILE_BYTES = 20_000_000
#: the most (order, value) or (ε, δ) pairs a curve may have: every row is converted at each point
#: of the card's ε grid, so this bounds the time a card takes
MAX_PAIRS = 5_000

_DIRECTIVE = re.compile(r"^#\s*adjacency\s*[:=]\s*(?P<value>\S.*?)\s*$", re.IGNORECASE)


#: the kind of file each file-reading argument takes (:mod:`privrisk.core.file_kinds`)
KIND_OF = {"rdp": "rdp", "profile": "profile", "prior_file": "priors", "load": "card"}


def read_text(argument: str, path) -> tuple[Path, str]:
    """A small text file, or BadInput naming ``argument`` (empty name, a directory, missing,
    not a regular file, too large, not text, clearly a file of another kind than the argument
    takes: scores given to --rdp)."""
    from privrisk.core.file_kinds import mismatch
    from privrisk.core.safe_io import FileRefused, read_user_file

    if path is None or str(path).strip() == "":
        raise BadInput(argument, "needs a file name, got an empty one")
    flag = "--" + argument.replace("_", "-")
    try:  # a regular file only (a pipe would hang, /dev/zero fill memory), a stated size cap
        text = read_user_file(path, max_bytes=MAX_FILE_BYTES, what=flag)
    except FileRefused as err:
        raise BadInput(argument, str(err).removeprefix(f"{flag} ")) from None
    if argument in KIND_OF and (why := mismatch(text, KIND_OF[argument])):
        raise BadInput(argument, f"{path} {why}")
    return Path(str(path)), text


@dataclass(frozen=True)
class Curve:
    """Two columns of numbers from a file (an RDP curve: order α, ε_α; a privacy profile: ε, δ(ε)),
    with the adjacency the file states (a line ``# adjacency: add-remove``) or None."""

    name: str
    pairs: tuple[tuple[float, float], ...]
    adjacency: str | None = None

    def to_input(self) -> dict:
        """The curve as a saved card records it (and :func:`curve` reads back)."""
        return {
            "name": self.name,
            "pairs": [[_json_float(a), _json_float(b)] for a, b in self.pairs],
            "adjacency": self.adjacency,
        }


def _json_float(x: float):
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _adjacency(argument: str, value, where: str) -> str:
    from privrisk.accounting import Adjacency

    try:
        return Adjacency.parse(value).value
    except ValueError:
        names = ", ".join(a.value for a in Adjacency)
        raise BadInput(
            argument, f"{where}: adjacency must be one of {names}, got {value!r}"
        ) from None


def read_pairs(argument: str, path, *, what: str) -> tuple[tuple[float, float], ...]:
    """The pairs of :func:`read_curve` (the adjacency line, if any, dropped)."""
    return read_curve(argument, path, what=what).pairs


def read_curve(argument: str, path, *, what: str) -> Curve:
    """Two numeric columns (comma, tab, space or semicolon separated) from a text file: an
    optional header line, blank lines and ``#`` comments ignored, except ``# adjacency: NAME``,
    which states the adjacency the curve is for. BadInput naming ``argument`` and the line for
    anything else."""
    p, text = read_text(argument, path)
    out: list[tuple[float, float]] = []
    adjacency = None
    header_seen = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        m = _DIRECTIVE.match(raw.strip())
        if m:
            adj = _adjacency(argument, m["value"], f"{p}: line {lineno}")
            if adjacency is not None and adj != adjacency:
                raise BadInput(
                    argument, f"{p}: line {lineno}: a second adjacency ({adj}, first {adjacency})"
                )
            adjacency = adj
            continue
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
        if len(out) > MAX_PAIRS:
            raise BadInput(argument, f"{p}: more than {MAX_PAIRS:,} rows of {what}")
    if not out:
        raise BadInput(argument, f"{p}: no rows of {what}")
    return Curve(p.name, tuple(out), adjacency)


def curve(argument: str, value, *, what: str) -> Curve:
    """A curve from a file name, or from the data a saved card recorded (:meth:`Curve.to_input`)."""
    if isinstance(value, Curve):
        return value
    if not isinstance(value, dict):
        return read_curve(argument, value, what=what)
    if set(value) != {"name", "pairs", "adjacency"}:
        raise BadInput(argument, "a saved curve has the fields name, pairs and adjacency")
    name, pairs, adj = value["name"], value["pairs"], value["adjacency"]
    if not isinstance(name, str) or not isinstance(pairs, list) or not pairs:
        raise BadInput(argument, "a saved curve needs a name and a non-empty list of pairs")
    if len(pairs) > MAX_PAIRS:
        raise BadInput(argument, f"more than {MAX_PAIRS:,} pairs of {what}")
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, list) or len(pair) != 2:
            raise BadInput(argument, f"pair {i + 1}: expected two numbers ({what})")
        a = number(argument, pair[0], inf_ok=True)
        b = number(argument, pair[1], inf_ok=True)
        out.append((a, b))
    if adj is not None:
        adj = _adjacency(argument, adj, "the saved curve")
    return Curve(name, tuple(out), adj)
