"""Every documented flag works: each flag that ``privrisk COMMAND --help`` lists is called with a
valid value and the command exits 0, with no traceback.

The flags are read from each command's own ``--help`` (not from this file), so a flag added later
is walked by construction: it fails :func:`test_every_listed_flag_has_a_valid_value` until a
command line using it is added to :data:`VALID`. A flag whose ``--help`` lists its choices
(``{central,local,varies}``) is called with each of them (a line with ``{CHOICE}`` is run
once per choice). ``privrisk audit --accountant rdp`` once
ended in ``TypeError: audit() got an unexpected keyword argument 'accountant'``: a flag listed
and never called.

The commands that read a finished run (``claims``, ``status``, ``complete``, ``plan``,
``records``) or rewrite the checkout's docs (``docs --write``) are not walked here, each for the
reason in :data:`NOT_WALKED`; their own tests call their flags on a run's results.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex

import numpy as np
import pytest

from privrisk.pipeline import cli
from tests.conftest import REPO

_DPSGD = "--noise-multiplier 1.1 --sample-rate 0.01 --steps 100 --delta 1e-5"

#: command -> flag -> command lines (after ``privrisk COMMAND``) that use the flag with a valid
#: value and exit 0. {SCORES}, {RDP}, {PROFILE}, {PRIORS}, {CARD} and {OUT} are files made below.
VALID: dict[str, dict[str, list[str]]] = {
    "explain": {
        "--epsilon": ["--epsilon 1"],
        "--delta": ["--epsilon 1 --delta 1e-5"],
        "--mu": ["--mu 1"],
        "--sigma": ["--sigma 2"],
        "--sensitivity": ["--sigma 2 --sensitivity 0.5"],
        "--noise-multiplier": [_DPSGD],
        "--sample-rate": [_DPSGD],
        "--steps": [_DPSGD],
        "--rho": ["--rho 0.1"],
        "--rdp": ["--rdp {RDP} --delta 1e-5"],
        "--profile": ["--profile {PROFILE} --delta 1e-3"],
        "--adjacency": ["--epsilon 1 --adjacency add-remove", "--mu 1 --adjacency replace-one"],
        "--accountant": [f"{_DPSGD} --accountant rdp", f"{_DPSGD} --accountant pld"],
        "--pld-discretisation": [f"{_DPSGD} --pld-discretisation 1e-3"],
        "--deployment": ["--deployment census-dhc-2020/persons"],
        "--periods": ["--deployment google-mobility --periods 30"],
        "--base-rate": ["--epsilon 1 --base-rate 0.1"],
        "--prior": ["--epsilon 1 --prior 0.1"],
        "--values": ["--epsilon 1 --values 8"],
        "--prior-file": ["--epsilon 1 --prior-file {PRIORS}"],
        "--targets": ["--epsilon 1 --targets 10"],
        "--records": ["--epsilon 1 --records 1000"],
        "--unit": ["--epsilon 1 --unit person"],
        "--attribute-range": ["--epsilon 1 --attribute-range 50"],
        "--max-risk": ["--epsilon 3 --max-risk reconstruction.beta=0.5"],
        "--load": ["--load {CARD}"],
        "--json": ["--epsilon 1 --json"],
        "--html": ["--epsilon 1 --html {OUT}/card.html"],
        "--audit": ["--epsilon 1 --audit {SCORES}"],
        "--confidence": ["--epsilon 1 --audit {SCORES} --confidence 0.9"],
        "--importer": ["--epsilon 1 --audit {SCORES} --importer table"],
        "--one-run": ["--epsilon 4 --delta 1e-5 --audit {SCORES} --one-run"],
        "--guesses": ["--epsilon 4 --delta 1e-5 --audit {SCORES} --one-run --guesses 20"],
    },
    "audit": {
        "file": ["{SCORES}"],
        "--importer": ["{SCORES} --importer table", "{SCORES} --importer auto"],
        "--one-run": ["{SCORES} --one-run"],
        "--guesses": ["{SCORES} --one-run --guesses 20"],
        "--one-run-method": [
            "{SCORES} --one-run --one-run-method steinke",
            "{SCORES} --one-run --one-run-method fdp",
        ],
        "--one-model": ["{SCORES} --one-model"],
        "--methods": ["{SCORES} --methods all", "{SCORES} --methods threshold,fdp"],
        "--confidence": ["{SCORES} --confidence 0.9"],
        "--epsilon": ["{SCORES} --epsilon 1"],
        "--delta": ["{SCORES} --epsilon 1 --delta 1e-5"],
        "--mu": ["{SCORES} --mu 1"],
        "--sigma": ["{SCORES} --sigma 2"],
        "--sensitivity": ["{SCORES} --sigma 2 --sensitivity 0.5"],
        "--noise-multiplier": [f"{{SCORES}} {_DPSGD}"],
        "--sample-rate": [f"{{SCORES}} {_DPSGD}"],
        "--steps": [f"{{SCORES}} {_DPSGD}"],
        "--rho": ["{SCORES} --rho 0.1"],
        "--rdp": ["{SCORES} --rdp {RDP} --delta 1e-5"],
        "--profile": ["{SCORES} --profile {PROFILE} --delta 1e-3"],
        "--adjacency": ["{SCORES} --epsilon 1 --adjacency add-remove"],
        "--accountant": [
            f"{{SCORES}} {_DPSGD} --accountant rdp",
            f"{{SCORES}} {_DPSGD} --accountant pld",
        ],
        "--pld-discretisation": [f"{{SCORES}} {_DPSGD} --pld-discretisation 1e-3"],
        "--json": ["{SCORES} --json"],
        "--out": ["{SCORES} --out {OUT}/report.json"],
    },
    "atlas": {  # each with --key (or a filter) on cheap entries: the whole atlas takes ~13 s, the
        # census entries ~1.3 s each; the whole table is walked by tests/explain/test_atlas_*.py
        "--json": ["--json --key linkedin-hiring"],
        "--markdown": ["--markdown --key linkedin-hiring"],
        "--html": ["--html {OUT}/atlas.html --key linkedin-hiring"],
        "--organisation": ["--organisation LinkedIn --model central"],
        "--unit": ["--unit person --organisation Microsoft"],
        "--model": [
            "--model central --organisation LinkedIn",
            "--model local --organisation Apple",
            "--model varies --organisation Apple",
        ],
        "--key": ["--key linkedin-hiring"],
        "--periods": ["--key google-mobility --periods 30"],
        "--prior": ["--prior 0.1 --key linkedin-hiring"],
        "--reconstruction-prior": ["--reconstruction-prior 0.1 --key linkedin-hiring"],
        "--lint": ["--lint --key linkedin-hiring"],
    },
    "config": {
        "FILE": ["config/paper.yaml"],
        "--no-defaults": ["--no-defaults config/config.yaml"],
        "--readme": ["--readme"],
    },
    "data": {
        "FILE": ["config/paper.yaml"],
        "--no-defaults": ["--no-defaults config/config.yaml"],
    },
}
#: commands whose flags this test does not call, and why (a new command must be in one of the two)
NOT_WALKED = {
    "claims": "reads a finished run's ledger (tests/test_claims.py calls its flags on one)",
    "status": "reads a finished run (tests/test_status*.py)",
    "complete": "asks Snakemake for the run's state (tests/test_completeness.py)",
    "docs": "--write rewrites the checkout's docs (tests/test_docs_command.py)",
    "plan": "reads a finished run's ledger (tests/test_plan_command.py)",
    "records": "reads records/ and reruns a job (tests/test_records.py)",
    "new-paper": "writes a new paper into a checkout (tests/test_new_paper.py calls its flags)",
}
#: what every command takes without a value
HELP = {"-h", "--help"}


def help_flags(command: str) -> dict[str, list[str] | None]:
    """Each argument ``privrisk COMMAND --help`` lists, by its longest name (a positional by its
    metavar): its choices when the help lists them (``{a,b}``), else None."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main([command, "--help"])
    flags: dict[str, list[str] | None] = {}
    section = None
    for line in out.getvalue().splitlines():
        if line and not line.startswith(" "):
            section = line.rstrip(":")
        elif section and section not in ("usage", "examples") and re.match(r"  \S", line):
            head = line[2:].split("  ")[0]
            if section == "positional arguments":
                flags[head.split()[0]] = None
                continue
            names = re.findall(r"(?:^|, )(-{1,2}[\w-]+)", head)
            if not names or names[0] in HELP:
                continue
            choices = re.search(r"\{([^}]+)\}", head)
            flags[max(names, key=len)] = choices[1].split(",") if choices else None
    return flags


