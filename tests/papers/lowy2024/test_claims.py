"""Every qualitative statement of lowy2024 on a constructed curve where it holds and one where
it is false: no check is always true."""

from __future__ import annotations

import numpy as np
import pytest

from privrisk.papers.lowy2024 import claims

X = np.array([1.0, 2, 5, 10, 20, 50])
UP = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
SE = np.full(6, 0.001)


def _trend(y, sign, se=SE):
    return claims.trend_claim(
        figure="f", claim_id="c", claim="s", x=X, curves={"r": (y, se)}, sign=sign
    ).status


def test_trend_increasing_and_decreasing():
    assert _trend(UP, +1) == "qualitative-ok"
    assert _trend(UP[::-1], -1) == "qualitative-ok"
    assert _trend(UP[::-1], +1) == "qualitative-fails"
    assert _trend(UP, -1) == "qualitative-fails"


def test_trend_reversal_at_the_end_fails_but_noise_does_not():
    bumped = UP.copy()
    bumped[-1] = 0.45  # rises, then falls beyond noise (Figure 1 at σ = 2)
    assert _trend(bumped, +1) == "qualitative-fails"
    wiggle = UP.copy()
    wiggle[3] = 0.299  # a step down within 2 s.e. of the difference
    assert _trend(wiggle, +1, se=np.full(6, 0.01)) == "qualitative-ok"
    # a precisely flat curve cannot refute "increases" (a change under 2 s.e. is possible), and
    # cannot confirm it: the shared rule (privrisk.contract.verdicts.monotone) calls it undecided
    flat = np.full(6, 0.3)
    assert _trend(flat, +1) == "uninformative"
    # a curve that ends below where it starts, beyond noise, fails
    assert _trend(np.array([0.3, 0.31, 0.32, 0.3, 0.29, 0.28]), +1) == "qualitative-fails"


def test_trend_needs_every_curve():
    c = claims.trend_claim(
        figure="f",
        claim_id="c",
        claim="s",
        x=X,
        curves={"a": (UP, SE), "b": (UP[::-1], SE)},
        sign=+1,
    )
    assert c.status == "qualitative-fails"


@pytest.mark.parametrize(
    ("mean", "status"),
    [(0.010, "qualitative-ok"), (0.015, "qualitative-fails"), (0.0122, "uninformative")],
)
def test_below_threshold(mean, status):
    c = claims.below_claim(
        figure="f", claim_id="c", claim="s", values={"r": (mean, 1e-4)}, threshold=0.0123
    )
    assert c.status == status


def test_below_threshold_one_estimate_above_fails():
    c = claims.below_claim(
        figure="f",
        claim_id="c",
        claim="s",
        values={"a": (0.01, 1e-4), "b": (0.02, 1e-4)},
        threshold=0.0123,
    )
    assert c.status == "qualitative-fails"


def test_approaches_zero():
    x = np.array([0.01, 0.02, 0.05, 0.1, 0.5, 1.0])
    y = np.array([0.001, 0.002, 0.005, 0.01, 0.06, 0.1])
    kw = dict(figure="f", claim_id="c", claim="s", x=x, below=0.1, reference=1.0)
    assert claims.approaches_zero_claim(y=(y, SE * 0.01), **kw).status == "qualitative-ok"
    plateau = np.array([0.05, 0.05, 0.05, 0.05, 0.06, 0.1])  # no decline towards 0
    assert claims.approaches_zero_claim(y=(plateau, SE * 0.01), **kw).status == "qualitative-fails"
    rising_at_small = y.copy()
    rising_at_small[0] = 0.009  # goes up again as σ -> 0
    assert (
        claims.approaches_zero_claim(y=(rising_at_small, SE * 0.01), **kw).status
        == "qualitative-fails"
    )


def test_flat():
    kw = dict(figure="f", claim_id="c", claim="s", x=X)
    assert (
        claims.flat_claim(y=np.array([0.41, 0.40, 0.42, 0.41, 0.40, 0.41]), **kw).status
        == "qualitative-ok"
    )
    assert (
        claims.flat_claim(y=np.array([0.41, 0.40, 0.42, 0.41, 0.30, 0.22]), **kw).status
        == "qualitative-fails"
    )


def test_gap():
    kw = dict(figure="f", claim_id="c", claim="s", x=X)
    lower = (np.full(6, 0.02), SE)
    assert claims.gap_claim(lower=lower, upper=(UP, SE), **kw).status == "qualitative-ok"
    # a constant gap (the literal reading of Figure 4) cannot show that it widens: undecided
    assert (
        claims.gap_claim(lower=lower, upper=(np.full(6, 0.7), SE), **kw).status == "uninformative"
    )
    # a gap that narrows beyond noise fails
    assert (
        claims.gap_claim(lower=lower, upper=(UP[::-1] + 0.1, SE), **kw).status
        == "qualitative-fails"
    )
    # a widening but small gap is not "large"
    assert (
        claims.gap_claim(lower=(UP, SE), upper=(UP * 1.1, SE * 0), **kw).status
        == "qualitative-fails"
    )


@pytest.mark.parametrize(
    ("a", "b", "status"),
    [
        (0.25, 0.03, "qualitative-ok"),
        (0.03, 0.25, "qualitative-fails"),
        (0.0300, 0.0301, "uninformative"),
    ],
)
def test_compare(a, b, status):
    c = claims.compare_claim(
        figure="f", claim_id="c", claim="s", larger=(a, 0.001), smaller=(b, 0.001), names=("a", "b")
    )
    assert c.status == status
