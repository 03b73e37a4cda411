"""One test, one verdict (issue 36): ε̂, μ̂, the verdict and the p-value cannot contradict each other.

Over random files (sizes, score distributions with and without ties, effects) and random claims
of every form — ε, (ε, δ), μ, ρ, an RDP curve — with claimed values drawn around the file's own
bound so that both verdicts occur:

* refuted ⇔ the lower bound in the claim's form exceeds the claim ⇔ p <= 1 − confidence;
* for ε and (ε, δ) claims: refuted ⇔ ``epsilon_lower`` (at the claim's δ) > ε; for μ claims:
  refuted ⇔ ``mu_lower`` > μ;
* the p-value is the smallest level at which the claim is refuted: refuted at a level a hair
  above it, not at a hair below;
* "uninformative" only when the design cannot refute: then no outcome of these numbers of
  canaries could (the best outcome's bound does not exceed the claim), and ``canaries_needed``
  depends on the design alone (the same for any scores of the same sizes).
"""

from __future__ import annotations

import numpy as np
import pytest

from privrisk import accounting
from privrisk.audit import audit
from privrisk.audit.build import CONFIDENCE

ALPHA = 0.05


def _file(rng):
    n_m, n_n = (int(v) for v in rng.integers(10, 400, size=2))
    kind = rng.choice(["gauss", "rr", "integer", "t2", "rounded"])
    effect = float(rng.choice([0.0, rng.uniform(0, 2.5)]))
    if kind == "gauss":
        m, x = rng.normal(effect, 1, n_m), rng.normal(0, 1, n_n)
    elif kind == "rr":
        q = 1 / (1 + np.exp(-effect))
        m, x = (rng.random(n_m) < q) * 1.0, (rng.random(n_n) < 1 - q) * 1.0
    elif kind == "integer":
        p = 1 / (1 + np.exp(-effect / 3))
        m, x = rng.binomial(8, p, n_m) * 1.0, rng.binomial(8, 1 - p, n_n) * 1.0
    elif kind == "t2":
        m, x = rng.standard_t(2, n_m) + effect, rng.standard_t(2, n_n)
    else:
        m, x = np.round(rng.normal(effect, 1, n_m), 1), np.round(rng.normal(0, 1, n_n), 1)
    return {"score": np.r_[m, x], "member": np.r_[np.ones(n_m), np.zeros(n_n)]}


def _claims(rng, cols, forms, tmp_path):
    """Claims of the given forms with values drawn around the file's own bound."""
    base = audit(cols, delta=1e-5)
    for form in forms:
        s = float(rng.uniform(0.6, 1.4))
        if form == "epsilon":
            e0 = float(audit(cols).epsilon_lower)
            yield {"epsilon": max(e0 * s, float(rng.uniform(0, 0.3)))}
        elif form == "epsilon-delta":
            d = float(rng.choice([1e-6, 1e-3, 0.05]))
            e0 = float(audit(cols, delta=d).epsilon_lower)
            yield {"epsilon": max(e0 * s, float(rng.uniform(0, 0.3))), "delta": d}
        elif form == "mu":
            yield {"mu": max(base.mu_lower * s, float(rng.uniform(0, 0.2)))}
        elif form == "rho":
            r0 = audit(cols, rho=1.0).form["lower"]
            yield {"rho": max(r0 * s, 1e-3)}
        else:  # an RDP curve: the Gaussian mechanism's ε_α = α μ²/2, around the file's μ̂
            alphas = np.r_[1.5, 2.0, 4.0, 8.0, 16.0, 32.0]
            mu = max(base.mu_lower * s, 0.05)
            path = tmp_path / f"rdp_{rng.integers(1 << 30)}.csv"
            np.savetxt(path, np.c_[alphas, alphas * mu**2 / 2], delimiter=",")
            yield {"rdp": str(path)}


