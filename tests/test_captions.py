"""Report captions: a figure's own ``workflow/report/<paper>/<fig>.rst``, or the generic caption
showing the figure function's docstring, so a new figure needs no caption file."""

from __future__ import annotations

from types import SimpleNamespace

import jinja2
import pytest

from privrisk import workflow
from privrisk.core import paths
from tests.conftest import REPO


def test_caption_file_when_present_else_the_generic_one():
    assert paths.caption_path("thudi2022", "fig1") == "../report/thudi2022/fig1.rst"
    assert paths.caption_path("thudi2022", "fig_new") == "../report/figure.rst"
    assert (REPO / "workflow" / "rules" / paths.caption_path("thudi2022", "fig_new")).is_file()


def test_figure_caption_is_the_docstring_read_without_importing():
    text = workflow.figure_caption("privrisk.papers.thudi2022.figures:fig2")
    assert text and "\n" not in text
    with pytest.raises(workflow.RegistryError, match="no function"):
        workflow.figure_caption("privrisk.papers.thudi2022.figures:nope")
    with pytest.raises(workflow.RegistryError, match="not found"):
        workflow.figure_caption("privrisk.papers.nope:fig1")


def test_generic_caption_renders_the_docstring_and_the_files():
    template = (REPO / "workflow" / "report" / "figure.rst").read_text()
    sm = SimpleNamespace(
        params=SimpleNamespace(caption="Advantage against ε."),
        output=SimpleNamespace(csv="results/x/fig9.csv", json="results/x/fig9.json"),
    )
    out = jinja2.Template(template).render(snakemake=sm)
    assert "Advantage against ε." in out and "results/x/fig9.csv" in out


def test_every_declared_figure_has_a_caption():
    from privrisk import config

    cfg = config.load(REPO / "config/config.yaml")
    missing = []
    for paper in workflow.PAPERS:
        reg = workflow.load_registry(paper, cfg)
        for fig in reg.figures:
            own = (REPO / "workflow" / "report" / paper / f"{fig.name}.rst").is_file()
            if not own and len(workflow.figure_caption(fig.func)) < 20:
                missing.append(f"{paper}.{fig.name}")
    assert not missing, f"figures without a caption file or a docstring: {missing}"
