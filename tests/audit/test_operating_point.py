"""The operating point behind each bound (issue 48, item 4): the audit's ε̂, μ̂ and one-run ε̂,
recomputed by scipy from the operating point's numbers alone."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

import privrisk
import privrisk.audit.operating_point as op


def _t(tb):
    """Clopper–Pearson lower bound from the point's count, n and level (scipy.stats)."""
    c, n, lv = tb["count"], tb["n"], tb["level"]
    return 0.0 if c == 0 else float(stats.beta.ppf(lv, c, n - c + 1))


def _f(fb):
    k, n, lv = fb["order_statistic"], fb["n"], fb["level"]
    return float(stats.beta.isf(lv, k, n - k + 1))


def _eps(pt):
    t, f, d = _t(pt["tpr_lower"]), _f(pt["fpr_upper"]), pt["delta"]
    if pt["piece"].startswith("ln((T"):
        return math.log((t - d) / f)
    return math.log((1 - d - f) / (1 - t))


CASES = [
    ("gaussian", 2000, 1.5, 0.0),
    ("gaussian", 300, 3.0, 1e-5),
    ("integer", 1000, 0.0, 0.0),
    ("rr", 3000, 1.0, 0.0),
]


@pytest.mark.parametrize(("shape", "n", "shift", "delta"), CASES)
def test_membership_bounds_recomputed_from_the_point(shape, n, shift, delta):
    rng = np.random.default_rng(4)
    if shape == "gaussian":
        mem, non = rng.normal(shift, 1, n), rng.normal(0, 1, n)
    elif shape == "integer":
        mem, non = rng.binomial(8, 0.6, n), rng.binomial(8, 0.4, n)
    else:  # randomized response at ε = 1
        p = special.expit(1.0)
        mem, non = (rng.random(n) < p).astype(float), (rng.random(n) < 1 - p).astype(float)
    rep = privrisk.audit({"score": np.r_[mem, non], "member": np.r_[np.ones(n), np.zeros(n)]},
                         delta=delta)  # fmt: skip
    pts = op.membership(mem, non, delta=delta, confidence=rep.confidence)
    e, m = pts["epsilon_lower"], pts["mu_lower"]
    assert e["value"] == pytest.approx(rep.epsilon_lower, rel=1e-9, abs=1e-12)
    assert m["value"] == pytest.approx(rep.mu_lower, rel=1e-9, abs=1e-12)
    if rep.epsilon_lower > 0:
        assert _eps(e) == pytest.approx(rep.epsilon_lower, rel=1e-7)
    if rep.mu_lower > 0:
        mu = stats.norm.ppf(_t(m["tpr_lower"])) - stats.norm.ppf(_f(m["fpr_upper"]))
        assert mu == pytest.approx(rep.mu_lower, rel=1e-7)
    # the counts behind the rates are the data's own
    for pt in (e, m):
        thr = pt["threshold"]
        if pt["test"] == op.HIGH_TEST:
            assert pt["true_positives"] == np.sum(mem > thr)
            assert pt["false_positives"] == np.sum(non > thr) <= pt["k"] - 1
        else:
            assert pt["true_positives"] == np.sum(non < thr)
            assert pt["false_positives"] == np.sum(mem < thr) <= pt["k"] - 1
        # every level is a share of α, none above it
        assert 0 < pt["tpr_lower"]["level"] < 1 - rep.confidence or pt["tpr_lower"]["bound"] == 0
        assert 0 < pt["fpr_upper"]["level"] < 1 - rep.confidence


def test_one_run_steinke_recomputed_from_the_point():
    rng = np.random.default_rng(7)
    inc = rng.random(1000) < 0.5
    s = rng.normal(2.0 * inc, 1)
    rep = privrisk.audit({"score": s, "member": inc.astype(int)}, one_run=True)
    pt = op.one_run_steinke(s, inc, epsilon=rep.epsilon_lower, confidence=rep.confidence)
    assert (pt["guesses"], pt["correct"]) == (rep.guesses, rep.correct)
    # δ = 0: the p-value is the binomial tail Pr[Binomial(r, e^ε/(1 + e^ε)) ≥ v]
    tail = stats.binom.sf(pt["correct"] - 1, pt["r"], special.expit(pt["value"]))
    assert tail == pytest.approx(pt["p_at_value"], rel=1e-9)
    assert tail <= pt["level"]  # the printed ε̂ is refuted at its level (the bisection's floor)
    above = stats.binom.sf(pt["correct"] - 1, pt["r"], special.expit(pt["value"] + 1e-6))
    assert above > pt["level"]


def test_one_run_fdp_point():
    rng = np.random.default_rng(8)
    inc = rng.random(1000) < 0.5
    s = rng.normal(2.0 * inc, 1)
    rep = privrisk.audit({"score": s, "member": inc.astype(int)}, one_run=True,
                         one_run_method="fdp")  # fmt: skip
    pt = op.one_run_fdp(s, inc, mu=rep.mu_lower, confidence=rep.confidence)
    order = np.argsort(-s, kind="stable")
    assert pt["correct"] == int(inc[order][: pt["guesses"]].sum())
    assert pt["threshold_in"] == s[order][pt["guesses"] - 1]
    assert pt["level"] == pytest.approx((1 - rep.confidence) / len(pt["grid"]))
