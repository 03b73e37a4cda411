"""xu2022's declarations: one training step per model (image and skin halves in one table), its
artifact files and resources; figures read the models they list; unknown models are refused; old
config names are refused naming the new one; the cross-key checks."""

import copy

import pytest

from privrisk.papers.xu2022 import registry
from privrisk.pipeline import config, workflow
from tests.conftest import REPO

INTER = "results/xu2022/intermediate"
IMAGE = ["mnist_wgangp", "cifar10_wgangp", "mnist_privgan"]
SKIN = ["skin_jsgan", "skin_jsgan_corrupted", "skin_classifier"]


@pytest.fixture(scope="module")
def cfg():
    return config.load(REPO / "config/config.yaml")


def test_one_training_step_per_model(cfg):
    reg = workflow.load_registry("xu2022", cfg)
    eps = cfg["xu2022"]["models"]["dpcgan"]["epsilons"]
    models = [*IMAGE, *(f"dpcgan_eps{e:g}" for e in eps), "dpcgan_epsinf", *SKIN]
    assert [s.name for s in reg.steps] == [f"train_{m}" for m in models]
    for m in models:
        step = reg.step(f"train_{m}")
        assert reg.step_outputs(step) == {
            "split": f"{INTER}/{m}_split.npz",
            "model": f"{INTER}/{m}.pt",
            "queries": f"{INTER}/{m}_queries.npz",
            "record": f"{INTER}/{m}_record.json",
            "shards": f"{INTER}/{m}_shards.json",
        }
        # its runs may train in shards (config key runs_per_job), pooled by steps.pool
        assert step.shards == workflow.Shards("model.runs", "privrisk.papers.xu2022.steps:pool")
        skin = m.startswith("skin")
        quick = workflow.Resources(mem_mb=2000, runtime=15 if skin else 10)
        assert step.resources_for("quick") == quick and step.resources_for("paper").gpu == 1
        assert step.data == (
            ("dermamnist",) if skin else ("cifar10",) if m.startswith("cifar10") else ("mnist",)
        )
        p = workflow.params(cfg, "xu2022", step)
        assert step.device and p["device"] == cfg["device"] and p["name"] == m
        assert p["model"]["runs"] >= 1 and 0 < p["model"]["train_fraction"] < 1
    p = workflow.params(cfg, "xu2022", reg.step("train_dpcgan_eps2"))
    block = {
        k: v
        for k, v in cfg["xu2022"]["models"]["dpcgan"].items()
        if k not in ("epsilons", "control")
    }
    assert (
        p["epsilon"] == 2.0
        and p["model"] == block
        and p["zero_six"] == cfg["xu2022"]["data"]["zero_six"]
    )
    # adding an ε to the list leaves the other DP-cGANs' params (hence their rules) unchanged
    more = copy.deepcopy(cfg)
    more["xu2022"]["models"]["dpcgan"]["epsilons"] = [*eps, 6]
    assert (
        workflow.params(
            more, "xu2022", workflow.load_registry("xu2022", more).step("train_dpcgan_eps2")
        )
        == p
    )
    assert workflow.params(cfg, "xu2022", reg.step("train_dpcgan_epsinf"))["epsilon"] == float(
        "inf"
    )
    corrupted = workflow.params(cfg, "xu2022", reg.step("train_skin_jsgan_corrupted"))
    assert (
        corrupted["corruption"] == cfg["xu2022"]["data"]["corruption"]
        and "synthetic" not in corrupted
    )
    assert corrupted["model"] == cfg["xu2022"]["models"]["skin_jsgan"]


