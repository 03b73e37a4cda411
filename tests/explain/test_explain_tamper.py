"""A saved card is data, not text: ``--load`` rebuilds the card from the inputs it records and
refuses a file whose displayed text, sections or numbers differ from the rebuilt ones, with one
line naming the field; what it shows is the rebuilt card (issue 38's 18 tamperings: rewritten
attacker sentences and sources, an emptied headline, a deleted setting, ``notes`` as a string, a
fabricated "independent audit" section, changed numbers, ...)."""

import copy
import json
import subprocess
import sys

import pytest

from privrisk.explain import explain
from privrisk.explain.render import text as card_text
from privrisk.pipeline import cli


def _card(tmp_path_factory):
    d = tmp_path_factory.mktemp("curve")
    f = d / "rdp.csv"
    f.write_text("# adjacency: add-remove\n2,0.2\n4,0.4\n8,0.8\n16,1.6\n")
    return {
        "epsilon": json.loads(explain(epsilon=2, prior=0.2, targets=40).to_json()),
        "rdp-file": json.loads(explain(rdp=str(f), values=5).to_json()),
        "dpsgd": json.loads(
            explain(noise_multiplier=1.1, sample_rate=0.01, steps=300, delta=1e-5).to_json()
        ),
    }


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return _card(tmp_path_factory)


def _row(d, key):
    return next(r for r in d["rows"] if r["key"] == key)


def _set_row(key, field, value):
    def tamper(d):
        _row(d, key)[field] = value

    return tamper


FABRICATED = {
    "key": "audit",
    "title": "INDEPENDENT AUDIT",
    "rows": [
        {"key": "audit.certified", "group": "audit", "label": "measured leakage", "value": 0.0,
         "text": "0.000 (certified safe)", "source": "an independent auditor",
         "attacker": "Every attacker.", "adjacency": "add-remove", "baseline": 0.0,
         "values": [], "note": "", "function": ""},
    ],
    "notes": ["certified safe"],
}  # fmt: skip

TAMPERS = [
    ("attacker sentence rewritten", _set_row("reconstruction.beta", "attacker",
     "A weak attacker who knows nothing."), "reconstruction.beta).attacker"),
    ("source rewritten", _set_row("membership.advantage_fdp", "source", "a blog post"),
     "membership.advantage_fdp).source"),
    ("label rewritten", _set_row("reconstruction.beta", "label", "risk (negligible)"),
     "reconstruction.beta).label"),
    ("note rewritten", _set_row("membership.mace", "note", "reviewed and safe"),
     "membership.mace).note"),
    ("function rewritten", _set_row("membership.mace", "function", "os.system"),
     "membership.mace).function"),
    ("group moved", _set_row("reconstruction.beta", "group", "attribute"), ").group"),
    ("headline emptied", lambda d: d.update(headline=[]), "headline"),
    ("headline phrase rewritten", lambda d: d["headline"][0].update(phrase="nobody can"),
     "headline[0].phrase"),
    ("setting deleted", lambda d: d["settings"].pop(3), "settings"),
    ("setting label rewritten", lambda d: d["settings"][1].update(label="neighbours"),
     "settings[1].label"),
    ("setting default flipped", lambda d: d["settings"][1].update(default=not d["settings"][1]["default"]),
     "settings[1].default"),
    ("notes as a string", lambda d: d.update(notes="certified safe"), "notes"),
    ("a note appended", lambda d: d["notes"].append("certified safe"), "notes"),
    ("a fabricated section", lambda d: d["sections"].append(FABRICATED), "sections["),  # after any explain makes
    ("reading rewritten", lambda d: d.update(reading="Strong protection."), "reading"),
    ("reading emptied", lambda d: d.update(reading=""), "reading"),
    ("baseline changed", _set_row("reconstruction.beta", "baseline", 0.3), "reconstruction.beta"),
    ("value lowered in range", lambda d: _row(d, "membership.advantage_fdp").update(
        value=_row(d, "membership.advantage_fdp")["value"] * 0.9), "membership.advantage_fdp).value"),
    ("text and value lowered together", lambda d: _row(d, "reconstruction.beta").update(
        value=0.25, text="0.250 (prior 0.200)"), "reconstruction.beta"),
    ("a row deleted", lambda d: d["rows"].pop(2), "rows"),
    ("a row appended", lambda d: d["rows"].append(FABRICATED["rows"][0]), "rows"),
    ("rows reordered", lambda d: d["rows"].reverse(), "rows["),
    ("an unknown input", lambda d: d["inputs"].update(verdict="safe"), "inputs"),
    ("the inputs edited under unchanged numbers", lambda d: d["inputs"].update(base_rate=0.3),
     "recomputed from its inputs"),
    ("notes holding a number", lambda d: d.update(notes=[3]), "notes[0]"),
    ("the reading as a list", lambda d: d.update(reading=["safe"]), "reading"),
]  # fmt: skip


def _refused(tmp_path, capsys, d) -> str:
    f = tmp_path / "card.json"
    f.write_text(json.dumps(d))
    assert cli.main(["explain", "--load", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("privrisk explain: error: --load: "), err
    return err


@pytest.mark.parametrize("which", ["epsilon", "rdp-file", "dpsgd"])
@pytest.mark.parametrize("what,tamper,field", TAMPERS, ids=[t[0] for t in TAMPERS])
def test_every_tampering_is_refused_in_one_line_naming_the_field(
    saved, tmp_path, capsys, which, what, tamper, field
):
    d = copy.deepcopy(saved[which])
    tamper(d)
    err = _refused(tmp_path, capsys, d)
    assert field in err, err


def test_a_saved_card_shows_the_rebuilt_card_and_needs_no_file(saved, tmp_path, capsys):
    for d in saved.values():
        f = tmp_path / "card.json"
        f.write_text(json.dumps(d))
        assert cli.main(["explain", "--load", str(f)]) == 0
        shown = capsys.readouterr().out
        from privrisk.explain import RiskCard

        assert shown == card_text(explain(**RiskCard.from_dict(d).inputs))
    # the RDP curve travels in the card: the file it was read from is gone
    assert saved["rdp-file"]["inputs"]["rdp"]["pairs"][0] == [2.0, 0.2]


def test_a_changed_curve_in_the_inputs_changes_the_rebuilt_card_and_is_refused(saved, tmp_path,
                                                                                   capsys):  # fmt: skip
    d = copy.deepcopy(saved["rdp-file"])
    d["inputs"]["rdp"]["pairs"][1][1] = 0.01  # a tighter curve than the one the numbers come from
    err = _refused(tmp_path, capsys, d)
    assert "in the card" in err and "recomputed" in err


def test_a_crafted_card_that_asks_for_a_huge_run_returns_quickly(saved, tmp_path):
    """The recomputation is bounded like any card: 10⁵ targets over a whole privacy profile."""
    d = copy.deepcopy(saved["dpsgd"])
    d["inputs"]["targets"] = 100_000
    f = tmp_path / "card.json"
    f.write_text(json.dumps(d))
    run = subprocess.run(
        [sys.executable, "-m", "privrisk", "explain", "--load", str(f)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    d["inputs"]["steps"] = "1e30"
    f.write_text(json.dumps(d))
    assert cli.main(["explain", "--load", str(f)]) == 2
