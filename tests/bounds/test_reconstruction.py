"""Swanberg et al. bounds: spec sample values, RR tightness (Prop. B.1), simulations, SEX example, LP."""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from privrisk import accounting
from privrisk.bounds import reconstruction as rb


@pytest.mark.parametrize(
    "eps,p,ours,rero",
    [
        (1, 0.01, 0.0267, 0.0272),
        (1, 0.1, 0.232, 0.272),
        (1, 0.25, 0.475, 0.680),
        (1, 0.5, 0.731, 1.0),
        (2, 0.1, 0.451, 0.739),
        (2, 0.5, 0.881, 1.0),
        (4, 0.01, 0.356, 0.546),
        (4, 0.1, 0.859, 1.0),
    ],
)
def test_fig1_sample_values(eps, p, ours, rero):
    assert rb.beta_pure(epsilon=eps, p=p) == pytest.approx(ours, abs=6e-4)
    assert rb.rero_pure(epsilon=eps, p=p) == pytest.approx(rero, abs=6e-4)


def test_beta_identities_and_edges():
    p = np.linspace(0.01, 0.99, 50)
    np.testing.assert_allclose(
        rb.beta_pure(epsilon=1.3, p=p), np.exp(1.3) / (np.exp(1.3) - 1 + 1 / p), rtol=1e-12
    )
    np.testing.assert_allclose(rb.beta_pure(epsilon=0, p=p), p, rtol=1e-12)
    assert rb.beta_pure(epsilon=np.inf, p=0.3) == 1.0
    assert (
        rb.beta_pure(epsilon=5, p=0.0) == 0.0
        and rb.beta_pure(epsilon=5, p=1.0) == 1.0
        and rb.beta_pure(epsilon=np.inf, p=0.0) == 0.0
    )
    assert rb.beta_pure(epsilon=1e6, p=1e-300) == pytest.approx(1.0)
    assert rb.beta_approx(epsilon=1, delta=0.5, p=0.9) == 1.0  # capped
    with pytest.raises(ValueError):
        rb.beta_pure(epsilon=-1, p=0.5)
    with pytest.raises(ValueError):
        rb.beta_pure(epsilon=1, p=1.2)
    with pytest.raises(ValueError):
        rb.beta_approx(epsilon=1, delta=1.0, p=0.5)


def test_randomized_response_attains_beta():
    """Prop. B.1: m-ary RR with D(a) <= e^ε D(b) and the Bayes-optimal attacker attains β(ε, D(a))."""
    rng = np.random.default_rng(0)
    eps, m, n = 1.0, 4, 400_000
    prior = np.array([0.4, 0.25, 0.2, 0.15])
    assert prior.max() <= np.exp(eps) * prior.min()
    x = rng.choice(m, size=n, p=prior)
    keep = rng.random(n) < np.exp(eps) / (np.exp(eps) - 1 + m)
    other = (x + rng.integers(1, m, size=n)) % m
    y = np.where(keep, x, other)
    # the optimal attacker outputs the released value under the condition
    for a in range(m):
        sel = y == a
        emp = np.mean(x[sel] == a)
        assert emp == pytest.approx(
            rb.beta_pure(epsilon=eps, p=prior[a]), abs=4 * math.sqrt(0.25 / sel.sum())
        )
    # overall: Σ_a P(Y = a) β(ε, D(a)) = e^ε / (e^ε − 1 + m)
    assert np.mean(x == y) == pytest.approx(np.exp(eps) / (np.exp(eps) - 1 + m), abs=3e-3)


def test_simulated_attacks_never_beat_the_bound():
    """Laplace/Gaussian-free check: RR on binary secrets with skewed priors, many attackers."""
    rng = np.random.default_rng(1)
    n = 200_000
    for eps in (0.5, 1.0, 3.0):
        for p1 in (0.05, 0.3, 0.7):
            x = rng.random(n) < p1
            flip = rng.random(n) < 1 / (1 + np.exp(eps))
            y = x ^ flip
            for guess_rule in (lambda y: y, lambda y: np.ones_like(y), lambda y: ~y):
                z = guess_rule(y)
                for val in (True, False):
                    sel = z == val
                    if sel.sum() < 1000:
                        continue
                    success = np.mean(x[sel] == val)
                    p = p1 if val else 1 - p1
                    assert success <= rb.beta_pure(epsilon=eps, p=p) + 4 * math.sqrt(
                        0.25 / sel.sum()
                    )


