"""``privrisk explain``: the card on the terminal, JSON that round-trips, no torch at start-up,
and the README's worked examples run as written and print the cards pasted there."""

import json
import math
import re
import shlex
import subprocess
import sys

import pytest

from privrisk import cli
from privrisk.explain import RiskCard, explain
from tests.conftest import REPO

ENV_SRC = {"PYTHONPATH": str(REPO / "src")}


def test_the_issue_command_prints_the_card(capsys):
    assert cli.main(["explain", "--epsilon", "3", "--prior", "0.1"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    for text in ("MEMBERSHIP INFERENCE", "ATTRIBUTE INFERENCE", "RECONSTRUCTION WITH A PRIOR"):
        assert text in out
    assert "0.691 (prior 0.100)" in out and "0.955 (κ = 0.100)" in out
    assert "Swanberg et al. 2025, Theorem 3.2" in out and "Kulynych et al. 2025" in out
    assert "Why β = 0.691 but 1 − f(κ) = 0.955" in out


@pytest.mark.parametrize(
    "kwargs",
    [
        {"epsilon": 3, "prior": 0.1},
        {"epsilon": math.inf},
        {"epsilon": 1, "delta": 1e-6, "values": 7, "adjacency": "add-remove"},
        {"mu": 0.8, "base_rate": 0.2, "max_risk": "membership.advantage_fdp=0.2"},
        {"sigma": 3, "sensitivity": 2, "prior": 1.0},
        {"noise_multiplier": 1.5, "sample_rate": 0.02, "steps": 200, "delta": 1e-6},
        {"epsilon": 2, "priors": [0.1, 0.3, 0.5], "max_risk": "reconstruction.quantiles=2"},
    ],
)
def test_json_round_trips(kwargs):
    card = explain(**kwargs)
    text = card.to_json()

    def no_constants(name):  # strict JSON: no NaN / Infinity tokens
        raise AssertionError(f"non-standard JSON constant {name}")

    data = json.loads(text, parse_constant=no_constants)
    assert RiskCard.from_json(text) == card
    assert RiskCard.from_dict(data) == card
    assert {r["key"] for r in data["rows"]} == {r.key for r in card.rows}


def test_json_flag_prints_the_same_card(capsys):
    assert cli.main(["explain", "--epsilon", "1", "--values", "4", "--json"]) == 0
    out = capsys.readouterr().out
    assert RiskCard.from_json(out) == explain(epsilon="1", values="4")


def test_no_torch_opacus_or_pandas_at_start_up():
    for args in (
        ["--epsilon", "3", "--prior", "0.1"],
        ["--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "100", "--delta", "1e-5"],
    ):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "privrisk", "explain", *args],
            capture_output=True,
            text=True,
            env={**ENV_SRC, "PATH": "/usr/bin:/bin"},
            cwd=REPO,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()}
        top = {m.split(".")[0] for m in imported}
        assert not top & {"torch", "opacus", "pandas", "matplotlib", "jsonschema", "snakemake"}
        assert "privrisk.explain" in imported and "RECONSTRUCTION" in proc.stdout


def _readme_examples():
    """(command, pasted card) for each example of the docs page "What does my ε mean?"."""
    page = REPO / "docs" / "explain.md"
    if not page.is_file():  # the section left the README; the page comes with the risk-card branch
        pytest.skip("docs/explain.md is not there yet")
    section = page.read_text()
    blocks = re.findall(r"```(\w*)\n(.*?)```", section, flags=re.S)
    out = []
    for i, (lang, body) in enumerate(blocks):
        if lang == "bash" and body.strip().startswith("privrisk explain"):
            card = next(b for lang2, b in blocks[i + 1 :] if lang2 == "text")
            out.append((body.strip(), card))
    return out


def test_readme_examples_run_as_written_and_print_the_pasted_cards(capsys):
    examples = _readme_examples()
    assert len(examples) == 2  # a DP-SGD run and a census-style table release
    assert "--noise-multiplier" in examples[0][0] and "--epsilon 1" in examples[1][0]
    for command, pasted in examples:
        args = shlex.split(command.replace("\\\n", " "))[2:]
        assert cli.main(["explain", *args]) == 0
        out = capsys.readouterr().out
        assert out.strip() == pasted.strip(), f"README card is stale for: {command}"
