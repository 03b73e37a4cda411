"""The three lines of a DP-SGD card: one ε per threat model, side by side.

The card's rows assume what DP-SGD's accountant assumes: every iterate of training is released.
Most models release only the last, and the best attacks on the last iterate come nowhere near the
accountant's bound. So a DP-SGD card says, as a section of three lines, each naming the threat
model it assumes:

1. **every iterate released**: the accountant's upper bound (the card's own ε, as today);
2. **only the last iterate released**: the last-iterate heuristic of Steinke et al. (ICLR 2025,
   :mod:`privrisk.explain.atlas.last_iterate`): the ε of Binomial(T, q) + N(0, σ²T) against
   N(0, σ²T), exact for a linear loss and not a bound for every loss;
3. **this attack**: with ``--audit FILE``, the audit's lower bound ε̂ (joined when the audit's
   section is added to the card: :meth:`.card.RiskCard.with_section`, which cannot import this
   module, the card sitting below it).

The heuristic is computed for the add/remove pair of the paper; a card read as replace-one says so.
"""

from __future__ import annotations

import functools
import math

from .card import Row, Section
from .rows import num

KEY = "dpsgd"
TITLE = "DP-SGD by threat model: every iterate, the last iterate, your attack"
ROW_KEYS = ("dpsgd.accountant", "dpsgd.last_iterate", "dpsgd.audit")


def _eps(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "∞" if math.isinf(x) else num(x)


@functools.lru_cache(maxsize=64)
def last_iterate_epsilon(
    delta: float, noise_multiplier: float, sample_rate: float, steps: int
) -> float:
    """The last-iterate heuristic's ε at δ (:func:`privrisk.explain.atlas.last_iterate.epsilon`,
    a root of a root: a tenth of a second), kept for the next card of the same DP-SGD run."""
    import privrisk.explain.atlas.last_iterate as last_iterate

    return last_iterate.epsilon(
        delta, noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps
    )


def section(value, g) -> Section:
    """The section of a DP-SGD guarantee ``value`` (a :class:`~.guarantee.Guarantee`) accounted
    as ``g`` (:class:`~.accounted.Accounted`): the accountant's line and the last-iterate line."""
    s = g.as_stated
    delta = value.delta
    kw = {
        "noise_multiplier": value.noise_multiplier,
        "sample_rate": value.sample_rate,
        "steps": value.steps,
    }
    note = ""
    try:
        last = last_iterate_epsilon(delta, **kw)
    except (ValueError, OverflowError, FloatingPointError) as err:  # pragma: no cover - guard
        last, note = None, f"the heuristic could not be computed here ({err})"
    adj = str(g.adjacency)
    if adj != "add-remove":
        note = f"the heuristic is the paper's add/remove pair; the accountant's line is {adj}" + (
            f"; {note}" if note else ""
        )
    rows = (
        Row(
            key="dpsgd.accountant",
            group=KEY,
            label="Every iterate released: the accountant's upper bound",
            value=s.epsilon,
            text=f"ε ≤ {_eps(s.epsilon)} at δ = {delta:g}",
            source=f"DP-SGD accountant ({s.accounting})",
            attacker="Threat model: every iterate of training is released (what the accountant "
            "assumes); no attacker does better, whatever it sees.",
            adjacency=adj,
            function="privrisk.accounting.dpsgd_epsilon",
        ),
        Row(
            key="dpsgd.last_iterate",
            group=KEY,
            label="Only the last iterate released: the last-iterate heuristic",
            value=last,
            text=f"ε ≈ {_eps(last)} at δ = {delta:g}",
            source="Steinke et al. 2025, The Last Iterate Advantage (ICLR): Binomial(T, q) + "
            "N(0, σ²T) vs N(0, σ²T)",
            attacker="Threat model: only the final model is released; a heuristic, exact for a "
            "linear loss and what the best known attacks on the last iterate reach, not a bound "
            "for every loss (the paper gives counterexamples).",
            adjacency="add-remove",
            note=note,
            function="privrisk.explain.atlas.last_iterate.epsilon",
        ),
    )
    notes = (
        "The card's rows use the first line. Without an audit there is no third line: give "
        "--audit FILE with your attack's results for this attack's lower bound.",
    )
    return Section(key=KEY, title=TITLE, rows=rows, notes=notes)
