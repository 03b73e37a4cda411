"""The audit's verdict on a claimed guarantee: refuted, consistent, or a design that cannot refute.

* **refuted** — the claim's lower bound (in the claim's own form, :mod:`.forms`) exceeds it; the
  p-value is then at most 1 − confidence, and only then.
* **consistent** — not refuted, and the design could have refuted it: perfectly separated scores
  (every hit, every guess right) of the same numbers of canaries would have. More canaries at this
  attack's strength are no promise of a refutation (an audit is a lower bound: a stronger attack
  might give one).
* **uninformative** — no outcome of these numbers of canaries could refute the claim: even the best
  one gives a bound that does not exceed it. A property of the design, never of the noise;
  ``canaries_needed`` is the smallest design (same proportions) whose best outcome would refute,
  or None (never up to :data:`MAX_CANARIES`).

In the project's verdict vocabulary (:class:`privrisk.contract.verdicts.Verdict`) the statement is "the
claimed guarantee holds against this attack": consistent is ok, refuted fails, uninformative is
uninformative.
"""

from __future__ import annotations

REFUTED = "refuted"
CONSISTENT = "consistent"
UNINFORMATIVE = "uninformative"
VERDICTS = (REFUTED, CONSISTENT, UNINFORMATIVE)
#: the largest design a plan may ask for
MAX_CANARIES = 10**9


def decide(*, refuted: bool, design_can_refute: bool) -> str:
    if refuted:
        return REFUTED
    return CONSISTENT if design_can_refute else UNINFORMATIVE


def _n(x: float) -> str:
    return f"{x:.4g}"


def note(
    verdict: str,
    *,
    claim: str,
    parameter: str,
    claimed: float,
    lower: float | None,
    best: float | None,
    p_value: float,
    confidence: float,
    needed,
    unit: str,
    design: str,
    limit: int = MAX_CANARIES,
) -> str:
    """One sentence with the numbers, naming the bound in the claim's own form."""
    alpha = 1 - confidence
    bound = "" if lower is None else f"lower bound {parameter} >= {_n(lower)}; "
    if verdict == REFUTED:
        return (
            f"{claim} is refuted at confidence {confidence:g}: {bound}the claim says "
            f"{_n(claimed)} (p = {p_value:.3g} <= {alpha:.3g})"
        )
    if verdict == CONSISTENT:
        reach = "" if best is None else f"; the best outcome of this design would give {_n(best)}"
        return (
            f"{claim} is consistent with this audit: {bound}the claim says {_n(claimed)} "
            f"(p = {p_value:.3g}){reach}"
        )
    more = (
        f"about {needed:,} {unit} (same proportions) could"
        if needed is not None
        else f"no design up to {limit:,} {unit} could"
    )
    reach = "" if best is None else f" (best outcome: {parameter} >= {_n(best)})"
    return (
        f"this design cannot refute {claim}: even the best outcome of {design} does not exceed "
        f"{_n(claimed)}{reach}; {more}"
    )


def as_verdict(verdict: str, text: str):
    """The verdict as :class:`privrisk.contract.verdicts.Verdict` (for a claims ledger row)."""
    from privrisk.contract.verdicts import Verdict  # imported here: it pulls scipy.stats (a second)

    holds = {REFUTED: False, CONSISTENT: True, UNINFORMATIVE: None}[verdict]
    return Verdict(holds, text)