def test_sex_example_quantiles():
    """SEX at ε = 1: β = 0.7758 (p = 0.56), n = 100 → 71 / 78 / 84 at 5 / 50 / 95 %."""
    beta = rb.beta_pure(epsilon=1.0, p=0.56)
    assert beta == pytest.approx(0.7758, abs=1e-4)
    q = rb.success_quantiles(np.full(100, beta), (0.05, 0.5, 0.95), delta=1e-5)
    assert list(q) == [71, 78, 84]
    assert list(q) == [int(stats.binom.ppf(c, 100, beta)) for c in (0.05, 0.5, 0.95)]


def test_poisson_binomial_against_brute_force():
    rng = np.random.default_rng(2)
    b = rng.random(12)
    pmf = rb.poisson_binomial_pmf(b)
    brute = np.zeros(13)
    for bits in range(2**12):
        s = [(bits >> i) & 1 for i in range(12)]
        brute[sum(s)] += np.prod([bi if si else 1 - bi for bi, si in zip(b, s, strict=True)])
    np.testing.assert_allclose(pmf, brute, atol=1e-14)
    np.testing.assert_allclose(pmf, stats.poisson_binom.pmf(np.arange(13), b), atol=1e-12)
    big = rng.random(100)  # scipy's ppf fails here; our quantiles use the cdf
    q = rb.success_quantiles(big, (0.5,))
    cdf = stats.poisson_binom.cdf(np.arange(101), big)
    assert q[0] == int(np.argmax(cdf >= 0.5 - 1e-12))


def test_theorem35_closed_form_equals_lp():
    rng = np.random.default_rng(3)
    betas = rng.uniform(0.2, 0.9, 15)
    delta = 1e-3
    n = betas.size
    t = np.append(rb.tail_probabilities(betas), 0.0)
    closed = rb.bound_tail_multi(betas, delta=delta)
    for v in (3, 8, 12):
        j = np.arange(n + 1)
        tv = np.where(v - j <= 0, 1.0, t[np.clip(v - j, 0, n + 1)])
        res = optimize.linprog(
            -tv, A_ub=[j], b_ub=[n * delta], A_eq=[np.ones(n + 1)], b_eq=[1], bounds=(0, 1)
        )
        assert closed[v] == pytest.approx(min(1.0, -res.fun), abs=1e-9)


def test_theorem35_single_target():
    b = rb.beta_pure(epsilon=1.0, p=0.1)
    np.testing.assert_allclose(rb.bound_tail_multi([b], delta=1e-5), [1.0, b + (1 - b) * 1e-5, 0.0])
    assert rb.bound_tail_multi([b], delta=1e-5)[1] == pytest.approx(b + (1 - b) * 1e-5)
    assert rb.beta_one_run(epsilon=1.0, delta=1e-5, p=0.1) == pytest.approx(b + (1 - b) * 1e-5)


def test_eps_protect_and_advantage():
    assert rb.epsilon_protect(p=1e-9, delta=1e-5) == pytest.approx(17.7786, abs=1e-3)
    assert rb.epsilon_protect(p=1e-9) == pytest.approx(math.log(1 + 0.05 / (0.95e-9)), rel=1e-9)
    for p in (1e-6, 0.01, 0.3):
        e = rb.epsilon_protect(p=p, delta=1e-5)
        assert rb.advantage_bound(epsilon=e, p=p, delta=1e-5) == pytest.approx(0.05, abs=1e-9)
    assert rb.advantage(0.5, 1.0) == 0.0
    # PII check of the spec: p = 0.00543 → Adv(5) ≈ 0.445, ε_protect ≈ 2.369
    assert rb.advantage_bound(epsilon=5, p=0.00543, delta=1e-5) == pytest.approx(0.445, abs=2e-3)
    assert rb.epsilon_protect(p=0.00543, delta=1e-5) == pytest.approx(2.369, abs=2e-3)


def test_mmc_fdp_equals_ours_at_uniform_priors():
    for eps in (1, 2, 4):
        for K in (2, 5, 10, 100):
            assert rb.mmc_fdp(epsilon=eps, delta=1e-5, K=K) == pytest.approx(
                rb.beta_one_run(epsilon=eps, delta=1e-5, p=1 / K), abs=1e-9
            )


