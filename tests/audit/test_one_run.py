"""One-run audits (Steinke, Nasr & Jagielski 2023): the p-value, validity, the bound-vs-k curve."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privrisk import accounting
from privrisk.audit import one_run as o


def _p_reference(m, r, v, eps, delta):
    """Steinke et al.'s Proposition as a plain loop over i (the paper's algorithm, one number)."""
    q = 1 / (1 + math.exp(-eps))
    beta = stats.binom.sf(v - 1, r, q)
    if delta == 0:
        return min(beta, 1.0)
    alpha, total = 0.0, 0.0
    for i in range(1, v + 1):
        total += stats.binom.pmf(v - i, r, q)
        alpha = max(alpha, total / i)
    return min(beta + alpha * delta * 2 * m, 1.0)


@pytest.mark.parametrize(
    "m,r,v,eps,delta",
    [
        (1000, 100, 80, 1.0, 0.0),
        (1000, 100, 80, 1.0, 1e-5),
        (500, 40, 40, 2.0, 1e-3),
        (50, 20, 10, 0.0, 0.0),
    ],
)
def test_p_value_equals_the_papers_algorithm(m, r, v, eps, delta):
    assert float(o.p_value(m, r, v, epsilon=eps, delta=delta)) == pytest.approx(
        _p_reference(m, r, v, eps, delta), rel=1e-10, abs=1e-300
    )


def test_epsilon_lower_inverts_the_p_value():
    e = float(o.epsilon_lower(1000, 100, 90, delta=1e-5, level=0.05))
    assert float(o.p_value(1000, 100, 90, epsilon=e - 1e-6, delta=1e-5)) <= 0.05
    assert float(o.p_value(1000, 100, 90, epsilon=e + 1e-3, delta=1e-5)) > 0.05


def test_correct_guesses_counts_top_in_and_bottom_out():
    scores = np.array([5.0, 4, 3, 2, 1, 0])
    inc = np.array([1, 0, 1, 0, 0, 1], bool)
    # k = 2: top 1 guessed in (correct), bottom 1 guessed out (wrong: included)
    # k = 4: top 2 (1 correct), bottom 2 (scores 1, 0: one out → 1 correct)
    assert o.correct_guesses(scores, inc, np.array([2, 4, 6])).tolist() == [[1, 2, 4]]


def test_null_one_run_audits_find_nothing():
    rng = np.random.default_rng(5)
    m, trials = 1000, 1000
    inc = rng.random((trials, m)) < 0.5
    s = rng.standard_normal((trials, m))
    ks = o.guess_grid(m, None)
    v = o.correct_guesses(s, inc, ks)
    eps = o.epsilon_lower(m, ks[None, :] * np.ones((trials, 1)), v, delta=0.0, level=0.05 / ks.size)
    assert np.mean(eps.max(axis=1) == 0) >= 0.95


def test_bound_versus_guesses_has_the_shape_of_steinke_et_al():
    """Gaussian canaries (μ = 2, 1,000 canaries): the bound rises with the number of guesses while
    the top guesses stay accurate, peaks, then falls as guesses reach the ambiguous middle; it
    stays below the true ε at every k (their Fig. 1/3 shape)."""
    rng = np.random.default_rng(11)
    m, trials, mu = 1000, 20, 2.0
    inc = rng.random((trials, m)) < 0.5
    s = rng.standard_normal((trials, m)) + mu * inc
    ks = np.array([10, 20, 50, 100, 200, 400, 600, 800, 1000])
    v = o.correct_guesses(s, inc, ks)
    e = np.median(
        o.epsilon_lower(m, ks[None, :] * np.ones((trials, 1)), v, delta=1e-5, level=0.05), axis=0
    )
    peak = int(np.argmax(e))
    assert 0 < peak < ks.size - 1
    assert np.all(np.diff(e[: peak + 1]) > 0)
    assert np.all(np.diff(e[peak:]) < 0)
    assert e[peak] < accounting.gaussian_epsilon(delta=1e-5, mu=mu)


def _one_run_file(rng, m=1000, mu=2.0):
    inc = rng.random(m) < 0.5
    return {"score": rng.normal(0, 1, m) + mu * inc, "member": inc}


def test_fdp_one_run_null_runs_give_no_leakage_beyond_the_level():
    rng = np.random.default_rng(2024)
    from privrisk.audit import audit

    mus = [audit(_one_run_file(rng, 400, 0.0), one_run=True, one_run_method="fdp").mu_lower
           for _ in range(100)]  # fmt: skip
    assert np.mean(np.asarray(mus) > 0) <= 0.05


def test_fdp_one_run_verdict_agrees_with_its_bound_and_p_value():
    from privrisk.audit import audit

    rng = np.random.default_rng(2025)
    verdicts = set()
    for _ in range(6):
        cols = _one_run_file(rng, 600, float(rng.uniform(0.5, 3)))
        base = audit(cols, one_run=True, one_run_method="fdp").mu_lower
        claim = max(0.05, base * float(rng.uniform(0.7, 1.3)))
        r = audit(cols, one_run=True, one_run_method="fdp", mu=claim)
        assert (r.verdict == "refuted") == (r.mu_lower > claim) == (r.p_value <= 0.05)
        verdicts.add(r.verdict)
    assert "refuted" in verdicts


def test_fdp_one_run_refuses_profile_claims_and_unfair_fractions(tmp_path):
    from privrisk.audit import AuditInputError, audit

    rng = np.random.default_rng(7)
    with pytest.raises(AuditInputError, match="one-run-method"):
        audit(_one_run_file(rng), one_run=True, one_run_method="fdp", rho=1.0)
    with pytest.raises(AuditInputError, match="probability 1/2"):
        s = rng.normal(0, 1, 1000)
        audit({"score": s, "member": np.arange(1000) < 100}, one_run=True, one_run_method="fdp")


def test_fdp_epsilon_is_null_at_delta_zero_and_names_its_gaussian_assumption():
    """At δ = 0 the μ̂-GDP Gaussian has ε = ∞ for any μ̂ > 0: no ε̂ is printed (JSON null, text
    "n/a" with why), and at every δ the report says ε̂ assumes a Gaussian mechanism."""
    from privrisk.audit import AuditReport, audit
    from privrisk.audit.text import text

    cols = _one_run_file(np.random.default_rng(3), 1000, 2.0)
    at0 = audit(cols, one_run=True, one_run_method="fdp")
    assert at0.mu_lower > 0 and at0.epsilon_lower is None
    assert '"epsilon_lower": null' in at0.to_json()
    assert AuditReport.from_json(at0.to_json()) == at0
    assert "epsilon_lower      n/a at delta = 0 (none: the μ̂-GDP Gaussian" in text(at0)
    at5 = audit(cols, one_run=True, one_run_method="fdp", delta=1e-5)
    assert at5.epsilon_lower == pytest.approx(
        accounting.gaussian_epsilon(delta=1e-5, mu=at5.mu_lower)
    )
    for r in (at0, at5):
        assert any("assumes a Gaussian mechanism" in a for a in r.assumptions)
    assert "(the ε of the μ̂-GDP Gaussian: assumes a Gaussian mechanism)" in text(at5)
    steinke = audit(cols, one_run=True)
    assert not any("Gaussian" in a for a in steinke.assumptions)


def test_one_run_bounds_from_the_audit_stay_below_a_true_gaussian_mechanism():
    """The printed bounds (the bisection's upper end, issue 48 item 5) stay valid: canaries
    scored N(μ·included, 1) independently are μ-GDP each, so μ̂ > μ (f-DP) and ε̂ above the
    Gaussian's ε at δ = 10⁻⁵ (Steinke et al.) each in at most 5 % of files."""
    from privrisk.audit import audit

    rng = np.random.default_rng(4801)
    mu, trials = 2.0, 60
    over_mu = over_eps = 0
    truth = accounting.gaussian_epsilon(delta=1e-5, mu=mu)
    for _ in range(trials):
        cols = _one_run_file(rng, 1000, mu)
        over_mu += audit(cols, one_run=True, one_run_method="fdp").mu_lower > mu
        over_eps += audit(cols, one_run=True, delta=1e-5).epsilon_lower > truth
    assert over_mu <= ALPHA_ONE_RUN * trials and over_eps <= ALPHA_ONE_RUN * trials


ALPHA_ONE_RUN = 0.05
