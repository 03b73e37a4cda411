"""The last-iterate heuristic (Steinke et al., ICLR 2025): its closed form against a Monte-Carlo of
its definition, its Gaussian edge, and its place below the accountant's bound."""

import pytest

from privrisk import accounting
from privrisk.explain.atlas import last_iterate as li

KW = {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 1000}


@pytest.mark.parametrize("eps", [0.25, 0.5, 1.0])
def test_closed_form_agrees_with_monte_carlo(eps):
    want = li.delta(eps, **KW)
    got, se = li.delta_monte_carlo(eps, **KW, draws=100_000, seed=7)
    assert abs(got - want) <= 4 * se
    assert se < 0.1 * want  # the check has teeth: the error is small against δ


def test_full_batch_is_the_gaussian_mechanism():
    # q = 1: P = T + N(0, σ²T) vs N(0, σ²T), μ = √T/σ; closed-form μ-GDP δ(ε)
    kw = {"noise_multiplier": 10.0, "sample_rate": 1.0, "steps": 4}
    for eps in (0.1, 1.0):
        assert li.delta(eps, **kw) == pytest.approx(
            accounting.gaussian_delta(epsilon=eps, mu=0.2), rel=1e-8
        )


def test_epsilon_inverts_delta_and_sits_below_the_accountant():
    eps = li.epsilon(1e-5, **KW)
    assert li.delta(eps, **KW) == pytest.approx(1e-5, rel=1e-6)
    lines = {x.key: x for x in li.three_lines(**KW, delta_=1e-5)}
    assert lines["last_iterate"].epsilon == pytest.approx(eps)
    assert lines["last_iterate"].epsilon < lines["accountant"].epsilon
    assert "last iterate" in lines["last_iterate"].threat_model
    assert "every iterate" in lines["accountant"].threat_model
    with_audit = li.three_lines(**KW, delta_=1e-5, audit=0.4)
    assert [x.key for x in with_audit] == ["accountant", "last_iterate", "audit"]


def test_more_noise_less_epsilon():
    a = li.epsilon(1e-5, noise_multiplier=0.8, sample_rate=0.01, steps=500)
    b = li.epsilon(1e-5, noise_multiplier=1.6, sample_rate=0.01, steps=500)
    assert 0 < b < a
