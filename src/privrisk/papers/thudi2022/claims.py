"""The qualitative statements of thudi2022 as small functions of the plotted curves.

Each returns the ledger row, so tests/papers/thudi2022/test_claims.py feeds each one a
constructed curve on which the statement is false (``qualitative-fails``) and one where it holds.

Every curve of thudi2022 is analytic (no sampling error), so these are exact shape properties
(an interior maximum, which of two curves is nearer, a limit), each decided by the exact checks
of :mod:`privrisk.contract.verdicts` (``exact_below``, ``exact_monotone``, …): this module
computes the numbers, the verdicts turn them into a status. It holds the paper's one ledger.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...contract import verdicts as V
from ...contract.claims import Claim, Ledger

LEDGER = Ledger("thudi2022")


def unbounded_vs_constant(
    *, figure: str, claim_id: str, claim: str, t, grows, bounded, factor: float = 10.0
) -> Claim:
    """As t falls to the grid's smallest value, ``grows`` rises monotonically above ``bounded``
    and, at that end, its slope is at least ``factor`` × steeper than ``bounded``'s (which levels
    off to a constant while the other blows up)."""
    t, g, b = (np.asarray(a, float) for a in (t, grows, bounded))
    sg, sb = abs((g[1] - g[0]) / (t[1] - t[0])), abs((b[1] - b[0]) / (t[1] - t[0]))
    verdict = V.exact_all(
        {
            # decreasing in t = growing as t falls
            "monotone": V.exact_monotone(g, direction=-1, why="not monotone as t falls"),
            "above": V.exact_above(g[0], b[0], why="not above the other curve"),
            "steep": V.exact_above(
                sg, factor * sb, strict=False, why=f"slope not {factor:g}× steeper"
            ),
        }
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=(
            f"at t = {t[0]:.3g}: {g[0]:.3g} vs {b[0]:.3g}, slopes {sg:.3g} vs {sb:.3g} "
            f"(ratio {sg / max(sb, 1e-300):.3g}, criterion >= {factor:g})"
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
    x = np.asarray(x, float)
    verdict = V.exact_all(
        {
            "at or below": V.exact_below(ours, floor, tol=tol, why="above another bound", x=x),
            "strictly somewhere": V.exact_somewhere_below(
                ours, floor, tol=tol, why="never strictly lower"
            ),
        },
        first=True,
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=f"checked on {x.size} points in [{x[0]:g}, {x[-1]:g}]; largest excess {float(np.max(ours - floor)):.3g}",
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
    verdict = V.exact_all(
        {
            "near the small-x curve": V.exact_below(
                abs(o[i] - s[i]),
                abs(o[i] - lg[i]),
                strict=True,
                why=f"not nearer {small[0]} where stated",
            ),
            "near the large-x curve": V.exact_below(
                abs(o[-1] - lg[-1]),
                abs(o[-1] - s[-1]),
                strict=True,
                why=f"not nearer {large[0]} where stated",
            ),
        },
        first=True,
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=(
            f"at x = {x[i]:g}: |ours − {small[0]}| = {abs(o[i] - s[i]):.3g}, |ours − {large[0]}| = "
            f"{abs(o[i] - lg[i]):.3g}; at x = {x[-1]:g}: {abs(o[-1] - s[-1]):.3g} vs {abs(o[-1] - lg[-1]):.3g}"
        ),
    )


def increasing(
    *, figure: str, claim_id: str, claim: str, x, curves: Mapping[str, np.ndarray]
) -> Claim:
    """Every curve increases strictly with x."""
    verdict = V.exact_all(
        {k: V.exact_monotone(y, direction=+1) for k, y in curves.items()},
        why="not strictly increasing",
    )
    x = np.asarray(x, float)
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=f"{len(curves)} curve(s) on {x.size} points in [{x[0]:g}, {x[-1]:g}]",
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
    # the grid maximum above both ends is an interior one (at an end it would equal that end)
    parts = {
        "interior": V.exact_above(
            y[i], max(y[0], y[-1]), why="maximum at an end of the range (monotone)"
        )
    }
    if away_from is not None:
        parts["away"] = V.exact_above(
            abs(p[i] - away_from),
            min_distance,
            why=f"maximiser within {min_distance:g} of p = {away_from:g}",
        )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=V.exact_all(parts, first=True),
        ours=f"curve maximum {y[i]:.4f} at p = {p[i]:.4f} (grid argmax); ends {y[0]:.3g}, {y[-1]:.3g}",
    )


def tends_to(
    *, figure: str, claim_id: str, claim: str, x, y, limit: float, within: float = 0.01
) -> Claim:
    """y approaches ``limit`` towards the start of the x grid: monotone there and within ``within``."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    head = y[: max(3, len(y) // 10)]
    verdict = V.exact_all(
        {
            "monotone at the start": V.exact_monotone(head, direction=0, strict=False),
            "close": V.exact_close(
                y[0], limit, atol=within, why=f"not within {within:g} of {limit:g} at x = {x[0]:g}"
            ),
        }
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=f"{y[0]:.4f} at x = {x[0]:g}",
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
    parts = {
        "much higher": V.exact_above(
            m[0], high * lin[0], strict=False, why=f"not {high:g}× higher at c = {c[0]:g}"
        ),
        "lower": V.exact_below(m[-1], lin[-1], strict=True, why=f"not lower at c = {c[-1]:g}"),
        # a curve not lower at all is not "lower by more than" either (for a positive trend)
        "marginally": V.exact_above(
            m[-1],
            (1 - marginal) * lin[-1],
            strict=False,
            why=f"lower by more than {marginal:.0%} at c = {c[-1]:g} ({m[-1]:.3g} vs {lin[-1]:.3g}): "
            "not 'marginally'",
        ),
    }
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=V.exact_all(parts),
        ours=f"m({c[0]:g}) = {m[0]:.4g} vs {lin[0]:.4g}; m({c[-1]:g}) = {m[-1]:.4g} vs {lin[-1]:.4g}",
    )


