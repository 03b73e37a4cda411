"""Ties of a bounded outcome (privrisk.contract.verdicts.ties): a perfect tie never decides less
than a near-tie, the tie bound counts worlds when the draws come in clusters, and the planner
prices ties by the same bound."""

import numpy as np
import pytest

from privrisk.contract import verdicts as V
from privrisk.contract.verdicts import Estimate

#: how decided a verdict is, per direction: a tie must be at least as decided as a near-tie
RULES = {
    "at_least": lambda e, m: V.at_least(e, margin=m),
    "greater": lambda e, m: V.greater(e, margin=-m),
    "equivalent": lambda e, m: V.equivalent(e, margin=m),
    "below": lambda e, m: V.below(e, m),
}


def _estimate(draws, worlds):
    if worlds is None:
        return Estimate.from_draws(draws, bounds=(-100, 100))
    return Estimate.clustered(draws, worlds, bounds=(-100, 100))


@pytest.mark.parametrize("seed", range(40))
def test_a_perfect_tie_never_decides_less_than_a_near_tie(seed):
    # the near-ties one record away on each side the range allows: what they all decide, the tie
    # decides too, and its interval lies inside their hull
    rng = np.random.default_rng(seed)
    n_worlds = int(rng.integers(2, 12))
    per = int(rng.integers(1, 6))
    n = n_worlds * per
    worlds = np.repeat(np.arange(n_worlds), per) if rng.random() < 0.5 else None
    v = float(rng.choice([-100, -3, -1, 0, 2, 100]))
    tie = _estimate(np.full(n, v), worlds)
    nears = []
    for side in (-1.0, 1.0):
        if not -100 <= v + side <= 100:
            continue  # no near-tie past the end of the range
        near_draws = np.full(n, v)
        near_draws[int(rng.integers(n))] += side  # one draw one record away
        nears.append(_estimate(near_draws, worlds))
    for name, rule in RULES.items():
        for m in (0.25, 0.5, 1.0, 2.0, 5.0, 20.0):
            got = {rule(e, m).holds for e in nears}
            if len(got) == 1 and None not in got:
                assert rule(tie, m).holds is got.pop(), (name, m, v, n, worlds is not None)
    lo_t, hi_t = tie.interval(3.0)
    assert lo_t >= min(e.interval(3.0)[0] for e in nears) - 1e-12
    assert hi_t <= max(e.interval(3.0)[1] for e in nears) + 1e-12


def test_fig5a_at_the_ceiling_decides_as_fig5b_did():
    # swanberg2025 Fig 5a at ε = ∞: 30 draws in 10 worlds, every attack at the ceiling (attack −
    # ceiling = 0); Fig 5b: 29 ties and one draw a record below. Both: "reaches the ceiling within
    # one record".
    worlds = np.repeat(np.arange(10), 3)
    tie = Estimate.clustered(np.zeros(30), worlds, bounds=(-100, 0))
    near = Estimate.clustered(np.r_[np.zeros(29), -1.0], worlds, bounds=(-100, 0))
    assert V.at_least(near, margin=1.0).holds is True
    assert V.at_least(tie, margin=1.0).holds is True
    # without the step (a continuous outcome, or a summary row that does not say it counts, as
    # the pipeline's Fig 5 rows are made): the tie is its near-ties' limit and decides as they do
    cont = Estimate.clustered(np.zeros(30), worlds, bounds=(-100, 0), step=None)
    assert V.at_least(cont, margin=1.0).holds is True
    row = Estimate(
        0.0, se=0.0, df=9, empirical=True, n=30, unit="draws", bounds=(-100, 0), cluster=3
    )
    assert row.step is None and V.at_least(row, margin=1.0).holds is True
    assert V.at_least(Estimate(-1 / 30, se=1 / 30, df=9, empirical=True, n=30), margin=1.0).holds


def test_the_tie_bound_counts_worlds_not_draws():
    # a success (0/1, step 1) tied in 6 draws: at so few the exact bound is the narrower one, and
    # over 2 worlds of 3 it counts 2 independent units, not 6
    worlds = np.repeat(np.arange(2), 3)
    by_world = Estimate.clustered(np.zeros(6), worlds, bounds=(0, 1))
    by_draw = Estimate.from_draws(np.zeros(6), bounds=(0, 1))
    assert by_world.step == by_draw.step == 1.0
    assert by_world.interval(3.0)[1] == pytest.approx(V.tie_share(2, 3.0))
    assert by_draw.interval(3.0)[1] == pytest.approx(V.tie_share(6, 3.0))
    assert V.tie_share(2, 3.0) > V.tie_share(6, 3.0)


def test_the_step_survives_arithmetic_and_plans_price_the_tie():
    e = Estimate.from_draws(np.zeros(20), bounds=(0, 10))
    assert e.step == 1.0 and e.scaled(2.0).step == 2.0 and e.shift(3).step == 1.0
    assert Estimate.from_draws([0.5, 0.5], bounds=(0, 1)).step is None  # not integer draws
    with pytest.raises(ValueError, match="step"):
        Estimate(0.0, se=0.0, step=0.0)
    # a tie too small to decide "below 0.2 + margin" plans the draws at which its bound would
    tie = Estimate.from_draws(np.zeros(4), bounds=(0, 1))
    v = V.below(tie, 0.2)
    assert v.holds is None and v.plan.finite and v.plan.n > 4
    # at the planned n the tie decides
    assert V.below(Estimate.from_draws(np.zeros(int(v.plan.n)), bounds=(0, 1)), 0.2).holds


