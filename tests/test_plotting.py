"""The figure rules of privrisk.contract.plotting: no text outside the canvas, legends off the data,
plain log tick labels; checked on every figure of the analytic papers. And the style is a
context: importing privrisk.contract.plotting or making a figure leaves the user's matplotlib settings
alone, while our figures still get our style."""

from __future__ import annotations

import subprocess
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest
import yaml

from privrisk.contract import plotting
from privrisk.pipeline.workflow import load_registry, paper_params
from tests.conftest import REPO as REPO_ROOT


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((REPO_ROOT / "config" / "config.yaml").read_text())


def _few_trials(section: dict) -> dict:
    return {"trials": 3} if "trials" in section else {}


def _figures(config, paper):
    import importlib

    for decl in load_registry(paper, config).figures:
        if decl.inputs:
            continue
        mod, fn = decl.func.split(":")
        # the quick scale's layout with 3 trials (the drawing is what is checked, not the numbers)
        params = paper_params(config, paper, decl.section or decl.name)
        if "trials" in params:
            params["trials"] = 3
        for name, dotted in decl.config.items():
            section = config[paper][dotted]
            params[name] = section | {"seed": params["seed"]} | _few_trials(section)
        yield decl.name, getattr(importlib.import_module(mod), fn)(params)


# lowy2024's figures take 10–20 s to compute even with few trials, thudi2022's draw for 2.7 s: their
# cases are in the slow tier (pankova2022's keeps the check in the fast tier: every function it
# uses is the same for all papers' figures)
@pytest.mark.parametrize(
    "paper",
    [
        pytest.param("thudi2022", marks=pytest.mark.slow),
        "pankova2022",
        pytest.param("lowy2024", marks=pytest.mark.slow),
    ],
)
@plotting.style()  # as run_figure makes them in the pipeline
def test_no_text_leaves_the_canvas_and_no_legend_covers_data(config, paper):
    for name, res in _figures(config, paper):
        if res.fig is None:
            continue
        assert plotting.clipped_texts(res.fig) == [], f"{paper}/{name}: text outside the figure"
        covered = [
            i
            for i, ax in enumerate(res.fig.axes)
            if ax.get_legend() and plotting.legend_covers_data(ax)
        ]
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


# A user's session: its own settings and backend, then privrisk.contract.plotting is imported.
_USER_SESSION = """
import matplotlib
matplotlib.use("pdf")
matplotlib.rcParams["lines.linewidth"] = 3.3
matplotlib.rcParams["font.size"] = 13.0
before = matplotlib.rcParams.copy()
import privrisk.contract.plotting
assert matplotlib.rcParams.copy() == before, sorted(
    k for k in before if matplotlib.rcParams.copy()[k] != before[k])
assert matplotlib.get_backend() == "pdf", matplotlib.get_backend()
print("ok")
"""


def test_import_leaves_the_users_matplotlib_settings_alone():
    proc = subprocess.run([sys.executable, "-c", _USER_SESSION], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def _one_line_figure(params):
    from privrisk.contract.figure import FigureResult

    fig, ax = plotting.subplots()
    ax.plot([0, 1], [0, 1], label="a")
    ax.set_title("t")
    plotting.legend(ax)
    return FigureResult(
        data=pd.DataFrame({"series": ["a", "a"], "x": [0, 1], "y": [0, 1]}), caption="c", fig=fig
    )


def test_run_figure_styles_our_figure_and_restores_the_users_settings(tmp_path):
    from privrisk.contract.figure import run_figure

    before = matplotlib.rcParams.copy()
    assert (
        before["lines.linewidth"] != plotting.RC["lines.linewidth"]
    )  # else the test proves nothing
    res = run_figure(
        _one_line_figure,
        paper="p",
        figure="f",
        params={},
        prefix=tmp_path / "f",
        claims_path=tmp_path / "claims.csv",
    )
    assert matplotlib.rcParams.copy() == before
    ax = res.fig.axes[0]
    line = ax.get_lines()[0]
    assert line.get_linewidth() == plotting.RC["lines.linewidth"]
    assert matplotlib.colors.same_color(line.get_color(), plotting.PALETTE[0])
    assert not ax.spines["top"].get_visible() and not ax.get_legend().get_frame_on()
    assert ax.title.get_fontsize() == plotting.RC["axes.titlesize"]
    assert (tmp_path / "f.png").stat().st_size > 0
    # the same function outside run_figure gets matplotlib's defaults: the style is the context's
    plain = _one_line_figure({}).fig.axes[0]
    assert plain.get_lines()[0].get_linewidth() == before["lines.linewidth"]
    assert plain.spines["top"].get_visible()
    plotting.plt.close("all")
