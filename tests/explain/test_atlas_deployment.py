"""One deployment's card: the atlas reads each parameter set as the project's one guarantee value
(privrisk.explain.Guarantee), and `privrisk explain --deployment KEY` prints its full card."""

from __future__ import annotations

import dataclasses

import pytest

from privrisk.explain import Guarantee, explain
from privrisk.explain.atlas import adapter, cards, load


def test_every_parameter_set_is_read_as_the_one_guarantee_type():
    atlas = load()
    read = 0
    for e in atlas.entries:
        for p in e.parameters if e.published else ():
            try:
                r = adapter.guarantee(e, p)
            except adapter.NoCard:
                continue
            assert type(r.guarantee) is Guarantee
            read += 1
    assert read >= 30


def test_reading_is_the_guarantee_explain_takes():
    atlas = load()
    e = atlas.entry("census-dhc-2020")
    p = e.parameters[0]
    r = adapter.guarantee(e, p)
    assert r.guarantee == Guarantee(rho=p.rho, delta=p.delta, adjacency="replace-one")
    mine = cards.card(r, prior=0.5)
    ref = explain(rho=p.rho, delta=p.delta, adjacency="replace-one", prior=0.5)
    assert mine.row("reconstruction.beta").value == ref.row("reconstruction.beta").value


def test_composed_reading_is_a_profile_guarantee():
    atlas = load()
    e = atlas.entry("google-vaccine-search")  # (ε, δ) per day: composed optimally, a profile
    r = cards._composed(e, e.parameters[0], 10, None)
    assert r.guarantee.kind == "profile"
    e = atlas.entry("wikimedia-pageviews-current")  # ρ per day: ρ adds up
    r2 = cards._composed(e, e.parameters[0], 10, None)
    assert r2.guarantee == Guarantee(rho=10 * e.parameters[0].rho, adjacency=r2.guarantee.adjacency)
    assert r.guarantee.curve.pairs[0][0] == 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.guarantee.epsilon = 1.0  # frozen: one value, never edited in place


# --- privrisk explain --deployment ------------------------------------------------------------


