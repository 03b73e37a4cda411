"""The figure rules of privrisk.plotting: no text outside the canvas, legends off the data,
plain log tick labels; checked on every figure of the analytic papers."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from privrisk import plotting
from privrisk.config import REPO_ROOT
from privrisk.workflow import load_registry, paper_params


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((REPO_ROOT / "config" / "config.yaml").read_text())


def _figures(config, paper):
    import importlib

    for decl in load_registry(paper, config).figures:
        if decl.inputs:
            continue
        mod, fn = decl.func.split(":")
        params = paper_params(config, paper, decl.section or decl.name)
        if "trials" in params:
            params["trials"] = 3
        for name, dotted in decl.config.items():
            params[name] = {"trials": 3} | config[paper][dotted] | {"seed": params["seed"]}
        yield decl.name, getattr(importlib.import_module(mod), fn)(params)


@pytest.mark.parametrize("paper", ["thudi2022", "pankova2022", "lowy2024"])
def test_no_text_leaves_the_canvas_and_no_legend_covers_data(config, paper):
    for name, res in _figures(config, paper):
        if res.fig is None:
            continue
        assert plotting.clipped_texts(res.fig) == [], f"{paper}/{name}: text outside the figure"
        covered = [i for i, ax in enumerate(res.fig.axes) if ax.get_legend() and plotting.legend_covers_data(ax)]
        assert not covered, f"{paper}/{name}: the legend of axes {covered} covers data"
        plotting.plt.close(res.fig)


def test_clipped_text_is_detected():
    fig, ax = plotting.subplots(width=2.0, height=2.0)
    ax.set_xlabel("a very long axis label that cannot possibly fit into a two-inch wide figure")
    assert plotting.clipped_texts(fig)


def test_legend_moves_off_the_data():
    fig, ax = plotting.subplots()
    x = np.linspace(0, 1, 50)
    for k in range(8):  # lines fill the whole axes: no free place inside
        ax.plot(x, x * 0 + k / 7, label=f"line {k}")
    ax.plot(x, x, label="diag")
    ax.plot(x, 1 - x, label="anti")
    plotting.legend(ax, loc="center")
    assert not plotting.legend_covers_data(ax)


def test_legend_covers_data_detects_overlap():
    fig, ax = plotting.subplots()
    x = np.linspace(0, 1, 50)
    ax.plot(x, np.full_like(x, 0.5), label="flat")
    ax.legend(loc="center")
    assert plotting.legend_covers_data(ax)


def test_plain_log_ticks():
    fig, ax = plotting.subplots()
    ax.plot([1, 10], [0.5, 5])
    ax.set_yscale("log")
    plotting.plain_log_ticks(ax, "y")
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels(minor=True) + ax.get_yticklabels()]
    assert not any("times" in s or "×" in s or "^" in s for s in labels)
    assert "1" in labels or "2" in labels
