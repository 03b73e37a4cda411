"""DP-SGD's one ε function (accounting.dpsgd_epsilon) and its inverse (dpsgd_noise_multiplier):
the round trip as a property, the libraries as cross-checks, the card and training as its users.

Why ours and the libraries may differ (and where they must not):
- the RDP→(ε, δ) conversion is the same everywhere (Canonne, Kamath & Steinke), except that
  dp-accounting and we also use the KL bound δ <= √(1 − e^−ε_α), which opacus does not (ε = 0
  where it applies);
- the order grids differ: ours (DPSGD_RDP_ORDERS) contains both libraries' defaults, so our ε is
  never above theirs and equal wherever their best order is also ours;
- fractional orders: opacus sums the series of Mironov et al. with signs (to an absolute 10⁻¹³,
  about 10⁻⁹ of ε), dp-accounting sums its terms' absolute values, an over-estimate; we integrate
  (equal to 40-digit quadrature to 10⁻¹¹). So ours equals opacus at every order and dp-accounting at
  integer orders, and where dp-accounting's best order is fractional its ε is the larger.
"""

from __future__ import annotations

import logging
import math
import subprocess
import sys

import numpy as np
import pytest

from privrisk import accounting as acc

#: the relative tolerance between our RDP ε and a library's where both use the same best order:
#: opacus' series stops at an absolute 10⁻¹³ of log A_α (measured: at most 5·10⁻⁹ of ε on the
#: slow grid), the rest is rounding
RDP_REL = 1e-8

_FAST_GRID = [
    (0.8, 0.02, 1000, 1e-5),
    (1.1, 0.01, 6000, 1e-5),
    (2.0, 0.1, 100, 1e-8),
    (5.0, 0.58, 2578, 1e-5),
    (0.8, 1e-4, 10_000, 1e-5),  # best order 11: not one of opacus'
    (2.0, 1e-4, 100, 1e-5),  # best order 73: in neither library's grid
    (0.6, 0.01, 300, 1e-5),  # dp-accounting's best order fractional (and over-estimated)
]
_SLOW_GRID = [
    (s, q, t, d)
    for s in (0.5, 0.8, 1.1, 2.0, 5.0, 20.0)
    for q in (1e-4, 1e-3, 1e-2, 0.1, 0.58)
    for t in (1, 100, 10_000, 1_000_000)
    for d in (1e-5, 1e-8)
]


def _best_order(nm, q, t, delta):
    orders, rdp = acc.dpsgd_rdp(noise_multiplier=nm, sample_rate=q, steps=t)
    conv = rdp + np.log1p(-1 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1)
    return float(orders[np.argmin(conv)])


def _opacus_rdp(nm, q, t, delta):
    from opacus.accountants import RDPAccountant

    a = RDPAccountant()
    a.history = [(nm, q, t)]
    return a.get_epsilon(delta=delta), set(RDPAccountant.DEFAULT_ALPHAS)


def _dp_accounting_rdp(nm, q, t, delta):
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    logging.getLogger("absl").setLevel(logging.ERROR)  # orders it drops at large q
    a = rdp.RdpAccountant()
    a.compose(
        dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(nm)), t
        )
    )
    return a.get_epsilon(delta), {o for o in rdp.DEFAULT_RDP_ORDERS if o == int(o)}


def _check_rdp_against_libraries(nm, q, t, delta):
    ours = acc.dpsgd_epsilon(noise_multiplier=nm, sample_rate=q, steps=t, delta=delta)
    if ours > acc.MAX_RDP_EPSILON:
        return
    best = _best_order(nm, q, t, delta)
    for lib in (_opacus_rdp, _dp_accounting_rdp):
        theirs, their_orders = lib(nm, q, t, delta)
        assert ours <= theirs * (1 + RDP_REL) + 1e-15, lib.__name__  # a superset of orders
        if best in their_orders and ours > 0:  # our best order is theirs: the same ε
            assert ours == pytest.approx(theirs, rel=RDP_REL), lib.__name__


@pytest.mark.parametrize(("nm", "q", "t", "delta"), _FAST_GRID)
def test_rdp_epsilon_equals_both_libraries_where_they_agree(nm, q, t, delta):
    _check_rdp_against_libraries(nm, q, t, delta)


