"""The risk explorer: one self-contained page (plotly.js embedded, no network), whose every number
is the library's, with one slider per knob the CLI has. Each slider position carries the command
that prints the same card, and a property test runs those commands; a real browser (Chromium,
driven by Playwright) moves every slider at a desktop and a phone width, reads the plain reading
change with ε, and checks the page without JavaScript shows a static card."""

import functools
import html as htmlmod
import io
import json
import re
import shlex
import shutil

import numpy as np
import pytest

from privrisk.explain import explain, explorer, html
from privrisk.explain.command import parser
from privrisk.pipeline import cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--epsilon", "3", "--prior", "0.1"]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run"]  # fmt: skip


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "card.html"
    assert cli.main(["explain", *ARGS, "--html", str(path)]) == 0
    return path


@functools.cache
def _html_of(items: tuple) -> tuple:
    return html(**dict(items))


def _shared_html(**kwargs):
    """``html(**kwargs)`` made once for the module: the same DP-SGD and zCDP pages are read by
    several tests, and a DP-SGD page's grids take seconds (the page itself is not changed)."""
    return _html_of(tuple(sorted(kwargs.items())))


def _data(text: str) -> dict:
    m = re.search(r"<script>const EXPLORER = (\{.*?\});</script>", text, flags=re.S)
    return json.loads(m.group(1))


def test_page_is_self_contained_with_viewport_reading_noscript_and_a_panel_per_knob(page):
    text = page.read_text(encoding="utf-8")
    card, again = html(epsilon=3, prior=0.1)
    assert text == again  # deterministic: the same page from the API
    assert not re.search(r"<script[^>]*\bsrc=", text) and "<link" not in text
    assert not re.search(r"""<img[^>]*src\s*=\s*["'](?!data:)""", text)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in text
    for r in card.rows:
        assert htmlmod.escape(r.text) in text
    for h in card.headline:
        assert htmlmod.escape(h.text) in text
    assert htmlmod.escape(card.reading) in text
    noscript = re.search(r"<noscript>(.*?)</noscript>", text, flags=re.S).group(1)
    from privrisk.explain.render import text as card_text

    assert htmlmod.escape(card_text(card)) in noscript and ".js-only" in noscript
    names = [p["name"] for p in _data(text)["panels"]]
    assert names == ["epsilon", "delta", "base_rate", "prior", "targets", "attribute_range"]
    for name in names:
        assert f'id="slider-{name}"' in text and f'id="reading-{name}"' in text


def _kwargs(command: str) -> dict:
    args = parser().parse_args(shlex.split(command)[2:])
    return {
        k: v for k, v in vars(args).items() if k not in ("json", "html", "load") and v is not None
    }


def _check_point(p: dict, i: int):
    """The panel's position i shows what `privrisk explain` prints for its command."""
    card = explain(**_kwargs(p["command"][i]))
    for key in p["keys"]:
        assert p["text"][key][i] == card.row(key).text, (p["name"], i, key)
    assert p["reading"][i] == card.reading, (p["name"], i)


CARDS = [
    dict(epsilon=3, prior=0.1),
    dict(epsilon=1, delta=1e-6, values=4, targets=30, base_rate=0.2),
    dict(mu=1.2, prior=0.25),
    dict(sigma=2.0, sensitivity=1.5),
    dict(rho=0.2),
    dict(noise_multiplier=1.1, sample_rate=0.01, steps=600, delta=1e-5, values=10),
]
#: the DP-SGD card of CARDS: its page, made once for the module, is read by the DP-SGD tests too
DPSGD = CARDS[-1]


@pytest.mark.parametrize(
    "kwargs", CARDS, ids=[" ".join(f"{k}={v}" for k, v in c.items()) for c in CARDS]
)
def test_every_panel_position_is_the_card_of_its_command(kwargs):
    card, page = _shared_html(**kwargs)
    data = _data(page)
    rng = np.random.default_rng(len(str(kwargs)))
    assert {p["name"] for p in data["panels"]} >= set(explorer.GUARANTEE_KNOBS[_kind(kwargs)])
    for p in data["panels"]:
        n = len(p["x"])
        assert n >= 20, (p["name"], n)  # a fine grid, not a handful of points
        for i in {0, n - 1, int(rng.integers(n))}:
            _check_point(p, i)
        u = p["user"]
        if not (
            card.guarantee.startswith("DP-SGD") and p["name"] in explorer.GUARANTEE_KNOBS["dpsgd"]
        ):
            assert all(p["text"][k][u] == card.row(k).text for k in p["keys"])
            assert p["reading"][u] == card.reading


def _kind(kwargs) -> str:
    from privrisk.explain import accounted as guarantee

    args = {k: v for k, v in kwargs.items() if k in ("epsilon", "delta", "mu", "sigma", "sensitivity",
            "noise_multiplier", "sample_rate", "steps", "rho")}  # fmt: skip
    return guarantee.parse(**args).kind


