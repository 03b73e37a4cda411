"""pankova2022's old config names are refused with a message naming the new key."""

import copy

import numpy as np
import pytest

from privrisk import config
from tests.conftest import REPO


@pytest.fixture(scope="module")
def cfg():
    return config.load(REPO / "config/config.yaml")


@pytest.mark.parametrize(
    "fig,old,value,new",
    [
        ("fig_eps_vs_advantage", "priors", [0.01, 0.5], "prior_probs"),
        ("table_eps_advantage", "priors", [0.01, 0.5], "prior_probs"),
        ("fig_eps_vs_advantage", "eta_max", 0.99, "etas"),
        ("fig_single_attribute", "mc_samples", 200000, "trials"),
        ("fig_shell_counterexample", "epsilon_max", 3, "epsilons"),
        ("fig_worst_case_prior", "epsilon_max", 10, "epsilons"),
        ("fig_worst_case_prior", "eta_max", 0.95, "etas"),
        ("fig_worst_case_prior", "n_points", 400, "etas.n_points and epsilons.n_points"),
    ],
)
def test_old_name_names_new_key(cfg, fig, old, value, new):
    bad = copy.deepcopy(cfg)
    bad["pankova2022"][fig][old] = value
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert f"pankova2022.{fig}.{old} was renamed to '{new}'" in str(err.value)


def test_grids_are_unchanged(cfg):
    sec = cfg["pankova2022"]
    np.testing.assert_array_equal(config.grid(sec["fig_eps_vs_advantage"]["etas"]), np.linspace(0, 0.99, 500))
    np.testing.assert_array_equal(config.grid(sec["fig_worst_case_prior"]["etas"]), np.linspace(0, 0.95, 400))
    np.testing.assert_array_equal(config.grid(sec["fig_worst_case_prior"]["epsilons"]), np.linspace(0, 10, 400))
    np.testing.assert_array_equal(config.grid(sec["fig_shell_counterexample"]["epsilons"]), np.linspace(0, 3, 301))


def test_seed_stream_unchanged():
    """fig_single_attribute moved from default_rng(seed) to seeds.rng(seed): the same stream."""
    from privrisk import seeds

    for seed in (0, 1, 20221, 2**40):
        a, b = np.random.default_rng(seed), seeds.rng(seed)
        np.testing.assert_array_equal(a.uniform(size=100), b.uniform(size=100))