def test_the_grid_has_cases_where_the_libraries_differ_from_ours():
    """The fast grid exercises each reason for a difference, so the equality above is not vacuous."""
    from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS
    from opacus.accountants import RDPAccountant

    best = [_best_order(*c) for c in _FAST_GRID]
    assert any(b not in RDPAccountant.DEFAULT_ALPHAS for b in best)
    assert any(b not in DEFAULT_RDP_ORDERS for b in best)
    nm, q, t, d = _FAST_GRID[-1]
    ours = acc.dpsgd_epsilon(noise_multiplier=nm, sample_rate=q, steps=t, delta=d)
    assert ours < _dp_accounting_rdp(nm, q, t, d)[0] * (1 - 1e-5)  # its fractional over-estimate
    assert ours == pytest.approx(_opacus_rdp(nm, q, t, d)[0], rel=RDP_REL)


@pytest.mark.slow
@pytest.mark.parametrize(("nm", "q", "t", "delta"), _SLOW_GRID)
def test_rdp_epsilon_equals_both_libraries_where_they_agree_on_a_grid(nm, q, t, delta):
    _check_rdp_against_libraries(nm, q, t, delta)


_FRACTIONAL = [(sig, q, a) for sig, q in ((1.1, 0.01), (15.67, 0.58), (0.8, 1e-3))
               for a in (1.1, 2.5, 10.9)]  # fmt: skip


#: the fast tier integrates one order per (σ, q), each order once (a 40-digit quadrature is about
#: 0.15 s); the slow tier every order at every (σ, q)
@pytest.mark.parametrize(
    "cases",
    [_FRACTIONAL[0::4], pytest.param(_FRACTIONAL, marks=pytest.mark.slow)],
    ids=["diagonal", "all"],
)
def test_fractional_orders_equal_40_digit_quadrature_and_opacus_series(cases):
    mp = pytest.importorskip("mpmath")
    from opacus.accountants.analysis import rdp as opacus_rdp

    mp.mp.dps = 40
    for sig, q, a in cases:
        ours = acc.rdp._log_a_fractional([a], sig, q)[0]

        def f(z, sig=sig, q=q, a=a):
            return mp.npdf(z, 0, sig) * ((1 - q) + q * mp.exp((2 * z - 1) / (2 * sig**2))) ** a

        exact = float(mp.log(mp.quad(f, [-mp.inf, -10 * sig, 0, 10 * sig, 10 * a, mp.inf])))
        assert ours == pytest.approx(exact, rel=1e-10)
        assert ours == pytest.approx(opacus_rdp._compute_log_a(q, sig, a), rel=1e-6)


#: small noise multipliers, where the fractional orders take opacus' series (fractional_by_series)
#: instead of the quadrature, whose grid would need millions of points (13 s at σ = 0.01 before)
_SMALL_NOISE = [(0.01, 0.01), (0.01, 1e-4), (0.02, 0.5), (0.03, 0.001)]


@pytest.mark.parametrize(("sig", "q"), _SMALL_NOISE)
def test_small_noise_rdp_equals_opacus_and_dp_accounting_at_every_order(sig, q):
    """At every order of each library, our one-step RDP equals opacus' (the signed series: exact)
    and, at integer orders, dp-accounting's (at fractional ones dp-accounting sums absolute
    values: at least ours)."""
    from dp_accounting.rdp import rdp_privacy_accountant as dpa
    from opacus.accountants.analysis import rdp as opacus_rdp

    assert acc.rdp.fractional_by_series(noise_multiplier=sig)
    orders, ours = acc.dpsgd_rdp(noise_multiplier=sig, sample_rate=q, steps=1)
    by_order = dict(zip(orders, ours, strict=True))
    for a in opacus_rdp_orders():
        theirs = float(opacus_rdp._compute_rdp(q, sig, a))
        assert by_order[a] == pytest.approx(theirs, rel=1e-9), a
    theirs_all = dpa._compute_rdp_poisson_subsampled_gaussian(q, sig, dpa.DEFAULT_RDP_ORDERS)
    for a, theirs in zip(dpa.DEFAULT_RDP_ORDERS, theirs_all, strict=True):
        if a == int(a):
            assert by_order[a] == pytest.approx(theirs, rel=1e-9), a
        else:
            assert by_order[a] <= theirs * (1 + 1e-9), a


def opacus_rdp_orders():
    from opacus.accountants import RDPAccountant

    return [float(a) for a in RDPAccountant.DEFAULT_ALPHAS]


@pytest.mark.parametrize(("sig", "q"), _SMALL_NOISE)
def test_small_noise_epsilon_equals_the_libraries(sig, q):
    """ε of the small-noise curves (far above what the card accounts, which is why the PLD refuses
    them): the same as opacus' where our best order is one of its orders, never above either."""
    orders, rdp = acc.dpsgd_rdp(noise_multiplier=sig, sample_rate=q, steps=10)
    ours = acc.rdp_epsilon(orders=orders, rdp=rdp, delta=1e-5)
    theirs_opacus, opacus_orders = _opacus_rdp(sig, q, 10, 1e-5)
    theirs_dpa, _ = _dp_accounting_rdp(sig, q, 10, 1e-5)
    assert ours <= min(theirs_opacus, theirs_dpa) * (1 + RDP_REL)
    if _best_order(sig, q, 10, 1e-5) in opacus_orders:
        assert ours == pytest.approx(theirs_opacus, rel=RDP_REL)


