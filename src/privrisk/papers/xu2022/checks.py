"""Decisions behind the xu2022 qualitative claims, kept apart from plotting so that each can be
tested on constructed numbers where it must fail or be undecidable.

Two gates come before any comparison, and failing either makes a claim ``uninformative``
(``holds=None``) with the numbers in its note:

* the model must leak: the member-vs-non-member AUC of its query is at least ``min_auc``;
* the estimate must stand out of its null baseline: estimate − null > the half-width of its
  interval (the error bar drawn). An estimate within its interval of the null is bias or noise.

Each function returns the keyword arguments ``holds`` and ``note`` of
:meth:`privrisk.claims.Ledger.qualitative`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Estimate:
    """An estimate with the same estimator's value on exchangeable halves of the hold-out
    (``null``) and the half-width ``half`` of its interval."""

    value: float
    null: float
    half: float

    @property
    def excess(self) -> float:
        return self.value - self.null

    @property
    def informative(self) -> bool:
        return self.excess > self.half

    def text(self, name: str = "estimate") -> str:
        return f"{name} {self.value:.3f} − null {self.null:.3f} = {self.excess:.3f} (half-width {self.half:.3f})"


def auc_gate(aucs: dict[str, float], min_auc: float) -> str:
    """'' when the model's best query AUC reaches ``min_auc``, else the reason it does not.

    Either direction counts (an AUC of 0.2 is a signal with members scoring lower)."""
    best = max(max(a, 1 - a) for a in aucs.values())
    if best >= min_auc:
        return ""
    shown = ", ".join(f"{k} {v:.3f}" for k, v in aucs.items())
    return f"model shows no clear membership signal: AUC {shown} < min_auc {min_auc:g}"


def _undecided(reasons: list[str], numbers: str) -> dict:
    return {"holds": None, "note": "uninformative: " + "; ".join(reasons) + f" [{numbers}]"}


def greater(
    big: Estimate,
    small: Estimate,
    *,
    gate: str = "",
    big_name: str = "first",
    small_name: str = "second",
) -> dict:
    """ "``big`` > ``small``" compared on their excesses over their nulls (bias-aware).

    Undecided unless the model leaks, at least one estimate stands out of its null, and the two
    excesses differ by more than the larger half-width (a smaller difference is noise either way).
    """
    numbers = f"{big.text(big_name)}; {small.text(small_name)}"
    reasons = [gate] if gate else []
    holds = order(big.excess - small.excess, max(big.half, small.half))
    if not (big.informative or small.informative):
        reasons.append("neither estimate stands out of its null baseline")
    elif holds is None:
        reasons.append(
            f"the excesses differ by {big.excess - small.excess:+.3f}, within the half-width"
        )
    if reasons:
        return _undecided(reasons, numbers)
    return {
        "holds": holds,
        "note": "" if holds else f"{small_name} is larger beyond its null [{numbers}]",
    }


def order(gap: float, half: float, margin: float = 0.0) -> bool | None:
    """ "``gap`` > ``margin``" decided against noise of half-width ``half``: True when
    gap − margin > half, False when margin − gap > half, None (undecided) in between — the one
    rule behind every "larger than" of xu2022 (:func:`greater`, optimal vs heuristic on held-out
    halves, the skin figures' comparisons of excesses)."""
    if gap - margin > half:
        return True
    if margin - gap > half:
        return False
    return None


def optimal_ge_heuristic(
    estimates: dict[str, Estimate],
    optimal: dict[str, float],
    heuristic: dict[str, float],
    half: dict[str, float],
    *,
    gate: str = "",
) -> dict:
    """ "The optimal adversary beats the heuristic" for every query type, both *scored on held-out
    data* (:func:`order` of their gap with the held-out half-width ``half[k]``); undecided when the
    model does not leak, an estimate is within its null interval, or a gap is within its half-width."""
    numbers = "; ".join(
        f"{k}: held-out optimal {optimal[k]:.3f} vs heuristic {heuristic[k]:.3f} "
        f"(half-width {half[k]:.3f}), {estimates[k].text('W')}"
        for k in estimates
    )
    reasons = [gate] if gate else []
    flat = [k for k, e in estimates.items() if not e.informative]
    if flat:
        reasons.append(f"estimate within its interval of the null for {', '.join(flat)}")
    decided = {k: order(optimal[k] - heuristic[k], half[k]) for k in estimates}
    worse = [k for k, o in decided.items() if o is False]
    if worse and not gate:
        return {
            "holds": False,
            "note": f"heuristic better on held-out data beyond the half-width for "
            f"{', '.join(worse)} [{numbers}]",
        }
    tied = [k for k, o in decided.items() if o is None]
    if tied:
        reasons.append(f"held-out gap within the half-width for {', '.join(tied)}")
    if reasons:
        return _undecided(reasons, numbers)
    return {"holds": True, "note": ""}


def comparable(optimal: Estimate, heuristic: float, within: float, *, gate: str = "") -> dict:
    """ "Heuristic ≈ optimal": |optimal − heuristic| <= ``within`` (a fixed tolerance in metric
    units, not the interval width, so the claim can fail)."""
    numbers = f"{optimal.text('optimal')}; heuristic {heuristic:.3f}; within {within:g}"
    reasons = [gate] if gate else []
    if not optimal.informative:
        reasons.append("the optimal adversary is within its interval of the null")
    if reasons:
        return _undecided(reasons, numbers)
    gap = heuristic - optimal.value
    holds = abs(gap) <= within
    side = "better" if gap > 0 else "worse"
    return {
        "holds": holds,
        "note": "" if holds else f"heuristic {side} by {abs(gap):.3f} > {within:g} [{numbers}]",
    }


def below_bound(
    estimates: dict[float, Estimate],
    bounds: dict[float, float],
    control: Estimate | None,
    *,
    gate: str = "",
) -> dict:
    """ "The estimated advantage is below the DP bound at every ε".

    Fails when some ε's excess over its null minus its half-width is above the bound. Holds when
    every upper end excess + half-width is below the bound *and* the non-private control
    (ε = ∞, same architecture) stands out of its null — without that the pipeline could not have
    seen leakage at all. Otherwise undecided.
    """
    parts = [f"ε={e:g}: {est.text()} vs bound {bounds[e]:.3f}" for e, est in estimates.items()]
    numbers = "; ".join(parts + ([control.text("control ε=∞")] if control else ["no ε=∞ control"]))
    above = [e for e, est in estimates.items() if est.excess - est.half > bounds[e]]
    if above:
        return {
            "holds": False,
            "note": f"above the bound at ε = {', '.join(f'{e:g}' for e in above)} [{numbers}]",
        }
    reasons = [gate] if gate else []
    if control is None or not control.informative:
        reasons.append("the non-private control shows no leakage beyond its null")
    undecided = [e for e, est in estimates.items() if est.excess + est.half >= bounds[e]]
    if undecided:
        reasons.append(
            f"interval reaches the bound at ε = {', '.join(f'{e:g}' for e in undecided)}"
        )
    if reasons:
        return _undecided(reasons, numbers)
    return {"holds": True, "note": ""}


def max_individual_below_bound(
    lo_max: float, hi_max: float, bound: float, *, control_ok: bool, gate: str = ""
) -> dict:
    """ "Even the highest individual risk is below the bound": fails when some point's interval
    lies wholly above it (lower end > bound); holds when every point's upper end is below it and
    the control leaks; otherwise undecided."""
    numbers = f"max lower end {lo_max:.3f}, max upper end {hi_max:.3f}, bound {bound:.4f}"
    if lo_max > bound:
        return {"holds": False, "note": f"a point's whole interval is above the bound [{numbers}]"}
    reasons = [gate] if gate else []
    if not control_ok:
        reasons.append("the non-private control shows no leakage beyond its null")
    if hi_max >= bound:
        reasons.append("some point's interval reaches the bound")
    if reasons:
        return _undecided(reasons, numbers)
    return {"holds": True, "note": ""}