def _unknown_step(draws, worlds, bounds):
    """An estimate of draws whose step is not known (a continuous outcome)."""
    if worlds is None:
        return Estimate.from_draws(draws, bounds=bounds, step=None)
    return Estimate.clustered(draws, worlds, bounds=bounds, step=None)


#: the margin of each rule of :data:`RULES` whose boundary is the value v
_AT = {
    "at_least": lambda v: -v,
    "greater": lambda v: -v,
    "equivalent": lambda v: abs(v),
    "below": lambda v: v,
}


def _boundaries(v, rng):
    """Each rule with margins that put its boundary exactly at the tie (where the near-ties on
    both sides straddle it) or clearly away from it (at least 0.01, far beyond the near-ties)."""
    out = []
    for name, rule in RULES.items():
        at = _AT[name](v)
        margins = [at] + list(at + rng.choice([-1, 1]) * rng.uniform(0.01, 3.0, size=3))
        if name in ("at_least", "equivalent"):  # margins of these are >= 0
            margins = [m for m in margins if m >= 0]
        out += [(name, rule, float(m)) for m in margins]
    return out


@pytest.mark.parametrize(
    "seed",  # 15 draws in the fast tier (~0.5 s of CPU each), all 60 in both tiers together
    [*range(15), *(pytest.param(s, marks=pytest.mark.slow) for s in range(15, 60))],
)
def test_a_tie_of_unknown_step_decides_as_the_limit_of_its_near_ties(seed):
    # near-ties of a continuous outcome come at every distance δ, from below and from above, one
    # unit moved or every unit jittered, in worlds or not, with a stated range or without one:
    # their t intervals shrink onto the tie, so their decisions settle as δ → 0 (the same at two
    # small δ), the same from both sides, and the tie must decide exactly that (no more, no less),
    # with the same keep-probability
    rng = np.random.default_rng(1000 + seed)
    n_worlds = int(rng.integers(2, 12))
    per = int(rng.integers(1, 5))
    n = n_worlds * per
    worlds = np.repeat(np.arange(n_worlds), per) if per > 1 and rng.random() < 0.5 else None
    # a value in 1/64ths: n copies sum and divide back to it exactly (a tie, s.e. exactly 0)
    v = float(rng.choice([0.0, round(rng.uniform(-3, 3) * 64) / 64, -1.0, 2.5]))
    bounds = rng.choice(["none", "wide", "at_top", "at_bottom"])
    bounds = {
        "none": None,
        "wide": (v - 50.0, v + 50.0),
        "at_top": (v - 10.0, v),  # a ceiling: near-ties only from below
        "at_bottom": (v, v + 10.0),
    }[str(bounds)]
    tie = _unknown_step(np.full(n, v), worlds, bounds)
    assert tie.zero_variance and tie.step is None and tie.decidable
    sides = [s for s in (-1.0, 1.0) if bounds is None or bounds[0] <= v + s * 1e-3 <= bounds[1]]
    assert sides
    nears = {}
    for side in sides:
        for delta in (1e-6, 1e-7):
            one = np.full(n, v)
            one[int(rng.integers(n))] += side * delta
            jitter = v + side * delta * rng.uniform(0.0, 1.0, size=n)
            nears[(side, delta)] = [
                _unknown_step(one, worlds, bounds),
                _unknown_step(jitter, worlds, bounds),
            ]
    for name, rule, m in _boundaries(v, rng):
        got = rule(tie, m)
        limits = {rule(e, m).holds for es in nears.values() for e in es}
        why = (name, m, v, n, worlds is not None, bounds, limits, got.note)
        if len(limits) == 1:  # the near-ties agree: the tie decides as they do
            assert {got.holds} == limits, why
        else:  # they part on a boundary the tie sits on (from below fails, from above holds)
            assert got.holds is None and m == _AT[name](v), why
        if got.holds is not None:  # a decided tie states how likely a rerun keeps it
            keeps = [rule(e, m).keep for e in nears[(sides[0], 1e-7)]]
            assert got.keep == pytest.approx(1.0) and keeps == pytest.approx([1.0, 1.0])
    # the plan of an undecided tie: more of a tie on the boundary cannot decide it
    for name, rule, m in _boundaries(v, rng)[:1]:
        got = rule(tie, m)
        if got.holds is None:
            assert got.to_decide.startswith("never"), (name, got.to_decide)


def test_a_tie_of_unknown_step_is_not_exact():
    # the open point: a tie sitting on a boundary to round-off decides nothing, where an analytic
    # number there decides (at least 0 holds for an exact 0); the mean of equal floats may miss
    # the value by an ulp and still sits on it
    row = Estimate(0.1 + 0.2, se=0.0, df=9, empirical=True, n=10, unit="draws")
    assert row.zero_variance and row.step is None
    assert V.at_least(row.shift(-0.3), margin=0.0).holds is None
    assert V.at_least(Estimate.exact(0.0), margin=0.0).holds is True
    lo, hi = row.interval(3.0)
    assert lo < row.value < hi and hi - lo == pytest.approx(2e-9)
    assert "zero variance over 10 draws" in row.text()
