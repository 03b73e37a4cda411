"""CONTRIBUTING.md followed literally ends green: add a paper (``privrisk new-paper``), build it,
regenerate, check; then add a figure to it the same way. On copies of the generated docs, in a
temporary working directory, with the package written outside ``src/`` (found through
``PRIVRISK_PAPERS``) and its config section into a second config file rather than
config/config.yaml; the commands are CONTRIBUTING's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from privrisk.contract import status
from privrisk.pipeline import docs
from tests.conftest import REPO, run_pipeline

FIXTURE = "fixture2099"

FIG2 = '''

def fig2(params) -> FigureResult:
    """Positive accuracy bound of membership inference against ε at a second prior."""
    eps = grid(params["epsilons"])
    y = membership.positive_accuracy_upper(epsilon=eps, p=params["prior_prob"])
    fig, ax = plotting.subplots()
    ax.plot(eps, y, color=plotting.color(0))
    ax.set(xlabel="ε", ylabel="positive accuracy bound")
    return FigureResult(
        data=pd.DataFrame({"series": "bound", "x": eps, "y": y}),
        fig=fig,
        claims=[],
        caption="Positive accuracy bound at a second prior against ε.",
    )
'''


def _privrisk(work: Path, papers: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), PRIVRISK_PAPERS=str(papers))
    return subprocess.run(
        [sys.executable, "-m", "privrisk", *args], cwd=work, env=env, capture_output=True, text=True
    )


def _regenerate_and_check(work: Path, papers: Path) -> None:
    """CONTRIBUTING's last three commands; the check must pass."""
    for args in (("docs", "--write"), ("status", "--write", "--paper", FIXTURE)):
        proc = _privrisk(work, papers, *args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _privrisk(work, papers, "docs", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "generated docs current" in proc.stdout


@pytest.mark.slow
def test_adding_a_paper_then_a_figure_as_contributing_says_ends_green(tmp_path, monkeypatch):
    work, papers = tmp_path / "work", tmp_path / "papers"
    for path in [
        *(g.path for g in docs.GENERATED),
        status.STATUS_FILE,
        str(status.data_path(status.STATUS_FILE)),
    ]:
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / path, work / path)
    papers.mkdir()
    section = tmp_path / "section.yaml"
    # a paper: `privrisk new-paper KEY` (what tests/fixture_paper/ holds), its package and config
    # section, then `snakemake --cores 2 <key>`
    proc = _privrisk(
        work, papers, "new-paper", FIXTURE, "--papers", str(papers), "--config", str(section),
        "--tests", str(tmp_path / "tests"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    monkeypatch.setenv("PRIVRISK_PAPERS", str(papers))  # for the Snakemake runs
    configfiles = ("config/config.yaml", str(section))

    run_pipeline(work, FIXTURE, configfiles=configfiles)
    proc = _privrisk(work, papers, "docs", "--check")
    assert proc.returncode == 1
    said = proc.stdout + proc.stderr
    assert "Traceback" not in said
    for line in (
        "docs/config.md: stale (the config reference, from the schemas); fix: privrisk docs --write",
        "README.md: stale (the paper table, from each paper package); fix: privrisk docs --write",
        f"docs/status.md: {FIXTURE}: not on the page; add it: privrisk status --write --paper "
        f"{FIXTURE} after snakemake --cores 2 {FIXTURE}",
    ):
        assert line in said, said
    _regenerate_and_check(work, papers)
    page = (work / status.STATUS_FILE).read_text()
    assert f"<b>{FIXTURE}</b>: 1 outputs, 2 claims (1 reproduced, 1 qualitative-ok)" in page
    assert f"| {FIXTURE} | 1 | 2 | 1 | 0 | 1 |" in page

    # a figure: its function, its registry line, its config section and schema, then the same
    figures = papers / FIXTURE / "figures.py"
    figures.write_text(figures.read_text() + FIG2)
    registry = papers / FIXTURE / "registry.py"
    text = registry.read_text()
    one = 'Figure(name="fig1", func="privrisk.papers.fixture2099.figures:fig1")'
    assert one in text
    two = 'Figure(name="fig2", func="privrisk.papers.fixture2099.figures:fig2")'
    registry.write_text(text.replace(one, f"{one}, {two}"))
    cfg = yaml.safe_load(section.read_text())
    cfg[FIXTURE]["fig2"] = dict(cfg[FIXTURE]["fig1"], prior_prob=0.25)
    section.write_text(yaml.safe_dump(cfg))
    schema_path = papers / FIXTURE / "schema.yaml"
    schema = yaml.safe_load(schema_path.read_text())
    schema["properties"]["fig2"] = dict(
        schema["properties"]["fig1"], description="Figure 2: the bound at a second prior."
    )
    schema_path.write_text(yaml.safe_dump(schema, allow_unicode=True))

    run_pipeline(work, FIXTURE, configfiles=configfiles)
    proc = _privrisk(work, papers, "docs", "--check")
    assert proc.returncode == 1
    assert (
        f"docs/status.md: {FIXTURE}/fig2 (output): not on the page; add it: privrisk status "
        f"--write --paper {FIXTURE} after snakemake --cores 2 {FIXTURE}"
    ) in proc.stdout, proc.stdout + proc.stderr
    _regenerate_and_check(work, papers)
    page = (work / status.STATUS_FILE).read_text()
    assert f"<b>{FIXTURE}</b>: 2 outputs, 2 claims (1 reproduced, 1 qualitative-ok)" in page
    assert "| fig2 | analytic | no claims |" in page
    # the other papers' blocks are the committed ones, untouched
    parts = status.page_data(work / status.STATUS_FILE)["papers"]
    committed = status.page_data(REPO / status.STATUS_FILE)["papers"]
    assert [p for p in parts if p["paper"] != FIXTURE] == committed
