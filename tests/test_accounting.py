"""privrisk.accounting: the Gaussian mechanism's exact (ε, δ) curve, its calibration and DP-SGD.

Cross-checks against dp-accounting's privacy-loss-distribution (PLD) accountant, a Monte-Carlo
hockey-stick estimate, numerical integration, closed forms at the edges, and numbers quoted in
the specs (thudi2022: σ = 3.7306 for (1, 1e-5); 4.0412 -> ε ≈ 1.0011 with the RDP accountant).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from privrisk import accounting as acc

CASES = [(1.0, 0.5), (2.0, 1.0), (0.5, 3.0), (3.7306, 1.0), (0.8, 0.0), (10.0, 0.05)]


@pytest.mark.parametrize(("sigma", "eps"), CASES)
def test_gaussian_delta_matches_dp_accounting_pld(sigma, eps):
    from dp_accounting.pld import privacy_loss_distribution as pld

    # Pessimistic PLD discretisation over-estimates δ slightly; 1e-4 relative plus 1e-9 absolute.
    ref = pld.from_gaussian_mechanism(sigma, sensitivity=1.0, value_discretization_interval=1e-4)
    ref_delta = ref.get_delta_for_epsilon(eps)
    ours = acc.gaussian_delta(epsilon=eps, mu=1.0 / sigma)
    assert ours == pytest.approx(ref_delta, rel=1e-3, abs=1e-9)
    assert ours <= ref_delta * (1 + 1e-9) + 1e-15  # PLD's pessimistic estimate is an upper bound


@pytest.mark.parametrize(("mu", "eps"), [(1.0, 0.5), (0.5, 0.1), (2.0, 2.0), (0.27, 0.0)])
def test_gaussian_delta_matches_monte_carlo_and_integration(mu, eps):
    mc = acc.gaussian_hockey_stick_mc(epsilon=eps, mu=mu, n=1_000_000, seed=3)
    ours = acc.gaussian_delta(epsilon=eps, mu=mu)
    # MC standard error of a mean of values in [0, 1] is <= 0.5/sqrt(n) = 5e-4.
    assert abs(mc - ours) < 2.5e-3
    # ∫ max(0, p(t) − e^ε q(t)) dt with P = N(μ, 1), Q = N(0, 1).
    f = lambda t: max(0.0, stats.norm.pdf(t, mu) - math.exp(eps) * stats.norm.pdf(t))  # noqa: E731
    quad, _ = integrate.quad(f, -12, 12 + mu, points=[eps / mu + mu / 2], limit=200)
    assert ours == pytest.approx(quad, abs=1e-9)


def test_gaussian_delta_is_vectorised_and_monotone():
    eps = np.linspace(0, 8, 81)
    d = acc.gaussian_delta(epsilon=eps, mu=1.3)
    assert d.shape == eps.shape
    assert np.all(np.diff(d) < 0)
    mus = np.linspace(0.01, 5, 50)
    assert np.all(np.diff(acc.gaussian_delta(epsilon=1.0, mu=mus)) > 0)


def test_gaussian_delta_edges():
    # ε = 0: δ = TV(N(μ,1), N(0,1)) = 2Φ(μ/2) − 1.
    assert acc.gaussian_delta(epsilon=0.0, mu=1.0) == pytest.approx(
        2 * stats.norm.cdf(0.5) - 1, rel=1e-14
    )
    # tiny μ keeps its digits (no cancellation): 2Φ(μ/2) − 1 ≈ μ φ(0).
    assert acc.gaussian_delta(epsilon=0.0, mu=1e-12) == pytest.approx(
        1e-12 * stats.norm.pdf(0), rel=1e-6
    )
    assert acc.gaussian_delta(epsilon=1.0, mu=0.0) == 0.0  # no sensitivity: no loss
    assert acc.gaussian_delta(epsilon=math.inf, mu=1.0) == 0.0
    assert acc.gaussian_delta(epsilon=1.0, mu=math.inf) == 1.0  # no noise: δ = 1 at every finite ε
    big = acc.gaussian_delta(epsilon=np.array([50.0, 300.0, 800.0]), mu=40.0)  # e^ε would overflow
    assert np.all(np.isfinite(big)) and np.all(big >= 0) and np.all(np.diff(big) <= 0)
    with pytest.raises(ValueError):
        acc.gaussian_delta(epsilon=-1.0, mu=1.0)
    with pytest.raises(ValueError):
        acc.gaussian_delta(epsilon=1.0, mu=-1.0)


def test_gaussian_sigma_thudi_spec_value():
    # thudi2022 spec: the analytic Gaussian for (1, 1e-5) at sensitivity 1 needs σ = 3.7306.
    assert acc.gaussian_sigma(epsilon=1.0, delta=1e-5) == pytest.approx(3.7306, abs=5e-5)
    assert acc.gaussian_sigma(epsilon=1.0, delta=1e-5, sensitivity=2.5) == pytest.approx(
        2.5 * 3.7306, abs=2e-4
    )
    # Balle–Wang is tighter than Dwork–Roth's classic calibration.
    assert acc.gaussian_sigma(epsilon=0.5, delta=1e-5) < acc.classic_gaussian_sigma(
        epsilon=0.5, delta=1e-5
    )


@pytest.mark.parametrize(("eps", "delta"), [(0.1, 1e-5), (1.0, 1e-2), (5.0, 1e-6), (40.0, 1e-2)])
def test_calibration_round_trip(eps, delta):
    mu = acc.gdp_mu(epsilon=eps, delta=delta)
    assert acc.gaussian_delta(epsilon=eps, mu=mu) == pytest.approx(delta, rel=1e-8)
    assert acc.gaussian_epsilon(delta=delta, mu=mu) == pytest.approx(eps, rel=1e-7, abs=1e-9)
    # And against the PLD accountant: (ε, δ) holds for the calibrated σ, not for a 1 % smaller one.
    from dp_accounting.pld import privacy_loss_distribution as pld

    sigma = acc.gaussian_sigma(epsilon=eps, delta=delta)
    if eps < 10:
        ok = pld.from_gaussian_mechanism(sigma * 1.001, value_discretization_interval=1e-4)
        tight = pld.from_gaussian_mechanism(sigma * 0.99, value_discretization_interval=1e-4)
        assert ok.get_delta_for_epsilon(eps) <= delta * 1.001
        assert tight.get_delta_for_epsilon(eps) > delta


def test_calibration_edges():
    # ε = 0 has the closed form μ = 2 Φ⁻¹((1 + δ)/2), also for δ far below the solver's bracket.
    for delta in (1e-2, 1e-10):
        assert acc.gdp_mu(epsilon=0.0, delta=delta) == pytest.approx(
            2 * stats.norm.ppf((1 + delta) / 2), rel=1e-8
        )
        assert math.isfinite(acc.gaussian_sigma(epsilon=0.0, delta=delta))
    assert acc.gdp_mu(epsilon=math.inf, delta=1e-5) == math.inf
    assert acc.gaussian_sigma(epsilon=math.inf, delta=1e-5) == 0.0
    assert acc.gaussian_sigma(epsilon=1.0, delta=1e-5, sensitivity=0.0) == 0.0
    assert acc.gaussian_epsilon(delta=0.0, mu=1.0) == math.inf  # δ = 0 is impossible for a Gaussian
    assert acc.gaussian_epsilon(delta=1e-2, mu=0.0) == 0.0
    assert acc.gaussian_epsilon(delta=0.5, mu=1.0) == 0.0  # δ(0) = 0.383 <= 0.5
    with pytest.raises(ValueError):
        acc.gdp_mu(epsilon=1.0, delta=0.0)
    with pytest.raises(ValueError):
        acc.gaussian_epsilon(delta=1.0, mu=1.0)
    with pytest.raises(ValueError):
        acc.gaussian_sigma(epsilon=-1.0, delta=1e-5)


def test_dpsgd_epsilon_rdp_thudi_value():
    # thudi2022: noise 4.0412, one full-batch step, δ = 1e-5 -> ε ≈ 1.0011 by RDP (opacus' too).
    eps = acc.dpsgd_epsilon(noise_multiplier=4.0412, delta=1e-5, sample_rate=0.999999, steps=1)
    assert eps == pytest.approx(1.0011, abs=2e-4)
    # The exact (full-batch) answer is smaller: RDP conversion is loose.
    exact = acc.dpsgd_epsilon(noise_multiplier=4.0412, delta=1e-5, sample_rate=1.0, steps=1)
    assert exact < eps
    assert exact == pytest.approx(acc.gaussian_epsilon(delta=1e-5, mu=1 / 4.0412))


def test_dpsgd_full_batch_composition_is_gdp():
    # k full-batch steps at noise multiplier z are √k / z-GDP.
    eps = acc.dpsgd_epsilon(noise_multiplier=2.0, delta=1e-5, sample_rate=1.0, steps=16)
    assert eps == pytest.approx(acc.gaussian_epsilon(delta=1e-5, mu=2.0), rel=1e-9)
    z = acc.dpsgd_noise_multiplier(epsilon=eps, delta=1e-5, sample_rate=1.0, steps=16)
    assert z == pytest.approx(2.0, rel=1e-7)


def test_dpsgd_noise_multiplier_round_trip_subsampled():
    z = acc.dpsgd_noise_multiplier(epsilon=2.0, delta=1e-5, sample_rate=0.01, steps=500)
    eps = acc.dpsgd_epsilon(noise_multiplier=z, delta=1e-5, sample_rate=0.01, steps=500)
    assert eps == pytest.approx(2.0, abs=0.01)
    assert acc.dpsgd_epsilon(noise_multiplier=0.0, delta=1e-5, sample_rate=0.1, steps=1) == math.inf
    with pytest.raises(ValueError):
        acc.dpsgd_noise_multiplier(epsilon=1.0, delta=1e-5, sample_rate=0.0, steps=1)


# --- DP-SGD through the PLD, with a stated error (accounting.dpsgd_pld) ----------------------


def _reference_pld_epsilon(nm, q, t, delta, adjacency, interval):
    """dp-accounting's own PLD (connect-the-dots, pessimistic) at the given, finer interval."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    return (
        pld.from_gaussian_mechanism(
            nm,
            sampling_prob=q,
            neighboring_relation=acc.Adjacency.parse(adjacency).neighboring_relation(),
            value_discretization_interval=interval,
            use_connect_dots=True,
        )
        .self_compose(t)
        .get_epsilon_for_delta(delta)
    )


