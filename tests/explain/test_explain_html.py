"""The risk explorer: one self-contained page (plotly.js embedded, no network), whose every
number is the library's, and which a real browser (Debian's Chromium, driven by Playwright)
renders, with a slider that moves the numbers to the library's values at the grid point."""

import html as htmlmod
import re
import shutil

import numpy as np
import pytest

from privrisk import cli
from privrisk.explain import explain, html
from privrisk.explain.rows import prob

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--epsilon", "3", "--prior", "0.1"]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "card.html"
    assert cli.main(["explain", *ARGS, "--html", str(path)]) == 0
    return path


def test_page_is_self_contained_with_the_headline_table_and_explorer(page):
    text = page.read_text(encoding="utf-8")
    card, again = html(epsilon=3, prior=0.1)
    assert text == again  # deterministic: the same page from the API
    assert not re.search(r"<script[^>]*\bsrc=", text) and "<link" not in text
    assert not re.search(r"""<img[^>]*src\s*=\s*["'](?!data:)""", text)
    for r in card.rows:
        assert htmlmod.escape(r.text) in text
    for h in card.headline:
        assert htmlmod.escape(h.text) in text
    assert 'id="knob-slider"' in text and 'id="prior-slider"' in text


def test_explorer_grids_are_the_library_values_at_each_point():
    from privrisk.explain import explorer

    card, _ = html(epsilon=3, prior=0.1)
    data = _data(card)
    k = data["knob"]
    assert k["x"][k["user"]] == 3.0
    for i in (0, 7, len(k["x"]) - 1):
        at = explain(epsilon=k["x"][i], prior=0.1)
        for key, vals in k["values"].items():
            assert vals[i] == at.row(key).value, (key, i)
            assert k["text"][key][i] == prob(at.row(key).value)
    p = data["prior"]
    for i in (0, 20, len(p["x"]) - 1):
        at = explain(epsilon=3, prior=p["x"][i])
        for key, vals in p["values"].items():
            assert vals[i] == at.row(key).value, (key, i)
    assert set(k["values"]) <= set(explorer.SERIES)


def _data(card):
    import json

    from privrisk.explain import explorer
    from privrisk.explain import guarantee as gm

    g = gm.parse(epsilon=3)
    from privrisk.explain import attacker as am

    a = am.parse(prior=0.1)
    d = explorer.data(card, g, a, {"epsilon": 3}, {"prior": 0.1})
    return json.loads(json.dumps(d))


def _browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is in the test extra (pip install playwright)"
    )
    if CHROMIUM is None:
        pytest.skip("no Chromium (apt-get install chromium): the browser test needs one")
    return sync_api


def test_slider_moves_the_numbers_to_the_library_values_and_the_page_is_not_blank(page, tmp_path):
    sync_api = _browser()
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            tab = browser.new_page(viewport={"width": 1200, "height": 1600})
            requests, errors = [], []
            tab.on("request", lambda r: requests.append(r.url))
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(page.as_uri())
            tab.wait_for_selector("#knob-plot .main-svg", timeout=30_000)
            tab.wait_for_selector("#prior-plot .main-svg", timeout=30_000)
            beta = '#knob-readout [data-key="reconstruction.beta"]'
            assert tab.inner_text(beta) == "0.691"  # the card's own value at ε = 3
            for index in (5, 0):
                tab.eval_on_selector(
                    "#knob-slider",
                    f"el => {{ el.value = {index}; el.dispatchEvent(new Event('input')); }}",
                )
                eps = tab.evaluate(f"EXPLORER.knob.x[{index}]")  # the grid point, exactly
                assert tab.inner_text("#knob-value") == f"{eps:.4g}"
                at = explain(epsilon=eps, prior=0.1)
                for key in ("reconstruction.beta", "membership.tpr_at_fpr_0.01"):
                    shown = tab.inner_text(f'#knob-readout [data-key="{key}"]')
                    assert shown == prob(at.row(key).value), (key, eps)
            tab.eval_on_selector(
                "#prior-slider", "el => { el.value = 3; el.dispatchEvent(new Event('input')); }"
            )
            p = tab.evaluate("EXPLORER.prior.x[3]")
            shown = tab.inner_text('#prior-readout [data-key="reconstruction.beta"]')
            assert shown == prob(explain(epsilon=3, prior=p).row("reconstruction.beta").value)
            shot = tab.screenshot()
            assert not errors, errors
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
        finally:
            browser.close()
    from matplotlib import image

    img = image.imread(__import__("io").BytesIO(shot), format="png")[..., :3]
    assert img.shape[:2] == (1600, 1200)
    # not blank: real variation, and a good share of non-white pixels (text, table, curves)
    assert np.std(img) > 0.1
    assert np.mean(np.any(img < 0.9, axis=-1)) > 0.03