def fig2_quoted(*, ours, erlingsson, sablayrolles) -> list[Claim]:
    """Figure 2's quoted numbers: each bound (a function of ε at P_x*(1) = 0.5) at ε = 1 and 2
    (what the paper says: quoted.yaml)."""
    return [
        LEDGER.quoted("ours_eps1", ours=ours(1)),
        LEDGER.quoted("erlingsson_eps1", ours=erlingsson(1)),
        LEDGER.quoted("sablayrolles_eps1", ours=sablayrolles(1)),
        LEDGER.quoted("ours_eps2", ours=ours(2)),
        LEDGER.quoted("erlingsson_eps2", ours=erlingsson(2)),
        LEDGER.quoted("sablayrolles_eps2", ours=sablayrolles(2)),
    ]


def fig3_quoted(bound: float) -> Claim:
    """Figure 3's quoted number: Theorem 1's positive-accuracy bound at ε = 2, P_x*(1) = 0.01."""
    return LEDGER.quoted("pos_acc_eps2_p001", ours=bound)


def fig4a_noise(check: Mapping[str, float]) -> Claim:
    """Figure 4a's stated noise: ε of one full-batch step at σ = 4.0412 (``check``: the RDP and the
    exact Balle–Wang ε, ``privrisk.accounting``)."""
    return LEDGER.quoted(
        "noise_for_eps1",
        ours=check["rdp_epsilon_for_stated_sigma"],
        note="exact (Balle-Wang) accounting gives ε = "
        f"{check['exact_gaussian_epsilon_for_stated_sigma']:.4f} for σ = 4.0412",
    )


def fig4b_quoted(best: float, at: float, *, tolerance: float) -> list[Claim]:
    """Figure 4b's quoted numbers: the attack's largest accuracy and where it is reached
    (``tolerance``: the grid's resolution of the argmax)."""
    return [
        LEDGER.quoted("max_accuracy", ours=best),
        LEDGER.quoted("argmax_threshold", ours=at, tolerance=tolerance),
    ]


def fig7_oracle(capacity) -> list[Claim]:
    """Figure 7's spec-derived values: the printed formula's deletion capacity ``capacity(c)`` at
    three c (the paper quotes no number, only the plotted curve)."""
    return [
        LEDGER.quoted("m_c0.5", ours=capacity(0.5)),
        LEDGER.quoted("m_c1", ours=capacity(1.0)),
        LEDGER.quoted("m_c200", ours=capacity(200.0)),
    ]
