"""pankova2022 bounds: spec §4.3 checks and §7 oracle tables (../shared/spec/pankova2022.md)."""

import numpy as np
import pytest

from privrisk.bounds import attribute as at

TABLE_71 = {  # (η, p) -> ε_max
    (0.01, 0.01): 0.7033,
    (0.01, 0.05): 0.1929,
    (0.01, 0.1): 0.1065,
    (0.01, 0.25): 0.0526,
    (0.01, 0.5): 0.0400,
    (0.1, 0.01): 2.5044,
    (0.1, 0.05): 1.2098,
    (0.1, 0.1): 0.8109,
    (0.1, 0.25): 0.4796,
    (0.1, 0.5): 0.4055,
    (0.3, 0.01): 3.7950,
    (0.3, 0.25): 1.2993,
    (0.3, 0.5): 1.3863,
    (0.5, 0.01): 4.6351,
    (0.5, 0.25): 2.1972,
}


@pytest.mark.parametrize("key", list(TABLE_71))
def test_eps_max_table(key):
    eta, p = key
    assert at.epsilon_for_advantage(eta, p) == pytest.approx(TABLE_71[key], abs=1e-4)


def test_eps_max_infinite_beyond_one_minus_p():
    assert at.epsilon_for_advantage(0.5, 0.5) == np.inf
    assert at.epsilon_for_advantage(0.6, 0.5) == np.inf
    assert np.isfinite(at.epsilon_for_advantage(0.4999, 0.5))


def test_eps_max_zero_at_zero_eta_and_round_trip():
    p = np.linspace(0.01, 0.9, 30)
    assert np.all(at.epsilon_for_advantage(0.0, p) == 0)
    eta = 0.05
    e = at.epsilon_for_advantage(eta, p)
    np.testing.assert_allclose(at.advantage_simplified(epsilon=e, p=p), eta, atol=1e-12)


def test_lower_side_mirror():
    assert at.epsilon_for_advantage(0.1, 0.5, side="lower") == pytest.approx(0.405465, abs=1e-6)
    assert at.epsilon_for_advantage(0.1, 0.3, side="lower") == pytest.approx(
        at.epsilon_for_advantage(0.1, 0.7)
    )


@pytest.mark.parametrize(
    "eta,eps_min", [(0.01, 0.04000), (0.1, 0.40134), (0.3, 1.23808), (0.9, 5.88888)]
)
def test_worst_case_fixed_eta(eta, eps_min):
    assert at.worst_case_epsilon(eta) == pytest.approx(eps_min, abs=1e-5)
    grid = np.linspace(1e-4, 1 - 1e-4, 100001)
    em = at.epsilon_for_advantage(eta, grid)
    assert em.min() == pytest.approx(eps_min, abs=1e-5)
    assert grid[em.argmin()] == pytest.approx((1 - eta) / 2, abs=1e-3)


@pytest.mark.parametrize(
    "eps,p_star,eta_max",
    [(0.1, 0.48750, 0.02499), (1, 0.37754, 0.24492), (5, 0.07586, 0.84828), (10, 0.00669, 0.98661)],
)
def test_worst_case_fixed_eps(eps, p_star, eta_max):
    assert at.worst_case_prior_fixed_eps(epsilon=eps) == pytest.approx(p_star, abs=1e-5)
    assert at.worst_case_advantage(epsilon=eps) == pytest.approx(eta_max, abs=1e-5)
    assert at.advantage_simplified(epsilon=eps, p=p_star) == pytest.approx(eta_max, abs=1e-5)


def test_scaling_invariance():
    """(ε, d) and (αε, d/α) are the same guarantee: only ε·R enters."""
    for alpha in (0.5, 3.0):
        assert at.posterior_simplified(epsilon=1.2 * alpha, p=0.2, R=2 / alpha) == pytest.approx(
            at.posterior_simplified(epsilon=1.2, p=0.2, R=2)
        )


@pytest.mark.parametrize(
    "M,eps,main,shell,simp",
    [
        (10, 0.1, 0.25138, 0.24186, 0.40461),
        (10, 1.0, 0.76493, 0.63641, 0.99982),
        (20, 0.5, 0.46490, 0.39614, 0.99959),
    ],
)
def test_uniform_interval_oracles(M, eps, main, shell, simp):
    pb, sh = at.uniform_shells(M, M / 2)
    assert at.posterior_main_theorem_uniform(epsilon=eps, M=M) == pytest.approx(main, abs=1e-5)
    assert at.posterior_shell_sum(epsilon=eps, shell_probs=sh, p_ball=pb) == pytest.approx(
        shell, abs=1e-5
    )
    assert at.posterior_simplified(epsilon=eps, p=2 / M, R=M) == pytest.approx(simp, abs=1e-5)


