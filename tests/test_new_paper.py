"""``privrisk new-paper KEY``: the fixture paper is exactly what it writes; its refusals are one line,
exit 2, with nothing written; and (slow) a paper it writes into a copy of the checkout passes the
paper contract, lint-imports and its own tests, end-to-end run included."""

from __future__ import annotations

import filecmp
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from privrisk.contract import quoted
from privrisk.core import discovery
from privrisk.pipeline import cli, new_paper, new_paper_templates
from tests.conftest import REPO

FIXTURE_DIR = REPO / "tests" / "fixture_paper"
FIXTURE = "fixture2099"
#: what tests/fixture_paper/ holds besides the command's output
FIXTURE_ONLY = {"README.md", "conftest.py"}
#: the command that wrote it (tests/fixture_paper/README.md)
FIXTURE_ARGS = [
    FIXTURE,
    "--papers",
    "tests/fixture_paper",
    "--config",
    "tests/fixture_paper/config.yaml",
    "--tests",
    "tests/fixture_paper/tests",
]


def _files(folder: Path) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def _tree(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in _files(root)}


def test_the_fixture_paper_is_what_new_paper_writes(tmp_path, monkeypatch, capsys):
    (tmp_path / "tests" / "fixture_paper").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new-paper", *FIXTURE_ARGS]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"wrote tests/fixture_paper/{FIXTURE}/ (") and "next:" in out
    written = tmp_path / "tests" / "fixture_paper"
    assert _files(FIXTURE_DIR) - FIXTURE_ONLY == _files(written), (
        "tests/fixture_paper/ differs from what privrisk new-paper writes: regenerate it "
        "(tests/fixture_paper/README.md)"
    )
    _, differ, errors = filecmp.cmpfiles(FIXTURE_DIR, written, sorted(_files(written)), False)
    assert not differ and not errors, (
        f"tests/fixture_paper/: {differ + errors} differ from what privrisk new-paper writes now; "
        "regenerate it (tests/fixture_paper/README.md)"
    )


def test_new_paper_writes_package_section_and_tests_into_a_checkout(tmp_path, monkeypatch):
    """The defaults: src/privrisk/papers/KEY/, the section appended to config/config.yaml (its
    text kept, comments included), tests/papers/KEY/; modes follow the umask, not mkdtemp's."""
    for d in ("src/privrisk/papers", "tests/papers", "config"):
        (tmp_path / d).mkdir(parents=True)
    before = (REPO / "config" / "config.yaml").read_text()
    (tmp_path / "config" / "config.yaml").write_text(before)
    monkeypatch.chdir(tmp_path)
    assert new_paper.main(["smith2030"]) == 0
    package = tmp_path / "src/privrisk/papers/smith2030"
    assert _files(package) == set(new_paper_templates.PACKAGE)
    assert _files(tmp_path / "tests/papers/smith2030") == set(new_paper_templates.TESTS)
    after = (tmp_path / "config" / "config.yaml").read_text()
    assert after.startswith(before.rstrip("\n") + "\n\n# smith2030: ")
    cfg = yaml.safe_load(after)
    assert cfg["smith2030"] == {
        "fig1": {"epsilons": {"min": 0.0, "max": 4.0, "n_points": 41}, "prior_prob": 0.5}
    }
    assert {k: v for k, v in cfg.items() if k != "smith2030"} == yaml.safe_load(before)
    assert 'LEDGER = Ledger("smith2030")' in (package / "claims.py").read_text()
    # the quoted number is data, shown in the notes by the function privrisk docs --write uses
    entries = quoted.parse((package / "quoted.yaml").read_text(), "smith2030")
    assert list(entries) == ["fig1_odds_eps1"]
    notes = (package / "notes.md").read_text()
    assert quoted.with_table("smith2030", notes, entries) == notes
    assert "| `fig1_odds_eps1` | fig1 |" in notes
    assert "fixture2099" not in "".join(t.decode() for t in _tree(tmp_path).values())
    assert package.stat().st_mode & 0o777 == 0o777 & ~_umask()
    # every shared shape of the global schema is listed in the schema's comment
    schema = (package / "schema.yaml").read_text()
    for name in yaml.safe_load((REPO / "src/privrisk/pipeline/config.schema.yaml").read_text())[
        "$defs"
    ]:
        assert f"#   {name} " in schema, name


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["Smith2030"], "KEY 'Smith2030': not a paper key"),
        (["smith"], "KEY 'smith': not a paper key"),
        (["smith2030; rm"], "not a paper key"),
        (["../smith2030"], "not a paper key"),
        (["thudi2022"], "KEY 'thudi2022': a paper of that name exists"),
        (["taken2030"], "src/privrisk/papers/taken2030: the package exists already"),
        (["tested2030"], "tests/papers/tested2030: the tests folder exists already"),
        (["listed2030"], "config/config.yaml: it has a section listed2030: already"),
        (["smith2030", "--config", "broken.yaml"], "broken.yaml: not a readable YAML file"),
        (["smith2030", "--config", "list.yaml"], "list.yaml: not a mapping of config keys"),
        (["smith2030", "--papers", "nowhere"], "nowhere: no such folder for the package"),
        (["smith2030", "--config", "no/config.yaml"], "no: no such folder for the config file"),
    ],
)
def test_a_refusal_is_one_line_exit_2_and_writes_nothing(
    tmp_path, monkeypatch, capsys, args, needle
):
    for d in ("src/privrisk/papers/taken2030", "tests/papers/tested2030", "config"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "config" / "config.yaml").write_text("seed: 1\nlisted2030: {}\n")
    (tmp_path / "broken.yaml").write_text("a: [1,\n")
    (tmp_path / "list.yaml").write_text("- 1\n")
    before = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new-paper", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("privrisk new-paper: "), err
    assert _tree(tmp_path) == before
    assert {p.name for p in tmp_path.rglob(".*")} == set()  # no staging folder left


