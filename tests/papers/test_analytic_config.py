"""thudi2022 and pankova2022 config: old names are refused naming the new key; the new grids give
the old numbers; pankova2022's seed stream is unchanged by the move to privrisk.seeds."""

import copy

import numpy as np
import pytest

from privrisk.core import seeds
from privrisk.core.grids import grid
from privrisk.pipeline import config
from tests.conftest import REPO


@pytest.fixture(scope="module")
def cfg():
    return config.load(REPO / "config/config.yaml")


@pytest.mark.parametrize(
    "paper,fig,old,value,new",
    [
        ("thudi2022", "fig2", "epsilon_max", 5.0, "epsilons"),
        ("thudi2022", "fig2", "n_points", 501, "epsilons"),
        ("thudi2022", "fig3", "p_min", 0.001, "prior_probs"),
        ("thudi2022", "fig5", "p_max", 0.999, "prior_probs"),
        ("thudi2022", "fig6", "n_points", 950, "prior_probs"),
        ("pankova2022", "fig_eps_vs_advantage", "priors", [0.01, 0.5], "prior_probs"),
        ("pankova2022", "table_eps_advantage", "priors", [0.01, 0.5], "prior_probs"),
        (
            "pankova2022",
            "fig_eps_vs_advantage",
            "eta_max",
            0.99,
            "epsilons (η is now on the y axis)",
        ),
        (
            "pankova2022",
            "fig_eps_vs_advantage",
            "etas",
            [0.1, 0.5],
            "epsilons (η is now on the y axis)",
        ),
        ("pankova2022", "fig_single_attribute", "mc_samples", 200000, "trials"),
        ("pankova2022", "fig_shell_counterexample", "epsilon_max", 3, "epsilons"),
        ("pankova2022", "fig_worst_case_prior", "epsilon_max", 10, "epsilons"),
        ("pankova2022", "fig_worst_case_prior", "eta_max", 0.95, "etas"),
        (
            "pankova2022",
            "fig_worst_case_prior",
            "n_points",
            400,
            "etas.n_points and epsilons.n_points",
        ),
    ],
)
def test_old_name_names_new_key(cfg, paper, fig, old, value, new):
    bad = copy.deepcopy(cfg)
    bad[paper][fig][old] = value
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert f"{paper}.{fig}.{old} was renamed to '{new}'" in str(err.value)


@pytest.mark.parametrize(
    "paper,fig,key,expected",
    [
        ("thudi2022", "fig2", "epsilons", np.linspace(0, 5.0, 501)),
        ("thudi2022", "fig3", "prior_probs", np.linspace(0.001, 0.95, 950)),
        ("thudi2022", "fig5", "prior_probs", np.linspace(0.001, 0.999, 999)),
        ("thudi2022", "fig6", "prior_probs", np.linspace(0.001, 0.95, 950)),
        ("pankova2022", "fig_eps_vs_advantage", "epsilons", np.linspace(0, 10, 501)),
        ("pankova2022", "fig_worst_case_prior", "etas", np.linspace(0, 0.95, 400)),
        ("pankova2022", "fig_worst_case_prior", "epsilons", np.linspace(0, 10, 400)),
        ("pankova2022", "fig_shell_counterexample", "epsilons", np.linspace(0, 3, 301)),
    ],
)
def test_grids_give_the_old_numbers(cfg, paper, fig, key, expected):
    np.testing.assert_array_equal(grid(cfg[paper][fig][key]), expected)


def test_seed_stream_unchanged():
    """fig_single_attribute moved from default_rng(seed) to seeds.rng(seed): the same stream."""
    for seed in (0, 1, 20221, 2**40):
        a, b = np.random.default_rng(seed), seeds.rng(seed)
        np.testing.assert_array_equal(a.uniform(size=100), b.uniform(size=100))
        np.testing.assert_array_equal(a.laplace(0, 2, 100), b.laplace(0, 2, 100))
