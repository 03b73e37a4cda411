"""The HTML card: one self-contained page (no external reference, the figure embedded), and the
page rendered in headless Chromium shows the card's numbers and is not blank."""

import base64
import html as htmlmod
import io
import re
import shutil
import subprocess

import numpy as np
import pytest

from privrisk import cli
from privrisk.explain import html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--epsilon", "3", "--prior", "0.1"]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "card.html"
    assert cli.main(["explain", *ARGS, "--html", str(path)]) == 0
    return path


def _numbers(card):
    """The texts that must be visible: every row's value as shown."""
    return [r.text for r in card.rows]


def test_page_is_self_contained_with_the_table_and_the_figure(page):
    text = page.read_text(encoding="utf-8")
    card, again = html(epsilon=3, prior=0.1)
    assert text == again  # deterministic: the same page from the API
    assert not re.search(r"""(src|href)\s*=\s*["'](?!data:)""", text), "external reference"
    assert "<script" not in text
    for shown in _numbers(card):
        assert htmlmod.escape(shown) in text
    (b64,) = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text)
    from matplotlib import image

    img = image.imread(io.BytesIO(base64.b64decode(b64)), format="png")
    assert img.shape[0] > 300 and img.shape[1] > 600 and np.std(img[..., :3]) > 0.05


def _chromium(*args, tmp_path):
    base = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_page_renders_in_headless_chromium_with_the_numbers_and_not_blank(page, tmp_path):
    dom = _chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    card, _ = html(epsilon=3, prior=0.1)
    for shown in _numbers(card):
        assert htmlmod.escape(shown) in dom.stdout, shown
    assert "0.691" in dom.stdout and "0.955" in dom.stdout
    shot = tmp_path / "card.png"
    res = _chromium(
        f"--screenshot={shot}", "--window-size=1200,2000", page.as_uri(), tmp_path=tmp_path
    )
    assert res.returncode == 0 and shot.exists(), res.stderr[-2000:]
    from matplotlib import image

    img = image.imread(shot)[..., :3]
    assert img.shape[:2] == (2000, 1200)
    # not blank: real variation, and a good share of non-white pixels (text, table, figure)
    assert np.std(img) > 0.1
    assert np.mean(np.any(img < 0.9, axis=-1)) > 0.03
