"""Honest rows (issue 38): Mace's gain only where a test can reach it; the PLD's mass checked and
its rows within their stated error; a direct RDP/zCDP → trade-off conversion where it is tighter,
cross-checked with riskcal and dp-accounting, and valid against a mechanism whose exact curve is
known (the Gaussian)."""

import math

import mpmath as mp
import numpy as np
import pytest

from privrisk import accounting
from privrisk.bounds import tradeoff
from privrisk.estimators import mace
from privrisk.explain import accounted as gm
from privrisk.explain import attacker, explain, rows

riskcal = pytest.importorskip("riskcal.analysis.conversions")


# --- Mace's Adv_p: the Bayes accuracy at the base rate ------------------------------------------


def test_mace_row_is_the_tight_bayes_value_and_never_a_gain_that_no_test_reaches():
    """200 draws through the row's function (what ``explain`` calls for the row: a whole card
    takes ~0.1 s, 200 of them were this tier's slowest test); the card's own row is checked to be
    the same on the first draws and on issue 38's case."""
    rng = np.random.default_rng(0)
    for i in range(200):
        eps, b = float(rng.uniform(0, 6)), float(rng.uniform(0.01, 0.99))
        row = rows.mace_advantage(gm.parse(epsilon=eps), attacker.parse(base_rate=b))
        if i < 10:
            assert explain(epsilon=eps, base_rate=b).row("membership.mace") == row
        tight = max(abs(2 * b - 1), math.tanh(eps / 2))
        assert row.value == pytest.approx(tight, abs=1e-12)
        assert row.value <= float(mace.dp_bound(epsilon=eps, p=b)) + 1e-12
        assert ("no gain possible" in row.text) == (math.tanh(eps / 2) <= abs(2 * b - 1) + 1e-12)
    # issue 38's case: base rate 0.1, ε = 1: Mace's Theorem 1(4) says 0.921, the truth is 0.8
    row = explain(epsilon=1, base_rate=0.1).row("membership.mace")
    assert row.value == pytest.approx(0.8) and "0.921" in row.note


def test_mace_row_by_enumeration_of_randomised_response():
    """The most accurate membership guess against ε-randomised response (the worst ε-DP pair),
    found by trying every test: equal to the row."""
    for eps, b in ((0.5, 0.5), (1.0, 0.1), (2.0, 0.7), (3.0, 0.95)):
        p_in = np.array([math.exp(eps), 1.0]) / (1 + math.exp(eps))  # P(output | member)
        p_out = p_in[::-1]
        best = max(
            b * sum(p_in[o] for o in range(2) if say[o]) + (1 - b) * sum(
                p_out[o] for o in range(2) if not say[o])
            for say in ((0, 0), (0, 1), (1, 0), (1, 1))
        )  # fmt: skip
        assert explain(epsilon=eps, base_rate=b).row("membership.mace").value == pytest.approx(
            2 * best - 1, abs=1e-12
        )


@pytest.mark.parametrize("b", [0.05, 0.3, 0.5, 0.8])
def test_mace_row_for_gdp_equals_riskcal_bayes_risk(b):
    mu = 1.3
    adv = explain(mu=mu, base_rate=b).row("membership.mace").value
    assert adv == pytest.approx(1 - 2 * riskcal.get_bayes_risk_from_gdp(mu, b), abs=1e-10)


# --- DP-SGD's PLD: one step exact, the composition's mass 1, rows within their error ------------


