"""Property tests (hypothesis): every bound on the card grows with the privacy loss (ε, μ) and
with the attacker's prior, and stays in its range — [prior, 1] for a success probability,
[0, 1] for an advantage — for pure ε, (ε, δ) and μ-GDP guarantees."""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from privrisk.explain import accounted as gm
from privrisk.explain import attacker as am
from privrisk.explain import rows

TOL = 1e-9
N = 20  # targets: small enough for many examples

#: for each row: what it is monotone in (besides ε), and its range. "posterior" rows are success
#: probabilities in [baseline, 1]; "advantage" rows lie in [0, 1] (their posterior, prior +
#: advantage, in [prior, 1]); "count" rows in [prior-only count, n].
PROPERTIES = {
    "membership.positive_accuracy": ("base_rate", "posterior"),
    "membership.advantage_eps_delta": (None, "advantage"),
    "membership.advantage_fdp": (None, "advantage"),
    "membership.mace": (None, "mace"),
    "membership.tpr_at_fpr_0.001": (None, "posterior"),
    "membership.tpr_at_fpr_0.01": (None, "posterior"),
    "membership.tpr_at_fpr_0.1": (None, "posterior"),
    "attribute.simplified": ("prior", "advantage"),
    "attribute.precise": (None, "advantage"),
    "reconstruction.beta": ("prior", "posterior"),
    "reconstruction.advantage": ("prior", "advantage"),
    "reconstruction.epsilon_protect": ("protect", "epsilon"),
    "reconstruction.quantiles": ("prior", "count"),
    "reconstruction.mmc": ("prior", "posterior"),
    "reconstruction.rero": ("prior", "posterior"),
    "reconstruction.baseline_fdp": ("prior", "posterior"),
}

eps = st.floats(0.0, 12.0, allow_nan=False)
priors = st.sampled_from([2, 3, 4, 5, 10, 20, 50, 100, 1000])  # K equally likely values
deltas = st.sampled_from([0.0, 1e-6, 1e-3, 0.05])
adjacency = st.sampled_from(["replace-one", "add-remove"])


def test_the_property_table_covers_every_row():
    assert set(PROPERTIES) == set(rows.ROWS)


def _card(g, a):
    return {k: fn(g, a) for k, fn in rows.ROWS.items()}


def _attacker(K, base_rate=0.5):
    return am.parse(values=K, targets=N, base_rate=base_rate)


def _check_range(key, row, a):
    kind = PROPERTIES[key][1]
    if row.value is None:
        return
    v = row.value
    assert not math.isnan(v), key
    if kind == "posterior":
        assert row.baseline - TOL <= v <= 1 + TOL, (key, v, row.baseline)
    elif kind == "advantage":
        assert -TOL <= v <= 1 + TOL, (key, v)
        if row.values:  # (prior, posterior) of the guess
            prior, post = row.values
            assert prior - TOL <= post <= 1 + TOL and post == pytest.approx(prior + v)
    elif kind == "mace":
        assert abs(2 * a.base_rate - 1) - TOL <= v <= 1 + TOL
    elif kind == "count":
        lo, mid, hi = row.values
        assert lo <= mid <= hi <= a.targets and hi >= row.baseline
    elif kind == "epsilon":
        assert v >= 0


@settings(max_examples=40, deadline=None)
@given(e1=eps, e2=eps, K=priors, d=deltas, adj=adjacency)
def test_every_bound_grows_with_epsilon_and_stays_in_range(e1, e2, K, d, adj):
    lo, hi = sorted((e1, e2))
    a = _attacker(K)
    c_lo = _card(gm.parse(epsilon=lo, delta=d or None, adjacency=adj), a)
    c_hi = _card(gm.parse(epsilon=hi, delta=d or None, adjacency=adj), a)
    for key in rows.ROWS:
        _check_range(key, c_lo[key], a)
        _check_range(key, c_hi[key], a)
        if key == "reconstruction.epsilon_protect" or c_lo[key].value is None:
            continue
        assert c_lo[key].value <= c_hi[key].value + TOL, (key, lo, hi)
        for x, y in zip(c_lo[key].values, c_hi[key].values, strict=True):
            assert x <= y + TOL, key


