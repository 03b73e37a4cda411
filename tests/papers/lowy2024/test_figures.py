"""lowy2024 figure functions: config errors and renamed keys, determinism, claim rows."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

from privrisk.contract.figure import FigureResult
from privrisk.papers.lowy2024 import figures_exponential, figures_gaussian
from privrisk.papers.lowy2024.common import PARAM_SERIES, RATIO, RATIO_X
from privrisk.pipeline import config as cfgmod
from privrisk.pipeline.config import ConfigError
from privrisk.pipeline.workflow import paper_params
from tests.conftest import REPO as REPO_ROOT


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((REPO_ROOT / "config" / "config.yaml").read_text())


def _params(config, fig, **over):
    p = paper_params(config, "lowy2024", fig)
    p.update(over)
    return p


def test_shipped_config_is_valid_and_errors_name_the_key(config):
    cfgmod.validate(config)
    bad = copy.deepcopy(config)
    bad["lowy2024"]["fig5"]["fixed"] = "both"
    with pytest.raises(ConfigError, match=r"lowy2024\.fig5\.fixed"):
        cfgmod.validate(bad)
    bad = copy.deepcopy(config)
    bad["lowy2024"]["fig1"]["eps_X"] = 5
    with pytest.raises(ConfigError, match=r"lowy2024\.fig1\.eps_X"):
        cfgmod.validate(bad)
    p = _params(config, "fig2", trials=2)
    del p["sigma"]
    with pytest.raises(ValueError, match=r"lowy2024\.fig2\.sigma"):
        figures_exponential.fig2(p)


@pytest.mark.parametrize(
    ("fig", "new", "plural"),
    [
        ("fig1", "sigmas", "sigmas, clips or dims"),
        ("fig2", "clips", "sigmas, clips or dims"),
        ("fig3", "dims", "sigmas, clips or dims"),
        ("fig4", "epsilons", "epsilons, clips or dims"),
        ("fig4_epsX", "epsilons", "epsilons, clips or dims"),
        ("fig6_epsX", "dims", "epsilons, clips or dims"),
    ],
)
def test_old_sweep_names_fail_naming_the_new_key(config, fig, new, plural):
    bad = copy.deepcopy(config)
    section = bad["lowy2024"][fig]
    section["sweep"] = {"sigmas": "sigma", "clips": "clip", "dims": "d", "epsilons": "eps"}[new]
    section["values"] = section.pop(new)
    with pytest.raises(ConfigError) as err:
        cfgmod.validate(bad)
    msg = str(err.value)
    for old in ("sweep", "values"):
        assert f"config key lowy2024.{fig}.{old} was renamed to '{plural}" in msg


@pytest.mark.parametrize(("old", "new"), [("value", "epsilon"), ("claim_value", "claim_epsilon")])
def test_old_fixed_epsilon_names_fail_naming_the_new_key(config, old, new):
    bad = copy.deepcopy(config)
    fig = "fig5" if old == "value" else "fig4"
    bad["lowy2024"][fig][old] = bad["lowy2024"][fig].pop(new)
    with pytest.raises(ConfigError, match=rf"lowy2024\.{fig}\.{old} was renamed to '{new}'"):
        cfgmod.validate(bad)


def test_exactly_one_swept_parameter(config):
    bad = copy.deepcopy(config)
    bad["lowy2024"]["fig5"]["dims"] = [1, 2]  # clips is already given
    with pytest.raises(ConfigError, match=r"lowy2024\.fig5"):
        cfgmod.validate(bad)
    p = _params(config, "fig5", dims=[1, 2])
    with pytest.raises(ValueError, match="exactly one of"):
        figures_gaussian.fig5(p)


def test_dense_epsilon_grid_equals_the_list(config):
    cfg = copy.deepcopy(config)
    cfg["lowy2024"]["fig4"]["epsilons"] = {"min": 1, "max": 10, "n_points": 3}
    cfgmod.validate(cfg)
    dense = figures_gaussian.fig4(_params(cfg, "fig4", trials=2))
    listed = figures_gaussian.fig4(_params(config, "fig4", trials=2, epsilons=[1.0, 5.5, 10.0]))
    assert dense.data.equals(listed.data)


def test_exponential_figure_small_and_deterministic(config):
    p = _params(config, "fig2", trials=3, clips=[10, 50, 200])
    a, b = figures_exponential.fig2(p), figures_exponential.fig2(p)
    assert isinstance(a, FigureResult)
    assert a.data.equals(b.data)
    assert set(a.data.series) == {RATIO, RATIO_X, *PARAM_SERIES.values()}
    assert {"x", "y", "lo", "hi", "n_trials"} <= set(a.data.columns)
    assert {c.claim_id for c in a.claims} >= {"fig2_eps_tilde_C50", "fig2_ratios_C50"}
    # ratio <= ratioX at every grid point (ε(X) <= ε)
    r = a.data[a.data.series == RATIO].y.to_numpy()
    rx = a.data[a.data.series == RATIO_X].y.to_numpy()
    assert np.all(r <= rx + 1e-12)


def _paper_labels(res) -> list[str]:
    return [t for ax in res.fig.axes for t in ax.get_legend_handles_labels()[1] if "paper" in t]


def test_the_papers_numbers_are_rows_and_marks_only_at_the_setting_they_are_quoted_at(config):
    """Figure 2 run at C = 20 (not the paper's 50): no quoted row, no paper mark, and the claim
    row tested at C = 20 says so; at C = 50 all three are there (the property over random configs:
    tests/test_quoted.py)."""
    few = dict(trials=2, clips=[20, 50])
    at = figures_exponential.fig2(_params(config, "fig2", **few))
    off = figures_exponential.fig2(_params(config, "fig2", **few, claim_clip=20))
    quoted = {"fig2_eps_tilde_C50", "fig2_success_C50", "fig2_eps_C50"}
    assert quoted <= {c.claim_id for c in at.claims} and _paper_labels(at)
    assert not quoted & {c.claim_id for c in off.claims} and not _paper_labels(off)
    text = {c.claim_id: c.claim for c in off.claims}["fig2_ratios_C50"]
    assert text == "At C = 20 both ratios are less than 0.0123"
    # Figure 5's row belongs to the global reading at ε = 5 only
    p5 = _params(config, "fig5_epsX", trials=2, clips=[50, 100])
    assert "fig5_eps_tilde_C100" not in {c.claim_id for c in figures_gaussian.fig5_epsX(p5).claims}


def test_old_fig4_global_name_points_to_fig4(config):
    bad = copy.deepcopy(config)
    bad["lowy2024"]["fig4_global"] = bad["lowy2024"].pop("fig4")
    with pytest.raises(ConfigError, match=r"lowy2024\.fig4_global was renamed to 'fig4"):
        cfgmod.validate(bad)


def test_defaults_are_the_global_reading(config):
    for fig in ("fig4", "fig5", "fig6"):
        assert config["lowy2024"][fig]["fixed"] == "global"
        assert config["lowy2024"][f"{fig}_epsX"]["fixed"] == "restricted"
    for fig in ("fig1", "fig2", "fig3"):
        assert _params(config, fig)["trials"] >= 1000


def test_gaussian_figures_both_readings_share_data(config):
    p1 = _params(config, "fig4_epsX", trials=2, epsilons=[1, 10])
    p2 = _params(config, "fig4", trials=2, epsilons=[1, 10])
    f1, f2 = figures_gaussian.fig4_epsX(p1), figures_gaussian.fig4(p2)
    assert "ε(X) held fixed" in f1.caption and "is fig4" in f1.caption
    assert "global ε held fixed" in f2.caption and "fig4_epsX" in f2.caption
    assert f2.fig.axes[0].get_xlabel() == "DP parameter ε (paper's label: ε(X))"
    # the alternative value recorded by each is the main value of the other (same data draws)
    et1 = f1.data[(f1.data.series == PARAM_SERIES["eps_tilde"]) & (f1.data.x == 10)].y.item()
    assert f2.extra["other_reading_eps_tilde_at_claim"] == pytest.approx(et1, rel=1e-12)
    claims = {c.claim_id: c for c in f1.claims + f2.claims}
    assert claims["fig4_epsX_eps_tilde_at_10"].status == "qualitative-fails"
    assert claims["fig4_eps_tilde_at_10"].status == "qualitative-ok"


def test_claim_point_must_be_in_the_grid(config):
    p = _params(config, "fig5", trials=2, clips=[5, 50])
    with pytest.raises(KeyError, match="x = 100"):
        figures_gaussian.fig5(p)


def test_every_figure_declares_its_sweep_for_the_config_checks():
    """check_config validates a figure's section through SWEEP; a figure added to FIGURES without
    an entry would be skipped silently, so the two must list the same figures."""
    from privrisk.papers.lowy2024 import registry

    assert {f.name for f in registry.FIGURES} == set(registry.SWEEP)
    assert set(registry.CLAIM_KEYS) <= set(registry.SWEEP)