def _exact_step(sig, q, direction, interval, lo, n):
    """The connect-the-dots masses of one step from δ(ε) at 40 digits (mpmath)."""
    mp.mp.dps = 40
    S, Q = mp.mpf(sig), mp.mpf(q)

    def up_low(x):  # cdfs of the upper and lower laws at the cut-off x
        a, m, p = mp.ncdf(x / S), mp.ncdf((x - 1) / S), mp.ncdf((x + 1) / S)
        return {"remove": ((1 - Q) * a + Q * p, a), "add": (a, (1 - Q) * a + Q * m),
                "replace": ((1 - Q) * a + Q * p, (1 - Q) * a + Q * m)}[direction]  # fmt: skip

    def loss(x):
        plus = mp.log((1 - Q) + Q * mp.exp((-2 * x - 1) / (2 * S**2)))
        minus = mp.log((1 - Q) + Q * mp.exp((2 * x - 1) / (2 * S**2)))
        return {"remove": plus, "add": -minus, "replace": plus - minus}[direction]

    def cut(e):  # the x with loss(x) = e, in closed form (loss is monotone in x)
        A, E = 1 - Q, mp.exp(e)
        if direction == "remove":  # Q·exp((−2x − 1)/(2S²)) = E − A
            return (-2 * S**2 * mp.log((E - A) / Q) - 1) / 2
        if direction == "add":  # Q·exp((2x − 1)/(2S²)) = 1/E − A
            return (2 * S**2 * mp.log((1 / E - A) / Q) + 1) / 2
        # replace: with u = exp(x/S²), c = Q·exp(−1/(2S²)): A + c/u = E(A + cu), a quadratic in u
        c = Q * mp.exp(-1 / (2 * S**2))
        u = (-(E - 1) * A + mp.sqrt(((E - 1) * A) ** 2 + 4 * E * c**2)) / (2 * E * c)
        return S**2 * mp.log(u)

    def delta(e):
        lo_x, hi_x = mp.mpf(-200), mp.mpf(200)
        if loss(hi_x) >= e:
            x = hi_x
        elif loss(lo_x) <= e:
            return max(mp.mpf(0), 1 - mp.exp(e)) if direction == "remove" else mp.mpf(0)
        else:
            x = cut(e)  # the root in (−200, 200): what a bisection at 40 digits finds, at once
        u, low = up_low(x)
        return u - mp.exp(e) * low

    d = [delta(mp.mpf(lo + i) * mp.mpf(interval)) for i in range(n)]
    ed = mp.exp(mp.mpf(interval))
    p = [(1 - d[0]) + (d[1] - d[0]) / (ed - 1)]
    p += [((d[i + 1] - d[i]) - ed * (d[i] - d[i - 1])) / (ed - 1) for i in range(1, n - 1)]
    p += [(d[-1] - d[-2]) / (1 / ed - 1)]
    return np.array([float(x) for x in p]), float(d[-1])


@pytest.mark.parametrize("direction", ["remove", "add", "replace"])
def test_one_step_is_exact_where_dp_accounting_loses_mass(direction):
    sig, q, iv = 1.0, 0.05, 0.05
    lo, probs, inf = accounting.subsampled_gaussian_pmf(
        noise_multiplier=sig, sample_rate=q, direction=direction, interval=iv
    )
    exact, exact_inf = _exact_step(sig, q, direction, iv, lo, probs.size)
    np.testing.assert_allclose(probs, np.clip(exact, 0, None), rtol=0, atol=1e-13)
    assert inf == pytest.approx(exact_inf, abs=1e-15)
    assert abs(probs.sum() + inf - 1) < 1e-12


def test_a_long_composition_keeps_mass_one_where_dp_accounting_gains_a_percent():
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    nm, q, steps, iv = 0.8, 1e-3, 100_000, 4e-4
    ours = accounting.pld._pld(nm, q, steps, accounting.Adjacency.ADD_REMOVE, iv)
    assert ours.mass_error < 1e-6
    theirs = pld_lib.from_gaussian_mechanism(
        nm, sampling_prob=q, value_discretization_interval=iv, use_connect_dots=True,
        neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE,
    ).self_compose(steps)  # fmt: skip
    add = theirs._pmf_add.to_dense_pmf()
    assert add._probs.sum() + add._infinity_mass - 1 > 100 * ours.mass_error  # what was fixed