@pytest.mark.parametrize("eps,expected", [(1, 0.148), (2, 0.199), (5, 0.364), (10, 0.612)])
def test_mmc_gdp_values(eps, expected):
    mu = accounting.gdp_mu(epsilon=eps, delta=1e-5)
    assert rb.mmc_gdp(mu=mu, K=10) == pytest.approx(expected, abs=1.5e-3)
    assert rb.mmc_gdp(mu=mu, K=10) <= rb.beta_one_run(epsilon=eps, delta=1e-5, p=0.1)


def test_leaked_bits():
    np.testing.assert_allclose(
        rb.leaked_bits(epsilon=[1, 5, 10, 17]), [5.72, 11.46, 18.67, 28.77], atol=0.01
    )


def test_beta_multi_forms():
    """δ-free form = per-record β_i; the form with δ and n = Thm 3.5 for one record among n."""
    p = np.array([0.1, 0.56, 0.9])
    np.testing.assert_allclose(rb.beta_multi(epsilon=1.0, p=p), rb.beta_pure(epsilon=1.0, p=p))
    np.testing.assert_allclose(
        rb.beta_multi(epsilon=1.0, delta=1e-5, p=p, n=1),
        rb.beta_one_run(epsilon=1.0, delta=1e-5, p=p),
        rtol=1e-12,
    )
    # the record's indicator as a decomposable metric with the other n − 1 targets never counted
    n, delta = 50, 1e-4
    for pi in p:
        tail = rb.bound_tail_multi(
            np.r_[rb.beta_pure(epsilon=1.0, p=pi), np.zeros(n - 1)], delta=delta
        )
        assert rb.beta_multi(epsilon=1.0, delta=delta, p=pi, n=n) == pytest.approx(
            tail[1], rel=1e-12
        )
    assert rb.beta_multi(epsilon=1.0, delta=0.0, p=p, n=100) == pytest.approx(
        rb.beta_pure(epsilon=1.0, p=p)
    )
    assert rb.beta_multi(epsilon=np.inf, delta=1e-5, p=0.2, n=10) == 1.0 and rb.beta_multi(
        epsilon=3.0, delta=1e-5, p=0.0, n=10
    ) == pytest.approx(1e-4)
    with pytest.raises(ValueError):
        rb.beta_multi(epsilon=1.0, delta=1e-5, p=0.5, n=0)
    with pytest.raises(TypeError, match="takes no n"):
        rb.beta_multi(epsilon=1.0, p=0.5, n=3)
    with pytest.raises(TypeError, match="needs p"):
        rb.beta_multi(epsilon=1.0, delta=0.5)


def test_theorem35_count_bound_holds_in_simulation():
    """n binary secrets with skewed priors, ε-RR per record, MAP attacker: Pr[#successes >= v] <= bound."""
    rng = np.random.default_rng(4)
    n, runs, eps = 40, 100_000, 1.0
    p1 = rng.uniform(0.05, 0.95, n)
    x = rng.random((runs, n)) < p1
    y = x ^ (rng.random((runs, n)) < 1 / (1 + np.exp(eps)))
    post1 = np.where(y, p1 * np.exp(eps), p1) / np.where(
        y, p1 * np.exp(eps) + 1 - p1, p1 + (1 - p1) * np.exp(eps)
    )
    z = post1 >= 0.5
    count = (z == x).sum(axis=1)
    p_star = np.maximum(p1, 1 - p1)  # prior success of the a-priori Bayes-optimal guess
    bound = rb.bound_tail_multi(rb.beta_multi(epsilon=eps, p=p_star), delta=0.0)
    emp = np.array([(count >= v).mean() for v in range(n + 2)])
    assert np.all(emp <= bound + 4 * np.sqrt(np.maximum(bound * (1 - bound), 1 / runs) / runs))
    q = rb.success_quantiles(rb.beta_multi(epsilon=eps, p=p_star), (0.5, 0.95))
    assert np.mean(count > q[1]) <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / runs)


