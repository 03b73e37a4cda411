"""Keep-probabilities (privrisk.contract.verdicts.keep): closed forms at one point, the laws of
their combination, and calibration against simulated reruns."""

import math

import numpy as np
import pytest
from scipy import stats

from privrisk.contract import claims
from privrisk.contract import verdicts as V
from privrisk.contract.verdicts import keep as K

ZR = V.ROBUST * V.Z  # the robust level of an experimental decision


@pytest.mark.parametrize("past", [0.0, 0.5, 1.0, 2.0, 3.0])
def test_one_point_closed_form(past):
    # "A − B > 0" decided at ±3 s.e.: an estimate `past` s.e. beyond the robust boundary keeps
    # ok with probability Φ(past / √2) (the rerun's and this run's noise)
    v = V.greater(V.Estimate(ZR + past, se=1.0))
    assert v.keep == pytest.approx(stats.norm.cdf(past / math.sqrt(2)), abs=2e-4)
    assert v.status == ("ok" if past > 0 else "uninformative")
    # the mirror image fails (one point: the Bonferroni level is the robust one)
    w = V.greater(V.Estimate(-ZR - past, se=1.0))
    if past > 0:
        assert w.status == "fails"
        assert w.keep == pytest.approx(stats.norm.cdf(past / math.sqrt(2)), abs=2e-4)


def test_an_undecided_point_splits_its_mass_between_the_two_sides():
    v = V.greater(V.Estimate(1.0, se=1.0))
    assert v.status == "uninformative"
    ok = 1 - stats.norm.cdf((ZR - 1.0) / math.sqrt(2))
    fails = stats.norm.cdf((-ZR - 1.0) / math.sqrt(2))
    assert v.rerun.ok == pytest.approx(ok, abs=2e-4)
    assert v.rerun.fails == pytest.approx(fails, abs=2e-4)
    assert v.keep == pytest.approx(1 - ok - fails, abs=3e-4)


def test_analytic_and_undecidable_estimates_are_certain():
    assert V.greater(V.Estimate.exact(0.3)).keep == 1.0
    assert V.greater(V.Estimate.exact(-0.3)).keep == 1.0
    one = V.Estimate.from_draws([0.4])  # one draw: infinite s.e., never decides
    assert V.greater(one).keep == 1.0 and V.greater(one).status == "uninformative"


def test_equivalence_keeps_by_both_ends():
    # inside [−m, m] with 4 s.e. of room on each side past the robust ends: both must hold
    m = ZR + 4.0
    v = V.equivalent(V.Estimate(0.0, se=1.0), margin=m)
    p = stats.norm.cdf(4.0 / math.sqrt(2))
    assert v.status == "ok" and v.keep == pytest.approx(2 * p - 1, abs=3e-4)


#: the fast tier draws the first 100 of the 300 random cases (the same seeded sequence, about 1 s);
#: the slow tier all 300
@pytest.mark.parametrize("cases", [100, pytest.param(300, marks=pytest.mark.slow)])
def test_random_statuses_have_a_distribution(cases):
    rng = np.random.default_rng(45)
    rules = [
        lambda e: V.greater(e, margin=0.1),
        lambda e: V.at_least(e, margin=0.1),
        lambda e: V.equivalent(e, margin=0.3),
        lambda e: V.below(e, 0.5),
    ]
    seen = set()
    for _ in range(cases):
        k = int(rng.integers(1, 4))
        es = [
            V.Estimate(float(rng.normal(0, 1)), se=float(rng.uniform(0.01, 0.5)), df=None)
            for _ in range(k)
        ]
        for rule in rules:
            v = rule(es if k > 1 else es[0])
            r = v.rerun
            assert 0 <= r.ok <= 1 and 0 <= r.fails <= 1 and r.ok + r.fails <= 1 + 1e-12
            assert 0 <= v.keep <= 1
            seen.add((rules.index(rule), v.holds))
            # a status at least as likely as the point it sits at: a decided verdict keeps its
            # status at least as often as it did at the decision boundary itself (½ per point)
            if v.holds is not None and rule is not rules[2]:  # one-sided rules
                assert v.keep >= 0.5**k - 1e-3
    # not vacuous: every rule held, failed and stayed undecided somewhere among the cases
    assert seen == {(i, h) for i in range(len(rules)) for h in (True, False, None)}


def test_all_of_and_monotone_combine_the_chances():
    a = V.greater(V.Estimate(ZR + 1.0, se=1.0))
    b = V.greater(V.Estimate(ZR + 2.0, se=1.0))
    c = V.greater(V.Estimate(-ZR - 1.0, se=1.0))
    assert V.all_of([a, b]).keep == pytest.approx(a.keep * b.keep)
    both = V.all_of([a, c])
    assert both.status == "fails"
    assert both.keep == pytest.approx(1 - (1 - a.rerun.fails) * (1 - c.rerun.fails))
    rng = np.random.default_rng(3)
    curve = rng.normal(size=(40, 4)) * 0.2 + np.arange(4)
    m = V.monotone(curve, [1, 2, 3, 4])
    assert m.status == "ok" and m.keep > 0.99
    g = a.gated("the control shows nothing")
    assert g.keep is None  # a gate's chances are not an estimate's