def _calls() -> list:
    params = []
    for command in VALID:
        for flag, choices in help_flags(command).items():
            for line in VALID[command].get(flag, []):
                for choice in (choices or [None]) if "{CHOICE}" in line else [None]:
                    text = line.replace("{CHOICE}", choice) if choice else line
                    params.append(pytest.param(command, flag, text, id=f"{command} {text}"))
    return params


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """The input files the command lines name, and a folder for their outputs."""
    d = tmp_path_factory.mktemp("flags")
    rng = np.random.default_rng(0)
    member = rng.random(400) < 0.5
    score = rng.normal(0, 1, 400) + 1.5 * member
    (d / "scores.csv").write_text(
        "score,member\n"
        + "".join(f"{s:.6f},{int(m)}\n" for s, m in zip(score, member, strict=True))
    )
    (d / "rdp.csv").write_text("order,rdp\n2,0.2\n4,0.4\n8,0.8\n16,1.6\n32,3.2\n")
    (d / "profile.txt").write_text("eps delta\n0 0.3\n1 0.05\n2 1e-3\n3 1e-5\n4 1e-7\n")
    (d / "priors.csv").write_text("prior\n0.1\n0.2\n0.05\n")
    (out := d / "out").mkdir()
    card = io.StringIO()
    with contextlib.redirect_stdout(card):
        assert cli.main(["explain", "--epsilon", "2", "--prior", "0.1", "--json"]) == 0
    (d / "card.json").write_text(card.getvalue())
    return {
        "SCORES": str(d / "scores.csv"),
        "RDP": str(d / "rdp.csv"),
        "PROFILE": str(d / "profile.txt"),
        "PRIORS": str(d / "priors.csv"),
        "CARD": str(d / "card.json"),
        "OUT": str(out),
    }


