"""The qualitative statements of thudi2022 as small functions of the plotted curves.

Each returns the ledger row, so tests/papers/thudi2022/test_claims.py feeds each one a
constructed curve on which the statement is false (``qualitative-fails``) and one where it holds.

Every curve of thudi2022 is analytic (no sampling error), so these are exact shape properties
(an interior maximum, which of two curves is nearer, a limit); decisions under noise, where an
estimate has an uncertainty, go through :mod:`privrisk.contract.verdicts`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...contract.claims import Claim, Ledger

LEDGER = Ledger("thudi2022")


def unbounded_vs_constant(
    *, figure: str, claim_id: str, claim: str, t, grows, bounded, factor: float = 10.0
) -> Claim:
    """As t falls to the grid's smallest value, ``grows`` rises monotonically above ``bounded``
    and, at that end, its slope is at least ``factor`` × steeper than ``bounded``'s (which levels
    off to a constant while the other blows up)."""
    t, g, b = (np.asarray(a, float) for a in (t, grows, bounded))
    mono = bool(np.all(np.diff(g) < 0))  # decreasing in t = growing as t falls
    above = bool(g[0] > b[0])
    sg, sb = abs((g[1] - g[0]) / (t[1] - t[0])), abs((b[1] - b[0]) / (t[1] - t[0]))
    steep = bool(sg >= factor * sb)
    ok = mono and above and steep
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=ok,
        ours=(
            f"at t = {t[0]:.3g}: {g[0]:.3g} vs {b[0]:.3g}, slopes {sg:.3g} vs {sb:.3g} "
            f"(ratio {sg / max(sb, 1e-300):.3g}, criterion >= {factor:g})"
        ),
        note=""
        if ok
        else "; ".join(
            m
            for m, bad in (
                ("not monotone as t falls", not mono),
                ("not above the other curve", not above),
                (f"slope not {factor:g}× steeper", not steep),
            )
            if bad
        ),
    )


def lowest(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x,
    ours,
    others: Mapping[str, np.ndarray],
    tol: float = 1e-12,
) -> Claim:
    """``ours`` is at or below every other curve at every x, and strictly below one somewhere."""
    ours = np.asarray(ours, float)
    floor = np.min([np.asarray(v, float) for v in others.values()], axis=0)
    over = np.nonzero(ours > floor + tol)[0]
    strict = bool(np.any(ours < floor - tol))
    ok = not len(over) and strict
    x = np.asarray(x, float)
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=ok,
        ours=f"checked on {x.size} points in [{x[0]:g}, {x[-1]:g}]; largest excess {float(np.max(ours - floor)):.3g}",
        note=""
        if ok
        else (
            f"above another bound at x = {x[over[0]]:g}" if len(over) else "never strictly lower"
        ),
    )


def closer_to(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    x,
    ours,
    small: tuple[str, np.ndarray],
    large: tuple[str, np.ndarray],
) -> Claim:
    """At the smallest x > 0 of the grid ``ours`` is nearer ``small``'s curve than ``large``'s;
    at the largest x it is nearer ``large``'s."""
    x, o = np.asarray(x, float), np.asarray(ours, float)
    s, lg = np.asarray(small[1], float), np.asarray(large[1], float)
    i = int(np.nonzero(x > 0)[0][0])
    near_small = abs(o[i] - s[i]) < abs(o[i] - lg[i])
    near_large = abs(o[-1] - lg[-1]) < abs(o[-1] - s[-1])
    ok = bool(near_small and near_large)
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=ok,
        ours=(
            f"at x = {x[i]:g}: |ours − {small[0]}| = {abs(o[i] - s[i]):.3g}, |ours − {large[0]}| = "
            f"{abs(o[i] - lg[i]):.3g}; at x = {x[-1]:g}: {abs(o[-1] - s[-1]):.3g} vs {abs(o[-1] - lg[-1]):.3g}"
        ),
        note="" if ok else f"not nearer {small[0] if not near_small else large[0]} where stated",
    )


def increasing(
    *, figure: str, claim_id: str, claim: str, x, curves: Mapping[str, np.ndarray]
) -> Claim:
    """Every curve increases strictly with x."""
    bad = [k for k, y in curves.items() if not np.all(np.diff(np.asarray(y, float)) > 0)]
    x = np.asarray(x, float)
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=not bad,
        ours=f"{len(curves)} curve(s) on {x.size} points in [{x[0]:g}, {x[-1]:g}]",
        note="" if not bad else f"not strictly increasing: {', '.join(bad)}",
    )


def bump(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    p,
    y,
    away_from: float | None = None,
    min_distance: float = 0.05,
) -> Claim:
    """The curve has an interior maximum (not monotone), located from the curve itself; when
    ``away_from`` is given the maximiser is more than ``min_distance`` from it."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    i = int(np.argmax(y))
    interior = bool(0 < i < len(y) - 1 and y[0] < y[i] and y[-1] < y[i])
    far = True if away_from is None else bool(abs(p[i] - away_from) > min_distance)
    ok = interior and far
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=ok,
        ours=f"curve maximum {y[i]:.4f} at p = {p[i]:.4f} (grid argmax); ends {y[0]:.3g}, {y[-1]:.3g}",
        note=""
        if ok
        else (
            "maximum at an end of the range (monotone)"
            if not interior
            else f"maximiser within {min_distance:g} of p = {away_from:g}"
        ),
    )


def tends_to(
    *, figure: str, claim_id: str, claim: str, x, y, limit: float, within: float = 0.01
) -> Claim:
    """y approaches ``limit`` towards the start of the x grid: monotone there and within ``within``."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    head = y[: max(3, len(y) // 10)]
    mono = bool(np.all(np.diff(head) * np.sign(y[0] - y[len(head) - 1]) <= 0) or np.ptp(head) == 0)
    close = bool(abs(y[0] - limit) <= within)
    ok = mono and close
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=ok,
        ours=f"{y[0]:.4f} at x = {x[0]:g}",
        note="" if ok else f"not within {within:g} of {limit:g} at x = {x[0]:g}",
    )


def high_then_marginally_lower(
    *,
    figure: str,
    claim_id: str,
    claim: str,
    c,
    ours,
    linear,
    high: float = 10.0,
    marginal: float = 0.5,
) -> Claim:
    """Much higher than the linear trend at small c (>= ``high`` ×) and *marginally* lower at the
    largest c: below it, but by less than ``marginal`` of the linear value."""
    c, m, lin = (np.asarray(a, float) for a in (c, ours, linear))
    much = bool(m[0] >= high * lin[0])
    lower = bool(m[-1] < lin[-1])
    slight = bool(m[-1] >= (1 - marginal) * lin[-1])
    ok = much and lower and slight
    return LEDGER.qualitative(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        holds=ok,
        ours=f"m({c[0]:g}) = {m[0]:.4g} vs {lin[0]:.4g}; m({c[-1]:g}) = {m[-1]:.4g} vs {lin[-1]:.4g}",
        note=""
        if ok
        else "; ".join(
            t
            for t, bad in (
                (f"not {high:g}× higher at c = {c[0]:g}", not much),
                (f"not lower at c = {c[-1]:g}", not lower),
                (
                    f"lower by more than {marginal:.0%} at c = {c[-1]:g} ({m[-1]:.3g} vs {lin[-1]:.3g}): "
                    "not 'marginally'",
                    lower and not slight,
                ),
            )
            if bad
        ),
    )
