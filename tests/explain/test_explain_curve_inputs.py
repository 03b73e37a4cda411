"""Guarantees given as a curve: ρ-zCDP (--rho), an RDP curve (--rdp FILE) and a privacy profile
(--profile FILE), checked against dp-accounting's RDP conversion and closed forms."""

import math

import numpy as np
import pytest

from privrisk import accounting
from privrisk.bounds import reconstruction
from privrisk.explain import explain
from privrisk.pipeline import cli

rdp_lib = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")


def test_rdp_delta_and_epsilon_match_dp_accounting():
    orders = np.array([1.5, 2, 4, 8, 16, 32, 64])
    values = 0.05 * orders
    for eps in (0.0, 0.5, 1.0, 3.0):
        ref, _ = rdp_lib.compute_delta(orders, values, eps)
        assert accounting.rdp_delta(orders=orders, rdp=values, epsilon=eps) == pytest.approx(
            ref, rel=1e-9
        )
    ref_eps, _ = rdp_lib.compute_epsilon(orders, values, 1e-5)
    ours = accounting.rdp_epsilon(orders=orders, rdp=values, delta=1e-5)
    assert ours == pytest.approx(ref_eps, rel=1e-6)


def test_rho_card_reads_the_zcdp_curve_and_beats_the_simple_conversion():
    rho, delta = 0.1, 1e-5
    card = explain(rho=rho, delta=delta, values=4)
    eps = card.setting("epsilon").value
    simple = rho + 2 * math.sqrt(rho * math.log(1 / delta))  # Bun & Steinke's Prop. 1.3
    assert eps <= simple and eps == pytest.approx(
        accounting.rdp_epsilon(orders=accounting.ZCDP_ORDERS, rdp=rho * accounting.ZCDP_ORDERS,
                               delta=delta), rel=1e-9)  # fmt: skip
    # β over the profile is at most β at the card's own (ε, δ)
    own = reconstruction.beta_one_run(epsilon=eps, delta=delta, p=0.25)
    assert card.row("reconstruction.beta").value <= own + 1e-12


def test_rdp_file_and_profile_file(tmp_path):
    f = tmp_path / "rdp.csv"
    f.write_text("order,rdp\n2,0.2\n4,0.4\n8,0.8\n16,1.6\n# a comment\n32,3.2\n")
    card = explain(rdp=str(f))
    assert card.setting("epsilon").value == pytest.approx(
        accounting.rdp_epsilon(orders=[2, 4, 8, 16, 32], rdp=[0.2, 0.4, 0.8, 1.6, 3.2],
                               delta=1e-5), rel=1e-9)  # fmt: skip
    # the same curve as ρ = 0.1 zCDP at those orders: the dense ρ curve can only be tighter
    assert explain(rho=0.1).setting("epsilon").value <= card.setting("epsilon").value
    p = tmp_path / "profile.txt"
    p.write_text("0 0.3\n1 0.05\n2 1e-4\n3 1e-7\n")
    c = explain(profile=str(p), delta=1e-4)
    assert c.setting("epsilon").value == 2.0
    # the advantage is the best pair's: min over (ε, δ) of (e^ε − 1 + 2δ)/(e^ε + 1) = δ(0) here
    assert c.row("membership.advantage_fdp").value == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("text", "flag", "words"),
    [
        ("0 0.3\n1 0.5\n", "--profile", "must not grow"),
        ("0 0.3\n1\n", "--profile", "two columns"),
        ("eps delta\n0 x\n", "--profile", "not two numbers"),
        ("0 1.5\n", "--profile", "δ in [0, 1]"),
        ("", "--profile", "no rows"),
        ("1 0.5\n", "--rdp", "orders must be > 1"),
    ],
)
def test_bad_curve_files_are_refused_naming_the_argument(tmp_path, capsys, text, flag, words):
    f = tmp_path / "curve.txt"
    f.write_text(text)
    assert cli.main(["explain", flag, str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"error: {flag}:" in err and words in err