@settings(max_examples=40, deadline=None)
@given(e=eps, K1=priors, K2=priors, d=deltas, b1=st.floats(0.01, 0.99), b2=st.floats(0.01, 0.99))
def test_every_bound_grows_with_the_prior(e, K1, K2, d, b1, b2):
    """A larger prior (fewer equally likely values, a higher base rate) never lowers a bound."""
    k_small_prior, k_big_prior = max(K1, K2), min(K1, K2)
    b_lo, b_hi = sorted((b1, b2))
    g = gm.parse(epsilon=e, delta=d or None)
    lo = _card(g, _attacker(k_small_prior, b_lo))
    hi = _card(g, _attacker(k_big_prior, b_hi))
    for key, (monotone_in, _) in PROPERTIES.items():
        if lo[key].value is None:
            continue
        if monotone_in in ("prior", "base_rate"):
            if key == "attribute.simplified":  # the advantage has a bump; its posterior grows
                assert lo[key].values[1] <= hi[key].values[1] + TOL
                continue
            assert lo[key].value <= hi[key].value + TOL, (key, lo[key].value, hi[key].value)
            for x, y in zip(lo[key].values, hi[key].values, strict=True):
                assert x <= y + TOL, key
        elif monotone_in == "protect":  # a larger prior leaves less room: ε_protect shrinks
            assert hi[key].value <= lo[key].value + TOL


@settings(max_examples=25, deadline=None)
@given(m1=st.floats(0.0, 6.0), m2=st.floats(0.0, 6.0), K=priors)
def test_gdp_bounds_grow_with_mu(m1, m2, K):
    assume(abs(m1 - m2) > 1e-6)
    lo, hi = sorted((m1, m2))
    a = _attacker(K)
    c_lo = _card(gm.parse(mu=lo), a)
    c_hi = _card(gm.parse(mu=hi), a)
    for key in rows.ROWS:
        _check_range(key, c_lo[key], a)
        if key == "reconstruction.epsilon_protect" or c_lo[key].value is None:
            continue
        assert c_lo[key].value <= c_hi[key].value + 1e-6, (key, lo, hi)


@pytest.mark.parametrize("e", [0.0, math.inf])
def test_edges_epsilon_zero_is_the_prior_and_infinity_is_certainty(e):
    a = _attacker(10)
    c = _card(gm.parse(epsilon=e), a)
    if e == 0:
        assert c["reconstruction.beta"].value == pytest.approx(0.1)
        assert c["membership.positive_accuracy"].value == pytest.approx(0.5)
        assert c["membership.advantage_fdp"].value == 0
        assert c["attribute.precise"].value == 0
    else:
        for key in ("reconstruction.beta", "membership.positive_accuracy", "reconstruction.mmc"):
            assert c[key].value == 1
        assert c["reconstruction.quantiles"].values == (N, N, N)
        assert c["attribute.precise"].value == pytest.approx(1 - 1 / 20)


@settings(max_examples=40, deadline=None)
@given(
    e=eps,
    d=deltas,
    b=st.floats(1e-4, 1 - 1e-4),
    p=st.floats(1e-6, 1.0),
    adj=adjacency,
)
def test_every_row_lies_between_its_trivial_baseline_and_one_at_any_base_rate_and_prior(
    e, d, b, p, adj
):
    """Whatever the base rate and the prior: a success probability lies in [what the attacker
    gets without the release, 1] (Mace's Adv_p in [|2b − 1|, 1]), an advantage in [0, 1]."""
    a = am.parse(prior=p, targets=N, base_rate=b)
    c = _card(gm.parse(epsilon=e, delta=d or None, adjacency=adj), a)
    for key in rows.ROWS:
        _check_range(key, c[key], a)


@pytest.mark.parametrize("e", [0.3, 1.0, 4.0])
def test_at_base_rate_one_half_the_membership_rows_are_their_closed_forms(e):
    from privrisk.bounds import tradeoff

    c = _card(gm.parse(epsilon=e), am.parse(base_rate=0.5))
    assert c["membership.mace"].value == pytest.approx(math.tanh(e / 2), abs=1e-12)
    assert c["membership.mace"].value == pytest.approx(c["membership.advantage_fdp"].value)
    assert c["membership.positive_accuracy"].value == pytest.approx(1 / (1 + math.exp(-e)))
    for fpr in rows.FPRS:  # TPR <= min(e^ε α, 1 − e^{−ε}(1 − α)) for pure ε-DP
        closed = min(math.exp(e) * fpr, 1 - math.exp(-e) * (1 - fpr))
        assert c[rows.tpr_key(fpr)].value == pytest.approx(closed, abs=1e-12)
        assert c[rows.tpr_key(fpr)].value == pytest.approx(
            1 - tradeoff.tradeoff_approx(fpr, epsilon=e)
        )
