"""The audit's verdict on a claimed guarantee: refuted, consistent or uninformative.

* **refuted** — the p-value of the claim is at most 1 − confidence: the attack did better than
  any attack can against a mechanism with the claimed guarantee, beyond the confidence level.
* **uninformative** — not refuted, but the observed effect (the point estimates) lies beyond what
  the claim allows: the sample is too small to tell, and the report gives how many canaries (or
  targets) at the observed effect would decide.
* **consistent** — not refuted, and the observed effect lies within the claim: more canaries at
  this attack's strength would not refute it (an audit is a lower bound: a stronger attack might).

In the project's verdict vocabulary (:class:`privrisk.verdicts.Verdict`) the statement is "the
claimed guarantee holds against this attack": consistent is ok, refuted fails, uninformative
is uninformative.
"""

from __future__ import annotations

from privrisk.verdicts import Verdict

REFUTED = "refuted"
CONSISTENT = "consistent"
UNINFORMATIVE = "uninformative"
VERDICTS = (REFUTED, CONSISTENT, UNINFORMATIVE)


def decide(*, p_value: float, beyond_claim: bool, confidence: float) -> str:
    if p_value <= 1 - confidence:
        return REFUTED
    return UNINFORMATIVE if beyond_claim else CONSISTENT


def note(verdict: str, *, claim: str, p_value: float, confidence: float, needed, unit: str) -> str:
    alpha = 1 - confidence
    if verdict == REFUTED:
        return f"{claim} is refuted: p = {p_value:.3g} <= {alpha:.3g}"
    if verdict == CONSISTENT:
        return (
            f"{claim} is consistent with this audit (p = {p_value:.3g}); the observed effect lies "
            "within the claim"
        )
    more = (
        f"about {needed:,} {unit} at the observed effect would decide"
        if needed is not None
        else f"no affordable number of {unit} would decide at the observed effect"
    )
    return f"this audit cannot tell (p = {p_value:.3g} > {alpha:.3g}); {more}"


def as_verdict(verdict: str, text: str) -> Verdict:
    """The verdict as :class:`privrisk.verdicts.Verdict` (for a claims ledger row)."""
    holds = {REFUTED: False, CONSISTENT: True, UNINFORMATIVE: None}[verdict]
    return Verdict(holds, text)