def test_the_trade_off_read_off_one_step_is_on_the_safe_side_of_the_exact_test():
    """One step's membership test, member against non-member: the exact Neyman–Pearson power of
    the mixture (1 − q)N(0, σ²) + qN(1, σ²) against N(0, σ²), and the PLD's bound above it."""
    from scipy import stats

    sig, q = 0.9, 0.2
    acct = accounting.dpsgd_pld(
        noise_multiplier=sig, sample_rate=q, steps=1, delta=1e-5, interval=1e-3
    )
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    theirs = pld_lib.from_gaussian_mechanism(
        sig, sampling_prob=q, value_discretization_interval=1e-3, use_connect_dots=True,
        neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE,
    )  # fmt: skip
    member_test = acct._pld.views[0]  # the remove direction: member (P) against non-member (Q)
    for alpha in (1e-4, 1e-3, 0.01, 0.1, 0.5):
        t = sig * stats.norm.isf(alpha)
        exact = (1 - q) * alpha + q * stats.norm.sf((t - 1) / sig)
        bound = acct.tpr_for_fpr(alpha)  # the larger of the two directions: valid either way
        assert member_test.tpr(alpha) == pytest.approx(exact, abs=1e-4)
        assert bound >= exact - 1e-12, (alpha, exact, bound)
        # never looser than riskcal's symmetric curve of dp-accounting's own PLD
        assert bound <= 1 - riskcal.get_beta_from_pld(theirs, alpha=alpha) + 1e-6


def test_pld_rows_are_within_their_stated_error_of_a_four_times_finer_reference():
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    nm, q, steps, delta = 1.1, 0.01, 600, 1e-5
    g = gm.parse(noise_multiplier=nm, sample_rate=q, steps=steps, delta=delta)
    s = g.as_stated
    acct_iv = float(s.accounting.split("discretisation ")[1].split(";")[0])
    ref = pld_lib.from_gaussian_mechanism(
        nm, sampling_prob=q, value_discretization_interval=acct_iv / 4, use_connect_dots=True,
        neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE,
    ).self_compose(steps)  # fmt: skip
    checks = {
        "advantage": (lambda p: p.advantage, riskcal.get_advantage_from_pld(ref)),
        "tpr 1%": (lambda p: p.success_from_baseline(0.01),
                   1 - riskcal.get_beta_from_pld(ref, alpha=0.01)),
        "tpr 0.1%": (lambda p: p.success_from_baseline(0.001),
                     1 - riskcal.get_beta_from_pld(ref, alpha=0.001)),
    }  # fmt: skip
    for name, (fn, reference) in checks.items():
        err = rows.pld_error(s, fn)
        assert err is not None and err < 0.01
        assert abs(fn(s) - float(reference)) <= err + 1e-6, (name, fn(s), reference, err)
    assert "PLD mass within" in s.accounting


# --- RDP and zCDP: the direct conversion ------------------------------------------------------


def test_tradeoff_rdp_equals_riskcals_single_order_conversion():
    rng = np.random.default_rng(5)
    for _ in range(60):
        order = float(rng.choice([1.5, 2, 3, 5, 8, 16, 32, 64]))
        eps = float(rng.uniform(0.01, min(5.0, 150 / (order - 1))))
        alpha = np.sort(rng.uniform(0, 1, 5))
        ours = tradeoff.tradeoff_rdp(alpha, orders=[order], rdp=[eps])
        theirs = riskcal.get_beta_from_rdp(epsilon=eps, alpha=alpha, order=order, tol=1e-11)
        np.testing.assert_allclose(ours, theirs, atol=1e-8)
        assert np.all(ours <= theirs + 1e-10)  # the lower end of the bracket: never above


@pytest.mark.parametrize("rho", [0.02, 0.1, 0.5, 2.0])
def test_zcdp_rows_use_the_direct_conversion_and_match_riskcal(rho):
    card = explain(rho=rho)
    s = gm.parse(rho=rho).as_stated
    e, d = s.profile
    for fpr in rows.FPRS:
        row = card.row(rows.tpr_key(fpr)).value
        riskcal_tpr = 1 - riskcal.get_beta_from_zcdp(rho, fpr)
        profile_only = float(tradeoff.success_from_baseline_profile(fpr, epsilons=e, deltas=d))
        assert row <= profile_only + 1e-12
        assert row == pytest.approx(riskcal_tpr, abs=2e-5)
    adv = card.row("membership.advantage_fdp").value
    assert adv == pytest.approx(riskcal.get_advantage_from_zcdp(rho), abs=1e-4)
    assert adv < d[0]  # tighter than the profile's δ(0), which was 10–18 % looser


