"""``privrisk explain --load card.json``: a saved card is checked (schema, ranges, monotonicity,
recomputation from its inputs) and shown; every tampered card is refused naming the field."""

import copy
import json
import os

import pytest

from privrisk.explain import RiskCard, explain
from privrisk.explain.card import SCHEMA_VERSION
from privrisk.pipeline import cli


@pytest.fixture(scope="module")
def saved():
    return json.loads(explain(epsilon=3, prior=0.1, targets=50).to_json())


def _index(d, key):
    return next(i for i, r in enumerate(d["rows"]) if r["key"] == key)


def test_a_saved_card_records_schema_inputs_and_versions_and_loads(saved, tmp_path, capsys):
    assert saved["schema"] == "privrisk.riskcard" and saved["schema_version"] == SCHEMA_VERSION
    assert saved["inputs"] == {"epsilon": 3, "prior": 0.1, "targets": 50}
    assert {"numpy", "scipy", "dp-accounting"} <= set(saved["libraries"])
    f = tmp_path / "card.json"
    f.write_text(json.dumps(saved))
    assert cli.main(["explain", "--load", str(f)]) == 0
    shown = capsys.readouterr().out
    assert cli.main(["explain", "--epsilon", "3", "--prior", "0.1", "--targets", "50"]) == 0
    assert shown == capsys.readouterr().out


def test_non_finite_values_are_encoded_as_what_they_are():
    card = explain(epsilon=float("inf"))
    text = card.to_json()
    d = json.loads(text)
    assert d["settings"][2]["value"] == "inf"  # accounted ε = ∞, not a number JSON lacks
    assert RiskCard.from_json(text) == card


def _set(path, value):
    def tamper(d):
        obj = d
        for p in path[:-1]:
            obj = obj[p]
        obj[path[-1]] = value

    return tamper


def _row(key, field, value):
    def tamper(d):
        d["rows"][_index(d, key)][field] = value

    return tamper


def _drop(path):
    def tamper(d):
        obj = d
        for p in path[:-1]:
            obj = obj[p]
        del obj[path[-1]]

    return tamper


TAMPERS = [
    ("a probability of 5", _row("reconstruction.beta", "value", 5), "reconstruction.beta).value"),
    ("a probability of −0.3", _row("membership.mace", "value", -0.3), "membership.mace).value"),
    ("a value edited in range", _row("reconstruction.beta", "value", 0.5), "reconstruction.beta"),
    ("a text edited", _row("reconstruction.beta", "text", "0.1"), "reconstruction.beta).text"),
    ("a NaN value", _row("reconstruction.beta", "value", "nan"), "reconstruction.beta).value"),
    ("a word as value", _row("reconstruction.beta", "value", "high"), ".value"),
    ("a boolean value", _row("reconstruction.rero", "value", True), ".value"),
    ("counts that shrink", _row("reconstruction.quantiles", "values", [40, 30, 20]), ".values"),
    ("a TPR that falls", _row("membership.tpr_at_fpr_0.1", "value", 0.01), "tpr_at_fpr_0.1"),
    ("below its baseline", _row("reconstruction.beta", "value", 0.01), "reconstruction.beta"),
    ("another schema version", _set(["schema_version"], 99), "schema_version"),
    ("another schema", _set(["schema"], "something.else"), "schema"),
    ("no rows", _drop(["rows"]), "rows"),
    ("an unknown field", _set(["verdict"], "safe"), "verdict"),
    ("an unknown row field", _row("reconstruction.beta", "safe", True), "safe"),
    ("inputs edited", _set(["inputs", "epsilon"], 1), "guarantee"),
    ("a guarantee edited", _set(["guarantee"], "pure ε-DP: ε = 1"), "guarantee"),
    ("a headline edited", _set(["headline", 1, "text"], "0.05"), "headline[1]"),
    ("a setting edited", _set(["settings", 2, "text"], "ε = 0.1"), "settings[2]"),
]


@pytest.mark.parametrize("what,tamper,field", TAMPERS, ids=[t[0] for t in TAMPERS])
def test_a_tampered_card_is_refused_naming_the_field(saved, tmp_path, capsys, what, tamper, field):
    d = copy.deepcopy(saved)
    tamper(d)
    f = tmp_path / "card.json"
    f.write_text(json.dumps(d))
    assert cli.main(["explain", "--load", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("privrisk explain: error: --load: ") and field in err, err


def test_not_json_is_refused(tmp_path, capsys):
    f = tmp_path / "card.json"
    f.write_text("{not json")
    assert cli.main(["explain", "--load", str(f)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"privrisk explain: error: --load: {f}: not valid JSON (line 1, column 2: "
        "Expecting property name enclosed in double quotes)\n"
    )


def test_a_card_saved_with_a_byte_order_mark_loads(saved, tmp_path, capsys):
    """Windows editors save UTF-8 with a BOM; the card is the same card."""
    f = tmp_path / "card.json"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(saved).encode())
    assert cli.main(["explain", "--load", str(f), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == saved["rows"]


def test_a_json_nested_100000_deep_is_one_line(tmp_path, capsys):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100_000 + "]" * 100_000)
    assert cli.main(["explain", "--load", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"privrisk explain: error: --load: {f}: nested more than 64 levels deep\n"


def test_a_fifo_given_to_load_is_refused_not_waited_on(tmp_path, capsys):
    os.mkfifo(f := tmp_path / "card.json")
    assert cli.main(["explain", "--load", str(f)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"privrisk explain: error: --load: {f}: is a named pipe (FIFO), not a regular file\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--epsilon", "1", "--delta", "1e-5"],
        ["--mu", "1", "--values", "8", "--targets", "100"],
        ["--noise-multiplier", "1", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5"],
    ],
    ids=["epsilon-delta", "mu-attacker", "dpsgd"],
)
def test_every_card_explain_json_writes_loads_back(argv, tmp_path, capsys):
    """Item 6 of issue 50: what `privrisk explain --json` prints, `--load` takes, and shows the
    same card (the same rows)."""
    assert cli.main(["explain", *argv, "--json"]) == 0
    written = capsys.readouterr().out
    (f := tmp_path / "card.json").write_text(written)
    assert cli.main(["explain", "--load", str(f), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert json.loads(out)["rows"] == json.loads(written)["rows"]