def test_the_series_and_the_quadrature_agree_where_they_meet():
    """Just above the switch (σ ≈ 0.045; quadrature there) the series gives the same log A_α."""
    orders = [1.1, 1.5, 2.5, 5.5, 10.9]
    assert acc.rdp.fractional_by_series(noise_multiplier=0.04)
    for sig in (0.05, 0.07, 0.1):
        assert not acc.rdp.fractional_by_series(noise_multiplier=sig)
        for q in (1e-4, 0.01, 0.5):
            series = acc.rdp._log_a_series(orders, sig, q)
            quad = acc.rdp._log_a_fractional(orders, sig, q)
            np.testing.assert_allclose(series, quad, rtol=1e-10)


@pytest.mark.parametrize(
    ("nm", "q", "t", "adjacency"),
    [(1.1, 0.01, 600, "add-remove"), (0.8, 1e-3, 10_000, "replace-one")],
)
def test_pld_epsilon_equals_dp_accountings_pld_and_opacus_prv(nm, q, t, adjacency):
    """The PLD accountant is dpsgd_pld (its own tests pin it to dp-accounting within the stated
    error); opacus' PRV accountant (add/remove only) agrees within the two stated errors."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    delta = 1e-5
    ours = acc.dpsgd_epsilon(
        noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, adjacency=adjacency,
        accountant="pld",
    )  # fmt: skip
    account = acc.dpsgd_pld(
        noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, adjacency=adjacency
    )
    assert ours == account.epsilon
    ref = (
        pld.from_gaussian_mechanism(
            nm,
            sampling_prob=q,
            neighboring_relation=acc.Adjacency.parse(adjacency).neighboring_relation(),
            value_discretization_interval=account.interval / 4,
            use_connect_dots=True,
        )
        .self_compose(t)
        .get_epsilon_for_delta(delta)
    )
    assert ref * (1 - 1e-9) <= ours <= ref + account.error + 1e-12
    if adjacency == "add-remove":
        from opacus.accountants import PRVAccountant

        prv = PRVAccountant()
        prv.history = [(nm, q, t)]
        # within the two stated errors: opacus' eps_error (0.01 by default) and ours
        assert abs(ours - prv.get_epsilon(delta=delta)) <= 0.01 + account.error


@pytest.mark.parametrize("accountant", ["rdp", "pld"])
@pytest.mark.parametrize("adjacency", ["add-remove", "replace-one"])
def test_full_batch_is_exact_gdp_with_sensitivity_one_or_two(adjacency, accountant):
    s = 1.0 if adjacency == "add-remove" else 2.0
    eps = acc.dpsgd_epsilon(
        noise_multiplier=3.0, sample_rate=1.0, steps=9, delta=1e-5, adjacency=adjacency,
        accountant=accountant,
    )  # fmt: skip
    assert eps == acc.gaussian_epsilon(delta=1e-5, mu=s * 3 / 3.0)
    sigma = acc.dpsgd_noise_multiplier(
        epsilon=eps, delta=1e-5, sample_rate=1.0, steps=9, adjacency=adjacency,
        accountant=accountant,
    )  # fmt: skip
    assert sigma == pytest.approx(3.0, rel=1e-9)


def test_replace_one_rdp_is_group_privacy_of_each_pair():
    """2x with (1 + e^x)·δ(x) <= δ at x, and not at x a little below: the smallest such pair, which
    no pair of the grid the card's profile uses beats."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        nm, q = rng.uniform(0.7, 5), 10 ** rng.uniform(-4, -0.5)
        t, delta = int(10 ** rng.uniform(1, 5)), 10 ** rng.uniform(-9, -4)
        orders, rdp = acc.dpsgd_rdp(noise_multiplier=nm, sample_rate=q, steps=t)
        ro = acc.dpsgd_epsilon(
            noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, adjacency="replace-one"
        )
        ar = acc.dpsgd_epsilon(noise_multiplier=nm, sample_rate=q, steps=t, delta=delta)
        x = ro / 2
        if x > 0:
            assert (1 + math.exp(x)) * acc.rdp_delta(orders=orders, rdp=rdp, epsilon=x) <= delta * (
                1 + 1e-9
            )
            y = x * (1 - 1e-6)
            assert (1 + math.exp(y)) * acc.rdp_delta(orders=orders, rdp=rdp, epsilon=y) > delta
        grid = np.linspace(0, 2 * max(ar, 1.0), 2000)
        e2, d2 = acc.group_of_two(
            epsilons=grid, deltas=acc.rdp_delta(orders=orders, rdp=rdp, epsilon=grid)
        )
        assert ro <= acc.profile_epsilon(epsilons=e2, deltas=d2, delta=delta) + 1e-12
        assert ar <= ro  # replacing is at least as revealing as adding or removing