def test_a_failure_part_way_undoes_what_was_moved(tmp_path, monkeypatch, capsys):
    """The config file is replaced last; when that fails, the package and tests already renamed
    into place are removed again, and no staged file is left."""
    for d in ("src/privrisk/papers", "tests/papers", "config"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "config" / "config.yaml").write_text("seed: 1\n")
    before = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(new_paper.os, "replace", refuse)
    assert new_paper.main(["smith2030"]) == 2
    err = capsys.readouterr().err
    assert "Permission denied" in err and "nothing written" in err, err
    assert _tree(tmp_path) == before
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "config",
        "config/config.yaml",
        "src",
        "src/privrisk",
        "src/privrisk/papers",
        "tests",
        "tests/papers",
    ]


@pytest.fixture
def fixture_paper_found(monkeypatch):
    """PRIVRISK_PAPERS names the fixture paper's folder, for this test only."""
    import privrisk.papers

    saved = list(privrisk.papers.__path__)
    monkeypatch.setenv(discovery.ENV, str(FIXTURE_DIR))
    discovery.search_path()
    yield
    privrisk.papers.__path__[:] = saved


@pytest.mark.usefixtures("fixture_paper_found")
def test_the_fixture_papers_claim_tests_pass_in_place():
    """tests/fixture_paper/tests/test_claims.py (not collected in place: its conftest.py), run
    here with the paper found."""
    path = FIXTURE_DIR / "tests" / "test_claims.py"
    spec = importlib.util.spec_from_file_location("fixture_paper_test_claims", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [getattr(module, n) for n in dir(module) if n.startswith("test_")]
    assert len(tests) == 3
    for test in tests:
        test()


@pytest.mark.usefixtures("fixture_paper_found")
def test_the_fixture_papers_quoted_numbers_are_used_shown_and_marked_placeholders():
    """What tests/test_quoted.py checks of a shipped paper (and privrisk docs --check of its
    notes), on the fixture paper: every entry is quoted by the code and every id the code quotes
    has one, the notes' table is current; and its source says it is a placeholder to fill."""
    from tests.test_quoted import _quoted_ids_in_code

    assert FIXTURE in quoted.papers()
    entries = quoted.load(FIXTURE)
    in_code, unchecked = _quoted_ids_in_code(FIXTURE)
    assert not unchecked and in_code == set(entries) == {"fig1_odds_eps1"}
    notes = (FIXTURE_DIR / FIXTURE / "notes.md").read_text(encoding="utf-8")
    assert quoted.with_table(FIXTURE, notes) == notes
    assert "| `fig1_odds_eps1` | fig1 |" in notes
    source = entries["fig1_odds_eps1"]["source"]
    assert source["where"].startswith("PLACEHOLDER")
    assert source["page"].startswith("not known") and "PLACEHOLDER" in source["page"]


@pytest.mark.slow
def test_a_new_paper_passes_the_contract_lint_imports_and_its_tests(tmp_path):
    """In a copy of the checkout: ``privrisk new-paper``, then what CI runs on a paper: the config
    validation, lint-imports (layers, papers independent), ruff, the contract and layout tests on
    every paper (the new one among them), the quoted-number tests (its quoted.yaml used by its
    code and shown in its notes) and the paper's own tests, its tiny end-to-end run with
    assert_contract included."""
    root = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".import_linter_cache")
    for d in ("src", "workflow", "config", "profiles"):
        shutil.copytree(REPO / d, root / d, ignore=ignore)
    for f in ("Snakefile", "pyproject.toml", ".importlinter"):
        shutil.copy2(REPO / f, root / f)
    (root / "tests" / "papers").mkdir(parents=True)
    checks = ("test_paper_contract.py", "test_paper_layout.py", "test_quoted.py")
    for f in ("conftest.py", *checks):
        shutil.copy2(REPO / "tests" / f, root / "tests" / f)
    shutil.copytree(FIXTURE_DIR, root / "tests" / "fixture_paper", ignore=ignore)
    env = {k: v for k, v in os.environ.items() if k != discovery.ENV}
    env["PYTHONPATH"] = str(root / "src")
    bin_dir = Path(sys.executable).parent

    def run(*cmd: str) -> str:
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
        return proc.stdout

    run(sys.executable, "-m", "privrisk", "new-paper", "smith2030")
    assert "smith2030" in run(sys.executable, "-m", "privrisk", "config").split("papers: ")[1]
    assert "0 broken" in run(str(bin_dir / "lint-imports"))
    run(str(bin_dir / "ruff"), "check", "src/privrisk/papers/smith2030", "tests/papers/smith2030")
    run(str(bin_dir / "ruff"), "format", "--check", "src/privrisk/papers", "tests/papers")
    pytest_ = (sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider")
    # its own tests, the slow end-to-end run with assert_contract among them
    own = run(*pytest_, "-m", "slow or not slow", "tests/papers/smith2030")
    assert "4 passed" in own, own
    # the contract, layout and quoted-number tests of every paper, on the new one
    contract = run(*pytest_, "-k", "smith2030", *(f"tests/{f}" for f in checks))
    assert " passed" in contract and "skipped" not in contract, contract
