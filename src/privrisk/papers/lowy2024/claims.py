"""The qualitative statements of lowy2024 as small functions of the plotted curves.

Each function takes the curve(s) (means and standard errors over trials) and returns the ledger
row, so a test can feed it a constructed curve on which the statement is false and see
``qualitative-fails`` (tests/papers/lowy2024/test_claims.py). The decisions are the shared rules
of :mod:`privrisk.contract.verdicts` (±2 s.e., Bonferroni when a statement is judged at several points):
"increases with x" is :func:`privrisk.contract.verdicts.monotone`, "below a threshold" is
:func:`~privrisk.contract.verdicts.below`, "larger than" is :func:`~privrisk.contract.verdicts.greater`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...bounds import pmp
from ...contract import quoted as _quoted
from ...contract import verdicts as V
from ...contract.claims import Claim, Ledger

# the population is drawn and ε̃ estimated by Monte Carlo: experimental numbers (claims.DATA)
LEDGER = Ledger("lowy2024", data="simulated")

Curve = tuple[np.ndarray, np.ndarray]  # (mean, standard error) per grid point


def _fmt(x) -> str:
    return f"{float(x):.4g}"


def _curve(y, se) -> list[V.Estimate]:
    return [V.Estimate(float(m), se=float(e)) for m, e in zip(y, se, strict=True)]


def verdict_word(holds: bool | None) -> str:
    """How a note says a verdict: "holds", "fails" or "undecided"."""
    return {True: "holds", False: "fails", None: "undecided"}[holds]


def monotone(y, se, sign: int, x: Sequence[float] | None = None) -> tuple[bool | None, str]:
    """(holds, note) of "the curve moves in direction ``sign`` (+1 up, −1 down)": the overall
    change is beyond noise and no step reverses beyond noise (:func:`privrisk.contract.verdicts.monotone`)."""
    x = list(range(len(y))) if x is None else list(x)
    v = V.monotone(_curve(y, se), x, direction=sign, what="the curve")
    return v.holds, v.note


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
    parts = [
        f"{name}: {_fmt(y[0])} at x = {x[0]:g} -> {_fmt(y[-1])} at x = {x[-1]:g}"
        for name, (y, _) in curves.items()
    ]
    verdict = V.all_of(
        {
            name: V.monotone(_curve(y, se), list(x), direction=sign, what=name)
            for name, (y, se) in curves.items()
        }
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours="; ".join(parts),
        note=note,
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
    """Every estimate (mean, s.e.) is below ``threshold`` (:func:`privrisk.contract.verdicts.below`)."""
    est = {k: V.Estimate(float(m), se=float(e)) for k, (m, e) in values.items()}
    ours = "; ".join(f"{k} = {_fmt(e.value)} ± {e.se:.2g} (s.e.)" for k, e in est.items())
    verdict = V.below(est, threshold, what="estimate")
    return LEDGER.judged(
        figure=figure, claim_id=claim_id, claim=claim, verdict=verdict, ours=ours, note=note
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
    """For x <= ``below`` the curve falls towards 0 as x decreases: it increases with x there
    (:func:`monotone`) and its value at the smallest x is under ``factor`` × its value at x =
    ``reference`` (:func:`privrisk.contract.verdicts.greater` on factor·ref − first)."""
    x = np.asarray(x, float)
    m, se = (np.asarray(a, float) for a in y)
    sel = x <= below
    mono = V.monotone(_curve(m[sel], se[sel]), list(x[sel]), direction=+1, what="the curve")
    r = int(np.nonzero(np.isclose(x, reference))[0][0])
    gap = V.Estimate(factor * m[r] - m[0], se=float(np.hypot(factor * se[r], se[0])))
    small = V.greater(gap, what=f"{factor:g} × value at x = {reference:g} − value at x = {x[0]:g}")
    ours = (
        "; ".join(f"x={a:g}: {_fmt(b)}" for a, b in zip(x[sel], m[sel], strict=True))
        + f"; at x = {reference:g}: {_fmt(m[r])}"
    )
    verdict = V.all_of({"falls as x decreases": mono, "small at the start": small})
    return LEDGER.judged(figure=figure, claim_id=claim_id, claim=claim, verdict=verdict, ours=ours)


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
    verdict = V.exact_below(
        spread, rel, strict=True, why=f"relative range {spread:.1%} >= {rel:.0%}"
    )
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=f"range {_fmt(y.min())}–{_fmt(y.max())} over x = {x[0]:g}..{x[-1]:g} "
        f"(relative range {spread:.1%}, criterion < {rel:.0%})",
        note=note,
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
    """A large gap between two curves, especially at large x: the gap upper − lower increases with
    x (:func:`monotone`) and at the largest x it exceeds ``factor`` × the lower curve
    (:func:`privrisk.contract.verdicts.greater`)."""
    lo_m, lo_se = (np.asarray(a, float) for a in lower)
    up_m, up_se = (np.asarray(a, float) for a in upper)
    gap, gap_se = up_m - lo_m, np.hypot(up_se, lo_se)
    x = np.asarray(x, float)
    grows = V.monotone(_curve(gap, gap_se), list(x), direction=+1, what="the gap")
    # gap − factor·lower at the last x = upper − (1 + factor)·lower
    large = V.greater(
        V.Estimate(
            gap[-1] - factor * lo_m[-1], se=float(np.hypot(up_se[-1], (1 + factor) * lo_se[-1]))
        ),
        what=f"gap − {factor:g} × lower curve at x = {x[-1]:g}",
    )
    verdict = V.all_of({"gap grows": grows, "gap large": large})
    return LEDGER.judged(
        figure=figure,
        claim_id=claim_id,
        claim=claim,
        verdict=verdict,
        ours=(
            f"gap {_fmt(gap[0])} at x = {x[0]:g} -> {_fmt(gap[-1])} at x = {x[-1]:g} "
            f"(lower curve {_fmt(lo_m[-1])} there)"
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
    """One estimate (mean, s.e.) exceeds another (independent estimates:
    :func:`privrisk.contract.verdicts.greater` on the unpaired difference)."""
    a, b = V.Estimate(larger[0], se=larger[1]), V.Estimate(smaller[0], se=smaller[1])
    diff = a.minus(b)
    ours = (
        f"{names[0]} = {_fmt(larger[0])} ± {larger[1]:.2g}, {names[1]} = {_fmt(smaller[0])} ± "
        f"{smaller[1]:.2g} (difference {_fmt(diff.value)} ± {diff.se:.2g})"
    )
    verdict = V.greater(diff, what=f"{names[0]} − {names[1]}")
    return LEDGER.judged(
        figure=figure, claim_id=claim_id, claim=claim, verdict=verdict, ours=ours, note=note
    )


def text_claims() -> list:
    """Numbers quoted outside the figures: the intro's success rates and Proposition 5."""
    lp3, mem3 = pmp.sum_mod_mechanism(3)
    lp6, mem6 = pmp.sum_mod_mechanism(6)
    prop5 = float(pmp.pmp_epsilon(lp3, mem3))
    prop5_dp = float(pmp.dp_epsilon_restricted(lp3, mem3))
    n6 = float(pmp.pmp_epsilon(lp6, mem6))
    return [
        LEDGER.quoted("success_eps0.1", ours=pmp.success_bound(eps_tilde=0.1)),
        LEDGER.quoted("success_eps7", ours=pmp.success_bound(eps_tilde=7.0)),
        LEDGER.quoted(
            "prop5_ln2",
            ours=prop5,
            note=f"exact enumeration; its DP parameter within X is {prop5_dp:g} (not DP)",
        ),
        below_claim(
            figure="prop5",
            claim_id="prop5_n6",
            claim="For n = 6 the construction extends to ε <= ln(40/37) ≈ 0.078",
            values={"ε̃ of ΣD mod 12 on X = {0..11} (exact: ln(38/37))": (n6, 0.0)},
            threshold=float(np.log(40 / 37)) + 1e-12,
            note="the paper's exact n = 6 construction is not given; the obvious extension is tighter",
        ),
    ]


