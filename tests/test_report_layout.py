"""The Snakemake report opens readable in a 1,280-px window: the start of the workflow description is
in view, beside the sidebar, not under it (issue 32).

Snakemake centres its workflow view in a flex box; this workflow's rule graph (~80 rules) is larger
than the window, so the view overflowed to the left and the top and the description's first lines
lay out of reach under the sidebar. workflow/report/workflow.rst carries the CSS that fixes it.
The test builds the whole workflow's report from a copy whose outputs are empty files marked up to
date (``--touch``: the layout depends on the rule graph, not on the figures), renders it in Debian's
Chromium through Playwright and measures where the first words land — and, as a control that the
test can fail, does the same with the CSS block removed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from privrisk.pipeline import config, workflow
from tests.conftest import REPO, TINY, snakemake_exe
from tests.test_rule_dependencies import _all_outputs

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FIRST_WORDS = "This report regenerates"
WIDTH, HEIGHT = 1280, 800


def _report(tmp_path: Path, *, with_css: bool) -> Path:
    root = tmp_path / ("fixed" if with_css else "control")
    for d in ("src", "workflow", "config"):
        shutil.copytree(REPO / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "Snakefile", root / "Snakefile")
    rst = root / "workflow/report/workflow.rst"
    if not with_css:
        text = rst.read_text()
        rst.write_text(re.sub(r"\A\.\. raw:: html\n.*?</style>\n", "", text, flags=re.S))
        assert "safe center" not in rst.read_text()
    cfg = config.load(*[root / c for c in TINY])
    registries = {p: workflow.load_registry(p, cfg) for p in workflow.PAPERS}
    for rel in [*_all_outputs(registries), "results/claims.html"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).touch()
    report = root / "report.html"
    for args in (("--cores", "1", "--touch"), ("--report", str(report))):
        proc = subprocess.run(
            [*snakemake_exe(), "-s", str(root / "Snakefile"), "-d", str(root), *args]
            + ["--configfile", *[str(root / c) for c in TINY]],
            capture_output=True,
            text=True,
            cwd=root,
            env=dict(os.environ, PYTHONPATH=str(root / "src")),
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return report


def _first_words_and_sidebar(sync_api, report: Path) -> tuple[dict, dict]:
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            tab = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            tab.goto(report.as_uri())
            text = tab.get_by_text(FIRST_WORDS)
            text.wait_for(timeout=30_000)
            return text.bounding_box(), tab.locator("nav").first.bounding_box()
        finally:
            browser.close()


def _readable(box: dict, nav: dict) -> bool:
    """The first line lies in the window and right of the sidebar."""
    return box["x"] >= nav["x"] + nav["width"] - 1 and 0 <= box["y"] < HEIGHT


def test_report_description_starts_in_view_beside_the_sidebar(tmp_path):
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is in the test extra (pip install playwright)"
    )
    if CHROMIUM is None:
        pytest.skip("no Chromium (apt-get install chromium): the browser test needs one")
    report = _report(tmp_path, with_css=True)
    assert "safe center" in report.read_text(encoding="utf-8")  # Snakemake kept the raw CSS
    box, nav = _first_words_and_sidebar(sync_api, report)
    assert _readable(box, nav), (box, nav)
    # the control: Snakemake's own layout hides the start of the text at this size
    box, nav = _first_words_and_sidebar(sync_api, _report(tmp_path, with_css=False))
    assert not _readable(box, nav), ("the control no longer fails: is the CSS still needed?", box)
