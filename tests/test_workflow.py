"""privrisk.pipeline.workflow: declarations, the registry checks, params, paths and code dependencies."""

from pathlib import Path

import pytest

from privrisk.core.declarations import shard_groups
from privrisk.pipeline import config, workflow
from privrisk.pipeline.workflow import Figure, Out, Registry, RegistryError, Resources, Shards, Step
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


def _sharded_registry():
    train = Step(
        name="train",
        func="m:train",
        outputs={"runs": "m_runs.npz", "log": "m_log.json"},
        config={"model": "models.gan"},
        shards=Shards(count="model.runs", pool="m:pool"),
        resources={"quick": Resources(threads=2, mem_mb=3000, runtime=20, gpu=1)},
    )
    fig = Figure(name="fig1", func="m:fig1", inputs={"r": Out("train", "runs")})
    return Registry("k", (train,), (fig,))


def test_a_sharded_step_becomes_shard_jobs_and_a_pool_job_with_the_steps_outputs():
    reg = _sharded_registry()
    cfg = {"seed": 1, "k": {"models": {"gan": {"runs": 5, "lr": 0.1}}}}
    one = workflow.jobs(reg, cfg, "quick")
    assert [j.kind for j in one] == ["step", "figure"]  # runs_per_job unset: one job
    assert [j.priority for j in one] == [1, 0]  # steps before figures
    assert one[0].params["model"]["runs"] == 5
    jobs = workflow.jobs(reg, {**cfg, "runs_per_job": 2}, "quick")
    assert [(j.kind, j.rule) for j in jobs] == [
        ("shard", "k_train_runs0_1"),
        ("shard", "k_train_runs2_3"),
        ("shard", "k_train_runs4_4"),
        ("pool", "k_train"),
        ("figure", "k_fig1"),
    ]
    shard, pool = jobs[1], jobs[3]
    assert [j.priority for j in jobs] == [1, 1, 1, 1, 0]
    assert shard.params["shard"] == {"first": 2, "stop": 4} and shard.runs == (2, 4)
    assert shard.params["model"] == {"lr": 0.1}  # no run count: raising it keeps this shard
    assert shard.outputs == {
        "runs": "results/k/intermediate/shards/runs2-3/m_runs.npz",
        "log": "results/k/intermediate/shards/runs2-3/m_log.json",
    }
    assert shard.resources.gpu == 1 and shard.resources.threads == 2  # each shard its own job
    assert shard.log == "results/logs/k/train.runs2-3.log"
    # the pool writes the step's own outputs, which the figure reads as before
    assert pool.outputs == reg.step_outputs(reg.steps[0]) and pool.func == "m:pool"
    assert pool.resources.gpu == 0 and pool.params["model"]["runs"] == 5 and not pool.data
    assert jobs[-1].inputs == {"r": "results/k/intermediate/m_runs.npz"}
    groups = shard_groups(pool.inputs)
    assert groups == [j.outputs for j in jobs[:3]]  # every shard's files, in run order
    # a run count that is not a positive integer is named
    bad = {**cfg, "runs_per_job": 2, "k": {"models": {"gan": {"runs": 0}}}}
    with pytest.raises(workflow.ShardError, match="model.runs = 0"):
        workflow.jobs(reg, bad, "quick")
    with pytest.raises(RegistryError, match="module:function"):
        Shards(count="model.runs", pool="m.pool")


def test_code_inputs_follow_imports_and_packages():
    files = {
        Path(f).relative_to(REPO).as_posix()
        for f in workflow.code_inputs("privrisk.papers.thudi2022.figures:fig1")
    }
    assert {
        "src/privrisk/papers/thudi2022/figures.py",
        "src/privrisk/bounds/membership.py",
        "src/privrisk/contract/plotting.py",
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
    """(Captions: the inline ``FigureResult.caption`` is the caption of record, the docstring a
    title, a ``captions/<fig>.rst`` optional; tests/test_captions.py and
    tests/test_paper_contract.py check them, as CONTRIBUTING says.)"""
    assert set(registries) == set(workflow.PAPERS)
    for paper, reg in registries.items():
        assert reg.figures, paper
        for fig in reg.figures:
            workflow.params(quick_config, paper, fig)  # every config path resolves


def test_step_code_never_includes_plotting_or_figure_code(registries):
    """A plotting edit reruns figures only: no step's code inputs hold plotting or a figure module."""
    plotting = workflow.PACKAGE_DIR / "contract" / "plotting.py"
    assert plotting.is_file(), plotting
    for paper, reg in registries.items():
        figure_modules = {f.func.split(":")[0] for f in reg.figures}
        for step in reg.steps:
            files = set(workflow.code_inputs(step.func))
            assert str(plotting) not in files, f"{paper}.{step.name} imports plotting"
            for mod in figure_modules:
                path = workflow._module_file(mod)
                assert str(path) not in files, f"{paper}.{step.name} imports figure module {mod}"


def test_a_step_that_other_steps_read_is_scheduled_before_them():
    data = Step(name="data", func="m:data", outputs={"d": "d.npz"})
    attacks = [
        Step(
            name=f"attack{i}",
            func="m:attack",
            inputs={"d": Out("data", "d")},
            outputs={"a": f"a{i}.npz"},
        )
        for i in range(3)
    ]
    fig = Figure(name="fig1", func="m:fig", inputs={"a": Out("attack0", "a")})
    reg = Registry("k", (data, *attacks), (fig,))
    prio = {j.name: j.priority for j in workflow.jobs(reg, {"seed": 1}, "quick")}
    assert prio == {"data": 4, "attack0": 1, "attack1": 1, "attack2": 1, "fig1": 0}
