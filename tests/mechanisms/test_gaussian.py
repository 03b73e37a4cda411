"""The Gaussian mechanism of lowy2024 Figures 4-6 (privrisk.mechanisms.gaussian): Balle–Wang δ,
Proposition 12's bound, the vectorised ε̃(X) solver."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from privrisk import accounting
from privrisk.bounds import pmp
from privrisk.data import synthetic
from privrisk.mechanisms import gaussian as gm


def _population(seed, trials, n, d, sigma, clip, n_out=0, scale=1.0):
    z, out = synthetic.gaussian_draws(np.random.default_rng(seed), trials, 2 * n, d, n_out)
    return synthetic.population(np.zeros((trials, d)), z, sigma, clip, out, scale)


@pytest.mark.parametrize(("eps", "sens", "s"), [(0.5, 1.0, 1.0), (2.0, 0.3, 0.2), (0.0, 1.0, 2.0)])
def test_delta_bw_agrees_with_monte_carlo(eps, sens, s):
    mc = accounting.gaussian_hockey_stick_mc(epsilon=eps, mu=sens / s, n=1_000_000, seed=5)
    assert gm.delta_bw(epsilon=eps, sensitivity=sens, s=s) == pytest.approx(mc, abs=2.5e-3)
    # in d dimensions only ‖μ − μ'‖ matters: a 3-d MC with the shift spread over coordinates
    rng = np.random.default_rng(6)
    shift = np.array([0.6, 0.0, 0.8]) * sens
    y = rng.standard_normal((400_000, 3)) * s + shift
    loss = (y @ shift - shift @ shift / 2) / s**2  # ln p(y)/q(y) for N(shift, s²I) vs N(0, s²I)
    mc3 = np.mean(np.maximum(0.0, 1 - np.exp(eps - loss)))
    assert gm.delta_bw(epsilon=eps, sensitivity=sens, s=s) == pytest.approx(mc3, abs=4e-3)


def test_delta_bw_edges_and_calibration():
    assert gm.delta_bw(epsilon=1.0, sensitivity=0.0, s=1.0) == 0.0
    assert gm.delta_bw(epsilon=1.0, sensitivity=1.0, s=0.0) == 1.0
    # the Balle–Wang calibration the mechanism uses
    s = accounting.gaussian_sigma(epsilon=5.0, delta=1e-2, sensitivity=1.0)
    assert gm.delta_bw(epsilon=5.0, sensitivity=1.0, s=s) == pytest.approx(1e-2, rel=1e-8)
    assert accounting.gaussian_sigma(epsilon=5.0, delta=1e-2, sensitivity=0.0) == 0.0


def test_delta_slope_is_the_derivative():
    eps = np.array([[0.0], [0.3], [2.0], [7.0]])
    mu = np.array([[0.1, 0.7, 2.0, 5.0]])
    d, g = gm._delta_slope(eps, mu)
    h = 1e-6
    num = gm._delta_slope(eps + h, mu)[0] - gm._delta_slope(eps - np.where(eps > 0, h, 0), mu)[0]
    num /= h + np.where(eps > 0, h, 0)
    np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-10)
    np.testing.assert_allclose(
        d, accounting.gaussian_delta(epsilon=eps, mu=mu), rtol=1e-12, atol=1e-300
    )


def _brent_row(mu_row, delta, denom):
    f = lambda e: accounting.gaussian_delta(epsilon=e, mu=mu_row).sum() / denom - delta  # noqa: E731
    if f(0.0) <= 0:
        return 0.0
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
    return optimize.brentq(f, 0, hi, xtol=1e-13, rtol=1e-13)


def test_smallest_eps_matches_brent_and_pruning_keeps_the_max():
    rng = np.random.default_rng(0)
    mu = rng.exponential(0.3, (60, 9)) * rng.choice([0.1, 1.0, 5.0], (60, 1))
    mu[3, 2] = 0.0
    mu[5] = 0.0  # a row with no loss at all
    roots, _ = gm.smallest_eps(mu=mu, delta=1e-2)
    ref = np.array([_brent_row(r, 1e-2, 9) for r in mu])
    np.testing.assert_allclose(roots, ref, rtol=1e-8, atol=1e-10)
    groups = np.repeat(np.arange(6), 10)
    pruned, best = gm.smallest_eps(mu=mu, delta=1e-2, groups=groups)
    np.testing.assert_allclose(best, ref.reshape(6, 10).max(axis=1), rtol=1e-8, atol=1e-10)
    kept = ~np.isnan(pruned)
    np.testing.assert_allclose(pruned[kept], ref[kept], rtol=1e-8, atol=1e-10)
    # μ = ∞ terms: δ = 1 each; a share above δ means no finite ε
    inf_rows = np.array([[np.inf, 0.5, 0.5], [0.2, 0.3, 0.4]])
    r, _ = gm.smallest_eps(mu=inf_rows, delta=0.2)
    assert math.isinf(r[0]) and r[1] == 0.0
    r, _ = gm.smallest_eps(mu=inf_rows, delta=0.5)
    assert r[0] == pytest.approx(_brent_row(np.array([0.5, 0.5]), 0.5 - 1 / 3, 3), rel=1e-8)
    with pytest.raises(ValueError):
        gm.smallest_eps(mu=-mu, delta=1e-2)


def test_eps_tilde_vectorised_equals_per_point_loop():
    x = _population(1, 3, 10, 3, 1.0, 50, n_out=2, scale=10)
    s = np.array([0.05, 0.1, 0.3])
    np.testing.assert_allclose(
        gm.eps_tilde(x, n=10, s=s, delta=1e-2),
        gm.eps_tilde_loop(x, n=10, s=s, delta=1e-2),
        rtol=1e-8,
        atol=1e-10,
    )


def test_restricted_sensitivity_and_sum_query_form_equal_brute_force():
    # Δ(X) = max |mean(D) − mean(D')| over adjacent halves, and Prop. 12's double sum over
    # (D ∋ x, D' ~ D with D' ∌ x) equals the sum-query form B_x.
    n, s, eps, delta = 3, 0.4, 0.7, 1e-2
    x = _population(2, 1, n, 2, 1.0, 10)
    mem = pmp.subsets(2 * n, n)
    means = mem.astype(float) @ x[0] / n
    res = gm.eps_triple(x, n=n, clip=10, delta=delta, fixed="global", value=2.0)
    brute = max(
        np.linalg.norm(means[i] - means[j])
        for i, j in itertools.combinations(range(len(mem)), 2)
        if np.sum(mem[i] != mem[j]) == 2
    )
    assert res["sens_x"][0] == pytest.approx(brute, rel=1e-12)
    dist = gm.pairwise_distances(x)[0]
    for xi in range(2 * n):
        total, count = 0.0, 0
        for i in np.nonzero(mem[:, xi])[0]:
            for j in np.nonzero(~mem[:, xi])[0]:
                if np.sum(mem[i] != mem[j]) == 2:  # D' = D with x replaced
                    total += gm.delta_bw(
                        epsilon=eps, sensitivity=np.linalg.norm(means[i] - means[j]), s=s
                    )
                    count += 1
        assert count == n * mem[:, xi].sum()
        b = gm.pmp_bound(eps_tilde=eps, dist_row=np.delete(dist[xi], xi), n=n, s=s)
        assert b == pytest.approx(total / count, rel=1e-12)


def _mixture_densities(centres_p, centres_q, s):
    """Densities of the equal-weight mixtures of N(c, s²) (d = 1) on a fine grid."""
    lo = min(centres_p.min(), centres_q.min()) - 12 * s
    hi = max(centres_p.max(), centres_q.max()) + 12 * s
    t = np.linspace(lo, hi, 200_001)
    p = stats.norm.pdf(t[:, None], centres_p, s).mean(axis=1)
    q = stats.norm.pdf(t[:, None], centres_q, s).mean(axis=1)
    return t, p, q


@pytest.mark.parametrize("s", [0.05, 0.2])
def test_prop12_bound_dominates_exact_mixture_hockey_stick(s):
    n = 3
    x = _population(4, 1, n, 1, 1.0, 10, n_out=1, scale=4)
    mem = pmp.subsets(2 * n, n)
    means = (mem.astype(float) @ x[0] / n)[:, 0]
    dist = gm.pairwise_distances(x)[0]
    for xi in range(2 * n):
        t, p_in, p_out = _mixture_densities(means[mem[:, xi]], means[~mem[:, xi]], s)
        for eps in (0.0, 0.3, 1.0):
            exact = max(
                integrate.trapezoid(np.maximum(0, p_in - math.exp(eps) * p_out), t),
                integrate.trapezoid(np.maximum(0, p_out - math.exp(eps) * p_in), t),
            )
            bound = gm.pmp_bound(eps_tilde=eps, dist_row=np.delete(dist[xi], xi), n=n, s=s)
            assert bound >= exact - 1e-7


def test_eps_triple_readings():
    x = _population(7, 4, 100, 20, 1.0, 50)
    g1 = gm.eps_triple(x, n=100, clip=50, delta=1e-2, fixed="restricted", value=3.0)
    np.testing.assert_allclose(g1["eps_x"], 3.0, rtol=1e-8)
    g2 = gm.eps_triple(x, n=100, clip=50, delta=1e-2, fixed="global", value=3.0)
    np.testing.assert_allclose(g2["eps"], 3.0, rtol=1e-8)
    for r in (g1, g2):
        assert np.all(r["eps_tilde"] <= r["eps_x"] + 1e-9) and np.all(r["eps_x"] <= r["eps"] + 1e-9)
    with pytest.raises(ValueError):
        gm.eps_triple(x, n=100, clip=50, delta=1e-2, fixed="both", value=3.0)


def test_spec_reference_values():
    # spec Appendix (T = 20 there): Fig. 4 under the global reading at ε = 10 gives ε̃ ≈ 0.309,
    # ε(X) ≈ 0.458; Fig. 5 (ε = 5, C = 100, σ = 5, d = 10, 2 outliers x10) gives ε̃ ≈ 2.01.
    x = _population(8, 40, 100, 20, 1.0, 50)
    g2 = gm.eps_triple(x, n=100, clip=50, delta=1e-2, fixed="global", value=10.0)
    assert g2["eps_tilde"].mean() == pytest.approx(0.309, abs=0.015)
    assert g2["eps_x"].mean() == pytest.approx(0.458, abs=0.02)
    x = _population(9, 40, 100, 10, 5.0, 100, n_out=2, scale=10)
    g5 = gm.eps_triple(x, n=100, clip=100, delta=1e-2, fixed="global", value=5.0)
    assert g5["eps_tilde"].mean() == pytest.approx(2.01, abs=0.15)


def test_edge_cases_c0_sigma0_one_trial():
    x = _population(10, 2, 5, 2, 1.0, 0.0)  # C = 0: a one-point universe
    g = gm.eps_triple(x, n=5, clip=0.0, delta=1e-2, fixed="global", value=1.0)
    assert np.all(g["eps"] == 0) and np.all(g["eps_x"] == 0) and np.all(g["eps_tilde"] == 0)
    # σ -> 0 with ε(X) fixed: ε̃(X) is scale invariant, ε grows like 1/σ
    ref = gm.eps_triple(
        _population(11, 2, 5, 2, 1e-2, 50), n=5, clip=50, delta=1e-2, fixed="restricted", value=2.0
    )
    tiny = gm.eps_triple(
        _population(11, 2, 5, 2, 1e-8, 50), n=5, clip=50, delta=1e-2, fixed="restricted", value=2.0
    )
    np.testing.assert_allclose(tiny["eps_tilde"], ref["eps_tilde"], rtol=1e-6)
    assert np.all(np.isfinite(tiny["eps"])) and np.all(tiny["eps"] > 100 * ref["eps"])
    one = gm.eps_triple(
        _population(12, 1, 5, 2, 1.0, 50), n=5, clip=50, delta=1e-2, fixed="global", value=1.0
    )
    assert one["eps_tilde"].shape == (1,)
