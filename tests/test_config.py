"""Config validation: typos, wrong types and out-of-range values are caught, naming the key."""

import copy

import pytest
import yaml

from privrisk import config
from tests.conftest import REPO, run_pipeline


@pytest.fixture(scope="module")
def cfg():
    return config.load(REPO / "config/config.yaml")


def test_shipped_configs_validate():
    config.load(REPO / "config/config.yaml")
    config.load(REPO / "config/config.yaml", REPO / "config/paper.yaml")
    config.load(REPO / "config/config.yaml", REPO / "config/tiny.yaml")


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (lambda c: c["thudi2022"]["fig2"].__setitem__("epsilon_maxx", 3), "thudi2022.fig2.epsilon_maxx"),
        (lambda c: c["thudi2022"]["fig2"]["epsilons"].__setitem__("min", -1), "thudi2022.fig2.epsilons"),
        (lambda c: c["thudi2022"]["fig2"]["epsilons"].__setitem__("n_points", 2.5), "thudi2022.fig2.epsilons"),
        (lambda c: c["thudi2022"]["fig3"]["epsilons"].__setitem__(1, -0.5), "thudi2022.fig3.epsilons[1]"),
        (lambda c: c["thudi2022"]["fig7"].__setitem__("b", 1.5), "thudi2022.fig7.b"),
        (lambda c: c["thudi2022"]["fig4a"].__setitem__("n_points", "many"), "thudi2022.fig4a.n_points"),
        (lambda c: c.__setitem__("scale", "huge"), "scale"),
        (lambda c: c.__setitem__("thudi2O22", {}), "thudi2O22"),
        (lambda c: c["pankova2022"]["fig_eps_vs_advantage"]["prior_probs"].append(1.2),
         "pankova2022.fig_eps_vs_advantage.prior_probs[6]"),
    ],
)
def test_bad_values_name_the_key(cfg, mutate, needle):
    bad = copy.deepcopy(cfg)
    mutate(bad)
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert needle in str(err.value)


def test_deep_update_merges_nested():
    base = {"a": {"b": 1, "c": 2}, "d": 3}
    assert config.deep_update(base, {"a": {"c": 5}}) == {"a": {"b": 1, "c": 5}, "d": 3}
    assert base["a"]["c"] == 2


@pytest.mark.slow
def test_pipeline_refuses_typo_before_any_job(tmp_path):
    bad = yaml.safe_load((REPO / "config/config.yaml").read_text())
    bad["thudi2022"]["fig2"]["epsilon_maxx"] = 3
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad, allow_unicode=True))
    proc = run_pipeline(tmp_path, "thudi2022", configfiles=(str(tmp_path / "bad.yaml"),), check=False)
    assert proc.returncode != 0
    assert "thudi2022.fig2.epsilon_maxx" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


def test_config_readme_is_current():
    """config/README.md is generated from the schemas; regenerate it after a schema change with
    `python -m privrisk.config --readme > config/README.md`."""
    assert (REPO / "config" / "README.md").read_text() == config.readme()


def test_grid_specs():
    np = pytest.importorskip("numpy")
    assert config.grid([0.5, 1, float("inf")]).tolist() == [0.5, 1.0, float("inf")]
    np.testing.assert_array_equal(config.grid({"min": 0, "max": 5, "n_points": 501}), np.linspace(0, 5, 501))
    np.testing.assert_array_equal(config.grid({"min": 1e-3, "max": 1, "n_points": 4, "spacing": "log"}),
                                  np.geomspace(1e-3, 1, 4))
    with pytest.raises(config.ConfigError, match="min > max"):
        config.grid({"min": 2, "max": 1, "n_points": 3})


def test_renamed_key_names_the_new_one():
    schema = {"type": "object", "additionalProperties": False, "properties": {"trials": {"type": "integer"}},
              "x-renamed": {"repeats": "trials"}}
    with pytest.raises(config.ConfigError, match="config key repeats was renamed to 'trials'"):
        config.validate({"repeats": 3}, schema)
    with pytest.raises(config.ConfigError, match="unknown config key"):
        config.validate({"repeatz": 3}, schema)


@pytest.mark.parametrize("mutate,needle", [
    (lambda c: c.__setitem__("seed", 3.0), "seed: 3.0 is not of type 'integer'"),
    (lambda c: c["thudi2022"]["fig4a"].__setitem__("n_points", 51.0), "thudi2022.fig4a.n_points"),
    (lambda c: c["thudi2022"]["fig2"]["epsilons"].__setitem__("max", float("nan")), "thudi2022.fig2.epsilons"),
    (lambda c: c["thudi2022"]["fig2"]["epsilons"].update(min=5.0, max=1.0), "thudi2022.fig2.epsilons: min 5.0 > max 1.0"),
])
def test_floats_for_integers_nan_and_reversed_grids_are_refused(cfg, mutate, needle):
    bad = copy.deepcopy(cfg)
    mutate(bad)
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert needle in str(err.value)


def test_infinite_epsilon_is_allowed(cfg):
    ok = copy.deepcopy(cfg)
    ok["thudi2022"]["fig3"]["epsilons"] = [0.1, float("inf")]
    config.validate(ok)
