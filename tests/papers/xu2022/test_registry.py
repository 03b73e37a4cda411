"""xu2022's declarations: one training step per model with the old names, artifact files and
resources; figures read the models they list; unknown models and old config names are refused."""

import copy

import pytest

from privrisk import config, workflow
from privrisk.papers.xu2022 import registry
from tests.conftest import REPO

INTER = "results/xu2022/intermediate"


@pytest.fixture(scope="module")
def cfg():
    return config.load(REPO / "config/config.yaml")


def test_one_training_step_per_model(cfg):
    reg = workflow.load_registry("xu2022", cfg)
    eps = cfg["xu2022"]["models"]["dpcgan"]["epsilons"]
    models = [
        "mnist_wgangp",
        "cifar10_wgangp",
        "mnist_privgan",
        *(f"dpcgan_eps{e:g}" for e in eps),
        "dpcgan_epsinf",
    ]
    # (the skin-lesion steps of skin_registry are tested in test_skin_registry.py)
    assert [s.name for s in reg.steps if "skin" not in s.name] == [f"train_{m}" for m in models]
    for m in models:
        step = reg.step(f"train_{m}")
        assert reg.step_outputs(step) == {
            "split": f"{INTER}/{m}_split.npz",
            "model": f"{INTER}/{m}.pt",
            "queries": f"{INTER}/{m}_queries.npz",
            "record": f"{INTER}/{m}_record.json",
        }
        assert step.resources_for("quick") == workflow.Resources(mem_mb=2000, runtime=10)
        assert step.resources_for("paper") == workflow.Resources(mem_mb=4000, runtime=240, gpu=1)
        assert step.data == ("cifar10",) if m.startswith("cifar10") else ("mnist",)
        assert step.device and workflow.params(cfg, "xu2022", step)["device"] == cfg["device"]
    p = workflow.params(cfg, "xu2022", reg.step("train_dpcgan_eps2"))
    assert (
        p["epsilon"] == 2.0
        and p["data"] == cfg["xu2022"]["data"]["mnist"]
        and p["seed"] == cfg["seed"]
    )
    block = {
        k: v
        for k, v in cfg["xu2022"]["models"]["dpcgan"].items()
        if k not in ("epsilons", "control")
    }
    assert p["model"] == block and p["zero_six"] == cfg["xu2022"]["data"]["zero_six"]
    # adding an ε to the list leaves the other DP-cGANs' params (hence their rules) unchanged
    more = copy.deepcopy(cfg)
    more["xu2022"]["models"]["dpcgan"]["epsilons"] = [
        *cfg["xu2022"]["models"]["dpcgan"]["epsilons"],
        6,
    ]
    assert (
        workflow.params(
            more, "xu2022", workflow.load_registry("xu2022", more).step("train_dpcgan_eps2")
        )
        == p
    )
    p = workflow.params(cfg, "xu2022", reg.step("train_cifar10_wgangp"))
    assert (p["dataset"], p["model"]["network"], p["train_fraction"]) == ("cifar10", "mlp", 0.03)
    assert workflow.params(cfg, "xu2022", reg.step("train_dpcgan_epsinf"))["epsilon"] == float(
        "inf"
    )


def test_steps_follow_the_epsilon_grid(cfg):
    section = copy.deepcopy(cfg["xu2022"])
    section["models"]["dpcgan"]["epsilons"] = [0.5, 2, 10]
    names = [s.name for s in registry.train_steps(section)]
    assert names[3:] == [
        "train_dpcgan_eps0p5",
        "train_dpcgan_eps2",
        "train_dpcgan_eps10",
        "train_dpcgan_epsinf",
    ]
    section["models"]["dpcgan"]["control"] = False
    assert registry.train_steps(section)[-1].name == "train_dpcgan_eps10"


