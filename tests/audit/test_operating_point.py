"""The operating point behind each bound (issue 48, item 4): the audit's ε̂, μ̂ and one-run ε̂,
recomputed by scipy from the operating point's numbers alone."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import optimize, special, stats

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
    # the printed ε̂ is the supremum: not refuted at its level, every ε just below it is
    assert tail > pt["level"]
    below = stats.binom.sf(pt["correct"] - 1, pt["r"], special.expit(pt["value"] - 1e-6))
    assert below <= pt["level"]


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


def _steinke_p(m, r, v, eps, delta):
    """Steinke et al.'s p-value (their Proposition) from scipy.stats, one number."""
    q = special.expit(eps)
    beta = stats.binom.sf(v - 1, r, q)
    tail = np.cumsum(stats.binom.pmf(v - np.arange(1, v + 1), r, q))
    return min(beta + float(np.max(tail / np.arange(1, v + 1))) * delta * 2 * m, 1.0)


def _fdp_refutes(m, r, v, mu, level):
    """Mahloujifar et al.'s recursion against the Gaussian trade-off curve (scipy.stats.norm)."""
    rr, h = level * v / m, level * (r - v) / m
    for i in range(v - 1, -1, -1):
        h_new = max(h, stats.norm.cdf(stats.norm.ppf(rr) - mu))
        if h == h_new:
            break
        rr, h = min(rr + i / (r - i) * (h_new - h), 1.0), h_new
    return rr + h - r / m > 0


def _gaussian_eps(mu, delta):
    def gap(e):
        return stats.norm.cdf(-e / mu + mu / 2) - math.exp(e) * stats.norm.cdf(-e / mu - mu / 2)

    return optimize.brentq(lambda e: gap(e) - delta, 0, 100, xtol=1e-12)


def test_every_bound_is_recomputed_from_the_json_report_alone():
    """Issue 48, item 4: the JSON report's ``operating_point`` is enough to recompute each bound
    (scipy, no privrisk): membership ε̂ and μ̂ (two canary sets sharing α), one-run Steinke ε̂
    at δ = 10⁻⁵ (the root of its p-value at the level), f-DP μ̂ (refuted just below, not at it)
    and its ε̂ (the μ̂-GDP Gaussian's)."""
    rng = np.random.default_rng(48)
    n = 600
    mem, non = rng.normal(1.5, 1, 2 * n), rng.normal(0, 1, 2 * n)
    cols = {"score": np.r_[mem, non], "member": np.r_[np.ones(2 * n), np.zeros(2 * n)],
            "group": np.r_[np.arange(2 * n) % 2, np.arange(2 * n) % 2]}  # fmt: skip
    d = json.loads(privrisk.audit(cols, delta=1e-5).to_json())
    assert d["schema"] == "privrisk.audit/3"
    e, m = d["operating_point"]["epsilon_lower"], d["operating_point"]["mu_lower"]
    assert e["groups"] == 2 and e["group"] in ("0", "1")
    assert _eps(e) == pytest.approx(d["epsilon_lower"], rel=1e-7)
    mu = stats.norm.ppf(_t(m["tpr_lower"])) - stats.norm.ppf(_f(m["fpr_upper"]))
    assert mu == pytest.approx(d["mu_lower"], rel=1e-7)
    assert e["tpr"] == e["true_positives"] / e["n_true"] and e["n_true"] + e["n_false"] == 2 * n

    inc = rng.random(2000) < 0.5
    one = {"score": rng.normal(2.0 * inc, 1), "member": inc.astype(int)}
    d = json.loads(privrisk.audit(one, one_run=True, delta=1e-5).to_json())
    pt = d["operating_point"]["epsilon_lower"]
    assert (pt["guesses"], pt["correct"]) == (d["guesses"], d["correct"])
    args = (pt["m"], pt["r"], pt["correct"])
    root = optimize.brentq(lambda x: _steinke_p(*args, x, pt["delta"]) - pt["level"], 0, 20,
                           xtol=1e-13)  # fmt: skip
    assert root == pytest.approx(d["epsilon_lower"], rel=1e-8)
    assert _steinke_p(*args, d["epsilon_lower"], 1e-5) > pt["level"]  # the bound: not refuted

    d = json.loads(privrisk.audit(one, one_run=True, one_run_method="fdp", delta=1e-5).to_json())
    pt = d["operating_point"]["mu_lower"]
    args = (pt["m"], pt["guesses"], pt["correct"])
    assert _fdp_refutes(*args, d["mu_lower"] * (1 - 1e-7), pt["level"])
    assert not _fdp_refutes(*args, d["mu_lower"], pt["level"])
    conv = d["operating_point"]["epsilon_lower"]
    assert conv["from"] == "mu_lower" and "Gaussian" in conv["conversion"]
    assert _gaussian_eps(d["mu_lower"], conv["delta"]) == pytest.approx(
        d["epsilon_lower"], rel=1e-6
    )


def test_text_report_has_one_line_per_bound():
    from privrisk.audit.text import text

    rng = np.random.default_rng(9)
    inc = rng.random(800) < 0.5
    one = {"score": rng.normal(2.0 * inc, 1), "member": inc.astype(int)}
    for kwargs, keys in (({}, ("epsilon_lower", "mu_lower")),
                         ({"one_run": True}, ("epsilon_lower",)),
                         ({"one_run": True, "one_run_method": "fdp"}, ("mu_lower",))):  # fmt: skip
        r = privrisk.audit(one, **kwargs)
        lines = [x for x in text(r).splitlines() if x.startswith("  behind ")]
        assert [x.split(":")[0].split()[-1] for x in lines] == list(keys)


def test_a_version_2_report_still_loads():
    cols = {"score": np.arange(40.0), "member": np.arange(40) % 2}
    d = json.loads(privrisk.audit(cols).to_json())
    d["schema"] = "privrisk.audit/2"
    del d["operating_point"]
    from privrisk.audit import AuditReport

    r = AuditReport.from_dict(d)
    assert r.operating_point is None and r.schema == "privrisk.audit/2"


def test_the_html_page_shows_the_operating_points(tmp_path):
    from privrisk.audit.command import explain_main

    page = tmp_path / "card.html"
    rng = np.random.default_rng(10)
    csv = tmp_path / "scores.csv"
    s, m = np.r_[rng.normal(1, 1, 200), rng.normal(0, 1, 200)], np.r_[np.ones(200), np.zeros(200)]
    csv.write_text(
        "score,member\n" + "\n".join(f"{a:.17g},{int(b)}" for a, b in zip(s, m, strict=True))
    )
    assert explain_main(["--epsilon", "1", "--audit", str(csv), "--html", str(page)]) == 0
    html = page.read_text()
    assert "behind epsilon_lower: " in html and "behind mu_lower: " in html
