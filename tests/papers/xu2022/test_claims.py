"""xu2022's claim helpers are thin users of privrisk.contract.verdicts: the across-run estimate decides,
a model that does not leak and runs that contradict each other make a claim uninformative, and
every claim can come out ok, fails and uninformative."""

import numpy as np
import pytest

from privrisk.contract import verdicts as V
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
    [
        ([0.20, 0.25, 0.22] * 3, True),
        ([-0.20, -0.25, -0.22] * 3, False),
        ([0.10, -0.05, 0.02] * 3, None),
        # three runs far above 0 decide nothing robustly: t with 2 df at ±3 s.e. is ±19 s.e.
        ([0.20, 0.25, 0.22], None),
    ],
)
def test_decide_greater_across_runs(values, expected):
    v = C.decide(V.greater, runs(values))
    assert v.holds is expected
    if expected is None:
        assert v.plan is not None and v.plan.unit == "runs" and v.to_decide


def test_contradicting_runs_and_gates_make_a_claim_uninformative():
    # the across-run mean is above 0, but one run clearly says the opposite
    split = runs([0.30, 0.32, -0.20], se=0.01)
    v = C.decide(V.greater, split)
    assert v.holds is None and "contradict" in v.note
    assert C.decide(V.greater, runs([0.2, 0.25, 0.22] * 3), gates=["no leak"]).holds is None
    assert C.decide(V.equivalent, runs([0.01, 0.0, 0.02] * 3), margin=0.05).holds is True
    assert C.decide(V.equivalent, runs([0.12, 0.13, 0.11] * 3), margin=0.05).holds is False


def test_leak_gate():
    assert C.leak_gate(runs([0.85, 0.9, 0.88]), 0.7) == ""
    reason = C.leak_gate(runs([0.55, 0.6, 0.5]), 0.7, what="the control")
    assert "the control" in reason and "0.550" in reason and "< min_auc 0.7" in reason


def test_an_estimated_optimum_below_a_heuristic_reads_uninformative():
    above = C.beats_heuristic(runs([0.05, 0.06, 0.055] * 3, se=0.002), what="opt − heur")
    assert above.holds is True
    below = C.beats_heuristic(runs([-0.08, -0.07, -0.09] * 3, se=0.002), what="opt − heur")
    assert below.holds is None and "shortfall of the estimator" in below.note
    assert below.to_decide.startswith("never by more runs")
    unclear = C.beats_heuristic(runs([0.05, -0.05, 0.02] * 3), what="opt − heur")
    assert unclear.holds is None and unclear.plan.n > 9
    # leaning below the heuristic: more runs would show the shortfall, never the statement
    leaning = C.beats_heuristic(runs([0.01, -0.05, -0.02] * 3), what="opt − heur")
    assert leaning.holds is None and leaning.to_decide.startswith("never by more runs")
    assert "shortfall" in leaning.to_decide


def test_nested_queries_get_the_same_shortfall_rule():
    floor = C.nested("max_i D_i", "(D_1, D_2)")
    below = runs([-0.03, -0.035, -0.028] * 3, se=0.002)
    v = C.decide(V.greater, below, floor=floor, what="2-d − 1-d")
    assert v.holds is None and "function of a query cannot beat the query" in v.note
    # "much higher" (a margin): a precise small positive difference still fails
    small = runs([0.01, 0.012, 0.008] * 3, se=0.002)
    assert C.decide(V.greater, small, floor=floor, margin=0.1, what="2-d − 1-d").holds is False


def test_runs_without_their_own_uncertainty_do_not_contradict_each_other():
    # the paper's own numbers (no within-run s.e.): a run cannot decide on its own, so many runs
    # spread around a positive mean are not a "contradiction"
    rng = np.random.default_rng(2)
    plain = Stat.plain(0.03 + rng.normal(0, 0.02, 40))
    v = C.decide(V.greater, plain, what="W_N − U_N")
    assert "contradict" not in v.note and v.holds is True


