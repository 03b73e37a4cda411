"""Theorem 3.5's count quantiles in O(n log n): the bisection over v with one O(n) LP value per
step gives exactly the full-table answer (``bound_tail_multi``, the paper's LP solved row by row),
whose LP values scipy's linprog confirms; the FFT Poisson-binomial pmf equals the exact loop."""

import numpy as np
import pytest
from scipy import optimize

from privrisk.bounds import reconstruction as rb

LEVELS = (0.05, 0.5, 0.95)


def _full_table(betas, delta):
    full = rb.bound_tail_multi(betas, delta=delta)
    n = len(betas)
    out = []
    for c in LEVELS:
        ok = np.nonzero(full[1:] <= 1 - c + 1e-12)[0]
        out.append(int(ok[0]) if ok.size else n)
    return out


def test_bisection_equals_the_full_table_over_random_inputs():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 120))
        betas = np.full(n, rng.random()) if rng.random() < 0.5 else rng.random(n)
        if rng.random() < 0.1:
            betas = np.full(n, rng.choice([0.0, 1e-9, 1 - 1e-12, 1.0]))
        delta = float(rng.choice([0, 1e-5, 1e-3, 0.01, 0.05, 0.2, 0.5, 0.9]))
        assert list(rb.success_quantiles(betas, LEVELS, delta=delta)) == _full_table(betas, delta)


def test_lp_value_is_the_linear_programs_optimum():
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(2, 40))
        betas = rng.random(n)
        tail = np.append(rb.tail_probabilities(betas), 0.0)
        v = int(rng.integers(1, n + 1))
        b = float(rng.uniform(0.1, n))
        j = np.arange(n + 1)
        g = np.maximum(np.where(v - j <= 0, 1.0, tail[np.clip(v - j, 0, n + 1)]) - tail[v], 0)
        lp = optimize.linprog(-g, A_ub=[j], b_ub=[b], A_eq=[np.ones(n + 1)], b_eq=[1],
                              bounds=(0, None), method="highs")  # fmt: skip
        ours = rb.lp_value(tail, v, b)
        # the exact optimum over every two-point law (lp_envelope), and HiGHS within its tolerance
        assert ours == pytest.approx(float(rb.lp_envelope(g[None, :], b)[0]), abs=1e-12)
        assert ours == pytest.approx(-lp.fun, abs=1e-7)


def test_fft_pmf_equals_the_exact_loop_and_ten_thousand_targets_are_quick():
    rng = np.random.default_rng(0)
    b = rng.random(5000)
    np.testing.assert_allclose(rb._pmf_fft(b), rb._pmf_loop(b), atol=1e-14)
    np.testing.assert_allclose(
        rb.poisson_binomial_pmf(np.full(300, 0.3)), rb._pmf_loop(np.full(300, 0.3)), atol=1e-14
    )
    q = rb.success_quantiles(rng.random(10_000), LEVELS, delta=0.01)
    assert list(q) == sorted(q) and 0 < q[0] < 10_000