def _check_against_finer_grid(nm, q, t, delta, adjacency, finer=4):
    ours = acc.dpsgd_pld(
        noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, adjacency=adjacency
    )
    if q == 1:
        mu = (1 if adjacency == "add-remove" else 2) * math.sqrt(t) / nm
        assert ours.epsilon == pytest.approx(acc.gaussian_epsilon(delta=delta, mu=mu), rel=1e-12)
        return ours
    ref = _reference_pld_epsilon(nm, q, t, delta, adjacency, ours.interval / finer)
    # safe side: never below the finer grid's ε (itself an upper bound on the exact ε) ...
    assert ours.epsilon >= ref * (1 - 1e-9)
    # ... within 0.5 % of it, and within the error the card states
    assert ours.epsilon <= ref * 1.005
    assert ours.epsilon - ref <= ours.error + 1e-12
    assert ours.relative_error <= acc.PLD_RELATIVE_ERROR
    if ours.rdp_epsilon is not None:
        assert ours.epsilon <= ours.rdp_epsilon  # never above RDP
    return ours


@pytest.mark.parametrize(
    ("nm", "q", "t", "adjacency"),
    [
        (1.1, 0.01, 6000, "add-remove"),  # the docs' DP-SGD example
        (0.8, 1e-3, 10_000, "replace-one"),
        (4.0, 1.0, 16, "add-remove"),  # full batch: exact GDP
    ],
)
def test_dpsgd_pld_within_its_stated_error_of_a_finer_grid(nm, q, t, adjacency):
    _check_against_finer_grid(nm, q, t, 1e-5, adjacency)