def _random_targets(rng, n):
    for _ in range(n):
        yield (
            float(10 ** rng.uniform(-0.7, 1.3)),  # ε from 0.2 to 20
            float(10 ** rng.uniform(-9, -4)),
            float(10 ** rng.uniform(-4, -0.2)),
            int(10 ** rng.uniform(0, 5)),
        )


#: the fast tier calibrates the first 4 of the 12 random targets per adjacency (the same seeded
#: sequence; a calibration is about 20 evaluations of the RDP ε), the slow tier all 12
@pytest.mark.parametrize("targets", [4, pytest.param(12, marks=pytest.mark.slow)])
@pytest.mark.parametrize("adjacency", ["add-remove", "replace-one"])
def test_noise_multiplier_is_the_inverse_of_epsilon(adjacency, targets):
    """Property over random (ε, δ, q, T): the calibrated run's ε is at most the target and within
    the tolerance of it, so what training records is what it was calibrated for."""
    rng = np.random.default_rng(11 if adjacency == "add-remove" else 12)
    tol = 1e-3
    for eps, delta, q, t in _random_targets(rng, targets):
        sigma = acc.dpsgd_noise_multiplier(
            epsilon=eps, delta=delta, sample_rate=q, steps=t, adjacency=adjacency,
            epsilon_tolerance=tol,
        )  # fmt: skip
        got = acc.dpsgd_epsilon(
            noise_multiplier=sigma, sample_rate=q, steps=t, delta=delta, adjacency=adjacency
        )
        assert eps - tol <= got <= eps, (eps, delta, q, t)


def test_noise_multiplier_is_the_inverse_of_the_pld_epsilon():
    rng = np.random.default_rng(13)
    for eps, delta, q, t in _random_targets(rng, 2):
        t = min(t, 2000)
        sigma = acc.dpsgd_noise_multiplier(
            epsilon=eps, delta=delta, sample_rate=q, steps=t, accountant="pld",
            epsilon_tolerance=1e-2,
        )  # fmt: skip
        got = acc.dpsgd_epsilon(
            noise_multiplier=sigma, sample_rate=q, steps=t, delta=delta, accountant="pld"
        )
        assert eps - 1e-2 <= got <= eps


@pytest.mark.slow
@pytest.mark.parametrize("adjacency", ["add-remove", "replace-one"])
def test_noise_multiplier_is_the_inverse_of_the_pld_epsilon_many(adjacency):
    rng = np.random.default_rng(14)
    for eps, delta, q, t in _random_targets(rng, 8):
        sigma = acc.dpsgd_noise_multiplier(
            epsilon=eps, delta=delta, sample_rate=q, steps=t, adjacency=adjacency,
            accountant="pld", epsilon_tolerance=1e-2,
        )  # fmt: skip
        got = acc.dpsgd_epsilon(
            noise_multiplier=sigma, sample_rate=q, steps=t, delta=delta, adjacency=adjacency,
            accountant="pld",
        )  # fmt: skip
        assert eps - 1e-2 <= got <= eps


#: the DP-cGAN's (q, T) in xu2022 (Figs 5-6): batch 32, 1,500 epochs; quick scale 55 members
#: (config/config.yaml), paper scale 760 (config/paper.yaml)
_DPCGAN = {"quick": (32 / 55, 2578), "paper": (32 / 760, 35625)}


def _opacus_calibration(eps, q, t):
    from opacus.accountants.utils import get_noise_multiplier

    return get_noise_multiplier(
        target_epsilon=eps, target_delta=1e-5, sample_rate=q, steps=t, epsilon_tolerance=1e-3
    )