def test_dpsgd_panels_say_they_use_the_rdp_accountant_and_keep_the_card_beside():
    card, page = _shared_html(**DPSGD)
    data = _data(page)
    for p in data["panels"]:
        if p["name"] in ("noise_multiplier", "sample_rate", "steps", "delta"):
            assert "--accountant rdp" in p["command"][0] and "RDP accountant" in p["note"]
            assert p["card"] == {k: card.row(k).text for k in p["keys"]}


def test_an_rdp_file_card_has_a_delta_panel_whose_commands_name_the_file(tmp_path, monkeypatch):
    f = tmp_path / "curve.csv"
    f.write_text("# adjacency: add-remove\n2,0.2\n4,0.4\n8,0.8\n16,1.6\n32,3.2\n")
    monkeypatch.chdir(tmp_path)
    card, page = html(rdp="curve.csv")
    p = next(p for p in _data(page)["panels"] if p["name"] == "delta")
    assert "--rdp curve.csv" in p["command"][0]
    _check_point(p, 3)


def test_epsilon_inf_gives_a_curve_and_the_card_at_the_end():
    card, page = html(epsilon="inf")
    p = next(p for p in _data(page)["panels"] if p["name"] == "epsilon")
    assert p["x"][-1] is None and p["xtext"][-1] == "∞" and p["user"] == len(p["x"]) - 1
    assert sum(x is not None for x in p["x"]) > 50
    assert all(p["text"][k][-1] == card.row(k).text for k in p["keys"])
    assert p["reading"][-1] == card.reading and card.reading.startswith("No protection")
    finite = [v for v in p["values"]["reconstruction.beta"][:-1] if v is not None]
    assert len(finite) > 50 and min(finite) < 0.9


def test_the_reading_changes_with_epsilon_and_names_the_level():
    low, high = explain(epsilon=0.05), explain(epsilon=8, delta=1e-5, prior=0.1)
    assert low.reading.startswith("Strong") and high.reading.startswith("No meaningful")
    for c in (low, high):
        assert "knows the release and every other record" in c.reading and "adjacency" in c.reading


# --- a real browser --------------------------------------------------------------------------


def _browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is in the test extra (pip install playwright)"
    )
    if CHROMIUM is None:
        pytest.skip("no Chromium (apt-get install chromium): the browser test needs one")
    return sync_api


def _move(tab, name: str, index: int) -> None:
    tab.eval_on_selector(
        f"#slider-{name}", f"el => {{ el.value = {index}; el.dispatchEvent(new Event('input')); }}"
    )