def _run(capsys, *argv):
    from privrisk.pipeline import cli

    rc = cli.main(["explain", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _assumed(card) -> dict[str, str]:
    return {
        s.name.removeprefix("atlas.assumed."): s.text for s in card.settings if s.label == "assumed"
    }


def test_deployment_card_is_the_card_of_its_guarantee_with_facts_first():
    c = explain(deployment="census-dhc-2020/persons")
    assert [s.name for s in c.settings[:5]] == [
        "atlas.deployment", "atlas.published", "atlas.unit", "atlas.period", "atlas.source",
    ]  # fmt: skip
    ref = explain(rho=4.96, delta=1e-10, adjacency="replace-one")
    for r in ref.rows:
        assert c.row(r.key).value == r.value
    assert "as the source states" in c.setting("adjacency").text
    assert set(_assumed(c)) == {"prior"}  # the Census states its adjacency; one release


def test_every_assumption_is_printed_and_each_flag_overrides_it():
    c = explain(deployment="google-vaccine-search")  # per day, no horizon, adjacency unknown
    a = _assumed(c)
    assert set(a) == {"adjacency", "horizon", "prior"}
    assert "add-remove" in a["adjacency"] and "--adjacency" in a["adjacency"]
    assert "one day" in a["horizon"] and "--periods" in a["horizon"]
    c2 = explain(deployment="google-vaccine-search", adjacency="replace-one", periods=7, prior=0.1)
    a2 = _assumed(c2)
    assert set(a2) == {"adjacency"} and "given" in a2["adjacency"]
    assert c2.setting("prior").value == 0.1
    ref = explain(epsilon=2.19, delta=1e-5, adjacency="replace-one", prior=0.1)
    # seven days of 1.68-DP say more than one (and no more than 7 × 1.68-DP)
    assert c2.row("reconstruction.beta").value > ref.row("reconstruction.beta").value
    far = explain(epsilon=7 * 2.19, delta=7e-5, adjacency="replace-one", prior=0.1)
    assert c2.row("reconstruction.beta").value <= far.row("reconstruction.beta").value + 1e-9


def test_stated_horizon_is_an_assumption_the_periods_flag_replaces():
    c = explain(deployment="google-mobility")
    assert "1019 × day" in _assumed(c)["horizon"]
    c30 = explain(deployment="google-mobility", periods=30)
    assert "horizon" not in _assumed(c30)
    assert c30.row("membership.advantage_fdp").value < c.row("membership.advantage_fdp").value


def test_rho_periods_add_up_as_dp_accounting_composes():
    # ρ per day over 100 days is 100ρ; the card's ε at δ agrees with dp-accounting's composition
    import dp_accounting

    c = explain(deployment="wikimedia-pageviews-current", periods=100, delta=None)
    rho = 0.015 * 100
    ev = dp_accounting.SelfComposedDpEvent(
        dp_accounting.GaussianDpEvent(1 / (2 * 0.015) ** 0.5), 100
    )
    acc = dp_accounting.rdp.RdpAccountant(
        orders=[1 + x / 10 for x in range(1, 1000)] + list(range(101, 2000))
    )
    acc.compose(ev)
    eps = c.setting("epsilon").value
    ref = explain(
        rho=rho,
        adjacency="add-remove" if "add-remove" in c.setting("adjacency").text else "replace-one",
    )
    assert eps == pytest.approx(ref.setting("epsilon").value, rel=1e-12)
    assert eps == pytest.approx(acc.get_epsilon(1e-5), rel=2e-2)


def test_card_for_is_the_explain_card():
    from privrisk.explain.atlas import card_for

    a = card_for("linkedin-hiring", periods=12, prior=0.2, adjacency="replace-one")
    b = explain(deployment="linkedin-hiring", periods=12, prior=0.2, adjacency="replace-one")
    assert a == b


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--deployment", "nope"], "--deployment"),
        (["--deployment", "kostat-datahub"], "--deployment"),  # no parameters published
        (["--deployment", "uber-flex"], "--deployment"),  # δ a formula
        (["--deployment", "google-mobility", "--periods", "-1"], "--periods"),
        (["--deployment", "google-mobility", "--periods", "0"], "--periods"),
        (["--deployment", "google-mobility", "--periods", "two"], "--periods"),
        (["--deployment", "census-dhc-2020", "--periods", "3"], "--periods"),  # one release
        (["--deployment", "census-dhc-2020/nope"], "--deployment"),
        (["--deployment", "census-dhc-2020", "--epsilon", "3"], "--epsilon"),
        (["--deployment", "census-dhc-2020", "--adjacency", "sideways"], "--adjacency"),
        (["--deployment", ""], "--deployment"),
        (["--epsilon", "1", "--periods", "3"], "--periods"),
        # (ε, δ) per day under add/remove: 30 days read as replace-one by group privacy reach no
        # small δ; said in the deployment's terms
        (["--deployment", "google-vaccine-search", "--periods", "30"], "--periods"),
    ],
)
def test_bad_deployment_input_is_one_line_exit_2(capsys, tmp_path, argv, flag):
    page = tmp_path / "card.html"
    rc, out, err = _run(capsys, *argv, "--html", str(page))
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"privrisk explain: error: {flag}: ")
    assert "Traceback" not in err and not page.exists()


def test_deployment_json_saves_and_loads(capsys, tmp_path):
    rc, out, _ = _run(
        capsys,
        "--deployment",
        "linkedin-hiring",
        "--periods",
        "3",
        "--adjacency",
        "replace-one",
        "--json",
    )
    assert rc == 0
    saved = tmp_path / "card.json"
    saved.write_text(out)
    import json

    d = json.loads(out)
    assert (
        d["inputs"]["deployment"] == "linkedin-hiring"
        and d["inputs"]["periods"] == 3
        or d["inputs"]["periods"] == "3"
    )
    assert any(s["label"] == "assumed" for s in d["settings"])
    rc, text, _ = _run(capsys, "--load", str(saved))
    assert rc == 0 and "LinkedIn" in text
    d["settings"][0]["text"] = "another deployment"
    saved.write_text(json.dumps(d))
    rc, _, err = _run(capsys, "--load", str(saved))
    assert rc == 2 and "settings" in err


def test_deployment_text_prints_facts_and_assumptions(capsys):
    rc, out, _ = _run(capsys, "--deployment", "vaultgemma-1b")
    assert rc == 0
    head = out.split("IN PLAIN WORDS")[0]
    for word in ("deployment", "published", "unit", "period", "source", "assumed"):
        assert f"  {word} " in head
    assert "not stated by any source" in head
