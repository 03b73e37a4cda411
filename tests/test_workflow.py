"""privrisk.workflow: declarations, the registry checks, params, paths and code dependencies."""

from pathlib import Path

import pytest

from privrisk import config, workflow
from privrisk.workflow import Figure, Out, Registry, RegistryError, Resources, Step
from tests.conftest import REPO


def _step(name="train", **kw):
    return Step(name=name, func="m:train", outputs={"model": f"{name}.pt"}, **kw)


def test_paths():
    out = workflow.figure_outputs("k", "fig1")
    assert out == {
        "csv": "results/k/fig1.csv",
        "json": "results/k/fig1.json",
        "claims": "results/k/claims/fig1.csv",
        "pdf": "results/k/fig1.pdf",
        "png": "results/k/fig1.png",
    }
    assert set(workflow.figure_outputs("k", "table1", table=True)) == {
        "csv",
        "json",
        "claims",
        "md",
        "tex",
    }
    assert workflow.artifact("k", "a.npz") == "results/k/intermediate/a.npz"


def test_registry_wires_artifacts_and_targets():
    reg = Registry(
        "k",
        (_step(),),
        (
            Figure(name="fig1", func="m:fig1", inputs={"model": Out("train", "model")}),
            Figure(name="table1", func="m:table1", table=True),
        ),
    )
    assert reg.inputs(reg.figures[0]) == {"model": "results/k/intermediate/train.pt"}
    assert reg.step_outputs(reg.steps[0]) == {"model": "results/k/intermediate/train.pt"}
    assert reg.rule_name(reg.figures[0]) == "k_fig1"
    assert "results/k/table1.md" in reg.targets() and not any(
        "/claims/" in t for t in reg.targets()
    )
    assert reg.claims_files() == ["results/k/claims/fig1.csv", "results/k/claims/table1.csv"]


@pytest.mark.parametrize(
    "figures,needle",
    [
        (
            (Figure(name="fig1", func="m:f", inputs={"q": Out("tran", "model")}),),
            "unknown step 'tran'",
        ),
        (
            (Figure(name="fig1", func="m:f", inputs={"q": Out("train", "queries")}),),
            "no output 'queries'",
        ),
        ((Figure(name="fig1", func="m:f", inputs={"q": "results/x.npz"}),), "must be an Out"),
        ((Figure(name="train", func="m:f"),), "duplicate"),
    ],
)
def test_registry_rejects_inconsistent_declarations(figures, needle):
    with pytest.raises(RegistryError, match=needle):
        Registry("k", (_step(),), figures)


def test_declaration_checks():
    with pytest.raises(RegistryError, match="module:function"):
        Figure(name="f", func="m.f")
    with pytest.raises(RegistryError, match="output"):
        Step(name="s", func="m:s", outputs={})
    with pytest.raises(RegistryError, match="quick"):
        Figure(name="f", func="m:f", resources={"paper": Resources()})
    f = Figure(
        name="f",
        func="m:f",
        resources={"quick": Resources(runtime=1), "paper": Resources(runtime=60, gpu=1)},
    )
    assert f.resources_for("tiny").runtime == 1 and f.resources_for("paper").gpu == 1
    assert f.section == "f" and Figure(name="g", func="m:g", section=None).section is None


def test_params_merge_common_section_config_and_fixed():
    cfg = {
        "seed": 7,
        "k": {"common": {"a": 1, "b": 2}, "fig1": {"b": 3}, "models": {"gan": {"lr": 0.1}}},
    }
    assert workflow.paper_params(cfg, "k", "fig1") == {"a": 1, "b": 3, "seed": 7}
    fig = Figure(
        name="fig1", func="m:f", config={"model": "models.gan"}, fixed={"dataset": "mnist"}
    )
    assert workflow.params(cfg, "k", fig) == {
        "a": 1,
        "b": 3,
        "seed": 7,
        "model": {"lr": 0.1},
        "dataset": "mnist",
    }
    # every step gets torch's thread count (default 1), so a change of it reruns the steps;
    # figures do not train, so a change leaves them alone
    assert workflow.params(cfg, "k", _step()) == {"seed": 7, "torch_threads": 1}
    assert workflow.params({**cfg, "torch_threads": 3}, "k", _step())["torch_threads"] == 3
    assert "torch_threads" not in workflow.params({**cfg, "torch_threads": 3}, "k", fig)
    with pytest.raises(RegistryError, match="models.vae"):
        workflow.params(cfg, "k", Figure(name="fig1", func="m:f", config={"model": "models.vae"}))


def test_code_inputs_follow_imports_and_packages():
    files = {
        Path(f).relative_to(REPO).as_posix()
        for f in workflow.code_inputs("privrisk.papers.thudi2022.figures:fig1")
    }
    assert {
        "src/privrisk/papers/thudi2022/figures.py",
        "src/privrisk/bounds/membership.py",
        "src/privrisk/plotting.py",
        "src/privrisk/papers/thudi2022/__init__.py",
        "src/privrisk/__init__.py",
    } <= files
    assert "src/privrisk/bounds/attribute.py" not in files  # another paper's code
    assert (
        "src/privrisk/papers/thudi2022/registry.py" not in files
    )  # declarations are not code a figure runs


@pytest.fixture(scope="module")
def quick_config():
    return config.load(REPO / "config/config.yaml")


@pytest.fixture(scope="module")
def registries(quick_config):
    return {p: workflow.load_registry(p, quick_config) for p in workflow.PAPERS}


def test_every_paper_declares_figures_whose_params_resolve(registries, quick_config):
    """(Captions: a figure function's docstring is its caption, a ``captions/<fig>.rst`` in the
    paper package optional; tests/test_paper_contract.py checks both, as CONTRIBUTING says.)"""
    assert set(registries) == set(workflow.PAPERS)
    for paper, reg in registries.items():
        assert reg.figures, paper
        for fig in reg.figures:
            workflow.params(quick_config, paper, fig)  # every config path resolves


def test_step_code_never_includes_plotting_or_figure_code(registries):
    """A plotting edit reruns figures only: no step's code inputs hold plotting or a figure module."""
    for paper, reg in registries.items():
        figure_modules = {f.func.split(":")[0] for f in reg.figures}
        for step in reg.steps:
            files = set(workflow.code_inputs(step.func))
            assert str(workflow.PACKAGE_DIR / "plotting.py") not in files, (
                f"{paper}.{step.name} imports plotting"
            )
            for mod in figure_modules:
                path = workflow._module_file(mod)
                assert str(path) not in files, f"{paper}.{step.name} imports figure module {mod}"
