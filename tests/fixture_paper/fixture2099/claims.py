"""fixture2099's claims: the paper's one ledger and one small function per claim, each returning
its ledger row.

The figures compute the numbers and call these functions; a rule of
:mod:`privrisk.contract.verdicts` (a statement) or ``LEDGER.quoted`` (a number the paper quotes,
an entry of quoted.yaml) turns the numbers into a status: no comparison is written here or in a
figure (CONTRIBUTING "Where a thing goes inside a paper").
tests/fixture_paper/tests/test_claims.py gives each function numbers where its claim holds and
numbers where it fails.
"""

from __future__ import annotations

import numpy as np

from ...contract import verdicts as V
from ...contract.claims import Claim, Ledger

#: the paper's one ledger (a figure module imports this module as ``paper_claims``)
LEDGER = Ledger("fixture2099")


def prior_at_zero(*, figure: str, eps, bound, prior: float) -> Claim:
    """A statement about an analytic curve, decided by an exact rule: at ε = 0 the bound is the
    prior itself (DP with ε = 0 tells the attacker nothing)."""
    at_zero = float(np.interp(0.0, eps, bound))
    return LEDGER.judged(
        figure=figure,
        claim_id=f"{figure}_eps0",
        claim="at ε = 0 the bound equals the prior",
        # exact_close(values, reference, *, atol=0.0, rtol=0.0, why=""): holds when every value
        # is within atol + rtol·|reference| of the reference (numpy.allclose); `why` is the note
        # of a failure. The other exact rules (analytic numbers): exact_below, exact_above,
        # exact_monotone, exact_all, undecidable; on estimates with an uncertainty: greater,
        # at_least, equivalent, below, monotone, all_of
        verdict=V.exact_close(at_zero, prior, atol=1e-9, why="the bound at ε = 0 is not the prior"),
        ours=f"{at_zero:.6g} at prior {prior:g}",
    )


def odds_at_one(*, eps, bound, prior: float) -> Claim:
    """A number the paper quotes: at ε = 1 the bound's odds are e ≈ 2.718 times the prior odds.
    Its figure, claim, paper value, tolerance and source are the entry ``fig1_odds_eps1`` of
    quoted.yaml (data, not code); the code gives only ``ours`` (and ``se=…``, a Monte Carlo
    standard error, when it has one). ``LEDGER.quoted`` decides it: reproduced when
    |ours − paper_value| <= tolerance (+ 2 se)."""
    b = float(np.interp(1.0, eps, bound))
    # the id is a literal: tests/test_quoted.py matches the ids the code quotes with the file's
    return LEDGER.quoted("fig1_odds_eps1", ours=(b / (1 - b)) / (prior / (1 - prior)))