@pytest.mark.parametrize(("command", "flag", "line"), _calls())
def test_each_documented_flag_with_a_valid_value_exits_0(
    command, flag, line, files, monkeypatch, capsys
):
    monkeypatch.chdir(REPO)  # config/…yaml are the checkout's
    argv = [command, *(a.format(**files) for a in shlex.split(line))]
    assert flag in argv or flag in ("file", "FILE")  # the line uses the flag it is listed for
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert rc == 0, f"privrisk {shlex.join(argv)}: exit {rc}: {err.strip()}"
    assert out or err  # it said something (a card, a report, a table, the page written)


@pytest.mark.parametrize("command", sorted(VALID))
def test_every_listed_flag_has_a_valid_value(command):
    listed = help_flags(command)
    missing = sorted(set(listed) - set(VALID[command]))
    assert not missing, (
        f"privrisk {command}: {', '.join(missing)} listed by --help with no valid value in "
        f"{__name__}.VALID: add a command line that uses it and exits 0"
    )
    stale = sorted(set(VALID[command]) - set(listed))
    assert not stale, f"privrisk {command}: VALID names {stale}, which --help does not list"
    for flag, choices in listed.items():  # each choice --help lists is called
        lines = " | ".join(VALID[command][flag])
        unused = [
            c for c in choices or () if "{CHOICE}" not in lines and f"{flag} {c}" not in lines
        ]
        assert not unused, f"privrisk {command} {flag}: no line in VALID calls {unused}"


def test_every_command_is_walked_or_named_with_its_reason():
    assert set(VALID) | set(NOT_WALKED) == set(cli.COMMANDS)
    assert not set(VALID) & set(NOT_WALKED)
