"""Report captions, one rule (CONTRIBUTING "Add a figure"): the figure function's docstring, shown
by the generic caption ``workflow/report/figure.rst``; a ``captions/<fig>.rst`` in the paper's
package overrides it. A new figure needs no caption file."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

from privrisk.core import discovery
from privrisk.pipeline import workflow
from tests.conftest import REPO


def test_caption_file_in_the_package_when_present_else_the_generic_one():
    own = workflow.caption_path("thudi2022", "fig1")
    assert Path(own) == Path(str(discovery.files("thudi2022"))) / "captions" / "fig1.rst"
    assert Path(own).is_absolute() and Path(own).is_file()
    assert workflow.caption_path("thudi2022", "fig_new") == workflow.GENERIC_CAPTION
    assert (REPO / "workflow" / "rules" / workflow.GENERIC_CAPTION).is_file()


def test_figure_caption_is_the_docstring_read_without_importing():
    text = workflow.figure_caption("privrisk.papers.thudi2022.figures:fig2")
    assert text and "\n" not in text and text.startswith("Figure 2")
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
    assert "captions/<figure>.rst" in template  # it says where an override goes
