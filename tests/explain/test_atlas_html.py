"""The offline HTML atlas (`privrisk atlas --html FILE`): one self-contained page (no script, no
network) listing every deployment's numbers and the lint list; a real browser (Chromium, driven by
Playwright as in test_explain_html.py) opens it at a desktop and a phone width."""

from __future__ import annotations

import io
import json
import re
import shutil

import numpy as np
import pytest

from privrisk.explain.atlas import cards, command, lint, load, render
from privrisk.pipeline import cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run"]  # fmt: skip


@pytest.fixture(scope="module")
def per_entry():
    """Every deployment's numbers at the defaults, computed once for the module (~13 s of CPU
    each time), by entry."""
    return {e.key: cards.entry_headlines(e) for e in load().entries}


@pytest.fixture(scope="module")
def headlines(per_entry):
    return [h for e in load().entries for h in per_entry[e.key]]


@pytest.fixture(scope="module")
def computed_once(per_entry):
    """The atlas command's calls at the defaults answered from :func:`per_entry` (the command's
    own filtering, rendering and output are what its tests here check)."""
    real = cards.entry_headlines

    def entry_headlines(e, **kw):
        defaults = dict(
            periods=None, prior=cards.PRIOR, reconstruction_prior=cards.RECONSTRUCTION_PRIOR
        )
        if kw == defaults or not kw:
            return per_entry[e.key]
        return real(e, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cards, "entry_headlines", entry_headlines)
        yield


@pytest.fixture(scope="module")
def page(tmp_path_factory, computed_once):
    path = tmp_path_factory.mktemp("atlas") / "atlas.html"
    assert command.main(["--html", str(path)]) == 0
    return path


def test_json_lists_every_deployment_with_source_and_numbers(computed_once, capsys):
    """(here, not in test_atlas_command.py: the whole atlas's numbers are computed once here)"""
    assert cli.main(["atlas", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["entries"]) >= 30
    with_numbers = [e for e in d["entries"] if any(c["membership_advantage"] for c in e["cards"])]
    assert len(with_numbers) >= 30
    for e in d["entries"]:
        assert e["source"]["urls"]
        for c in e["cards"]:
            assert c["unit"] and c["scope"]
    census = next(e for e in d["entries"] if e["key"] == "census-redistricting-2020")
    units = next(c for c in census["conversions"] if c["label"] == "housing units")
    assert "none at the printed value" in units["verdict"]
    assert census["source"]["registry"]["path"] == "deployments/census_redistricting_data.yaml"


def test_page_is_self_contained_and_lists_every_row(page, headlines):
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)  # nothing fetched
    assert 'name=viewport content="width=device-width' in text
    rows = headlines
    assert text.count("<tr>") == len(rows) + 1  # the header and one row per parameter set
    for h in rows:
        assert f"<td>{h.key}</td>" in text
    for x in [x for e in load().entries for x in lint.entry_lints(e)]:
        assert f"<code>{x.key}</code>" in text


def test_page_numbers_are_the_table_numbers(page, headlines):
    text = page.read_text(encoding="utf-8")
    for h in headlines:
        if h.has_numbers:
            cells = render._cells(h)
            row = "".join(c for c in cells[6:])
            assert all(f">{c}</td>" in text for c in cells[6:]), (h.key, row)


def _browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is in the test extra (pip install playwright)"
    )
    if CHROMIUM is None:
        pytest.skip("no Chromium (apt-get install chromium): the browser test needs one")
    return sync_api


@pytest.mark.slow  # a browser (the slow tier holds browser layout); the page: the tests above
@pytest.mark.parametrize("width", [1280, 390])
def test_chromium_opens_the_atlas_at_desktop_and_phone_width(page, headlines, width):
    sync_api = _browser()
    n = len(headlines)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tab = browser.new_page(viewport={"width": width, "height": 1400})
            requests, errors = [], []
            tab.on("request", lambda r: requests.append(r.url))
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(page.as_uri())
            assert tab.locator("tbody tr").count() == n
            # a phone drops the organisation, year and published columns; a desktop shows them
            assert tab.is_visible("th.hide") == (width > 600)
            # the deployment and the three numbers stay on screen
            for col in (1, 7, 8, 9):
                assert tab.is_visible(f"thead th:nth-child({col})")
            # the page is as wide as the screen: a wide table scrolls in its own box
            assert tab.evaluate("document.documentElement.scrollWidth") <= width
            shot = tab.screenshot()
            assert not errors, errors
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
        finally:
            browser.close()
    from matplotlib import image

    img = image.imread(io.BytesIO(shot), format="png")[..., :3]
    assert img.shape[:2] == (1400, width)
    assert np.std(img) > 0.05 and np.mean(np.any(img < 0.9, axis=-1)) > 0.02  # not blank
