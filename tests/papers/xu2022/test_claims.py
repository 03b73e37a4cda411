"""xu2022's claim helpers are thin users of privrisk.verdicts: the across-run estimate decides,
a model that does not leak and runs that contradict each other make a claim uninformative, and
every claim can come out ok, fails and uninformative."""

import numpy as np
import pytest

from privrisk import verdicts as V
from privrisk.papers.xu2022 import claims as C
from privrisk.papers.xu2022.claims import Stat


def runs(values, se=0.01):
    return Stat(np.asarray(values, float), np.full(len(values), se))


def test_stat_from_bootstrap_draws_is_paired():
    rng = np.random.default_rng(0)
    shared = rng.normal(0, 0.05, (3, 500))  # each run's bootstrap moves both statistics together
    a = [(0.6, 0.6 + s) for s in shared]
    b = [(0.5, 0.5 + s + rng.normal(0, 0.005, 500)) for s in shared]
    d = Stat.diff(a, b)
    assert d.values.tolist() == pytest.approx([0.1] * 3) and (d.ses < 0.01).all()
    assert (Stat.of(a).ses > 0.04).all()  # unpaired, each statistic is 10× noisier
    assert Stat.plain([1.0, 2.0]).sd == pytest.approx(np.std([1, 2], ddof=1))


@pytest.mark.parametrize(
    ("values", "expected"),
    [([0.20, 0.25, 0.22], True), ([-0.20, -0.25, -0.22], False), ([0.10, -0.05, 0.02], None)],
)
def test_decide_greater_across_runs(values, expected):
    assert C.decide(V.greater, runs(values)).holds is expected


def test_contradicting_runs_and_gates_make_a_claim_uninformative():
    # the across-run mean is above 0, but one run clearly says the opposite
    split = runs([0.30, 0.32, -0.20], se=0.01)
    v = C.decide(V.greater, split)
    assert v.holds is None and "contradict" in v.note
    assert C.decide(V.greater, runs([0.2, 0.25, 0.22]), gates=["no leak"]).holds is None
    assert C.decide(V.equivalent, runs([0.01, 0.0, 0.02]), margin=0.05).holds is True
    assert C.decide(V.equivalent, runs([0.12, 0.13, 0.11]), margin=0.05).holds is False


def test_leak_gate():
    assert C.leak_gate(runs([0.85, 0.9, 0.88]), 0.7) == ""
    reason = C.leak_gate(runs([0.55, 0.6, 0.5]), 0.7, what="the control")
    assert "the control" in reason and "0.550" in reason and "< min_auc 0.7" in reason


def test_increases_over_runs():
    x = [10, 100, 1000]
    curve = np.array([[0.1, 0.2, 0.3], [0.12, 0.21, 0.33], [0.09, 0.19, 0.31]])  # runs × points

    def diffs(c):
        return lambda j, i: runs(c[:, j] - c[:, i], se=0.005)

    stats = [runs(curve[:, j]) for j in range(3)]
    assert C.increases(stats, x, diffs(curve), margin=0.05, what="adv").holds is True
    assert C.increases(stats, x, diffs(curve[:, ::-1]), margin=0.05, what="adv").holds is False
    flat = curve * 0 + np.array([[0.2], [0.25], [0.15]])
    assert C.increases(stats, x, diffs(flat), margin=0.05, what="adv").holds is None
    gated = C.increases(stats, x, diffs(curve), margin=0.05, what="adv", gates=["no signal"])
    assert gated.holds is None and "no signal" in gated.note
