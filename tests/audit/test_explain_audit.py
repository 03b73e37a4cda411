"""``privrisk explain <guarantee> --audit FILE``: the card, the audit of FILE against the same
guarantee and their comparison, as text or one JSON object; bad input is one line and exit 2."""

import json

import numpy as np
import pytest

import privrisk
from privrisk.audit import compare
from privrisk.pipeline import cli
from tests.conftest import REPO

SCORES = str(REPO / "docs" / "examples" / "audit" / "scores.csv")
RECON = str(REPO / "docs" / "examples" / "audit" / "reconstruction.csv")
ONE_RUN = str(REPO / "docs" / "examples" / "audit" / "one_run.csv")


def test_text_puts_the_audit_in_the_card(capsys):
    assert cli.main(["explain", "--mu", "1", "--audit", SCORES]) == 0
    out = capsys.readouterr().out
    card = privrisk.explain(mu=1)
    report = privrisk.audit(SCORES, mu=1)
    want = compare(card, report).text()
    assert out.endswith(want)
    assert out.index("Upper bounds (μ-GDP") > 0  # the card's text comes first
    section = out[out.index("YOUR ATTACK, MEASURED") : out.index("Upper bounds (μ-GDP")]
    assert report.verdict.upper() in section and f"p = {report.p_value:.3g}" in section
    assert "ε̂: lower bound on ε" in section and "μ̂: lower bound on μ" in section


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


def test_html_has_the_audit_in_the_card_and_the_curve_after_it(capsys, tmp_path):
    """--html with --audit: the card's page with the audit section in its tables (the verdict,
    ε̂, μ̂), then the ε̂(δ) curve, the comparison and the audit; written whole or not at all."""
    import html

    out = tmp_path / "card.html"
    assert cli.main(["explain", "--mu", "1", "--audit", SCORES, "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    for key in ("audit.verdict", "audit.epsilon_lower", "audit.mu_lower"):
        assert f'id="{key}"' in page
    assert "<svg" in page and "ε̂(δ)" in page
    want = compare(privrisk.explain(mu=1), privrisk.audit(SCORES, mu=1)).text()
    assert html.escape(want) in page and page.rstrip().endswith("</html>")
    assert "wrote" in capsys.readouterr().err


def test_unwritable_html_is_exit_2_and_nothing_printed(capsys, tmp_path):
    bad = tmp_path / "no" / "such" / "dir" / "card.html"
    assert cli.main(["explain", "--mu", "1", "--audit", SCORES, "--html", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--html" in err


def test_audit_options_are_taken_and_refused_without_audit(capsys):
    argv = ["explain", "--epsilon", "1", "--delta", "1e-5", "--audit", ONE_RUN, "--one-run"]
    assert cli.main([*argv, "--confidence", "0.9", "--importer", "table", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["audit"]["kind"] == "one-run" and got["audit"]["confidence"] == 0.9
    assert cli.main(["explain", "--mu", "1", "--confidence", "0.9"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--confidence: only with --audit" in err


def test_the_card_shows_the_audits_verdict_and_bounds_whenever_it_decides(tmp_path, capsys):
    """Over random files and claims: the card's own audit rows carry the verdict, ε̂, μ̂ and the
    p-value of the audit — a refutation is never hidden behind comparison rows that read >= 0."""
    rng = np.random.default_rng(360)
    seen = set()
    for i in range(8):
        n = int(rng.integers(20, 300))
        mu = float(rng.uniform(0, 2.5))
        path = tmp_path / f"s{i}.csv"
        s = np.r_[rng.normal(mu, 1, n), rng.normal(0, 1, n)]
        np.savetxt(path, np.c_[s, np.r_[np.ones(n), np.zeros(n)]], delimiter=",",
                   header="score,member", comments="")  # fmt: skip
        claim = float(rng.uniform(0.2, 2.0))
        assert cli.main(["explain", "--mu", str(claim), "--audit", str(path), "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        rep = got["audit"]
        rows = {r["key"]: r for sec in got["card"]["sections"] for r in sec["rows"]}
        assert rows["audit.verdict"]["text"].startswith(rep["verdict"].upper())
        assert rows["audit.verdict"]["value"] == rep["p_value"]
        assert rows["audit.epsilon_lower"]["value"] == rep["epsilon_lower"]
        assert rows["audit.mu_lower"]["value"] == rep["mu_lower"]
        assert (rep["verdict"] == "refuted") == (rep["mu_lower"] > claim)
        seen.add(rep["verdict"])
    assert "refuted" in seen and "consistent" in seen


def test_explain_without_audit_is_unchanged(capsys):
    assert cli.main(["explain", "--mu", "1"]) == 0
    out = capsys.readouterr().out
    assert "μ = 1" in out and "against the audit's lower bounds" not in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--mu", "1", "--audit", SCORES],
        ["--epsilon", "1", "--prior", "0.25", f"--audit={RECON}"],
        ["--epsilon", "1", "--delta", "1e-5", "--audit", SCORES],
    ],
    ids=["mu-membership", "epsilon-reconstruction", "epsilon-delta"],
)
def test_what_explain_audit_json_writes_loads_back_with_its_section(argv, tmp_path, capsys):
    """Issue 50, item 6: the JSON `explain --audit FILE --json` prints is taken by `--load`; the
    audit's section is rebuilt from the saved report and equals the saved one; the card then
    printed as JSON (card and audit) loads back again."""
    assert cli.main(["explain", *argv, "--json"]) == 0
    written = json.loads(capsys.readouterr().out)
    (f := tmp_path / "card.json").write_text(json.dumps(written))
    assert cli.main(["explain", "--load", str(f), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    again = json.loads(out)
    assert again["card"]["sections"] == written["card"]["sections"]
    assert again["audit"] == written["audit"]
    (g := tmp_path / "again.json").write_text(out)
    assert cli.main(["explain", "--load", str(g)]) == 0
    assert "YOUR ATTACK, MEASURED" in capsys.readouterr().out


def test_a_saved_audit_section_edited_is_refused(tmp_path, capsys):
    assert cli.main(["explain", "--mu", "1", "--audit", SCORES, "--json"]) == 0
    written = json.loads(capsys.readouterr().out)
    audit_rows = next(s for s in written["card"]["sections"] if s["key"] == "audit")["rows"]
    audit_rows[0]["text"] = "SAFE"
    (f := tmp_path / "card.json").write_text(json.dumps(written))
    assert cli.main(["explain", "--load", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(f"privrisk explain: error: --load: {f}: sections[") and "SAFE" in err


def test_html_onto_the_audited_file_or_a_device_is_refused(tmp_path, capsys):
    scores = tmp_path / "scores.csv"
    scores.write_bytes(before := (REPO / "docs" / "examples" / "audit" / "scores.csv").read_bytes())
    argv = ["explain", "--mu", "1", "--audit", str(scores), "--html"]
    assert cli.main([*argv, str(scores)]) == 2
    assert scores.read_bytes() == before
    err = capsys.readouterr().err
    assert err.startswith(f"privrisk explain: error: --html: {scores}: is an input of this command")
    assert cli.main([*argv, "/dev/full"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "privrisk explain: error: --html: /dev/full: is a character device, not a regular file; "
        "nothing was written\n"
    )
