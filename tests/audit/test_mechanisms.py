"""ε̂ never above the project's own upper bounds, for 100 random mechanisms sampled exactly.

Three families whose guarantee the project's bounds give exactly: the Gaussian mechanism
(μ-GDP: ε at δ from :func:`privrisk.accounting.gaussian_epsilon`, the f-DP advantage and
TPR-at-FPR from :mod:`privrisk.bounds.tradeoff`), the Laplace mechanism (pure ε-DP: Thudi et
al.'s advantage bound :func:`privrisk.bounds.membership.advantage_upper` at p = ½ and
:func:`~privrisk.bounds.tradeoff.tradeoff_approx`) and randomised response (pure ε-DP with
heavy ties). Scores are drawn from the mechanisms' exact output distributions, one row per
mechanism, all rows in one computation.
"""

from __future__ import annotations

import numpy as np

from privrisk import accounting
from privrisk.audit import family as fam
from privrisk.audit import membership as mb
from privrisk.bounds import membership as mem_bounds
from privrisk.bounds import tradeoff

N = 3000
DELTA = 1e-5


def _tpr_lower_at_central(m, x, confidence=0.95):
    """Every test of the audit's family: (true-rate lower, false-rate upper) bounds."""
    return fam.evidence(m, x).bounds(1 - confidence)


def test_gaussian_mechanisms():
    rng = np.random.default_rng(1)
    mus = rng.uniform(0.1, 4.0, 40)
    m = rng.standard_normal((mus.size, N)) + mus[:, None]
    x = rng.standard_normal((mus.size, N))
    eps = mb.epsilon_lower(m, x, delta=DELTA)
    bound = np.array([accounting.gaussian_epsilon(delta=DELTA, mu=u) for u in mus])
    assert np.all(eps <= bound)
    assert np.all(mb.mu_lower(m, x) <= mus)
    t_lo, f_hi = _tpr_lower_at_central(m, x)
    # every audited (TPR lower, FPR upper) point lies under the card's TPR-at-FPR bound, and the
    # advantage it proves under the f-DP advantage bound
    assert np.all(t_lo <= 1 - tradeoff.tradeoff_gdp(f_hi, mu=mus[:, None]) + 1e-12)
    assert np.all(t_lo - f_hi <= tradeoff.advantage_gdp(mu=mus)[:, None])


def test_laplace_mechanisms():
    rng = np.random.default_rng(2)
    epss = rng.uniform(0.1, 6.0, 40)
    m = rng.laplace(1.0, 1.0 / epss[:, None], (epss.size, N))  # sensitivity 1: pure ε-DP
    x = rng.laplace(0.0, 1.0 / epss[:, None], (epss.size, N))
    est = mb.epsilon_lower(m, x, delta=0.0)
    assert np.all(est <= epss)
    t_lo, f_hi = _tpr_lower_at_central(m, x)
    adv = np.asarray(mem_bounds.advantage_upper(epsilon=epss, p=0.5))
    assert np.all(t_lo - f_hi <= adv[:, None])
    assert np.all(t_lo <= 1 - tradeoff.tradeoff_approx(f_hi, epsilon=epss[:, None]) + 1e-12)


def test_randomised_response():
    rng = np.random.default_rng(3)
    epss = rng.uniform(0.1, 5.0, 20)
    q = 1 / (1 + np.exp(-epss))  # P(report 1 | member) = e^ε/(1+e^ε)
    m = (rng.random((epss.size, N)) < q[:, None]).astype(float)
    x = (rng.random((epss.size, N)) < 1 - q[:, None]).astype(float)
    est = mb.epsilon_lower(m, x, delta=0.0)
    assert np.all(est <= epss)
    # the audit sees something: at ε ≥ 2 and 3,000 per side a large part of ε is found
    strong = epss >= 2
    assert np.all(est[strong] >= 0.5 * epss[strong])