def test_mmc_broadcasts_and_edges():
    eps = np.array([1.0, 2.0, 4.0])[:, None]
    K = np.array([1, 2, 10, 1000])
    grid = rb.mmc_fdp(epsilon=eps, delta=0.0, K=K)
    assert grid.shape == (3, 4)
    np.testing.assert_allclose(grid[:, 1:], rb.beta_pure(epsilon=eps, p=1 / K[1:]), atol=1e-12)
    np.testing.assert_allclose(grid[:, 0], 1.0)
    assert rb.mmc_fdp(epsilon=np.inf, delta=0.0, K=10) == 1.0 and rb.mmc_fdp(
        epsilon=0.0, delta=0.0, K=10
    ) == pytest.approx(0.1)
    assert rb.mmc_gdp(mu=0.0, K=10) == pytest.approx(0.1) and rb.mmc_gdp(mu=np.inf, K=10) == 1.0
    mus = np.array([0.3, 1.0, 2.0])
    np.testing.assert_allclose(rb.mmc_gdp(mu=mus, K=10), [rb.mmc_gdp(mu=m, K=10) for m in mus])
    assert np.all(
        np.diff(rb.mmc_gdp(mu=1.0, K=np.array([2, 5, 10, 100]))) < 0
    )  # more secrets, lower success
    with pytest.raises(ValueError):
        rb.mmc_fdp(epsilon=1.0, delta=0.0, K=2.5)


# --- the ceiling on any attack at a Gaussian release (others revealed) --------------------------


def test_revealed_bound_binary_closed_form_and_the_issue_number():
    mu = accounting.gdp_mu(epsilon=1.0, delta=1e-5)  # 0.2681: ε = 1 at δ = 1e-5 (spec §2.10)
    assert rb.bayes_success_revealed(mu=mu, p=[0.5, 0.5]) == pytest.approx(stats.norm.cdf(mu / 2))
    s = mu / math.sqrt(2)
    for p in (0.56, 0.7, 0.9):
        lg = math.log(p / (1 - p))
        closed = p * stats.norm.cdf((s + lg / s) / math.sqrt(2)) + (1 - p) * stats.norm.cdf(
            (s - lg / s) / math.sqrt(2)
        )
        assert rb.bayes_success_revealed(mu=mu, p=[p, 1 - p]) == pytest.approx(closed, rel=1e-9)
    # one binary column at ε = 1: no attack gains more than 5.3 records of 100 over the prior,
    # whatever the prior; the worst prior is the uniform one
    gain, p_star = rb.max_bayes_gain_binary(mu=mu)
    assert 100 * gain == pytest.approx(5.33, abs=0.01) and p_star == 0.5


def test_revealed_bound_matches_monte_carlo_of_the_bayes_rule_and_edges():
    rng = np.random.default_rng(0)
    for mu in (0.5, 2.0, 3.45):
        p = rng.dirichlet(np.full(6, 0.5))
        s, n = mu / math.sqrt(2), 400_000
        x = rng.choice(6, size=n, p=p)
        y = rng.standard_normal((n, 6))
        y[np.arange(n), x] += s
        hit = ((np.log(p) + s * y).argmax(axis=1) == x).mean()
        assert rb.bayes_success_revealed(mu=mu, p=p) == pytest.approx(hit, abs=4e-3)
    # zero-mass values neither win nor compete; μ = 0 is the prior's best guess, μ = ∞ certainty
    assert rb.bayes_success_revealed(mu=1.0, p=[0.0, 0.3, 0.7]) == pytest.approx(
        rb.bayes_success_revealed(mu=1.0, p=[0.3, 0.7])
    )
    assert rb.bayes_success_revealed(mu=0.0, p=[0.3, 0.7]) == 0.7
    assert rb.bayes_success_revealed(mu=math.inf, p=[0.3, 0.7]) == 1.0
    rows = np.array([[0.2, 0.8], [0.5, 0.5]])
    np.testing.assert_allclose(
        rb.bayes_success_revealed(mu=1.0, p=rows),
        [rb.bayes_success_revealed(mu=1.0, p=r) for r in rows],
    )
    with pytest.raises(ValueError, match="probability vector"):
        rb.bayes_success_revealed(mu=1.0, p=[0.3, 0.3])
    with pytest.raises(ValueError, match="mu"):
        rb.bayes_success_revealed(mu=-1.0, p=[0.5, 0.5])