def test_figures_read_the_models_they_list(cfg):
    reg = workflow.load_registry("xu2022", cfg)
    assert [f.name for f in registry.figure_decls(cfg["xu2022"])] == [
        "fig1a",
        "fig2a",
        "fig3",
        "fig5",
        "fig6",
    ]
    q = lambda m: f"{INTER}/{m}_queries.npz"  # noqa: E731
    ins = {f.name: reg.inputs(f) for f in reg.figures}
    assert ins["fig1a"] == {"queries": q("cifar10_wgangp")}
    assert ins["fig2a"] == {"queries": q("mnist_privgan")}
    assert ins["fig3"] == {"mnist": q("mnist_wgangp"), "cifar10": q("cifar10_wgangp")}
    assert ins["fig5"] == {
        f"eps_{e:g}": q(f"dpcgan_eps{e:g}")
        for e in [*cfg["xu2022"]["models"]["dpcgan"]["epsilons"], float("inf")]
    }
    assert ins["fig6"] == {
        "eps_2": q("dpcgan_eps2"),
        "eps_10": q("dpcgan_eps10"),
        "eps_inf": q("dpcgan_epsinf"),
    }


def test_figure_reading_an_untrained_model_is_a_registry_error(cfg):
    # regression: the old rules sent any non-MNIST dataset to CIFAR-10 files and let unknown
    # figures fall through to the DP-cGAN branch (a KeyError, or silently wrong inputs)
    bad = copy.deepcopy(cfg)
    bad["xu2022"]["fig6"]["epsilons"] = [3]
    with pytest.raises(workflow.RegistryError, match="unknown step 'train_dpcgan_eps3'"):
        workflow.load_registry("xu2022", bad)
    reg = workflow.load_registry("xu2022", cfg)
    extra = workflow.Figure(
        name="fig_skin",
        func="privrisk.papers.xu2022.figures:fig1a",
        inputs={"queries": workflow.Out("train_skin_wgangp", "queries")},
    )
    with pytest.raises(workflow.RegistryError, match="fig_skin.*unknown step 'train_skin_wgangp'"):
        workflow.Registry("xu2022", reg.steps, (*reg.figures, extra))
    dupe = workflow.Figure(name="fig1a", func="privrisk.papers.xu2022.figures:fig1a")
    with pytest.raises(workflow.RegistryError, match="duplicate"):
        workflow.Registry("xu2022", reg.steps, (*reg.figures, dupe))


def test_steps_and_gan_do_not_import_plotting_or_figures(cfg):
    reg = workflow.load_registry("xu2022", cfg)
    for step in reg.steps:
        files = workflow.code_inputs(step.func)
        assert not [f for f in files if f.endswith(("plotting.py", "figures.py", "figure.py"))], (
            step.name
        )
    assert not [f for f in workflow.code_inputs("privrisk.models.gan") if f.endswith("plotting.py")]


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (
            lambda x: x["data"]["mnist"].update(root="data/raw/mnist"),
            "xu2022.data.mnist.root was renamed to 'path'",
        ),
        (
            lambda x: x["data"]["cifar10"].update(root="d"),
            "xu2022.data.cifar10.root was renamed to 'path'",
        ),
        (
            lambda x: x["data"]["cifar10"].update(standin_n=300),
            "xu2022.data.cifar10.standin_n was renamed to 'standin_size'",
        ),
        (
            lambda x: x["data"]["mnist"].update(source="bundled"),
            "'bundled' is not one of ['auto', 'real', 'bundled-real']",
        ),
        (lambda x: x["common"].update(repeats=3), "xu2022.common.repeats was renamed to 'trials'"),
        (lambda x: x["fig6"].update(repeats=1), "xu2022.fig6.repeats was renamed to 'trials'"),
        (
            lambda x: x["common"].update(delta=0.05),
            "xu2022.common.delta was renamed to 'confidence'",
        ),
        (
            lambda x: x["models"]["mnist_wgangp"].update(arch="mlp"),
            "unknown config key(s) xu2022.models.mnist_wgangp.arch",
        ),
        (lambda x: x["models"]["dpcgan"].update(epsilons=[0, 2]), "xu2022.models.dpcgan.epsilons"),
    ],
)
def test_old_config_names_are_refused(cfg, mutate, needle):
    bad = copy.deepcopy(cfg)
    mutate(bad["xu2022"])
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert needle in str(err.value)


def test_dp_delta_keeps_its_name(cfg):
    assert cfg["xu2022"]["models"]["dpcgan"]["delta"] == 1e-5
    assert cfg["xu2022"]["common"]["confidence"] == 0.95
