"""The qualitative statements of lowy2024 as small functions of the plotted curves.

Each function takes the curve(s) (means and standard errors over trials) and returns the ledger
row, so a test can feed it a constructed curve on which the statement is false and see
``qualitative-fails`` (tests/papers/lowy2024/test_checks.py). Differences smaller than twice
their standard error are noise: a step of a "monotone" curve may go the wrong way by that much,
and a threshold that the estimate does not clear by that much is ``uninformative``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...claims import Claim
from .common import LEDGER

Curve = tuple[np.ndarray, np.ndarray]  # (mean, standard error) per grid point


def _fmt(x) -> str:
    return f"{float(x):.4g}"


def monotone(y, se, sign: int) -> tuple[bool, list[int]]:
    """(holds, indices of reversing steps): the curve moves in direction ``sign`` (+1 up, −1 down)
    from its first to its last point, and no step goes the other way by more than twice the
    standard error of that step's difference."""
    y, se = np.asarray(y, float), np.asarray(se, float)
    step = sign * np.diff(y)
    noise = 2.0 * np.hypot(se[1:], se[:-1])
    bad = [int(i) for i in np.nonzero(step < -noise)[0]]
    return bool(sign * (y[-1] - y[0]) > 0 and not bad), bad


def trend_claim(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x: Sequence[float],
    curves: Mapping[str, Curve],
    sign: int,
    note: str = "",
) -> Claim:
    """Every curve increases (sign = +1) or decreases (−1) with x, up to noise (:func:`monotone`)."""
    x = np.asarray(x, float)
    parts, ok_all, reasons = [], True, []
    for name, (y, se) in curves.items():
        ok, bad = monotone(y, se, sign)
        ok_all &= ok
        parts.append(f"{name}: {_fmt(y[0])} at x = {x[0]:g} -> {_fmt(y[-1])} at x = {x[-1]:g}")
        reasons += [
            f"{name} goes {'down' if sign > 0 else 'up'} from x = {x[i]:g} ({_fmt(y[i])}) to "
            f"x = {x[i + 1]:g} ({_fmt(y[i + 1])})"
            for i in bad
        ]
        if sign * (y[-1] - y[0]) <= 0:
            reasons.append(f"{name} ends {'below' if sign > 0 else 'above'} where it starts")
    if len(reasons) > 3:
        reasons = [*reasons[:3], f"… ({len(reasons) - 3} more)"]
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=ok_all,
        ours="; ".join(parts),
        note="; ".join(
            p for p in ("; ".join(reasons) + (" (beyond 2 s.e.)" if reasons else ""), note) if p
        ),
    )


def below_claim(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    values: Mapping[str, tuple[float, float]],
    threshold: float,
    note: str = "",
) -> Claim:
    """Every estimate (mean, s.e.) is below ``threshold``: ok when mean + 2 s.e. < threshold for
    all, fails when mean − 2 s.e. > threshold for one, else uninformative."""
    means = {k: float(m) for k, (m, _) in values.items()}
    ses = {k: float(s) for k, (_, s) in values.items()}
    if all(means[k] + 2 * ses[k] < threshold for k in means):
        holds = True
    elif any(means[k] - 2 * ses[k] > threshold for k in means):
        holds = False
    else:
        holds = None
    ours = "; ".join(f"{k} = {_fmt(means[k])} ± {ses[k]:.2g} (s.e.)" for k in means)
    extra = (
        ""
        if holds is not None
        else f"within 2 s.e. of the threshold {threshold:g}: estimate(s) {ours}; null: equal to "
        f"{threshold:g}; half-width 2 s.e."
    )
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=holds,
        ours=ours,
        note="; ".join(p for p in (extra, note) if p),
    )


def approaches_zero_claim(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x: Sequence[float],
    y: Curve,
    below: float,
    reference: float,
    factor: float = 0.02,
) -> Claim:
    """For x < ``below`` the curve falls towards 0 as x decreases: it is monotone there (up to
    noise) and its value at the smallest x is under ``factor`` × the value at x = ``reference``."""
    x = np.asarray(x, float)
    m, se = (np.asarray(a, float) for a in y)
    sel = x <= below
    mono, _ = monotone(m[sel], se[sel], +1)
    ref = float(m[np.isclose(x, reference)][0])
    small = bool(m[0] < factor * ref)
    ours = (
        "; ".join(f"x={a:g}: {_fmt(b)}" for a, b in zip(x[sel], m[sel], strict=True))
        + f"; at x = {reference:g}: {_fmt(ref)}"
    )
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=mono and small,
        ours=ours,
        note=""
        if mono and small
        else (
            f"not falling monotonically as x decreases below {below:g}"
            if not mono
            else f"value at x = {x[0]:g} is not below {factor:g} × the value at x = {reference:g}"
        ),
    )


def flat_claim(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x: Sequence[float],
    y: Sequence[float],
    rel: float = 0.1,
    note: str = "",
) -> Claim:
    """The curve does not depend significantly on x: its range is under ``rel`` × its mean."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    spread = float(np.ptp(y) / np.mean(y))
    holds = spread < rel
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=holds,
        ours=f"range {_fmt(y.min())}–{_fmt(y.max())} over x = {x[0]:g}..{x[-1]:g} "
        f"(relative range {spread:.1%}, criterion < {rel:.0%})",
        note=note
        if holds
        else "; ".join(p for p in (f"relative range {spread:.1%} >= {rel:.0%}", note) if p),
    )


def gap_claim(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x: Sequence[float],
    lower: Curve,
    upper: Curve,
    factor: float = 5.0,
) -> Claim:
    """A large gap between two curves, especially at large x: the gap upper − lower grows
    (monotone up to noise) and at the largest x it exceeds ``factor`` × the lower curve."""
    lo_m, lo_se = (np.asarray(a, float) for a in lower)
    up_m, up_se = (np.asarray(a, float) for a in upper)
    gap, gap_se = up_m - lo_m, np.hypot(up_se, lo_se)
    grows, _ = monotone(gap, gap_se, +1)
    large = bool(gap[-1] > factor * lo_m[-1])
    x = np.asarray(x, float)
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=grows and large,
        ours=(
            f"gap {_fmt(gap[0])} at x = {x[0]:g} -> {_fmt(gap[-1])} at x = {x[-1]:g} "
            f"(lower curve {_fmt(lo_m[-1])} there)"
        ),
        note=""
        if grows and large
        else (
            "the gap does not grow with x"
            if not grows
            else f"the gap is under {factor:g}× the lower curve"
        ),
    )


def compare_claim(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    larger: tuple[float, float],
    smaller: tuple[float, float],
    names: tuple[str, str],
    note: str = "",
) -> Claim:
    """One estimate (mean, s.e.) exceeds another: ok beyond 2 s.e. of the difference, fails when
    the other way round beyond it, else uninformative."""
    diff = larger[0] - smaller[0]
    se = float(np.hypot(larger[1], smaller[1]))
    holds = True if diff > 2 * se else (False if diff < -2 * se else None)
    ours = (
        f"{names[0]} = {_fmt(larger[0])} ± {larger[1]:.2g}, {names[1]} = {_fmt(smaller[0])} ± "
        f"{smaller[1]:.2g} (difference {_fmt(diff)} ± {se:.2g})"
    )
    extra = (
        "" if holds is not None else (f"difference {_fmt(diff)}, null 0, half-width {2 * se:.2g}")
    )
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=holds,
        ours=ours,
        note="; ".join(p for p in (extra, note) if p),
    )
