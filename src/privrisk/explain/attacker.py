"""The attacker a card is about: what it knows before it sees the release.

- ``base_rate``: the fraction of candidates that are members (membership inference).
- the prior success for one secret: a probability (``prior``), "K equally likely values"
  (``values``), or per-target priors for many targets (``priors`` / a ``prior_file``, one number
  per line); the single-target rows then use the most exposed target (the largest prior).
- ``targets``: how many targets one run attacks (Swanberg et al.'s Theorem 3.5 quantiles).
- ``attribute_range``: the attribute's range in units of the precision the attacker needs
  (Pankova & Laud's approximate guessing: a guess counts if it is within ±1 unit).

Every default is stated on the card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .inputs import BadInput, integer, number, read_text

DEFAULT_BASE_RATE = 0.5
DEFAULT_VALUES = 2  # a yes/no secret
DEFAULT_TARGETS = 100
DEFAULT_ATTRIBUTE_RANGE = 20.0
#: the most targets of one run: Theorem 3.5's quantiles cost O(n log n) per (ε, δ) pair
#: (:func:`privrisk.bounds.reconstruction.success_quantiles`), so a card at this many per-target
#: priors over a whole privacy profile still takes a few seconds
MAX_TARGETS = 100_000


@dataclass(frozen=True)
class Attacker:
    base_rate: float
    prior: float
    prior_from: str
    values: int | None
    priors: tuple[float, ...]
    attribute_range: float
    defaults: tuple[str, ...]
    #: the per-target priors file as data (what a saved card records), when one was given
    prior_file: PriorFile | None = None

    @property
    def targets(self) -> int:
        return len(self.priors)


#: the smallest prior the card takes: below it 1/p overflows and logit p loses its digits
MIN_PRIOR = 1e-300


def _prior(name: str, value) -> float:
    p = number(name, value)
    if not 0 < p <= 1:
        raise BadInput(name, f"must be a probability in (0, 1], got {value!r}")
    if p < MIN_PRIOR:
        raise BadInput(name, f"must be at least {MIN_PRIOR:g} (a subnormal float), got {value!r}")
    return p


@dataclass(frozen=True)
class PriorFile:
    """Per-target priors read from a file, as a saved card records them (the file's name and its
    numbers: a card never depends on a file that may change after it was made)."""

    name: str
    priors: tuple[float, ...]

    def to_input(self) -> dict:
        return {"name": self.name, "priors": list(self.priors)}


def read_prior_file(path) -> tuple[float, ...]:
    """Per-target priors from a text/CSV file: one number per line, an optional one-word header,
    blank lines and ``#`` comments ignored. Anything else (several columns, no rows) is refused."""
    return prior_file_of(path).priors


def prior_file_of(value) -> PriorFile:
    """Per-target priors from a file name, or from what a saved card recorded
    (:meth:`PriorFile.to_input`)."""
    if isinstance(value, PriorFile):
        return value
    if isinstance(value, dict):
        if set(value) != {"name", "priors"} or not isinstance(value["name"], str):
            raise BadInput("prior_file", "saved per-target priors have the fields name and priors")
        if not isinstance(value["priors"], list) or not value["priors"]:
            raise BadInput("prior_file", "saved per-target priors must be a non-empty list")
        if len(value["priors"]) > MAX_TARGETS:
            raise BadInput("prior_file", f"at most {MAX_TARGETS:,} targets are supported")
        return PriorFile(value["name"], tuple(_prior("prior_file", x) for x in value["priors"]))
    path, text = read_text("prior_file", value)
    out = []
    header_seen = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f for f in line.replace(",", " ").replace(";", " ").split() if f]
        if len(fields) != 1:
            raise BadInput(
                "prior_file",
                f"{path}: expected one column of per-target priors (one number per line), "
                f"line {lineno} has {len(fields)} fields",
            )
        try:
            p = float(fields[0])
        except ValueError:
            if out or header_seen:
                raise BadInput(
                    "prior_file", f"{path}: line {lineno}: {fields[0]!r} is not a number"
                ) from None
            header_seen = True  # a column name such as "prior"
            continue
        if math.isnan(p) or not MIN_PRIOR <= p <= 1:
            raise BadInput(
                "prior_file",
                f"{path}: line {lineno}: prior {fields[0]} is outside [{MIN_PRIOR:g}, 1]",
            )
        out.append(p)
        if len(out) > MAX_TARGETS:
            raise BadInput(
                "prior_file", f"{path}: more than {MAX_TARGETS:,} targets; at most that many"
            )
    if not out:
        raise BadInput("prior_file", f"{path}: no priors in the file (one number per line)")
    return PriorFile(path.name, tuple(out))


