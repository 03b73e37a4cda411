"""``privrisk explain <guarantee> --audit FILE``: the card, the audit of FILE against the same
guarantee and their comparison, as text or one JSON object; bad input is one line and exit 2."""

import json

import pytest

import privrisk
from privrisk import cli
from privrisk.audit import compare
from privrisk.explain import html as card_html
from tests.conftest import REPO

SCORES = str(REPO / "docs" / "examples" / "audit" / "scores.csv")
RECON = str(REPO / "docs" / "examples" / "audit" / "reconstruction.csv")


def test_text_puts_the_audit_under_the_card(capsys):
    assert cli.main(["explain", "--mu", "1", "--audit", SCORES]) == 0
    out = capsys.readouterr().out
    card = privrisk.explain(mu=1)
    want = compare(card, privrisk.audit(SCORES, mu=1)).text()
    assert out.endswith(want)
    assert out.index("Upper bounds (μ-GDP") > 0  # the card's text comes first


def test_json_carries_card_audit_and_comparison_for_the_same_guarantee(capsys):
    argv = ["explain", "--epsilon", "1", "--prior", "0.25", f"--audit={RECON}", "--json"]
    assert cli.main(argv) == 0
    got = json.loads(capsys.readouterr().out)
    assert set(got) == {"card", "audit", "comparison"}
    report = privrisk.audit(RECON, epsilon=1)
    assert got["audit"]["epsilon_lower"] == pytest.approx(report.epsilon_lower)
    assert got["audit"]["verdict"] == report.verdict
    want = compare(privrisk.explain(epsilon=1, prior=0.25), report).to_dict()
    assert got["comparison"]["pairs"] == json.loads(json.dumps(want["pairs"]))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mu", "1", "--audit"], "--audit: needs a FILE"),
        (["--mu", "1", "--audit", "nope.csv"], "--audit: nope.csv"),
        (["--mu", "-1", "--audit", SCORES], "--mu: must be >= 0"),
        (["--mu", "1", "--audit", "nope.csv", "--html", "x.html"], "--audit: nope.csv"),
        (["--audit", SCORES, "--load", "card.json", "--html", "x.html"], "--load: not with"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["explain", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err
    assert not (tmp_path / "x.html").exists()


def test_html_is_the_card_page_with_the_audit_after_it(capsys, tmp_path):
    """--html with --audit: explain's own page, unchanged above, then the comparison and the
    audit as the terminal shows them (escaped); written whole or not at all."""
    import html

    out = tmp_path / "card.html"
    assert cli.main(["explain", "--mu", "1", "--audit", SCORES, "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    _, card_page = card_html(mu=1)
    head = card_page[: card_page.rindex("</body>")]
    assert page.startswith(head)
    want = compare(privrisk.explain(mu=1), privrisk.audit(SCORES, mu=1)).text()
    assert html.escape(want) in page and page.rstrip().endswith("</html>")
    assert "wrote" in capsys.readouterr().err


def test_explain_without_audit_is_unchanged(capsys):
    assert cli.main(["explain", "--mu", "1"]) == 0
    out = capsys.readouterr().out
    assert "μ = 1" in out and "against the audit's lower bounds" not in out
