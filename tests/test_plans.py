"""A plan is a promise (privrisk.contract.verdicts, "Runs to decide"): a finite plan means that the same
rule, run again with the planned number of units and the observed effect and spread as the truth,
decides as it leans in at least POWER of the experiments; a "never" plan is never finite and says
why. Checked as a property over random inputs, one simulation per plan kind: the experiments are
drawn through their sufficient statistics (mean and sample variance), so any planned n is cheap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrisk.contract import verdicts as V
from privrisk.contract.verdicts import Estimate

REPS = 500
#: the simulated rate may fall short of POWER by sampling error only (3 binomial s.e.)
SLACK = 3 * math.sqrt(V.POWER * (1 - V.POWER) / REPS)


def _t_estimate(rng, mean, sd, n, *, unit="draws", cluster=1.0):
    """One experiment's estimate of n normal draws with this mean and sd (df n/cluster − 1)."""
    g = n / cluster
    m = rng.normal(mean, sd / math.sqrt(g))
    s = sd * math.sqrt(rng.chisquare(g - 1) / (g - 1))
    return Estimate(
        m, se=s / math.sqrt(g), df=g - 1, n=int(n), unit=unit, empirical=True, cluster=cluster
    )


def _pilot(mean, sd, n, unit="draws"):
    """A pilot whose mean and spread are exactly the truth."""
    return Estimate(mean, se=sd / math.sqrt(n), df=n - 1, n=n, empirical=True, unit=unit)


def _rate(rule, simulate, lean, rng) -> float:
    return float(np.mean([rule(simulate(rng)).holds is lean for _ in range(REPS)]))


RULES = {
    "greater": lambda m: lambda e: V.greater(e, margin=m),
    "at_least": lambda m: lambda e: V.at_least(e, margin=m),
    "equivalent": lambda m: lambda e: V.equivalent(e, margin=m),
    "below": lambda m: lambda e: V.below(e, m),
}


def _cases(seed: int, k: int):
    rng = np.random.default_rng(seed)
    for _ in range(k):
        rule = str(rng.choice(list(RULES)))
        margin = float(rng.choice([0.0, 0.1, 0.3]))
        if rule == "equivalent" and margin == 0:
            margin = 0.3
        n0 = int(rng.integers(5, 40))
        sd = float(rng.uniform(0.5, 2.0))
        mean = float(rng.uniform(-0.8, 0.8))
        yield rule, margin, n0, sd, mean


CASES = list(_cases(9, 24))


