"""The generated atlas page: every deployment, a sentence each, the lint list, and the committed
page and figure current (what `privrisk docs --check` checks)."""

from pathlib import Path

from privrisk.explain.atlas import lint, load, page

ROOT = Path(__file__).resolve().parents[2]


def test_page_lists_every_deployment_and_lint():
    md = page.markdown()
    atlas = load()
    for e in atlas.entries:
        assert f"`{e.key}" in md
    for x in lint.lints(atlas):
        assert x.text in md
    assert "](atlas.svg)" in md
    assert (ROOT / page.PAGE).read_text(encoding="utf-8") == md


def test_figure_is_current_and_deterministic():
    svg = page.regenerate_figure("")
    assert svg == page.regenerate_figure("")
    assert (ROOT / page.FIGURE).read_text(encoding="utf-8") == svg
