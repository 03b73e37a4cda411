"""The generated atlas page: every deployment, a sentence each, the lint list, and the committed
page and figure current (what `privrisk docs --check` checks).

The atlas's numbers (``cards.headlines``, ~13 s of CPU for every deployment) are computed once
for the module and handed to the page and the figure; each comparison with the committed file,
made by ``privrisk docs --write`` in another process, still pins the numbers themselves."""

from pathlib import Path

import pytest

from privrisk.explain.atlas import cards, lint, load, page

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rows():
    return cards.headlines(load())


@pytest.fixture
def computed_once(rows, monkeypatch):
    """``cards.headlines`` of the whole atlas answers with the module's rows."""
    whole = load()

    def headlines(atlas=None, **kw):
        assert not kw and (atlas is None or atlas.entries == whole.entries), kw
        return rows

    monkeypatch.setattr(page.cards, "headlines", headlines)


def test_page_lists_every_deployment_and_lint(computed_once):
    md = page.markdown()
    atlas = load()
    for e in atlas.entries:
        assert f"`{e.key}" in md
    for x in lint.lints(atlas):
        assert x.text in md
    assert "](atlas.svg)" in md
    assert (ROOT / page.PAGE).read_text(encoding="utf-8") == md


def test_figure_is_current_and_deterministic(computed_once):
    svg = page.regenerate_figure("")
    assert svg == page.regenerate_figure("")
    assert (ROOT / page.FIGURE).read_text(encoding="utf-8") == svg