def test_flat_limits():
    """Wide interval -> main theorem tanh ε, shell sum 1 - e^-ε (spec §7.3)."""
    M = 400
    pb, sh = at.uniform_shells(M, M / 2)
    for eps in (0.5, 1.0, 2.0):
        assert at.posterior_main_theorem_uniform(epsilon=eps, M=M) == pytest.approx(
            np.tanh(eps), abs=1e-3
        )
        assert at.posterior_shell_sum(epsilon=eps, shell_probs=sh, p_ball=pb) == pytest.approx(
            1 - np.exp(-eps), abs=1e-3
        )


def test_laplace_attack_attains_shell_sum_flat():
    rng = np.random.default_rng(0)
    n = 1_000_000
    for eps in (0.5, 1.0):
        success = np.mean(np.abs(rng.laplace(0, 1 / eps, n)) <= 1)
        assert success == pytest.approx(1 - np.exp(-eps), abs=4e-3)
        assert success <= np.tanh(eps)


def test_shell_counterexample_is_real():
    attained, shell, main = at.two_point_counterexample(epsilon=np.array([0.5, 1.0, 2.0]))
    assert np.all(attained > shell)
    np.testing.assert_allclose(attained, main)
    # and the randomized response really is ε·d-private: ratio e^{2ε} over distance 2.
    eps = 1.0
    p_u_given_u = np.exp(2 * eps) / (1 + np.exp(2 * eps))
    assert np.log(p_u_given_u / (1 - p_u_given_u)) == pytest.approx(eps * 2.0)


def test_edges():
    assert at.posterior_simplified(epsilon=np.inf, p=0.2) == 1.0
    assert at.posterior_simplified(epsilon=0.0, p=0.2) == pytest.approx(0.2)
    assert at.posterior_simplified(epsilon=3.0, p=0.0) == 0.0
    with pytest.raises(ValueError):
        at.epsilon_for_advantage(0.1, 0.0)
    with pytest.raises(ValueError):
        at.posterior_simplified(epsilon=-1, p=0.5)


def test_laplace_counterexample_is_private_everywhere_and_simulates():
    """The shell-sum counter-example uses Laplace(1/ε) (ε·d-private on all of ℝ): its event
    posterior is σ(2ε) in closed form and by simulation."""
    from scipy import special

    eps = np.array([0.0, 0.5, 1.0, 2.0])
    post = at.laplace_event_posterior(epsilon=eps, u=1 - 1e-3, v=-1 - 1e-3)
    np.testing.assert_allclose(post, special.expit(eps * 2.0), rtol=1e-12)
    rng = np.random.default_rng(0)
    n, u, v, e = 400_000, 1 - 1e-3, -1 - 1e-3, 1.0
    x = np.where(rng.random(n) < 0.5, u, v)
    y = x + rng.laplace(scale=1 / e, size=n)
    hit = y >= u
    mc = np.mean(x[hit] == u)
    assert abs(mc - special.expit(2 * e)) < 4 * np.sqrt(mc * (1 - mc) / hit.sum())


# --- ε for a fixed η by the window search; AND / OR of attributes; scaling (spec §2.11–2.13, §4.2 6–8) ----


@pytest.mark.parametrize(
    "x0,main,simp", [(6, 0.1787, 0.04982), (1, 0.1072, 0.04982), (0, 0.1756, 0.07533)]
)
def test_window_search_cafeteria_oracle(x0, main, simp):
    """Spec §7.5: M = 12, η = 0.1, by bisection on the main theorem and on the simplified bound."""
    M = 12
    p = at.uniform_guess_prior(M, x0)
    e_main = at.largest_epsilon_for_advantage(
        lambda e: at.posterior_main_theorem_uniform(epsilon=e, M=M, x0=x0), p, 0.1
    )
    e_simp = at.largest_epsilon_for_advantage(
        lambda e: at.posterior_simplified(epsilon=e, p=p, R=M), p, 0.1
    )
    assert e_main == pytest.approx(main, abs=1e-4)
    assert e_simp == pytest.approx(simp, abs=1e-5)
    assert e_simp == pytest.approx(at.epsilon_for_advantage(0.1, p, M), rel=1e-9)


def test_window_search_edges():
    def bound(e):
        return at.posterior_simplified(epsilon=e, p=0.3, R=1.0)

    assert at.largest_epsilon_for_advantage(bound, 0.3, 0.0) == 0.0
    assert at.largest_epsilon_for_advantage(bound, 0.3, 0.7) == np.inf  # η >= 1 − p: any ε
    assert at.largest_epsilon_for_advantage(bound, 0.3, 0.2) == pytest.approx(
        at.epsilon_for_advantage(0.2, 0.3)
    )
    assert at.largest_epsilon_for_advantage(bound, 0.3, 0.2, eps_start=1e-3) == pytest.approx(
        at.epsilon_for_advantage(0.2, 0.3)
    )  # many doublings