def test_window_bound_monte_carlo_and_edges():
    rng = np.random.default_rng(1)
    p = np.array([[0.1, 0.2, 0.4, 0.2, 0.1], [0.6, 0.1, 0.1, 0.1, 0.1]])
    est, se = rb.bayes_window_success_revealed(mu=1.5, p=p, radii=[0, 1, 4], draws=20_000, rng=rng)
    assert est.shape == se.shape == (2, 3)
    # radius 0 is the exact quadrature; a wider window can only do better; one covering the
    # domain always succeeds
    np.testing.assert_allclose(est[:, 0], rb.bayes_success_revealed(mu=1.5, p=p))
    assert (se[:, 0] == 0).all() and (se[:, 1] < 0.005).all()
    assert (est[:, 1] > est[:, 0]).all()
    np.testing.assert_allclose(est[:, 2], 1.0)
    # Monte Carlo of the rule itself: guess the centre of the most probable window
    s, n = 1.5 / math.sqrt(2), 200_000
    x = rng.choice(5, size=n, p=p[0])
    y = rng.standard_normal((n, 5))
    y[np.arange(n), x] += s
    post = np.exp(np.log(p[0]) + s * y)
    win = np.stack([post[:, max(0, c - 1) : c + 2].sum(axis=1) for c in range(5)], axis=1)
    hit = (np.abs(win.argmax(axis=1) - x) <= 1).mean()
    assert est[0, 1] == pytest.approx(hit, abs=4 * se[0, 1] + 3e-3)
    # μ = 0 is the prior's best window (clipped to the domain)
    prior, _ = rb.bayes_window_success_revealed(mu=0.0, p=p, radii=[1])
    np.testing.assert_allclose(prior[:, 0], [0.8, 0.8])
    with pytest.raises(ValueError, match="rng"):
        rb.bayes_window_success_revealed(mu=1.0, p=p, radii=[1])


def _lp_tail(betas, delta):
    """Theorem 3.5's B[v] by scipy's LP (Appendix B), v = 0..n+1."""
    n = len(betas)
    t = np.append(rb.tail_probabilities(betas), 0.0)
    j = np.arange(n + 1)
    out = []
    for v in range(n + 2):
        tv = np.where(v - j <= 0, 1.0, t[np.clip(v - j, 0, n + 1)])
        res = optimize.linprog(
            -tv, A_ub=[j], b_ub=[n * delta], A_eq=[np.ones(n + 1)], b_eq=[1], bounds=(0, 1)
        )
        out.append(min(1.0, -res.fun))
    out[-1] = 0.0
    return np.array(out)


@pytest.mark.parametrize("n_delta", [0.01, 0.2, 0.5, 0.9, 1.0, 1.3, 2.5, 5.0])
def test_theorem35_equals_the_lp_for_every_n_delta(n_delta):
    """The closed form T[v] + nδ·λ(v) is the LP's optimum for nδ <= 1 (checked up to 1) and the
    concave envelope takes over beyond, where the closed form is only an upper bound."""
    rng = np.random.default_rng(int(n_delta * 100))
    betas = rng.uniform(0.05, 0.95, 20)
    n = betas.size
    delta = n_delta / n
    lp = _lp_tail(betas, delta)
    ours = rb.bound_tail_multi(betas, delta=delta)
    np.testing.assert_allclose(ours, lp, atol=1e-8)
    t = np.append(rb.tail_probabilities(betas), 0.0)
    v = np.arange(n + 2)[:, None]
    j = np.arange(1, n + 1)[None, :]
    prev = np.where(v - j <= 0, 1.0, t[np.clip(v - j, 0, n + 1)])
    closed = np.minimum(1.0, t + n_delta * np.max((prev - t[:, None]) / j, axis=1))
    closed[-1] = 0.0
    if n_delta <= 1:
        np.testing.assert_allclose(closed, lp, atol=1e-8)
    else:
        assert np.all(closed >= lp - 1e-9) and np.any(closed > lp + 1e-6)


def test_advantage_and_epsilon_protect_from_theorem35():
    eps, p, d = 2.0, 0.1, 1e-3
    b = rb.beta_one_run(epsilon=eps, delta=d, p=p)
    assert rb.advantage_one_run(epsilon=eps, p=p, delta=d) == pytest.approx((b - p) / (1 - p))
    assert rb.advantage_one_run(epsilon=eps, p=p, delta=d) < rb.advantage_bound(
        epsilon=eps, p=p, delta=d
    )
    assert rb.advantage_one_run(epsilon=eps, p=p) == rb.advantage_bound(epsilon=eps, p=p)
    for pp in (1e-9, 1e-3, 0.3):
        e = rb.epsilon_protect_one_run(p=pp, delta=1e-5)
        assert rb.advantage_one_run(epsilon=e, p=pp, delta=1e-5) == pytest.approx(0.05, abs=1e-9)
        assert e >= rb.epsilon_protect(p=pp, delta=1e-5)
    assert rb.epsilon_protect_one_run(p=0.5, delta=0.2) == 0.0  # δ alone exceeds the threshold
