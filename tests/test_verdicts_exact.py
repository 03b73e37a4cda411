"""The exact checks of privrisk.contract.verdicts (analytic curves, closed forms): each holds,
fails and says where; properties over random inputs tie each to the comparison it names."""

from __future__ import annotations

import numpy as np
import pytest

from privrisk.contract import verdicts as V


def test_below_and_above_pin_the_boundary():
    assert V.exact_below([0.1, 0.2], 0.2).holds is True
    assert V.exact_below([0.1, 0.2], 0.2, strict=True).holds is False
    assert V.exact_below(0.2 + 1e-13, 0.2, tol=1e-12).holds is True
    assert V.exact_above(3.0, 2.0).holds is True
    assert V.exact_above(2.0, 2.0).holds is False
    assert V.exact_above(2.0, 2.0, strict=False).holds is True
    assert V.exact_above(2.0 - 1e-13, 2.0, tol=-1e-12, strict=False).holds is True
    assert V.exact_below(np.nan, 1.0).holds is False and V.exact_above(np.nan, 0.0).holds is False


def test_failure_note_names_the_first_place():
    v = V.exact_below([0.1, 0.5, 0.9], [0.2, 0.4, 0.1], why="above the bound", x=[1, 2, 3])
    assert (v.holds, v.note, v.to_decide) == (False, "above the bound at x = 2", "")
    ok = V.exact_below([0.1], [0.2], why="above the bound", x=[1])
    assert (ok.holds, ok.note, ok.status) == (True, "", "ok")


def test_close_is_allclose():
    assert V.exact_close([1.0, 2.0], [1.0 + 5e-7, 2.0], atol=1e-6).holds is True
    v = V.exact_close([1.0, 2.0], [1.0 + 2e-6, 2.0], atol=1e-6, why="departs")
    assert (v.holds, v.note) == (False, "departs")
    assert V.exact_close(100.0, 101.0, rtol=0.01).holds is True


def test_somewhere_below():
    assert V.exact_somewhere_below([1, 2, 3], [1, 2, 3]).holds is False
    assert V.exact_somewhere_below([1, 1.5, 3], [1, 2, 3], tol=0.1).holds is True
    assert V.exact_somewhere_below([1, 1.95, 3], [1, 2, 3], tol=0.1).holds is False


def test_monotone():
    assert V.exact_monotone([1, 2, 3]).holds is True
    assert V.exact_monotone([1, 2, 2]).holds is False
    assert V.exact_monotone([1, 2, 2], strict=False).holds is True
    assert V.exact_monotone([3, 2, 1], direction=-1).holds is True
    assert V.exact_monotone([3, 1, 2], direction=0, strict=False).holds is False
    assert V.exact_monotone([1, 1, 1], direction=0, strict=False).holds is True
    with pytest.raises(ValueError, match="direction"):
        V.exact_monotone([1, 2], direction=2)
    with pytest.raises(ValueError, match="non-strict"):
        V.exact_monotone([1, 2], direction=0)


def test_all_joins_the_failing_reasons():
    ok, a, b = V.exact_below(0, 1), V.exact_below(2, 1, why="a"), V.exact_above(0, 1, why="b")
    assert V.exact_all({"x": ok, "y": ok}).holds is True
    assert V.exact_all({"x": ok, "y": a, "z": b}).note == "a; b"
    assert V.exact_all({"x": ok, "y": a, "z": b}, first=True).note == "a"
    assert (
        V.exact_all({"x": ok, "y": a, "z": b}, why="not increasing").note == "not increasing: y, z"
    )
    with pytest.raises(ValueError):
        V.exact_all({})
    with pytest.raises(ValueError, match="exact"):
        V.exact_all({"u": V.Verdict(None, "undecided")})


def test_undecidable_is_uninformative_with_its_reason_and_no_plan():
    v = V.undecidable("'significantly' is not defined")
    assert (v.holds, v.status, v.note, v.to_decide) == (
        None,
        "uninformative",
        "'significantly' is not defined",
        "",
    )
    with pytest.raises(ValueError):
        V.undecidable(" ")


def test_properties_over_random_inputs():
    """Each check equals the comparison it names, on random arrays (and never undecided)."""
    rng = np.random.default_rng(20260)
    for _ in range(500):
        n = int(rng.integers(1, 6))
        v, b = rng.normal(size=n).round(1), rng.normal(size=n).round(1)
        tol = float(rng.choice([0.0, 0.05]))
        assert V.exact_below(v, b, tol=tol).holds is bool(np.all(v <= b + tol))
        assert V.exact_below(v, b, strict=True).holds is bool(np.all(v < b))
        assert V.exact_above(v, b).holds is bool(np.all(v > b))
        assert V.exact_above(v, b, strict=False).holds is bool(np.all(v >= b))
        # below (non-strict) and above (strict) are complements point by point
        assert V.exact_below(v[:1], b[:1]).holds is not V.exact_above(v[:1], b[:1]).holds
        assert V.exact_close(v, b, atol=tol).holds is bool(np.all(np.abs(v - b) <= tol))
        if n > 1:
            assert V.exact_monotone(v).holds is bool(np.all(np.diff(v) > 0))
        parts = {str(i): V.exact_below(v[i], b[i]) for i in range(n)}
        assert V.exact_all(parts).holds is V.exact_below(v, b).holds