def test_ball_prob_independent_uniform_and_gaussian():
    from scipy import stats

    F = (stats.uniform(0, 8).cdf, stats.uniform(0, 12).cdf)
    # interior: (2a/8)(2a/12); clipped by the domain for a >= 4
    assert at.ball_prob_independent(np.array([1.0, 2.0]), (4, 6), (1, 1), F) == pytest.approx(
        [4 / 96, 16 / 96]
    )
    assert at.ball_prob_independent(np.array([10.0]), (4, 6), (1, 1), F) == pytest.approx([1.0])
    # precisions r_i scale the box; a Gaussian attribute by Monte Carlo
    G = (stats.norm(0, 1).cdf, stats.norm(0, 2).cdf)
    rng = np.random.default_rng(0)
    x = rng.normal(0, [1, 2], size=(400_000, 2))
    inside = np.mean(np.maximum(np.abs(x[:, 0] - 0.3) / 0.5, np.abs(x[:, 1] + 1) / 1.5) <= 1.0)
    assert at.ball_prob_independent(np.array([1.0]), (0.3, -1), (0.5, 1.5), G)[0] == pytest.approx(
        inside, abs=3e-3
    )


def test_and_shell_sum_single_attribute_matches_uniform_shells():
    from scipy import stats

    pb, sh = at.uniform_shells(20, 10)
    one = at.posterior_shell_sum_independent(
        epsilon=[0.5, 1.0], x=[10.0], r=[1.0], cdfs=[stats.uniform(0, 20).cdf], n_shells=21
    )
    assert one == pytest.approx(
        [at.posterior_shell_sum(epsilon=e, shell_probs=sh, p_ball=pb) for e in (0.5, 1.0)]
    )


def test_and_shell_sum_flat_closed_form():
    """Wide uniform priors: shells (2a+1)·P(B1) around the centre, so the sum is Σ e^{−εa}(2a+1)."""
    from scipy import stats

    M, eps = 400.0, 0.7
    F = (stats.uniform(0, M).cdf, stats.uniform(0, M).cdf)
    a = np.arange(1, 200)
    expect = 1 / (1 + np.sum(np.exp(-eps * a) * (2 * a + 1)))
    assert at.posterior_shell_sum_independent(
        epsilon=eps, x=(M / 2, M / 2), r=(1, 1), cdfs=F, n_shells=199
    ) == pytest.approx(expect, rel=1e-9)


def test_or_union_bound():
    e = np.array([0.0, 0.1, 1.0, 5.0])
    u = at.posterior_or_union(epsilon=e, p1=0.25, R1=8, p2=1 / 6, R2=12)
    assert u[0] == pytest.approx(0.25 + 1 / 6)
    assert np.all(u <= 1) and u[-1] == 1.0
    assert np.all(u >= at.posterior_simplified(epsilon=e, p=0.25, R=8))


def test_laplace_posterior_uniform_matches_monte_carlo():
    rng = np.random.default_rng(1)
    M, eps, n = 8.0, 1.0, 2_000_000
    x = rng.uniform(0, M, n)
    y = x + rng.laplace(0, 1 / eps, n)
    sel = np.abs(y - 2.0) < 0.02
    mc = np.mean(np.abs(x[sel] - y[sel]) <= 1)
    assert at.laplace_posterior_uniform(epsilon=eps, M=M, y=np.array([2.0]))[0] == pytest.approx(
        mc, abs=0.01
    )
    # and it respects the main theorem for that centre, the simplified bound everywhere
    ys = np.linspace(-2, 10, 241)
    post = at.laplace_posterior_uniform(epsilon=eps, M=M, y=ys)
    assert post.max() <= at.posterior_simplified(epsilon=eps, p=2 / M, R=M)


@pytest.mark.parametrize("alpha", [0.25, 0.5, 3.0])
def test_scaling_invariance_main_theorem(alpha):
    """(ε, d) -> (αε, d/α): interval M/α, centre c/α, guess radius 1/α; bounds and α⁻¹ε_max unchanged."""
    M = 12.0
    for c in (6.0, 1.0, 0.0):
        for e in (0.2, 1.0):
            assert at.posterior_main_theorem_uniform(
                epsilon=alpha * e, M=M / alpha, x0=c / alpha, radius=1 / alpha
            ) == (pytest.approx(at.posterior_main_theorem_uniform(epsilon=e, M=M, x0=c), rel=1e-9))
    p = at.uniform_guess_prior(M, 6.0)
    base = at.largest_epsilon_for_advantage(
        lambda e: at.posterior_main_theorem_uniform(epsilon=e, M=M), p, 0.1
    )
    scaled = at.largest_epsilon_for_advantage(
        lambda e: at.posterior_main_theorem_uniform(
            epsilon=e, M=M / alpha, x0=6.0 / alpha, radius=1 / alpha
        ),
        p,
        0.1,
    )
    assert scaled / alpha == pytest.approx(base, rel=1e-8)
