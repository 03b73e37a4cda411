"""`privrisk atlas`: the table, its formats and filters, composition over periods (checked against
dp-accounting's PLD), `card_for`, and one line with exit 2 for every bad input."""

import math

import pytest
from dp_accounting.pld import common
from dp_accounting.pld import privacy_loss_distribution as pld

from privrisk.explain.atlas import AtlasError, card_for, cards, compose
from privrisk.pipeline import cli


def _run(capsys, *args):
    rc = cli.main(["atlas", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


# the whole --json listing: test_atlas_html.py, where every deployment is computed once


def test_text_markdown_filters(capsys):
    rc, out, _ = _run(capsys, "--organisation", "wikimedia")
    assert rc == 0 and "wikimedia-geoeditors" in out and "census" not in out
    rc, out, _ = _run(capsys, "--model", "local", "--markdown")
    assert rc == 0 and out.startswith("| deployment") and "apple-emoji" in out
    assert "census" not in out
    rc, out, _ = _run(capsys, "--unit", "user-day")
    assert "google-mobility" in out and "apple-emoji" not in out


def test_html_page(capsys, tmp_path):
    # one organisation's entries: the whole page (every deployment) is test_atlas_html.py's
    rc, out, _ = _run(capsys, "--organisation", "wikimedia", "--html", str(tmp_path / "a.html"))
    page = (tmp_path / "a.html").read_text()
    assert rc == 0 and page.startswith("<!doctype html>") and "<script" not in page
    assert "wikimedia-geoeditors" in page and "width=device-width" in page
    assert "census-dhc-2020" not in page  # the filter applies to the page


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--periods", "-3"], "--periods"),
        (["--periods", "0"], "--periods"),
        (["--key", "no-such-thing"], "--key"),
        (["--key", "census-pseo"], "publishes no parameters"),
        (["--key", "census-dhc-2020/nope"], "no parameter set"),
        (["--prior", "1.5"], "--prior"),
        (["--reconstruction-prior", "0"], "--reconstruction-prior"),
        (["--organisation", "nobody at all"], "no deployment matches"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, args, says):
    rc, out, err = _run(capsys, *args)
    assert rc == 2 and out == ""
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_periods_argparse_rejects_words(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["atlas", "--periods", "two"])
    assert e.value.code == 2


# --- composition ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("eps", "delta", "n"), [(1.0, 0.0, 10), (0.1, 1e-8, 100), (0.3, 0.0, 400)])
def test_optimal_composition_matches_dp_accounting_pld(eps, delta, n):
    ours = compose.epsilon_at(eps, delta, n, 1e-6)
    ref = (
        pld.from_privacy_parameters(
            common.DifferentialPrivacyParameters(eps, delta), value_discretization_interval=1e-4
        )
        .self_compose(n)
        .get_epsilon_for_delta(1e-6)
    )
    # the PLD is pessimistic by its discretisation; ours is exact
    assert ours <= ref + 1e-9
    assert ours == pytest.approx(ref, rel=1e-3)


def test_pure_composition_edges():
    # one period of ε-DP: δ(x) = (e^ε − e^x)/(1 + e^ε) below ε, 0 above (randomized response)
    e = 2.0
    for x in (0.0, 0.5, 1.9):
        want = (math.exp(e) - math.exp(x)) / (1 + math.exp(e))
        assert compose.pure_delta(e, 1, x)[0] == pytest.approx(want, rel=1e-12)
    assert compose.pure_delta(e, 3, 3 * e)[0] == 0.0


def test_rho_adds_up_over_periods():
    atlas_row = cards.entry_headlines(
        cards.load().entry("wikimedia-pageviews-current"), periods=100
    )
    per_day, composed = atlas_row
    assert "over 100" in composed.scope
    # ρ = 100 × 0.015 = 1.5: the same card as a direct ρ = 1.5
    direct = card_for("wikimedia-pageviews-current", periods=100)
    assert direct.row("membership.advantage_fdp").value == pytest.approx(
        composed.membership_advantage
    )
    assert composed.membership_advantage > per_day.membership_advantage
    from privrisk.explain import explain

    ref = explain(rho=1.5, adjacency="add-remove", prior=0.5)
    assert composed.membership_advantage == pytest.approx(ref.row("membership.advantage_fdp").value)


def test_stated_horizon_is_used_and_printed():
    rows = cards.entry_headlines(cards.load().entry("google-mobility"))
    assert [r.scope for r in rows] == ["per day", "over 1019 × day (stated horizon)"]


# --- card_for -----------------------------------------------------------------------------------------


def test_card_for_prints_facts_and_assumptions():
    c = card_for("census-dhc-2020/persons")
    names = [s.name for s in c.settings]
    assert names[:5] == [
        "atlas.deployment",
        "atlas.published",
        "atlas.unit",
        "atlas.period",
        "atlas.source",
    ]
    assert "3e9c812" in c.setting("atlas.source").text
    assert c.setting("adjacency").text.startswith("replace-one")
    assumed = [s.text for s in c.settings if s.name.startswith("atlas.assumed.")]
    assert any(a.startswith("prior") for a in assumed)
    # unknown adjacency: the safe reading, said so, and overridable
    c = card_for("vaultgemma-1b")
    assert c.setting("adjacency").text.startswith("add-remove")
    assert any("not stated by any source" in s.text for s in c.settings if s.label == "assumed")
    c2 = card_for("vaultgemma-1b", adjacency="replace-one")
    assert (
        c2.row("reconstruction.beta").value < c.row("reconstruction.beta").value
    )  # no group privacy step


def test_card_for_bad_keys():
    with pytest.raises(AtlasError, match="no deployment"):
        card_for("nope")
    with pytest.raises(AtlasError, match="publishes no parameters"):
        card_for("kostat-datahub")
    with pytest.raises(AtlasError, match="formula"):
        card_for("uber-flex")
    with pytest.raises(AtlasError, match="--periods"):
        card_for("google-mobility", periods=-1)
