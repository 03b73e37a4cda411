"""The three-line DP-SGD card: the accountant's upper bound (every iterate released), the
last-iterate heuristic (only the last), and with --audit the attack's lower bound, each naming its
threat model, in the text, JSON and HTML cards; the numbers are the functions'."""

from __future__ import annotations

import json
import math

import pytest

from privrisk.explain import explain
from privrisk.explain.atlas import last_iterate
from privrisk.explain.render import text
from privrisk.pipeline import cli
from tests.conftest import REPO

KW = {"noise_multiplier": 1.1, "sample_rate": 0.01, "steps": 600}
SCORES = str(REPO / "docs" / "examples" / "audit" / "scores.csv")


def _section(card):
    (sec,) = [s for s in card.sections if s.key == "dpsgd"]
    return sec


def test_lines_are_the_functions_numbers():
    card = explain(**KW, delta=1e-5)
    acc, last = _section(card).rows
    assert acc.key == "dpsgd.accountant" and last.key == "dpsgd.last_iterate"
    # the accountant's line is the card's own ε (today's bound), and the accountant's function's
    assert acc.value == card.setting("epsilon").value
    ref = last_iterate.three_lines(**KW, delta_=1e-5)
    assert acc.value == pytest.approx(ref[0].epsilon, rel=5e-3)  # PLD grids: within its error
    assert last.value == ref[1].epsilon == last_iterate.epsilon(1e-5, **KW)
    # releasing only the last iterate can only help
    assert last.value < acc.value
    # and its δ at the stated ε is the δ asked for (the closed form; its Monte Carlo check is
    # tests/explain/test_atlas_last_iterate.py)
    assert last_iterate.delta(last.value, **KW) == pytest.approx(1e-5, rel=1e-6)


def test_each_line_names_its_threat_model():
    acc, last = _section(explain(**KW, delta=1e-5)).rows
    assert "every iterate" in acc.attacker.lower()
    assert "only the final model" in last.attacker.lower() and "not a bound" in last.attacker
    assert "Steinke" in last.source


def test_only_dpsgd_cards_have_the_lines():
    assert not [s for s in explain(epsilon=3).sections if s.key == "dpsgd"]
    assert not [s for s in explain(mu=1).sections if s.key == "dpsgd"]


def test_text_json_and_html_carry_the_same_lines():
    from privrisk.explain import html

    card, page = html(**KW, delta=1e-5)
    acc, last = _section(card).rows
    out = text(card)
    assert acc.text in out and last.text in out and "DP-SGD BY THREAT MODEL" in out
    d = json.loads(card.to_json())
    (sec,) = [s for s in d["sections"] if s["key"] == "dpsgd"]
    assert [r["value"] for r in sec["rows"]] == [acc.value, last.value]
    assert 'id="dpsgd.accountant"' in page and 'id="dpsgd.last_iterate"' in page
    assert last.text in page


def test_audit_adds_the_third_line(capsys):
    argv = ["explain", *(f"--{k.replace('_', '-')}={v}" for k, v in KW.items())]
    assert cli.main([*argv, "--delta", "1e-5", "--audit", SCORES, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    (sec,) = [s for s in got["card"]["sections"] if s["key"] == "dpsgd"]
    keys = [r["key"] for r in sec["rows"]]
    assert keys == ["dpsgd.accountant", "dpsgd.last_iterate", "dpsgd.audit"]
    third = sec["rows"][2]
    assert third["value"] == pytest.approx(got["audit"]["epsilon_lower"])
    assert "this attack" in third["attacker"].lower()
    assert cli.main([*argv, "--delta", "1e-5", "--audit", SCORES]) == 0
    assert "This attack: the audit's lower bound" in capsys.readouterr().out


def test_saved_dpsgd_card_loads_and_its_lines_are_checked(tmp_path, capsys):
    card = explain(**KW, delta=1e-5, accountant="rdp")
    path = tmp_path / "card.json"
    path.write_text(card.to_json())
    assert cli.main(["explain", "--load", str(path)]) == 0
    capsys.readouterr()
    d = json.loads(card.to_json())
    (sec,) = [s for s in d["sections"] if s["key"] == "dpsgd"]
    sec["rows"][1]["value"] = sec["rows"][1]["value"] / 2  # an edited heuristic is caught
    path.write_text(json.dumps(d))
    assert cli.main(["explain", "--load", str(path)]) == 2
    assert "sections" in capsys.readouterr().err


def test_heuristic_edges_are_numbers_not_errors():
    # one step, rare sampling: L never falls below log(1 − q), the lower tail is empty
    e = last_iterate.epsilon(1e-5, noise_multiplier=0.5, sample_rate=0.01, steps=1)
    assert 0 < e < math.inf
    assert last_iterate.delta(e, noise_multiplier=0.5, sample_rate=0.01, steps=1) == pytest.approx(
        1e-5, rel=1e-6
    )
    # far too little noise: δ(ε) > δ at every ε a double can state
    assert last_iterate.epsilon(1e-5, noise_multiplier=0.3, sample_rate=0.5, steps=1000) == math.inf