def test_dpsgd_pld_fixes_the_issue_30_case_at_a_million_steps():
    """q = 10⁻³, σ = 0.8, δ = 10⁻⁶, T = 10⁶: dp-accounting at a fine grid gives ε ≈ 10.683, the
    old fixed grid 13.7 (above RDP's 11.37)."""
    a = acc.dpsgd_pld(noise_multiplier=0.8, sample_rate=1e-3, steps=10**6, delta=1e-6)
    assert 10.68 <= a.epsilon <= 10.683 * 1.005
    assert a.epsilon < a.rdp_epsilon == pytest.approx(11.3729, rel=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"steps": 10**12}, "steps"),
        ({"steps": 1e30}, "steps"),
        ({"noise_multiplier": 0.01}, "noise_multiplier"),
        ({"interval": 1e-9}, "pld_discretisation"),
        ({"noise_multiplier": 0.0}, "noise_multiplier"),
        ({"sample_rate": 0.0}, "sample_rate"),
    ],
)
def test_dpsgd_pld_refuses_what_it_cannot_account(kwargs, argument):
    """Refused, naming the input, before any PLD is built (a hang was the bug; how long the
    refusal takes is benchmarks/bench_rdp_small_noise.py's, not a unit test's)."""
    args = dict(noise_multiplier=1.0, sample_rate=0.01, steps=1000, delta=1e-5) | kwargs
    with pytest.raises(acc.AccountingLimit) as err:
        acc.dpsgd_pld(**args)
    assert err.value.argument == argument


