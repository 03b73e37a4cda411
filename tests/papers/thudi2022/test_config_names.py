"""thudi2022's old config names are refused with a message naming the new key."""

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
        ("fig2", "epsilon_max", 5.0, "epsilons"),
        ("fig2", "n_points", 501, "epsilons"),
        ("fig3", "p_min", 0.001, "prior_probs"),
        ("fig5", "p_max", 0.999, "prior_probs"),
        ("fig6", "n_points", 950, "prior_probs"),
    ],
)
def test_old_name_names_new_key(cfg, fig, old, value, new):
    bad = copy.deepcopy(cfg)
    bad["thudi2022"][fig][old] = value
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert f"thudi2022.{fig}.{old} was renamed to '{new}'" in str(err.value)


def test_grids_are_unchanged(cfg):
    sec = cfg["thudi2022"]
    np.testing.assert_array_equal(config.grid(sec["fig2"]["epsilons"]), np.linspace(0, 5.0, 501))
    np.testing.assert_array_equal(config.grid(sec["fig3"]["prior_probs"]), np.linspace(0.001, 0.95, 950))
    np.testing.assert_array_equal(config.grid(sec["fig5"]["prior_probs"]), np.linspace(0.001, 0.999, 999))