def parse(
    *,
    base_rate=None,
    prior=None,
    values=None,
    priors=None,
    prior_file=None,
    targets=None,
    attribute_range=None,
) -> Attacker:
    defaults = []
    if base_rate is None:
        b = DEFAULT_BASE_RATE
        defaults.append("base_rate")
    else:
        b = number("base_rate", base_rate)
        if not MIN_PRIOR <= b <= 1 - 1e-16:
            raise BadInput(
                "base_rate", f"must be in [{MIN_PRIOR:g}, 1) (a fraction), got {base_rate!r}"
            )

    ways = [n for n, v in (("prior", prior), ("values", values), ("priors", priors),
                           ("prior_file", prior_file)) if v is not None]  # fmt: skip
    if len(ways) > 1:
        flags = " and ".join("--" + w.replace("_", "-") for w in ways)
        raise BadInput(ways[1], f"the prior is given more than one way ({flags}); give one")
    k = None
    per_target = None
    pf = None
    if prior is not None:
        p = _prior("prior", prior)
        prior_from = "given"
    elif values is not None:
        k = integer("values", values, lo=1)
        p = 1.0 / k
        prior_from = f"{k:,} equally likely values"
    elif priors is not None or prior_file is not None:
        if prior_file is not None:
            pf = prior_file_of(prior_file)
            per_target = pf.priors
            src = f"file {pf.name}"
        else:
            if isinstance(priors, str | bytes | dict):
                raise BadInput("priors", "must be a sequence of probabilities")
            try:
                if len(priors) > MAX_TARGETS:
                    raise BadInput("priors", f"at most {MAX_TARGETS:,} targets are supported")
                per_target = tuple(_prior("priors", x) for x in priors)
            except TypeError:
                raise BadInput("priors", "must be a sequence of probabilities") from None
            if not per_target:
                raise BadInput("priors", "is empty")
            src = "per-target priors"
        if targets is not None:
            raise BadInput(
                "targets", "give --targets or per-target priors, not both (each prior is a target)"
            )
        p = max(per_target)
        prior_from = f"{src}: {len(per_target):,} targets, the largest prior"
    else:
        k = DEFAULT_VALUES
        p = 1.0 / k
        prior_from = f"{k} equally likely values (a yes/no secret)"
        defaults.append("prior")

    if per_target is None:
        if targets is None:
            n = DEFAULT_TARGETS
            defaults.append("targets")
        else:
            n = integer("targets", targets, lo=1)
            if n > MAX_TARGETS:
                raise BadInput("targets", f"at most {MAX_TARGETS:,} are supported, got {n:,}")
        per_target = (p,) * n

    if attribute_range is None:
        m = DEFAULT_ATTRIBUTE_RANGE
        defaults.append("attribute_range")
    else:
        m = number("attribute_range", attribute_range)
        if not m > 2:
            raise BadInput(
                "attribute_range",
                f"must be > 2 precision units (a guess within ±1 unit covers 2), got {attribute_range!r}",
            )
    return Attacker(
        base_rate=b,
        prior=p,
        prior_from=prior_from,
        values=k,
        priors=per_target,
        attribute_range=m,
        defaults=tuple(defaults),
        prior_file=pf,
    )
