"""A claim equal to the printed bound is never refuted (issue 48, item 5), in every audit kind.

The membership bounds are closed forms (refuted ⇔ bound > claim, strictly), so a claim at the
printed ε̂ or μ̂ is consistent. The one-run bounds are bisections: the printed value is the upper
end of the last bracket (:func:`privrisk.audit.search.seeded_sup`), a value the test does not
refute (the lower end, printed before, was refuted for 12 of 12 of these files).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privrisk
from privrisk.audit.search import seeded_sup

FILES = 12


def _files(kind: str):
    rng = np.random.default_rng(48)
    for _ in range(FILES):
        shift = rng.uniform(0.5, 4)
        if kind == "membership":
            n = int(rng.integers(50, 800))
            s = np.r_[rng.normal(shift, 1, n), rng.normal(0, 1, n)]
            yield {"score": s, "member": np.r_[np.ones(n), np.zeros(n)]}
        else:
            m = int(rng.integers(200, 1500))
            inc = rng.random(m) < 0.5
            yield {"score": rng.normal(shift * inc, 1), "member": inc.astype(int)}


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_membership_claim_at_epsilon_hat_consistent(delta):
    for cols in _files("membership"):
        rep = privrisk.audit(cols, delta=delta)
        if rep.epsilon_lower > 0:
            again = privrisk.audit(cols, epsilon=rep.epsilon_lower, delta=delta)
            assert again.verdict != "refuted", (rep.epsilon_lower, again.p_value)
        again = privrisk.audit(cols, mu=rep.mu_lower, delta=1e-5) if rep.mu_lower > 0 else None
        assert again is None or again.verdict != "refuted"


def test_one_run_claim_at_epsilon_hat_consistent():
    refuted = 0
    for cols in _files("one-run"):
        rep = privrisk.audit(cols, one_run=True, delta=1e-5)
        if rep.epsilon_lower > 0:
            again = privrisk.audit(cols, one_run=True, epsilon=rep.epsilon_lower, delta=1e-5)
            refuted += again.verdict == "refuted"
    assert refuted == 0


def test_fdp_claim_at_mu_hat_consistent():
    refuted = 0
    for cols in _files("one-run"):
        rep = privrisk.audit(cols, one_run=True, one_run_method="fdp", delta=1e-5)
        if rep.mu_lower > 0:
            again = privrisk.audit(
                cols, one_run=True, one_run_method="fdp", mu=rep.mu_lower, delta=1e-5
            )
            refuted += again.verdict == "refuted"
    assert refuted == 0


@settings(max_examples=300, deadline=None)
@given(
    edge=st.floats(0, 50, allow_subnormal=False),
    closed=st.booleans(),
    seed=st.one_of(st.floats(0, 80, allow_subnormal=False), st.just(np.inf)),
)
def test_seeded_sup_returns_an_unrefuted_point_on_the_claims_side(edge, closed, seed):
    """For any edge (refuted set [0, edge] or [0, edge)) and any claim: the bound is not refuted
    itself, is above the claim exactly when the claim is refuted, and is within 2⁻³⁰ of the
    bracket above the edge (never below it: it stays a valid lower bound)."""

    def pred(th):
        return th <= edge if closed else th < edge

    b = seeded_sup(pred, seed, 64.0)
    assert not pred(b)
    assert pred(seed) == (b > seed)
    assert b >= edge
    assert b - edge <= 2**-30 * max(1.0, 2 * edge, seed if np.isfinite(seed) else 0)


def test_seeded_sup_when_everything_up_to_top_is_refuted():
    b = seeded_sup(lambda th: True, 3.0, 64.0)
    assert b >= 64.0 and b > 3.0
    assert seeded_sup(lambda th: False, 3.0, 64.0) == 0.0