def test_directional_auc_is_the_mann_whitney_statistic_with_paired_draws():
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 1, 40), rng.normal(0.6, 1, 70)
    boot = C.resamples(40, 70, rng, 300)
    v, draws = C.directional_auc(a, b, boot)
    assert v == pytest.approx(mannwhitneyu(b, a).statistic / (40 * 70))
    assert draws.shape == (300,) and abs(draws.mean() - v) < 0.02
    # direction fixed: members farther than the hold-out give an AUC below ½ (a fitted classifier
    # would flip it above)
    assert C.directional_auc(b, a, C.resamples(70, 40, rng, 10))[0] == pytest.approx(1 - v)
    # the same resamples for another statistic of the same points: paired draws
    _, d2 = C.directional_auc(a + 0.1, b, boot)
    assert np.corrcoef(draws, d2)[0, 1] > 0.9


def test_paper_estimates_are_compared_paired_by_run():
    w = Stat.plain([0.55, 0.60, 0.52, 0.58, 0.57, 0.54, 0.56, 0.59, 0.53])
    u = Stat.plain(w.values - 0.05 + np.linspace(-0.005, 0.005, 9))  # the same model gives both
    assert C.paper_estimates_greater(w, u, what="W_N − U_N").holds is True
    # identical estimates in every run: zero variance decides nothing
    same = C.paper_estimates_greater(w, w, what="W_N − U_N")
    assert same.holds is None and "zero variance" in same.note


def test_auc_trend_is_a_one_sided_test_of_the_slope():
    rng = np.random.default_rng(1)
    sizes = [10, 100, 1000]
    base = np.array([0.50, 0.51, 0.525])

    def run(shift, noise=0.003):
        shared = rng.normal(0, 0.01, 200)  # the bootstrap moves every size together: paired
        return [(b + shift, b + shift + shared + rng.normal(0, noise, 200)) for b in base]

    rising = [run(rng.normal(0, 0.002)) for _ in range(10)]
    v = C.auc_trend(rising, sizes)
    assert v.holds is True and "slope" in v.note
    falling = [[(v_, d) for v_, d in reversed(r)] for r in rising]
    assert C.auc_trend(falling, sizes).holds is False
    flat = [
        [(0.5 + s, 0.5 + s + rng.normal(0, 0.01, 200)) for s in rng.normal(0, 0.01, 3)]
        for _ in range(3)
    ]
    assert C.auc_trend(flat, sizes).holds is None
    with pytest.raises(ValueError, match="sizes"):
        C.auc_trend([rising[0][:2]], sizes)


@pytest.mark.parametrize(
    ("sources", "data", "note"),
    [
        ({"MNIST": "real"}, "real", "decided by d"),
        # real data a checksum does not vouch for is still real: never 'standin', may reproduce
        (
            {"MNIST": "real", "CIFAR-10": "real-unverified"},
            "real-unverified",
            "decided by d; real data, checksum not verified: CIFAR-10",
        ),
        (
            {"MNIST": "bundled-real", "CIFAR-10": "real-unverified"},
            "standin",
            "decided by d; on MNIST: bundled-real data, not the paper's; "
            "real data, checksum not verified: CIFAR-10",
        ),
    ],
)
def test_a_claims_data_and_note_from_its_sources(sources, data, note):
    row = C.claim(
        "f",
        "c",
        "x",
        C.decide(V.greater, runs([0.2, 0.25, 0.22] * 3)),
        decided_by="d",
        sources=sources,
        ours="o",
    )
    assert row.data == data and row.note.endswith("; " + note)
    assert row.status == "qualitative-ok"  # the verdict decides; the data goes to its column


def test_an_optimum_that_ranks_worse_than_a_heuristic_gates_its_superiority():
    rng = np.random.default_rng(4)

    def runs_of(values):
        return [(v, v + rng.normal(0, 0.002, 200)) for v in values]

    heur = runs_of(np.full(10, 0.85))
    worse = runs_of(np.full(10, 0.834) + rng.normal(0, 0.003, 10))
    reason = C.ranking_gate(worse, heur, "the query")
    assert "ranks worse than the heuristic on the query" in reason and "shortfall" in reason
    assert C.ranking_gate(runs_of(np.full(10, 0.86)), heur, "the query") == ""
    v = C.beats_heuristic(runs([0.002, 0.001, 0.003] * 3, se=0.002), gates=[reason], what="d")
    assert v.holds is None and v.to_decide.startswith("never by more runs (gated: the estimated")
