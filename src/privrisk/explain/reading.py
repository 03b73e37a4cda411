"""The card in plain words: one sentence that says what an attacker can and cannot do under the
guarantee, with the assumptions named, for a reader who will not read the rows.

It reads two rows: the tight membership advantage TPR − FPR (``membership.advantage_fdp``, the
total variation between the worlds with and without a record: the one number every guarantee has,
and the one the level is read from) and the smaller of the two one-guess bounds on a secret
(``reconstruction.beta``, ``reconstruction.baseline_fdp``, as the headline takes them). The level
words follow fixed cut-offs of that advantage, chosen before any card was read and stated in the
docs: at most 0.05 is strong (no test beats a coin by more than 5 points), 0.2 moderate, 0.5 weak,
0.9 very weak, and above 0.9 no meaningful protection (some test is right about nearly everyone).
"""

from __future__ import annotations

import math

from .accounted import Accounted
from .card import Row
from .guarantee import ADD_REMOVE

#: (largest advantage, words): the level of protection the sentence opens with
LEVELS = (
    (0.05, "Strong"),
    (0.2, "Moderate"),
    (0.5, "Weak"),
    (0.9, "Very weak"),
)


def level(advantage: float) -> str:
    if advantage <= 0:
        return "Perfect"
    for top, words in LEVELS:
        if advantage <= top:
            return words
    return "No" if advantage >= 1 else "No meaningful"


def pct(x: float) -> str:
    """A probability as a percentage with the digits it needs: 69.1 %, 0.272 %, 99.97 %."""
    if x >= 1:
        return "100 %"
    if x <= 0:
        return "0 %"
    if x > 0.99:
        for d in range(1, 10):
            text = f"{100 * x:.{d}f}"
            if not text.startswith("100"):
                return f"{text} %"
        return f"100 − {100 * (1 - x):.1e} %"
    return f"{100 * x:.3g} %"


def points(x: float) -> str:
    """A difference of two rates in percentage points, with the digits it needs."""
    return pct(x).replace(" %", " points")


def sentence(g: Accounted, a, rows: dict[str, Row]) -> str:
    adv = rows["membership.advantage_fdp"].value
    one = min(
        (rows[k] for k in ("reconstruction.beta", "reconstruction.baseline_fdp")),
        key=lambda r: math.inf if r.value is None else r.value,
    )
    words = level(adv)
    who = (
        "a person's record is in the data"
        if g.adjacency == ADD_REMOVE
        else "a person's record, rather than another, is in the data"
    )
    if words == "Perfect":
        return (
            "Perfect protection: the release says nothing about any one person; no attacker, "
            "whatever it knows, does better than its guess without the release."
        )
    opening = f"{words} worst-case protection" if words not in ("No",) else "No protection at all"
    member = (
        f"an attacker who knows the release and every other record can tell whether {who} "
        f"with a true-positive rate at most {points(adv)} above its false-positive rate"
    )
    if one.value is not None and one.baseline is not None:
        secret = (
            f", and one who would guess a person's secret right {pct(one.baseline)} of the time "
            f"without the release is right at most {pct(one.value)} of the time with it"
        )
    else:
        secret = ""
    return (
        f"{opening}: {member}{secret} ({g.adjacency} adjacency); these bound the strongest such "
        "attacker, and real attacks, which know less, usually do worse."
    )