def test_the_direct_conversion_is_valid_for_the_gaussian_mechanism():
    """μ-GDP is μ²/2-zCDP: the RDP conversion may not claim a trade-off above G_μ."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        mu = float(rng.uniform(0.1, 4))
        orders, values = accounting.zcdp_rdp(rho=mu**2 / 2)
        orders, values = np.r_[1.0, orders], np.r_[mu**2 / 2, values]  # with KL <= ρ
        alpha = rng.uniform(1e-6, 1, 8)
        f = tradeoff.tradeoff_rdp(alpha, orders=orders, rdp=values)
        assert np.all(f <= tradeoff.tradeoff_gdp(alpha, mu=mu) + 1e-9)
        assert (
            tradeoff.advantage_rdp(orders=orders, rdp=values)
            >= tradeoff.advantage_gdp(mu=mu) - 1e-9
        )


def test_dpsgd_rdp_equals_dp_accountings_integer_orders():
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib

    for sig, q, steps in ((0.8, 1e-3, 10**6), (1.1, 0.01, 6000), (0.6, 0.2, 50)):
        orders, ours = accounting.dpsgd_rdp(noise_multiplier=sig, sample_rate=q, steps=steps)
        whole = orders == np.floor(orders)
        ref = np.array([rdp_lib._compute_rdp_poisson_subsampled_gaussian(q, sig, [a])[0]
                        for a in orders[whole][:60]]) * steps  # fmt: skip
        np.testing.assert_allclose(ours[whole][:60], ref, rtol=1e-9)


# --- the reconstruction count's search over the profile, batched: the same numbers ------------


def test_success_quantiles_many_is_success_quantiles_row_by_row():
    """One binomial for all rows of equal β (and row by row otherwise): the same counts, at δ
    where nδ is below 1 (the closed form) and above (the LP's envelope)."""
    from privrisk.bounds import reconstruction

    rng = np.random.default_rng(7)
    for _ in range(40):
        k, n = int(rng.integers(1, 6)), int(rng.integers(1, 400))
        beta = rng.uniform(0, 1, (k, 1)) ** rng.uniform(0.3, 3)
        betas = np.repeat(beta, n, axis=1) if rng.random() < 0.6 else rng.uniform(0, 1, (k, n))
        deltas = 10 ** rng.uniform(-12, -0.1, k)
        many = reconstruction.success_quantiles_many(betas, rows.LEVELS, deltas=deltas)
        each = [
            reconstruction.success_quantiles(b, rows.LEVELS, delta=d)
            for b, d in zip(betas, deltas, strict=True)
        ]
        np.testing.assert_array_equal(many, np.array(each))
    with pytest.raises(ValueError, match="one per row"):
        reconstruction.success_quantiles_many(np.ones((2, 3)) / 2, deltas=[1e-5])


@pytest.mark.parametrize(
    "guarantee", [dict(mu=1.2), dict(rho=0.2), dict(noise_multiplier=1.1, sample_rate=0.01,
                  steps=600, delta=1e-5, accountant="rdp")], ids=["mu", "rho", "dpsgd"],
)  # fmt: skip
@pytest.mark.parametrize("targets", [1, 30, 1000])
def test_the_quantiles_row_searches_the_profile_as_one_pair_at_a_time(guarantee, targets):
    """The row's search with every round's pairs at once is the search one pair at a time."""
    from privrisk.bounds import reconstruction

    g, a = gm.parse(**guarantee), attacker.parse(targets=targets, prior=0.1)
    r = g.replace_one
    priors = np.asarray(a.priors, dtype=float)

    def bounds(e, d):
        betas = np.atleast_1d(reconstruction.beta_pure(epsilon=e, p=priors))
        return reconstruction.success_quantiles(betas, rows.LEVELS, delta=d)

    q, e, d, own = rows.over_profile(r, bounds, vectorised=False)
    row = rows.quantiles(g, a)
    assert row.values == tuple(float(x) for x in q)
    assert f"at ε = {rows.num(e)}, δ = {d:.2g}" in row.note
