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
    # without the step (a continuous outcome) only the exact bound over the 10 worlds applies:
    # a differing world could be the whole range off, so a tie of 10 worlds decides nothing here
    cont = Estimate.clustered(np.zeros(30), worlds, bounds=(-100, 0), step=None)
    assert V.at_least(cont, margin=1.0).holds is None


def test_the_tie_bound_counts_worlds_not_draws():
    worlds = np.repeat(np.arange(10), 3)
    by_world = Estimate.clustered(np.zeros(30), worlds, bounds=(0, 1), step=None)
    by_draw = Estimate.from_draws(np.zeros(30), bounds=(0, 1), step=None)
    assert by_world.interval(3.0)[1] == pytest.approx(V.tie_share(10, 3.0))
    assert by_draw.interval(3.0)[1] == pytest.approx(V.tie_share(30, 3.0))


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