def test_the_random_cases_cover_every_rule_and_both_leanings():
    seen = set()
    for rule_name, margin, n0, sd, mean in CASES:
        v = RULES[rule_name](margin)(_pilot(mean, sd, n0))
        if v.holds is None:
            seen.add((rule_name, v.plan.leaning))
    assert seen >= {(r, lean) for r in RULES for lean in (True, False)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-n{c[2]}")
def test_a_finite_plan_decides_at_the_stated_power_one_point(case):
    rule_name, margin, n0, sd, mean = case
    rule = RULES[rule_name](margin)
    v = rule(_pilot(mean, sd, n0))
    if v.holds is not None:
        pytest.skip("the pilot decides: nothing to plan")
    plan = v.plan
    assert plan is not None and (plan.finite == (not v.to_decide.startswith("never")))
    if not plan.finite:
        assert plan.why, "a never plan says why"
        return
    assert plan.unit == "draws" and plan.leaning is not None and plan.n >= 2
    if plan.n > 10**6:
        pytest.skip("an astronomically large plan: its power is checked by the grid itself")
    rng = np.random.default_rng(n0)
    rate = _rate(rule, lambda r: _t_estimate(r, mean, sd, plan.n), plan.leaning, rng)
    assert rate >= V.POWER - SLACK, (rule_name, margin, mean, sd, n0, plan, rate)
    # and the plan is the smallest such n (the planner's own chance one unit earlier)
    if plan.n > 2:
        assert plan.power(np.array([plan.n - 1.0]))[0] < V.POWER


@pytest.mark.parametrize("k", [2, 4])
def test_every_point_must_hold_the_joint_chance_is_planned(k):
    """k points, each leaning ok: the plan is for all of them at once (a product over the points,
    not the dearest point: that alone would decide the statement in 0.8^k of the experiments)."""
    means = np.linspace(0.35, 0.5, k)
    pts = {f"p{i}": _pilot(m, 1.0, 20) for i, m in enumerate(means)}
    v = V.greater(pts)
    assert v.holds is None and v.plan.finite and v.plan.leaning is True
    n = v.plan.n
    dearest = max(V.greater(e).plan.n for e in pts.values())
    assert n > dearest
    rng = np.random.default_rng(k)

    def sim(r):
        return {f"p{i}": _t_estimate(r, m, 1.0, n) for i, m in enumerate(means)}

    rate = _rate(V.greater, sim, True, rng)
    assert rate >= V.POWER - SLACK and rate <= V.POWER + SLACK


def test_a_point_leaning_to_fails_is_planned_at_the_bonferroni_level():
    pts = {"a": _pilot(-0.25, 1.0, 25), "b": _pilot(0.4, 1.0, 25), "c": _pilot(0.5, 1.0, 25)}
    v = V.at_least(pts)
    assert v.holds is None and v.plan.leaning is False
    n = v.plan.n
    rng = np.random.default_rng(3)
    means = {"a": -0.25, "b": 0.4, "c": 0.5}
    rate = _rate(
        V.at_least, lambda r: {k: _t_estimate(r, m, 1.0, n) for k, m in means.items()}, False, rng
    )
    assert rate >= V.POWER - SLACK


def test_runs_across_runs_with_a_within_run_floor():
    runs = [0.05, 0.01, 0.03, -0.01, 0.04, 0.02]
    pilot = Estimate.across_runs(runs)
    v = V.greater(pilot)
    assert v.holds is None and v.plan.unit == "runs"
    n = v.plan.n
    sd = float(np.std(runs, ddof=1))
    rng = np.random.default_rng(4)
    rate = _rate(
        V.greater,
        lambda r: Estimate.across_runs(r.normal(np.mean(runs), sd, n)),
        True,
        rng,
    )
    assert rate >= V.POWER - SLACK


def test_draws_in_worlds_plan_more_worlds():
    """Draws in clusters (three in each stand-in world, the world a random effect): the plan counts
    draws, and its degrees of freedom are those of the worlds."""
    rng = np.random.default_rng(5)
    world_sd, draw_sd, m = 0.6, 1.0, 3

    def experiment(r, draws):
        worlds = draws // m
        effect = r.normal(0.0, world_sd, worlds)
        x = 0.4 + np.repeat(effect, m) + r.normal(0.0, draw_sd, worlds * m)
        return Estimate.clustered(x, np.repeat(np.arange(worlds), m))

    pilot = experiment(rng, 30)
    assert pilot.cluster == 3 and pilot.df == 9 and pilot.n == 30
    # a pilot whose mean and spread are the truth: the world means' sd
    sd_means = math.sqrt(world_sd**2 + draw_sd**2 / m)
    truth = Estimate(0.4, se=sd_means / math.sqrt(10), df=9, n=30, empirical=True, cluster=3)
    v = V.greater(truth)
    assert v.holds is None and "in clusters of 3" in v.plan.why
    n = int(math.ceil(v.plan.n / m) * m)
    rate = _rate(V.greater, lambda r: experiment(r, n), True, rng)
    assert rate >= V.POWER - SLACK


def test_intervals_without_a_size_plan_a_multiple_of_the_sample():
    pilot = Estimate(0.1, lo=-0.02, hi=0.25)  # an asymmetric interval at ±2 s.e.
    v = V.below(pilot, 0.3)
    assert v.holds is None and v.plan.relative and v.plan.leaning is True
    s = v.plan.n
    rng = np.random.default_rng(6)
    hi_se = (0.25 - 0.1) / 2 / math.sqrt(s)
    lo_se = (0.1 + 0.02) / 2 / math.sqrt(s)

    def sim(r):
        m = r.normal(0.1, hi_se)
        return Estimate(m, lo=m - 2 * lo_se, hi=m + 2 * hi_se)

    rate = _rate(lambda e: V.below(e, 0.3), sim, True, rng)
    assert rate >= V.POWER - SLACK


@pytest.mark.parametrize(("margin", "n0"), [(0.5, 30), (0.05, 30), (0.9, 3), (0.5, 3)])
def test_a_tie_of_a_count_gets_its_tie_bound_and_a_certain_plan(margin, n0):
    """Every draw tied (a paired difference of successes, −1…1, step 1): no longer 'never
    decided'; the tie bound (the narrower of the exact bound q and the near-tie's (1 + t)/n, the
    exact one at 3 draws) supports non-inferiority as far as the sample size allows, and the plan
    is the first n at which it does (at the observed effect every draw ties: certain)."""
    from scipy import stats

    zr = V.ROBUST * V.Z

    def half(n):
        near = (1.0 + stats.t.isf(V.alpha_of(zr) / 2, n - 1)) / n
        return min(V.tie_share(n, zr), near)

    def tie(n):
        return Estimate.paired(np.zeros(n), np.zeros(n), bounds=(-1, 1))

    t0 = tie(n0)
    assert t0.zero_variance and t0.decidable and t0.step == 1.0
    assert t0.interval(zr) == pytest.approx((-half(n0), half(n0)))
    if n0 == 3:
        assert half(3) == pytest.approx(V.tie_share(3, zr))  # the exact bound is the narrower
    v = V.at_least(t0, margin=margin)
    if half(n0) < margin:
        assert v.holds is True
        return
    assert v.holds is None and v.plan.finite and v.plan.leaning is True
    n = v.plan.n
    assert V.at_least(tie(n), margin=margin).holds is True
    assert V.at_least(tie(n - 1), margin=margin).holds is None
    assert half(n) < margin <= half(n - 1)
    # equivalence too; a tie of unknown step is its near-ties' limit: 0, well inside the margin
    assert V.equivalent(tie(n), margin=margin).holds is True
    free = V.at_least(Estimate.paired(np.zeros(n0), np.zeros(n0), step=None), margin=margin)
    assert free.holds is True and "zero variance" in free.note


def test_tie_share_is_the_exact_binomial_bound():
    # (1 − q)^n = α/2 at the robust level: 30 ties, at most 19.8 % of draws could differ
    q = V.tie_share(30, 3.0)
    assert (1 - q) ** 30 == pytest.approx(V.alpha_of(3.0) / 2)
    assert q == pytest.approx(0.198, abs=1e-3)
    # the rule of three (one-sided 95 %, i.e. α/2 = 0.05): about 3 / n
    assert V.tie_share(300, 1.644854) * 300 == pytest.approx(3.0, rel=0.01)


def test_saturated_points_are_left_out_and_named():
    pts = {
        "E=0": _pilot(3.0, 1.0, 30),
        "E=4": Estimate.paired(np.full(30, 100.0), np.full(30, 100.0), bounds=(-100, 100)),
    }
    blocked = V.greater(pts)
    assert blocked.holds is None  # a tie cannot be "better"
    v = V.greater(pts, saturated=["E=4"])
    assert v.holds is True and "left out" in v.note and "E=4" in v.note
    none_left = V.greater(pts, saturated=["E=0", "E=4"])
    assert none_left.holds is None and none_left.to_decide.startswith("never")
    with pytest.raises(ValueError, match="not among the points"):
        V.greater(pts, saturated=["E=9"])


def test_a_theorem_floor_turns_a_shortfall_into_never():
    """A query against a function of itself: the true difference is >= 0. An estimate below it
    is the estimator's shortfall (never, however many runs), not a failure; with a margin, a
    precise small difference still fails."""
    floor = V.Floor("the 1-d query is a function of the 2-d query")
    below = Estimate.across_runs([-0.02, -0.015, -0.018, -0.016, -0.02, -0.017] * 2)
    v = V.greater(below, floor=floor)
    assert v.holds is None and "shortfall" in v.note and v.to_decide.startswith("never")
    assert V.greater(below).holds is False  # without the theorem it would read as a failure
    leaning = _pilot(-0.01, 0.05, 10, unit="runs")
    lv = V.greater(leaning, floor=floor)
    assert lv.holds is None and not lv.plan.finite and "shortfall" in lv.plan.why
    assert V.greater(leaning).plan.finite  # the plan the old rule promised
    # "much higher" (margin 0.1): a small positive difference fails legitimately, and a plan
    # towards that failure is promised only where it would not read as a shortfall
    small = _pilot(0.03, 0.2, 10, unit="runs")
    sv = V.greater(small, margin=0.1, floor=floor)
    assert sv.holds is None and sv.plan.finite and sv.plan.leaning is False
    n = sv.plan.n
    rng = np.random.default_rng(8)
    rate = _rate(
        lambda e: V.greater(e, margin=0.1, floor=floor),
        lambda r: _t_estimate(r, 0.03, 0.2, n, unit="runs"),
        False,
        rng,
    )
    assert rate >= V.POWER - SLACK


def test_never_plans_say_why_and_are_never_finite():
    boundary = V.greater(_pilot(0.0, 1.0, 20))
    gated = V.greater(_pilot(0.3, 1.0, 20)).gated("the model does not leak")
    one = V.greater(Estimate.from_draws([1.0]))
    for v in (boundary, gated, one):
        assert v.holds is None and not v.plan.finite and v.plan.why
        assert v.to_decide.startswith("never by more") and "(" in v.to_decide
    assert "boundary" in boundary.to_decide and "gated" in gated.to_decide


def test_combined_parts_plan_jointly_and_lazily():
    a, b = _pilot(0.4, 1.0, 20), _pilot(0.45, 1.0, 20)
    both = V.all_of({"a": V.greater(a), "b": V.greater(b)})
    alone = V.greater({"a": a, "b": b})
    assert both.holds is None and both.plan.n == alone.plan.n
    # a part that never holds makes the whole never (unless another part fails)
    stuck = V.all_of([V.greater(a), V.greater(b).gated("no control")])
    assert not stuck.plan.finite and "no control" in stuck.to_decide
    failing = V.all_of([V.greater(_pilot(-0.4, 1.0, 20)), V.greater(b).gated("no control")])
    assert failing.plan.finite and failing.plan.leaning is False


def test_monotone_trend_plan_is_kept():
    x = [1, 2, 4]
    flat = [Estimate(v, se=0.05, n=30, unit="draws", empirical=True) for v in (0.1, 0.12, 0.14)]
    m = V.monotone(flat, x)
    assert m.holds is None and m.plan.finite and m.plan.unit == "draws"