def test_steps_follow_the_epsilon_grid_and_the_fig2b_switch(cfg):
    section = copy.deepcopy(cfg["xu2022"])
    section["models"]["dpcgan"]["epsilons"] = [0.5, 2, 10]
    names = [s.name for s in registry.train_steps(section)]
    assert names[3:7] == [
        "train_dpcgan_eps0p5",
        "train_dpcgan_eps2",
        "train_dpcgan_eps10",
        "train_dpcgan_epsinf",
    ]
    section["models"]["dpcgan"]["control"] = False
    assert "train_dpcgan_epsinf" not in [s.name for s in registry.train_steps(section)]
    section["fig2b"] = {"gan": "wgangp"}
    assert registry.train_steps(section)[-1].name == "train_skin_wgangp"
    fig2b = next(f for f in registry.figure_decls(section) if f.name == "fig2b")
    assert fig2b.inputs["queries"].step == "train_skin_wgangp"
    section["fig2b"] = {"gan": "lsgan"}
    with pytest.raises(ValueError, match="jsgan or wgangp"):
        registry.train_steps(section)


def test_figures_read_the_models_they_list(cfg):
    reg = workflow.load_registry("xu2022", cfg)
    q = lambda m: f"{INTER}/{m}_queries.npz"  # noqa: E731
    ins = {f.name: reg.inputs(f) for f in reg.figures}
    assert list(ins) == [
        "fig1a",
        "fig2a",
        "fig3",
        "fig5",
        "fig6",
        "fig1b",
        "fig1c",
        "fig2b",
        "fig4a",
        "fig4b",
        "fig7",
        "fig8",
        "audit_dpcgan",
    ]
    assert ins["audit_dpcgan"] == {f"eps_{t}": q(f"dpcgan_eps{t}") for t in ("1", "2", "10", "inf")}
    assert ins["fig1a"] == {"queries": q("cifar10_wgangp")}
    assert ins["fig2a"] == {"queries": q("mnist_privgan")}
    assert ins["fig3"] == {"mnist": q("mnist_wgangp"), "cifar10": q("cifar10_wgangp")}
    eps = cfg["xu2022"]["models"]["dpcgan"]["epsilons"]
    assert ins["fig5"] == {f"eps_{e:g}": q(f"dpcgan_eps{e:g}") for e in [*eps, float("inf")]}
    assert ins["fig6"] == {
        "eps_2": q("dpcgan_eps2"),
        "eps_10": q("dpcgan_eps10"),
        "eps_inf": q("dpcgan_epsinf"),
    }
    for fig, model in (
        ("fig1b", "skin_jsgan"),
        ("fig2b", "skin_jsgan"),
        ("fig4b", "skin_jsgan_corrupted"),
        ("fig8", "skin_classifier"),
    ):
        assert ins[fig] == {"queries": q(model)}
    # one estimation block for every figure: common overlaid by the figure's own section
    fig1b = next(f for f in reg.figures if f.name == "fig1b")
    p = workflow.params(cfg, "xu2022", fig1b)
    assert (
        p["n_synthetic"] == cfg["xu2022"]["synthetic"]["n"]
        and p["margin"] == cfg["xu2022"]["fig1b"]["margin"]
    )
    assert p["bins"] == cfg["xu2022"]["common"]["bins"] and p["prior_prob"] == 0.5
    fig3 = next(f for f in reg.figures if f.name == "fig3")
    assert workflow.params(cfg, "xu2022", fig3)["prior_prob"] == 0.1


def test_figure_reading_an_untrained_model_is_a_registry_error(cfg):
    bad = copy.deepcopy(cfg)
    bad["xu2022"]["fig6"]["epsilons"] = [3]
    with pytest.raises(workflow.RegistryError, match="unknown step 'train_dpcgan_eps3'"):
        workflow.load_registry("xu2022", bad)
    reg = workflow.load_registry("xu2022", cfg)
    extra = workflow.Figure(
        name="fig_x",
        func="privrisk.papers.xu2022.figures:fig1a",
        inputs={"queries": workflow.Out("train_skin_wgangp", "queries")},
    )
    with pytest.raises(workflow.RegistryError, match="fig_x.*unknown step 'train_skin_wgangp'"):
        workflow.Registry("xu2022", reg.steps, (*reg.figures, extra))