def _simulate(effects: np.ndarray, se: float, rng) -> tuple[float, float, int]:
    """Two independent runs per true effect; among the first runs that decide ok, the mean
    predicted keep-probability and the share whose second run is ok too."""
    first = rng.normal(effects, se)
    second = rng.normal(effects, se)
    predicted, kept = [], []
    for a, b in zip(first, second, strict=True):
        v = V.greater(V.Estimate(a, se=se))
        if v.holds is True:
            predicted.append(v.keep)
            kept.append(V.greater(V.Estimate(b, se=se)).holds is True)
    return float(np.mean(predicted)), float(np.mean(kept)), len(kept)


def test_calibrated_against_simulated_reruns_over_spread_effects():
    # with true effects spread widely around the boundary (as the page's rows are), this run's
    # estimate give or take √2 s.e. is the predictive law of a rerun: the mean keep-probability of
    # the decided runs predicts the share of reruns that keep the status
    rng = np.random.default_rng(451)
    predicted, observed, n = _simulate(rng.uniform(-4, 12, 3000), 1.0, rng)
    assert n > 1000
    assert abs(predicted - observed) < 0.03, (predicted, observed, n)


#: the fast tier checks one effect past the boundary (1500 simulated pairs, about 1 s each); the
#: slow tier also the effect just past it (3.5: deciding selects the lucky draws) and far out (6.0)
@pytest.mark.parametrize(
    "effect",
    [pytest.param(3.5, marks=pytest.mark.slow), 4.5, pytest.param(6.0, marks=pytest.mark.slow)],
)
def test_near_for_a_fixed_effect(effect):
    # one fixed true effect: the first run's uncertainty about the truth moves the prediction
    # from the rate observed, by up to about 0.1 either way (lower a little past the boundary,
    # where deciding selects the lucky draws, higher further out)
    rng = np.random.default_rng(int(effect * 10))
    predicted, observed, n = _simulate(np.full(1500, effect), 1.0, rng)
    assert n > 300
    assert abs(observed - predicted) < 0.12, (predicted, observed, n)


def test_numeric_rows_keep_by_their_tolerance():
    led = claims.Ledger("p", data="simulated")
    row = led.numeric(
        figure="f", claim_id="a", claim="x", paper_value=1.0, ours=1.0, tolerance=0.0, se=0.1
    )
    # reproduced with |ours − paper| = 0 ≤ 0.2: keeps while the rerun moves less than 0.2
    p = stats.norm.cdf(0.2 / (math.sqrt(2) * 0.1))
    assert row.status == "reproduced" and row.keep == pytest.approx(2 * p - 1, abs=1e-4)
    far = led.numeric(
        figure="f", claim_id="b", claim="x", paper_value=1.0, ours=2.0, tolerance=0.0, se=0.1
    )
    assert far.status == "differs" and far.keep == pytest.approx(1.0, abs=1e-4)
    exact = claims.Ledger("p").numeric(
        figure="f", claim_id="c", claim="x", paper_value=1.0, ours=1.0, tolerance=0.0
    )
    assert exact.keep == ""  # analytic: compared exactly, no keep-probability


def test_ledger_stores_and_checks_keep():
    led = claims.Ledger("p", data="simulated")
    v = V.greater(V.Estimate(ZR + 1.0, se=1.0))
    row = led.judged(figure="f", claim_id="a", claim="x", verdict=v, ours="y")
    assert row.keep == round(v.keep, 4)
    df = claims.to_frame([row]).astype(str)
    assert claims.check(df) == []
    bad = df.assign(keep="1.5")
    assert "not a probability" in claims.check(bad)[0]
    analytic = df.assign(data="analytic")
    assert "analytic row" in claims.check(analytic)[0]
    with pytest.raises(ValueError, match="analytic row"):
        claims.Claim("p", "f", "a", "x", "stated", "y", "", "qualitative-ok", keep=0.5)


def test_a_ledger_without_the_keep_column_reads_with_it_empty(tmp_path):
    led = claims.Ledger("p")
    row = led.qualitative(figure="f", claim_id="a", claim="x", holds=True, ours="y")
    df = claims.to_frame([row]).drop(columns="keep")
    df.to_csv(tmp_path / "c.csv", index=False)
    back = claims.read(tmp_path / "c.csv")
    assert list(back.columns) == claims.COLUMNS and back.keep.tolist() == [""]


def test_rerun_law():
    r = K.Rerun(0.7, 0.5)  # clipped: fails cannot exceed what ok leaves
    assert r.ok == 0.7 and r.fails == pytest.approx(0.3) and r.undecided == pytest.approx(0.0)
    assert K.joint([K.Rerun(0.5, 0.1), None]) is None
