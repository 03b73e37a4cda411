"""lowy2024 figure functions: aggregation helpers, config errors, determinism, claim rows."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

from privrisk import config as cfgmod
from privrisk.config import REPO_ROOT, ConfigError
from privrisk.figure import FigureResult
from privrisk.papers import lowy2024 as lw
from privrisk.workflow import paper_params


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((REPO_ROOT / "config" / "config.yaml").read_text())


def _params(config, fig, **over):
    p = paper_params(config, "lowy2024", fig)
    p.update(over)
    return p


def test_safe_ratio_and_summaries():
    r = lw.safe_ratio(np.array([1.0, 0.0, 2.0, 0.0]), np.array([2.0, np.inf, 0.0, 0.0]))
    assert r[0] == 0.5 and r[1] == 0.0 and np.isinf(r[2]) and np.isnan(r[3])
    mean, std, se, count = lw.summarise(np.array([0.3]))  # one trial: no spread, no band
    assert (mean, std, se, count) == (0.3, 0.0, 0.0, 1)
    mean, std, se, count = lw.summarise(np.array([1.0, 3.0, np.nan]))
    assert mean == 2.0 and count == 2 and se == pytest.approx(np.sqrt(2) / np.sqrt(2))


def test_trend_criterion():
    x = [1, 2, 3, 4, 5, 6]
    assert lw.trend(x, [1, 2, 3, 3.2, 3.21, 3.205], +1) == (True, False)  # plateau within noise
    assert lw.trend(x, [1, 2, 3, 2, 1, 0.5], +1)[0] is False  # real reversal
    assert lw.trend(x, [6, 5, 4, 3, 2, 1], -1) == (True, True)


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
        lw.fig2(p)


def test_exponential_figure_small_and_deterministic(config):
    p = _params(config, "fig2", trials=3)
    a, b = lw.fig2(p), lw.fig2(p)
    assert isinstance(a, FigureResult)
    assert a.data.equals(b.data)
    assert set(a.data.series) == {lw.RATIO, lw.RATIO_X, *lw.PARAM_SERIES.values()}
    assert {"x", "y", "lo", "hi", "n_trials"} <= set(a.data.columns)
    assert {c.claim_id for c in a.claims} >= {"fig2_eps_tilde_C50", "fig2_ratios_C50"}
    # ratio <= ratioX at every grid point (ε(X) <= ε)
    r = a.data[a.data.series == lw.RATIO].y.to_numpy()
    rx = a.data[a.data.series == lw.RATIO_X].y.to_numpy()
    assert np.all(r <= rx + 1e-12)


def test_gaussian_figures_both_readings_share_data(config):
    p1 = _params(config, "fig4", trials=2, values=[1, 10])
    p2 = _params(config, "fig4_global", trials=2, values=[1, 10])
    f1, f2 = lw.fig4(p1), lw.fig4_global(p2)
    assert "ε(X) held fixed" in f1.caption and "fig4_global" in f1.caption
    assert "global ε held fixed" in f2.caption
    # the alternative value recorded by each is the main value of the other (same data draws)
    et1 = f1.data[(f1.data.series == lw.PARAM_SERIES["eps_tilde"]) & (f1.data.x == 10)].y.item()
    assert f2.extra["other_reading_eps_tilde_at_claim"] == pytest.approx(et1, rel=1e-12)
    claims = {c.claim_id: c for c in f1.claims + f2.claims}
    assert claims["fig4_eps_tilde_at_10"].status == "qualitative-fails"
    assert claims["fig4_global_eps_tilde_at_10"].status == "qualitative-ok"


def test_claim_point_must_be_in_the_grid(config):
    p = _params(config, "fig5", trials=2, values=[5, 50])
    with pytest.raises(KeyError, match="x = 100"):
        lw.fig5(p)