def _check(cols, claim, *, check_p=True):
    r = audit(cols, **claim)
    refuted = r.verdict == "refuted"
    assert refuted == (r.form["lower"] > r.form["claimed"]), (claim, r.form)
    assert refuted == (r.p_value <= ALPHA), (claim, r.p_value)
    if r.form["name"] == "epsilon":
        assert r.delta == float(claim.get("delta", 0.0))
        assert refuted == (r.epsilon_lower > claim["epsilon"]), (claim, r.epsilon_lower)
    if r.form["name"] == "mu":
        assert refuted == (r.mu_lower > claim["mu"]), (claim, r.mu_lower)
        # across forms too: ε̂ above the claim's own ε at its δ refutes the μ-GDP claim
        eps_mu = accounting.gaussian_epsilon(delta=r.delta, mu=claim["mu"])
        if r.epsilon_lower > eps_mu + 1e-9:
            assert refuted, (claim, r.epsilon_lower, eps_mu)
    # "uninformative" is a property of the design
    assert (r.verdict == "uninformative") == (not r.design["can_refute"])
    assert r.design["can_refute"] == (r.design["best_outcome_lower"] > r.form["claimed"])
    if r.verdict == "uninformative":
        n_m, n_n = r.n_members, r.n_nonmembers
        perfect = {"score": np.r_[np.ones(n_m), np.zeros(n_n)], "member": cols["member"]}
        again = audit(perfect, **claim)
        assert again.verdict == "uninformative" and again.canaries_needed == r.canaries_needed
    else:
        assert r.canaries_needed is None
    # the p-value's relation to the verdict, at every confidence the audit accepts (outside
    # [0.5, 1 - 1e-6] --confidence is refused)
    lo, hi = 1 - CONFIDENCE[1], 1 - CONFIDENCE[0]
    if check_p and lo < r.p_value * (1 - 1e-6) and r.p_value * (1 + 1e-6) < hi:
        above = audit(cols, confidence=1 - r.p_value * (1 + 1e-6), **claim)
        below = audit(cols, confidence=1 - r.p_value * (1 - 1e-6), **claim)
        assert above.verdict == "refuted" and below.verdict != "refuted", (claim, r.p_value)
    return r


@pytest.mark.parametrize("seed", range(12))
def test_epsilon_mu_claims_agree_with_their_bounds(seed, tmp_path):
    rng = np.random.default_rng(3600 + seed)
    seen = set()
    for _ in range(3):
        cols = _file(rng)
        for claim in _claims(rng, cols, ["epsilon", "epsilon-delta", "mu"], tmp_path):
            seen.add(_check(cols, claim, check_p=bool(rng.random() < 0.4)).verdict)
    assert seen  # every case above asserted the equivalences


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_rho_and_rdp_claims_agree_with_their_bounds(seed, tmp_path):
    rng = np.random.default_rng(3700 + seed)
    cols = _file(rng)
    for claim in _claims(rng, cols, ["rho", "rdp"], tmp_path):
        _check(cols, claim, check_p=False)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_many_random_files_every_form(seed, tmp_path):
    rng = np.random.default_rng(3800 + seed)
    cols = _file(rng)
    forms = ["epsilon", "epsilon-delta", "mu", "rho", "rdp"]
    for claim in _claims(rng, cols, forms, tmp_path):
        _check(cols, claim, check_p=True)


def test_both_verdicts_occur_in_the_random_cases(tmp_path):
    """The generator above is not degenerate: around the file's own bound both sides occur."""
    rng = np.random.default_rng(36)
    verdicts = set()
    for _ in range(8):
        cols = _file(rng)
        for claim in _claims(rng, cols, ["epsilon", "mu"], tmp_path):
            verdicts.add(audit(cols, **claim).verdict)
    assert {"refuted", "consistent"} <= verdicts


def test_null_files_never_draw_a_plan_from_noise():
    """On scores that carry no information the verdict is consistent (or, for a design too small
    to refute anything, uninformative with a plan read off the design alone), never a plan
    extrapolated from a noisy estimate."""
    rng = np.random.default_rng(37)
    for n in (15, 60, 400, 2000):
        for claim in ({"epsilon": 2.38}, {"mu": 0.5}, {"epsilon": 0.1}):
            for _ in range(3):
                s = rng.standard_normal(2 * n)
                cols = {"score": s, "member": np.r_[np.ones(n), np.zeros(n)]}
                r = audit(cols, **claim)
                assert r.verdict in ("consistent", "uninformative")
                if r.verdict == "uninformative":
                    assert not r.design["can_refute"]