def at_paper_setting(claim_id: str, params: Mapping) -> bool:
    """Whether a figure run with ``params`` is at the setting the paper quotes ``claim_id`` at
    (its quoted.yaml ``setting``): the figure draws the paper's marks only there."""
    return _quoted.at_setting(LEDGER.paper, claim_id, params)


def _rows(*rows: Claim | None) -> list[Claim]:
    return [r for r in rows if r is not None]


def fig1_quoted(params, *, ratio, eps, eps_tilde, why: str, plateau: float) -> list[Claim]:
    """Figure 1's quoted numbers at σ = 1: ε̃(X)/ε, ε and ε̃(X), each (mean, s.e.) over the trials
    (``why``: the note if they differ; ``plateau``: ε̃ on the small-σ plateau); none when
    ``params`` are not at the paper's setting (quoted.yaml)."""
    return _rows(
        LEDGER.quoted(
            "fig1_ratio_sigma1", ours=ratio[0], se=ratio[1], params=params, note_if_differs=why
        ),
        LEDGER.quoted(
            "fig1_eps_sigma1", ours=eps[0], se=eps[1], params=params, note_if_differs=why
        ),
        LEDGER.quoted(
            "fig1_eps_tilde_sigma1",
            ours=eps_tilde[0],
            se=eps_tilde[1],
            params=params,
            note_if_differs=(
                f"ours {eps_tilde[0]:.3f} ± {eps_tilde[1]:.3f} at σ = 1; the small-σ plateau is "
                f"ε̃ = {plateau:.3f} (spec §8.5 expects 2.05–2.11 there)"
            ),
        ),
    )


def fig2_quoted(params, *, eps_tilde, eps) -> list[Claim]:
    """Figure 2's quoted numbers at C = 50: ε̃(X), the MIA success it allows, and ε, each
    (mean, s.e.) over the trials; none when ``params`` are not at the paper's setting."""
    return _rows(
        LEDGER.quoted("fig2_eps_tilde_C50", ours=eps_tilde[0], se=eps_tilde[1], params=params),
        LEDGER.quoted(
            "fig2_success_C50", ours=pmp.success_bound(eps_tilde=eps_tilde[0]), params=params
        ),
        LEDGER.quoted("fig2_eps_C50", ours=eps[0], se=eps[1], params=params),
    )


def fig5_quoted(params, *, eps_tilde) -> list[Claim]:
    """Figure 5's quoted number: ε̃(X) (mean, s.e.) at the clip threshold C = 100 for the DP
    parameter ε = 5 held fixed; none when ``params`` are not at that setting (quoted.yaml)."""
    return _rows(
        LEDGER.quoted("fig5_eps_tilde_C100", ours=eps_tilde[0], se=eps_tilde[1], params=params)
    )
