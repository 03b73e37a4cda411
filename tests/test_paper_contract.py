"""The contract every paper package passes (dp_accounting's inherited accountant tests are the
model): its registry loads at every scale, every figure function exists and has a docstring (the
caption rule), every schema key is described, it has its ``PAPER`` and notes, and no caption file is
orphaned.

The same tests run on a fixture paper that lives under ``tests/fixture_paper/`` and is found through
``PRIVRISK_PAPERS``: a new paper is discovered, validated, listed and scheduled with no edit outside
its own folder, its tests and its config section.
"""

from __future__ import annotations

import ast
import functools
import os

import pytest

from privrisk.core import discovery
from privrisk.core.declarations import Paper
from privrisk.pipeline import cli, config, workflow
from tests.conftest import REPO, run_pipeline

FIXTURE_DIR = REPO / "tests" / "fixture_paper"
FIXTURE = "fixture2099"
SCALES = {
    "quick": ["config/config.yaml"],
    "paper": ["config/config.yaml", "config/paper.yaml"],
    "tiny": ["config/config.yaml", "config/tiny.yaml"],
}
#: every shipped paper (found without help) and the fixture paper
PAPERS = (*discovery.paper_keys(), FIXTURE)


@pytest.fixture
def with_fixture_paper(monkeypatch):
    """PRIVRISK_PAPERS names the fixture paper's folder, for this test only."""
    import privrisk.papers

    saved = list(privrisk.papers.__path__)
    monkeypatch.setenv(discovery.ENV, str(FIXTURE_DIR))
    discovery.search_path()
    workflow._module_file.cache_clear()
    yield
    privrisk.papers.__path__[:] = saved
    workflow._module_file.cache_clear()


def _config_files(paper: str, scale: str) -> list:
    files = [REPO / f for f in SCALES[scale]]
    return files + ([FIXTURE_DIR / "config.yaml"] if paper == FIXTURE else [])


_LOADED: dict = {}


def _config(paper: str, scale: str) -> dict:
    """The validated config of a scale (validated once per test session: it takes a second)."""
    key = (paper == FIXTURE, scale)
    if key not in _LOADED:
        _LOADED[key] = config.load(*_config_files(paper, scale))
    return _LOADED[key]


@functools.cache
def _parsed(path) -> ast.Module:
    return ast.parse(path.read_text())


def _function(func: str) -> ast.FunctionDef | None:
    module, _, name = func.partition(":")
    path = workflow._module_file(module)
    assert path is not None, f"{func}: module not found"
    return next(
        (n for n in _parsed(path).body if isinstance(n, ast.FunctionDef) and n.name == name),
        None,
    )


@pytest.mark.usefixtures("with_fixture_paper")
@pytest.mark.parametrize("paper", PAPERS)
class TestPaperContract:
    def test_discovered_with_its_description_and_notes(self, paper):
        assert paper in discovery.paper_keys()
        assert isinstance(discovery.paper(paper), Paper)
        notes = discovery.files(paper) / "notes.md"
        assert notes.is_file() and notes.read_text().startswith("# "), f"{paper}: no notes.md"

    @pytest.mark.parametrize("scale", SCALES)
    def test_registry_loads_and_every_param_resolves(self, paper, scale):
        cfg = _config(paper, scale)
        reg = workflow.load_registry(paper, cfg)
        assert reg.figures, f"{paper} declares no figure"
        for decl in (*reg.steps, *reg.figures):
            workflow.params(cfg, paper, decl)
            workflow.data_inputs(cfg, paper, decl)

    def test_every_figure_function_exists_with_a_docstring(self, paper):
        """The docstring is the figure's one-line title (the generic report caption shows it)."""
        cfg = config.load(*_config_files(paper, "quick"))
        problems = []
        for decl in (
            workflow.load_registry(paper, cfg).figures
            + workflow.load_registry(paper, config.load(*_config_files(paper, "paper"))).figures
        ):
            node = _function(decl.func)
            if node is None:
                problems.append(f"{decl.func}: no such function")
            elif len(ast.get_docstring(node) or "") < 20:
                problems.append(f"{decl.func}: no docstring (it is the figure's caption)")
        assert not problems, problems

    def test_no_caption_file_without_its_figure(self, paper):
        captions = discovery.files(paper) / "captions"
        if not captions.is_dir():
            return
        names = set()
        for scale in SCALES:
            names |= {f.name for f in workflow.load_registry(paper, _config(paper, scale)).figures}
        orphans = [c.name for c in captions.iterdir() if c.name.removesuffix(".rst") not in names]
        assert not orphans, f"{paper}: captions of no declared figure: {orphans}"

    def test_every_schema_key_is_described(self, paper):
        schema = config.load_schema()
        missing = []

        def walk(node, path):
            node = config._resolve(schema, node)
            for key, sub in node.get("properties", {}).items():
                sub_r = config._resolve(schema, sub)
                if not str(sub.get("description") or sub_r.get("description") or "").strip():
                    missing.append(f"{path}.{key}")
                walk(sub, f"{path}.{key}")

        walk(schema["properties"][paper], paper)
        assert not missing, f"schema keys without a description: {missing}"


def test_shipped_papers_are_found_without_help():
    assert {"thudi2022", "pankova2022", "lowy2024", "swanberg2025", "xu2022"} <= set(
        discovery.paper_keys()
    )
    assert FIXTURE not in discovery.paper_keys() or os.environ.get(discovery.ENV)


@pytest.mark.usefixtures("with_fixture_paper")
def test_fixture_paper_is_validated_and_listed(capsys, tmp_path):
    assert (
        cli.main(["config", str(REPO / "config/config.yaml"), str(FIXTURE_DIR / "config.yaml")])
        == 0
    )
    assert FIXTURE in capsys.readouterr().out
    # its schema is enforced like any paper's: a typo is refused, naming the key
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"{FIXTURE}:\n  fig1:\n    epsilons: [1]\n    prior_prob: 0.5\n    prior: 1\n")
    with pytest.raises(config.ConfigError, match=f"{FIXTURE}.fig1.prior"):
        config.load(REPO / "config/config.yaml", bad)
    with pytest.raises(config.ConfigError, match="prior_prob"):
        config.load(
            REPO / "config/config.yaml",
            FIXTURE_DIR / "config.yaml",
            _write(tmp_path / "p.yaml", f"{FIXTURE}:\n  fig1:\n    prior_prob: 1.5\n"),
        )


def _write(path, text):
    path.write_text(text)
    return path


def test_unknown_paper_names_the_known_ones():
    with pytest.raises(workflow.RegistryError, match="known: thudi2022"):
        workflow.load_registry("nobody1999", {})


@pytest.mark.slow
@pytest.mark.usefixtures("with_fixture_paper")
def test_fixture_paper_is_scheduled_and_runs(tmp_path):
    """``snakemake -n`` schedules its figure; a real run of its target writes the output contract."""
    files = ("config/config.yaml", "tests/fixture_paper/config.yaml")
    dry = run_pipeline(tmp_path, FIXTURE, configfiles=files, extra_args=("-n",))
    assert f"{FIXTURE}_fig1" in dry.stdout + dry.stderr
    run_pipeline(tmp_path, FIXTURE, configfiles=files)
    from tests.conftest import assert_contract

    ledger = assert_contract(tmp_path, FIXTURE, configfiles=files)
    assert list(ledger.status) == ["qualitative-ok", "reproduced"]
