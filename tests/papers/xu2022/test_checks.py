"""Every decision behind an xu2022 qualitative claim can come out ok, fails and uninformative
(constructed numbers), and none is ok while its estimate is within its interval of the null."""

import pytest

from privrisk.papers.xu2022 import checks

E = checks.Estimate
LEAKS = E(0.60, 0.20, 0.15)  # excess 0.40 > 0.15
FLAT = E(0.30, 0.20, 0.15)  # excess 0.10 <= 0.15: bias or noise


def test_estimate_within_its_null_interval_is_not_informative():
    assert LEAKS.informative and not FLAT.informative
    assert not E(0.35, 0.20, 0.15).informative  # exactly at the edge counts as within


def test_auc_gate_either_direction():
    assert checks.auc_gate({"d0": 0.75}, 0.7) == ""
    assert checks.auc_gate({"d0": 0.2}, 0.7) == ""  # members score lower: still a signal
    assert "min_auc 0.7" in checks.auc_gate({"d0": 0.56, "d1": 0.6}, 0.7)


def test_greater():
    assert checks.greater(LEAKS, FLAT)["holds"] is True
    assert checks.greater(FLAT, LEAKS)["holds"] is False  # e.g. KDE beyond its null beats W_N
    assert checks.greater(FLAT, FLAT)["holds"] is None
    assert checks.greater(LEAKS, FLAT, gate="no signal")["holds"] is None
    # the raw estimates would say otherwise: bias alone does not win
    biased = E(0.90, 0.85, 0.15)
    assert biased.value > LEAKS.value and checks.greater(biased, LEAKS)["holds"] is False
    # both leak, but their excesses differ by less than the half-width: undecided, either order
    close = E(0.62, 0.20, 0.15)
    assert (
        checks.greater(LEAKS, close)["holds"] is None
        and checks.greater(close, LEAKS)["holds"] is None
    )


def test_optimal_ge_heuristic():
    est, half = {"d": LEAKS, "c": LEAKS}, {"d": 0.05, "c": 0.05}
    assert (
        checks.optimal_ge_heuristic(est, {"d": 0.5, "c": 0.5}, {"d": 0.4, "c": 0.4}, half)["holds"]
        is True
    )
    bad = checks.optimal_ge_heuristic(est, {"d": 0.5, "c": 0.5}, {"d": 0.6, "c": 0.4}, half)
    assert bad["holds"] is False and "for d" in bad["note"]
    assert (
        checks.optimal_ge_heuristic(
            {"d": LEAKS, "c": FLAT}, {"d": 0.5, "c": 0.5}, {"d": 0.4, "c": 0.4}, half
        )["holds"]
        is None
    )
    # a held-out gap within the half-width decides nothing, either way (the Fig. 1a 0.933 vs 0.978)
    for heur in (0.48, 0.52):
        tie = checks.optimal_ge_heuristic(est, {"d": 0.5, "c": 0.5}, {"d": heur, "c": 0.4}, half)
        assert tie["holds"] is None and "within the half-width for d" in tie["note"]
    assert (
        checks.optimal_ge_heuristic(
            est, {"d": 0.933, "c": 0.5}, {"d": 0.978, "c": 0.4}, {"d": 0.06, "c": 0.05}
        )["holds"]
        is None
    )
    assert (
        checks.optimal_ge_heuristic(
            est, {"d": 0.933, "c": 0.5}, {"d": 0.978, "c": 0.4}, {"d": 0.04, "c": 0.05}
        )["holds"]
        is False
    )


def test_order():
    assert checks.order(0.2, 0.1) is True
    assert checks.order(-0.2, 0.1) is False
    assert checks.order(0.05, 0.1) is None and checks.order(-0.05, 0.1) is None
    # with a margin ("a lot larger"): decided only beyond margin ± half
    assert checks.order(0.25, 0.1, margin=0.1) is True
    assert checks.order(0.15, 0.1, margin=0.1) is None
    assert checks.order(-0.02, 0.1, margin=0.1) is False


def test_comparable_uses_a_fixed_tolerance_not_the_interval():
    wide = E(0.95, 0.90, 0.02)  # a tight interval, informative
    assert checks.comparable(wide, 0.93, 0.05)["holds"] is True
    assert checks.comparable(wide, 0.85, 0.05)["holds"] is False
    assert (
        checks.comparable(wide, 1.05, 0.05)["holds"] is False
    )  # heuristic better than the estimate
    assert checks.comparable(E(0.91, 0.90, 0.3), 0.5, 0.05)["holds"] is None  # within the null


@pytest.mark.parametrize("control, expect", [(LEAKS, True), (FLAT, None), (None, None)])
def test_below_bound_needs_a_leaking_control(control, expect):
    est = {2.0: E(0.25, 0.20, 0.1), 10.0: E(0.30, 0.20, 0.1)}
    bounds = {2.0: 0.762, 10.0: 0.999}
    assert checks.below_bound(est, bounds, control)["holds"] is expect


def test_below_bound_fails_and_undecided():
    bounds = {0.5: 0.245}
    assert checks.below_bound({0.5: E(0.80, 0.20, 0.1)}, bounds, LEAKS)["holds"] is False
    # bias alone (estimate 0.40, null 0.30) no longer "violates" ε = 0.5
    assert checks.below_bound({0.5: E(0.40, 0.30, 0.1)}, bounds, LEAKS)["holds"] is True
    assert (
        checks.below_bound({0.5: E(0.50, 0.20, 0.1)}, bounds, LEAKS)["holds"] is None
    )  # interval reaches it


def test_max_individual_below_bound():
    assert checks.max_individual_below_bound(0.1, 0.5, 0.762, control_ok=True)["holds"] is True
    assert checks.max_individual_below_bound(0.8, 1.0, 0.762, control_ok=True)["holds"] is False
    assert checks.max_individual_below_bound(0.1, 1.0, 0.762, control_ok=True)["holds"] is None
    assert checks.max_individual_below_bound(0.1, 0.5, 0.762, control_ok=False)["holds"] is None