def test_steps_do_not_import_plotting_or_figures(cfg):
    reg = workflow.load_registry("xu2022", cfg)
    for step in reg.steps:
        files = workflow.code_inputs(step.func)
        assert not [
            f for f in files if f.endswith(("plotting.py", "figure.py")) or "/figures" in f
        ], step.name
    # the paper's modules are registry, steps*, figures*, claims and nothing else
    names = sorted(p.name for p in (REPO / "src/privrisk/papers/xu2022").glob("*.py"))
    assert names == [
        "__init__.py",
        "claims.py",
        "common.py",
        "figures.py",
        "figures_audit.py",
        "figures_dp.py",
        "figures_skin.py",
        "registry.py",
        "steps.py",
        "steps_skin.py",
    ]


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (lambda x: x["common"].update(p=0.5), "xu2022.common.p was renamed to 'prior_prob'"),
        (lambda x: x["fig3"].update(p=0.1), "xu2022.fig3.p was renamed to 'prior_prob'"),
        (
            lambda x: x["common"].update(comparable_within=0.05),
            "xu2022.common.comparable_within was renamed to 'margin'",
        ),
        (lambda x: x["common"].update(repeats=3), "xu2022.common.repeats was renamed to 'trials'"),
        (
            lambda x: x["common"].update(delta=0.05),
            "xu2022.common.delta was renamed to 'confidence'",
        ),
        (
            lambda x: x["models"]["mnist_wgangp"].update(gen_iters=300),
            "xu2022.models.mnist_wgangp.gen_iters was renamed to 'epochs",
        ),
        (
            lambda x: x["models"]["mnist_privgan"].update(beta1=0.5),
            "xu2022.models.mnist_privgan.beta1 was renamed to 'betas",
        ),
        (
            lambda x: x["models"]["skin_jsgan"].update(beta1=0.5),
            "xu2022.models.skin_jsgan.beta1 was renamed to 'betas",
        ),
        (
            lambda x: x["data"].update(train_fraction=0.1),
            "xu2022.data.train_fraction was renamed to 'models.<model>.train_fraction'",
        ),
        (
            lambda x: x["data"]["zero_six"].update(train_fraction=0.3),
            "was renamed to 'models.dpcgan.train_fraction'",
        ),
        (
            lambda x: x.update(skin={"estimation": {}}),
            "xu2022.skin was renamed to 'data.corruption",
        ),
        (
            lambda x: x["data"]["mnist"].update(root="data/raw/mnist"),
            "xu2022.data.mnist.root was renamed to 'path'",
        ),
        (
            lambda x: x["data"]["cifar10"].update(standin_n=300),
            "xu2022.data.cifar10.standin_n was renamed to 'standin_size'",
        ),
        (
            lambda x: x["models"]["mnist_wgangp"].update(arch="mlp"),
            "unknown config key(s) xu2022.models.mnist_wgangp.arch",
        ),
        (lambda x: x["models"]["dpcgan"].update(epsilons=[0, 2]), "xu2022.models.dpcgan.epsilons"),
        (lambda x: x["fig1a"].update(gan="jsgan"), "xu2022.fig1a.gan: only xu2022.fig2b takes gan"),
        (lambda x: x["synthetic"].update(n=500), "xu2022.synthetic.n: 500 is not one of"),
    ],
)
def test_old_names_and_misfits_are_refused(cfg, mutate, needle):
    bad = copy.deepcopy(cfg)
    mutate(bad["xu2022"])
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert needle in str(err.value)


def test_dp_delta_keeps_its_name(cfg):
    assert cfg["xu2022"]["models"]["dpcgan"]["delta"] == 1e-5
    assert cfg["xu2022"]["common"]["confidence"] == 0.95


def test_paper_scale_runs_five_and_reaches_1e5_synthetic_images():
    paper = config.load(REPO / "config/config.yaml", REPO / "config/paper.yaml")["xu2022"]
    assert all(m["runs"] == 5 for m in paper["models"].values())
    assert max(paper["synthetic"]["sizes"]) == 100_000 and paper["common"]["points_per_bin"] is None