def test_adjacency_parses_every_spelling_and_maps_to_dp_accounting():
    import dp_accounting

    A = acc.Adjacency
    for s in ("replace_one", "replace-one", "Replace One", "replace", A.REPLACE_ONE):
        assert A.parse(s) is A.REPLACE_ONE
    for s in ("add_remove", "add/remove", "add-or-remove", "ADD-REMOVE"):
        assert A.parse(s) is A.ADD_REMOVE
    assert f"{A.REPLACE_ONE}" == "replace-one" and A.ADD_REMOVE.config_name == "add_remove"
    nr = dp_accounting.NeighboringRelation
    assert A.ADD_REMOVE.neighboring_relation() is nr.ADD_OR_REMOVE_ONE
    assert A.REPLACE_ONE.neighboring_relation() is nr.REPLACE_ONE
    with pytest.raises(ValueError, match="adjacency must be one of"):
        A.parse("swap-two")


_SIGMAS = (0.7, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0)


@pytest.mark.slow
@pytest.mark.parametrize("t", [10, 100, 1000, 10_000, 100_000, 1_000_000])
@pytest.mark.parametrize("q", [1e-4, 1e-3, 1e-2, 0.1, 1.0])
def test_dpsgd_pld_sweep_within_half_a_percent_on_the_safe_side(q, t):
    """T from 10 to 10⁶, q from 10⁻⁴ to 1, the smallest noise multiplier of a ladder whose RDP ε
    is at most 20 (beyond, the card's numbers are all 1), both adjacencies."""
    delta = 1e-6
    for nm in _SIGMAS:
        if (
            q == 1
            or acc.dpsgd_epsilon(noise_multiplier=nm, sample_rate=q, steps=t, delta=delta) <= 20
        ):
            break
    for adjacency in ("add-remove", "replace-one"):
        _check_against_finer_grid(nm, q, t, delta, adjacency)


def test_every_config_schema_spells_adjacency_as_the_enum_does():
    """The config files' adjacency values are Adjacency.config_name (training parses them with
    Adjacency.parse), wherever the schemas live."""
    import yaml

    from tests.conftest import REPO

    found = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "adjacency" and isinstance(v, dict) and "enum" in v:
                    found.append(set(v["enum"]))
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    # libyaml's safe loader where PyYAML has it: the same documents, a tenth of the time
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in [*REPO.glob("workflow/schemas/*.yaml"), *REPO.glob("src/privrisk/**/*.yaml")]:
        walk(yaml.load(path.read_text(), Loader=loader))
    assert found, "no config schema declares an adjacency"
    names = {a.config_name for a in acc.Adjacency}
    for enum in found:
        assert enum == names
        assert {acc.Adjacency.parse(v) for v in enum} == set(acc.Adjacency)
