"""A claim equal to the printed bound is never refuted (issue 48, item 5), in every audit kind.

The membership bounds are closed forms (refuted ⇔ bound > claim, strictly), so a claim at the
printed ε̂ or μ̂ is consistent. The one-run bounds are bisections whose printed value is the lower
end of the last bracket, a value the test itself refutes: marked xfail (strict) until
``privrisk.audit.search.seeded_sup`` returns the bracket's upper end (see the issue's item 5).
"""

from __future__ import annotations

import numpy as np
import pytest

import privrisk

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


@pytest.mark.xfail(strict=True, reason="one-run ε̂ is the bisection's floor (issue 48, item 5)")
def test_one_run_claim_at_epsilon_hat_consistent():
    refuted = 0
    for cols in _files("one-run"):
        rep = privrisk.audit(cols, one_run=True, delta=1e-5)
        if rep.epsilon_lower > 0:
            again = privrisk.audit(cols, one_run=True, epsilon=rep.epsilon_lower, delta=1e-5)
            refuted += again.verdict == "refuted"
    assert refuted == 0


@pytest.mark.xfail(strict=True, reason="f-DP one-run μ̂ is the bisection's floor (issue 48, item 5)")
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