@pytest.mark.parametrize("eps", [1.0, 2.0, 10.0])
def test_dpcgan_noise_is_opacus_calibration_at_the_quick_settings(eps):
    """The trained DP-cGANs' noise did not change when the pipeline left opacus: the same σ."""
    q, t = _DPCGAN["quick"]
    ours = acc.dpsgd_noise_multiplier(epsilon=eps, delta=1e-5, sample_rate=q, steps=t)
    assert ours == pytest.approx(_opacus_calibration(eps, q, t), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("eps", [1.0, 2.0, 4.0, 6.0, 8.0, 10.0])
def test_dpcgan_noise_is_opacus_calibration_at_the_paper_settings(eps):
    q, t = _DPCGAN["paper"]
    ours = acc.dpsgd_noise_multiplier(epsilon=eps, delta=1e-5, sample_rate=q, steps=t)
    assert ours == pytest.approx(_opacus_calibration(eps, q, t), rel=1e-12)


@pytest.mark.parametrize("accountant", ["pld", "rdp"])
def test_the_card_reports_the_same_epsilon_for_each_adjacency(accountant):
    from privrisk.explain import accounted as gm

    rng = np.random.default_rng(21)
    for _ in range(3):
        nm, q = float(rng.uniform(0.8, 4)), float(10 ** rng.uniform(-3, -1))
        t, delta = int(10 ** rng.uniform(1, 3.5)), float(10 ** rng.uniform(-8, -4))
        g = gm.parse(
            noise_multiplier=nm, sample_rate=q, steps=t, delta=delta, accountant=accountant
        )
        for view in (g.as_stated, g.replace_one):
            assert view.epsilon == acc.dpsgd_epsilon(
                noise_multiplier=nm, sample_rate=q, steps=t, delta=delta,
                adjacency=view.adjacency, accountant=accountant,
            )  # fmt: skip


def test_training_records_the_same_epsilon_it_calibrated_for():
    torch = pytest.importorskip("torch")
    from privrisk.models import gan
    from privrisk.training import dpsgd

    torch.manual_seed(0)
    x, y = torch.rand(1, 64, 6), torch.randint(0, 2, (1, 64))
    g = gan.MLPGenerator(3, [8], 6, n_classes=2, out_act="sigmoid")
    d = gan.MLPCritic(6, [8], n_classes=2)
    rec = gan.train_dpcgan(x, y, [g], [d], seeds=[0], epsilon=2.0, delta=1e-5, epochs=1,
                           batch_size=16)  # fmt: skip
    assert rec["adjacency"] == "add-remove" and rec["accountant"] == "rdp"
    assert rec["epsilon_spent"] == acc.dpsgd_epsilon(
        noise_multiplier=rec["noise_multiplier"], sample_rate=rec["sample_rate"],
        steps=rec["steps"], delta=1e-5,
    )  # fmt: skip
    assert 2.0 - 1e-3 <= rec["epsilon_spent"] <= 2.0
    for adjacency in ("add_remove", "replace_one"):
        assert dpsgd.full_batch_noise_multiplier(2.0, 1e-5, 7, adjacency) == (
            acc.dpsgd_noise_multiplier(
                epsilon=2.0, delta=1e-5, sample_rate=1.0, steps=7, adjacency=adjacency
            )
        )


def test_bad_arguments_are_named():
    kw = dict(noise_multiplier=1.0, sample_rate=0.01, steps=100, delta=1e-5)
    with pytest.raises(ValueError, match="accountant"):
        acc.dpsgd_epsilon(**kw, accountant="prv")
    with pytest.raises(ValueError, match="adjacency"):
        acc.dpsgd_epsilon(**kw, adjacency="swap")
    with pytest.raises(ValueError, match="sample_rate"):
        acc.dpsgd_epsilon(**(kw | {"sample_rate": 0.0}))
    with pytest.raises(ValueError, match="steps"):
        acc.dpsgd_noise_multiplier(epsilon=1.0, delta=1e-5, sample_rate=0.1, steps=0)
    with pytest.raises(ValueError, match="delta"):
        acc.dpsgd_noise_multiplier(epsilon=1.0, delta=0.0, sample_rate=0.1, steps=10)
    assert acc.dpsgd_epsilon(**(kw | {"noise_multiplier": 0.0})) == math.inf
    assert acc.dpsgd_noise_multiplier(epsilon=math.inf, delta=1e-5, sample_rate=0.1, steps=10) == 0


def test_accounting_needs_neither_torch_nor_opacus():
    """The wheel runs the card without torch: the ε functions import neither."""
    code = (
        "import sys\n"
        "from privrisk import accounting as a\n"
        "s = a.dpsgd_noise_multiplier(epsilon=1.0, delta=1e-5, sample_rate=0.01, steps=100)\n"
        "a.dpsgd_epsilon(noise_multiplier=s, sample_rate=0.01, steps=100, delta=1e-5,\n"
        "                adjacency='replace-one', accountant='pld')\n"
        "bad = [m for m in ('torch', 'opacus') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