# a browser: the slow tier (as the report's layout); what the page holds is checked fast by
# test_every_panel_position_is_the_card_of_its_command
@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 390])
def test_chromium_drives_every_slider_at_desktop_and_phone_width(page, width):
    sync_api = _browser()
    data = _data(page.read_text(encoding="utf-8"))
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tab = browser.new_page(viewport={"width": width, "height": 1400})
            requests, errors = [], []
            tab.on("request", lambda r: requests.append(r.url))
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(page.as_uri())
            for p in data["panels"]:
                tab.wait_for_selector(f"#plot-{p['name']} .main-svg", timeout=60_000)
            readings = {}
            for p in data["panels"]:
                name, n = p["name"], len(p["x"])
                for i in sorted({0, n // 3, n - 1}):
                    _move(tab, name, i)
                    assert tab.inner_text(f"#value-{name}") == p["xtext"][i]
                    shown = {
                        k: tab.inner_text(f'#readout-{name} [data-key="{k}"]') for k in p["keys"]
                    }
                    command = tab.inner_text(f"#command-{name}")
                    assert command == p["command"][i]
                    card = explain(**_kwargs(command))  # what the CLI prints for that command
                    assert shown == {k: card.row(k).text for k in p["keys"]}, (name, i)
                    reading = tab.inner_text(f"#reading-{name}")
                    assert reading == card.reading
                    readings.setdefault(name, []).append(reading)
            # the plain reading changes with ε: weak at the top of the grid, strong at ε = 0.05
            assert len(set(readings["epsilon"])) == len(readings["epsilon"])
            eps = next(p for p in data["panels"] if p["name"] == "epsilon")
            _move(tab, "epsilon", 1)
            assert tab.inner_text("#reading-epsilon").startswith("Strong"), eps["xtext"][1]
            # a phone gets a page of its own width, not a desktop page to scroll sideways
            assert tab.evaluate("document.documentElement.scrollWidth") <= width
            shot = tab.screenshot()
            assert not errors, errors
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
        finally:
            browser.close()
    from matplotlib import image

    img = image.imread(io.BytesIO(shot), format="png")[..., :3]
    assert img.shape[:2] == (1400, width)
    assert np.std(img) > 0.1 and np.mean(np.any(img < 0.9, axis=-1)) > 0.03  # not blank


# a browser: the slow tier (as the report's layout); what the page holds is checked fast by the noscript
# card in test_page_is_self_contained_with_viewport_reading_noscript_and_a_panel_per_knob
@pytest.mark.slow
def test_chromium_without_javascript_shows_the_static_card(page):
    sync_api = _browser()
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context(
                java_script_enabled=False, viewport={"width": 390, "height": 900}
            )
            tab = context.new_page()
            tab.goto(page.as_uri())
            assert tab.is_visible("pre.card-text")
            assert "JavaScript is off" in tab.inner_text("body")
            assert not tab.is_visible("#slider-epsilon")
            card = explain(epsilon=3, prior=0.1)
            assert tab.inner_text('#readout-epsilon [data-key="reconstruction.beta"]') == (
                card.row("reconstruction.beta").text
            )
        finally:
            browser.close()


# --- the δ slider moves what depends on δ ---------------------------------------------------


def test_the_delta_slider_follows_only_rows_delta_moves_and_the_epsilon_at_delta():
    """DP-SGD's δ slider moved nothing: every row it followed is read from the whole privacy
    curve, which the quoted δ does not change. It now follows the rows δ moves (each checked to
    move, and each row it leaves out checked not to), the ε the RDP accountant gives at each δ
    (the card's own accountant line at that command), and the last-iterate ε at each δ."""
    import privrisk.explain.atlas.last_iterate as last_iterate

    card, page = _shared_html(**DPSGD)
    p = next(p for p in _data(page)["panels"] if p["name"] == "delta")
    assert p["keys"] == ["membership.advantage_eps_delta"]
    assert p["extra"] == ["epsilon_at_delta", "last_iterate"]
    n = len(p["x"])
    for key in p["keys"]:
        assert len(set(p["text"][key])) > n // 2, key  # it moves along the slider
    cards = {i: explain(**_kwargs(p["command"][i])) for i in (0, n // 3, 2 * n // 3)}
    for key in set(explorer.GUARANTEE_SERIES) - set(p["keys"]):  # left out: δ does not move it
        assert len({c.row(key).text for c in cards.values()}) == 1, key
    for i, c in cards.items():
        _check_point(p, i)
        # the ε at this δ is the accountant line of the card its command prints
        assert p["extra_text"]["epsilon_at_delta"][i] == c.row("dpsgd.accountant").text
        exact = last_iterate.epsilon(p["x"][i], noise_multiplier=1.1, sample_rate=0.01, steps=600)
        shown = float(p["extra_text"]["last_iterate"][i].split()[2])
        assert shown == pytest.approx(exact, rel=0.01, abs=0.005), (i, exact)
    eps = [float(t.split()[2]) for t in p["extra_text"]["epsilon_at_delta"]]
    assert eps[0] > eps[n // 2] > eps[-1]  # ε falls as δ grows
    assert p["extra_card"] == {
        "epsilon_at_delta": card.row("dpsgd.accountant").text,
        "last_iterate": card.row("dpsgd.last_iterate").text,
    }
    assert "does not depend on the δ you quote" in p["note"] and "RDP accountant" in p["note"]


# the μ-GDP, zCDP and (ε, δ) cards of CARDS (their pages made once for the module)
@pytest.mark.parametrize("kwargs", [CARDS[2], CARDS[4], CARDS[1]])
def test_every_delta_panel_moves_something(kwargs):
    """No panel whose slider moves nothing: a row it follows moves, or the ε at δ does."""
    _, page = _shared_html(**kwargs)
    p = next(p for p in _data(page)["panels"] if p["name"] == "delta")
    moved = [k for k in p["keys"] if len(set(p["text"][k])) > 1]
    moved += [k for k in p["extra"] if explorer._moves_text(p["extra_text"][k])]
    assert moved and set(moved) == set(p["keys"]) | set(p["extra"])


# a browser: the slow tier (as the report's layout); what the page holds is checked fast by
# test_the_delta_slider_follows_only_rows_delta_moves_and_the_epsilon_at_delta
@pytest.mark.slow
def test_chromium_drives_the_dpsgd_delta_slider(tmp_path):
    """In the browser: moving δ changes the ε at δ, the last-iterate ε and the (ε, δ) advantage,
    each to the value the page carries for that position, and the command is that position's."""
    sync_api = _browser()
    path = tmp_path / "dpsgd.html"
    argv = ["explain", "--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "600"]
    assert cli.main([*argv, "--delta", "1e-5", "--html", str(path)]) == 0
    p = next(p for p in _data(path.read_text(encoding="utf-8"))["panels"] if p["name"] == "delta")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tab = browser.new_page(viewport={"width": 1280, "height": 1400})
            errors = []
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(path.as_uri())
            tab.wait_for_selector("#plot-delta .main-svg", timeout=60_000)
            seen = []
            n = len(p["x"])
            for i in (0, n // 3, 2 * n // 3):
                _move(tab, "delta", i)
                assert tab.inner_text("#value-delta") == p["xtext"][i]
                assert tab.inner_text("#command-delta") == p["command"][i]
                shown = {
                    k: tab.inner_text(f'#readout-delta [data-key="{k}"]')
                    for k in (*p["keys"], *p["extra"])
                }
                assert shown == {
                    **{k: p["text"][k][i] for k in p["keys"]},
                    **{k: p["extra_text"][k][i] for k in p["extra"]},
                }
                seen.append(shown)
            for k in (*p["keys"], *p["extra"]):  # each readout moved with the slider
                assert len({s[k] for s in seen}) == 3, k
            assert not errors, errors
        finally:
            browser.close()
