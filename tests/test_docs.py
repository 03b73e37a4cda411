"""The documentation: a short README, a docs site whose generated pages are current, whose nav names
only pages that exist, and which never points outside the repository."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

from privrisk.core import discovery
from privrisk.pipeline import config, docs
from tests.conftest import REPO

#: nav pages allowed to be missing (none: every page of the nav exists)
PENDING: set[str] = set()


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for v in node.values() for p in _nav_pages(v)]
    return []


def _mkdocs() -> dict:
    # mkdocs.yml has no custom tags, so the plain loader reads it
    return yaml.safe_load((REPO / "mkdocs.yml").read_text())


def test_every_docs_page_is_in_the_nav_and_the_hook_is_no_page():
    conf = _mkdocs()
    assert conf["hooks"] == ["docs/hooks.py"] and "hooks.py" in conf["exclude_docs"]


def test_readme_is_short_and_links_the_docs():
    text = (REPO / "README.md").read_text()
    assert len(text.encode()) <= 10_000, f"README.md is {len(text.encode()):,} bytes (limit 10,000)"
    for page in ("docs/running.md", "docs/status.md", "docs/config.md", "docs/development.md"):
        assert f"]({page})" in text, f"README does not link {page}"


def test_readme_paper_table_is_current():
    text = (REPO / "README.md").read_text()
    assert docs.readme(text) == text, "stale: python -m privrisk.pipeline.docs --write"
    for key in discovery.paper_keys():
        assert f"[`{key}`](src/privrisk/papers/{key}/)" in text


def test_every_paper_gets_a_page_with_its_figures_and_notes():
    """The pages the site's build hook makes (docs/hooks.py): each figure with its docstring
    caption, each step, the package's notes, links to the status page and the config reference."""
    cfg = config.load(REPO / "config/config.yaml")
    from privrisk.pipeline import workflow

    for key in discovery.paper_keys():
        page = docs.paper_page(key, cfg)
        reg = workflow.load_registry(key, cfg)
        assert page.startswith(f"# `{key}`: {discovery.paper(key).title}")
        for decl in (*reg.steps, *reg.figures):
            assert f"| `{decl.name}`" in page, f"{key}: {decl.name} missing from its page"
        assert "](../status.md)" in page and f"](../config.md#{key})" in page
        assert "## Choices where the paper is silent" in page
        notes = (discovery.files(key) / "notes.md").read_text()
        assert notes.splitlines()[2].strip() in page  # the notes' text, headings demoted


def test_the_hook_puts_every_paper_in_the_nav():
    conf = {"nav": _mkdocs()["nav"]}
    docs.on_config(conf)
    section = next(
        item["Papers"] for item in conf["nav"] if isinstance(item, dict) and "Papers" in item
    )
    pages = _nav_pages(section)
    assert pages[: len(discovery.paper_keys())] == [
        f"papers/{k}.md" for k in discovery.paper_keys()
    ]


def test_nav_names_only_existing_pages_except_the_pending_ones():
    pages = _nav_pages(_mkdocs()["nav"])
    missing = {p for p in pages if not (REPO / "docs" / p).is_file()}
    assert missing <= PENDING, f"nav pages with no file: {sorted(missing - PENDING)}"
    # a page that arrived must leave PENDING, so the tolerance does not outlive its reason
    assert not (PENDING - missing), f"now present, remove from PENDING: {sorted(PENDING - missing)}"


def test_every_docs_page_is_in_the_nav():
    pages = set(_nav_pages(_mkdocs()["nav"]))
    files = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert files <= pages, f"pages missing from mkdocs.yml's nav: {sorted(files - pages)}"


def test_nothing_points_outside_the_repository():
    texts = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "mkdocs.yml"]
    texts += sorted((REPO / "docs").rglob("*.md"))
    texts += sorted((REPO / "src" / "privrisk" / "papers").rglob("notes.md"))
    bad = [str(p.relative_to(REPO)) for p in texts if "../shared" in p.read_text()]
    assert not bad, f"references to ../shared (a clone does not have it): {bad}"


def _slug(heading: str) -> str:
    """The anchor the site's toc extension gives a heading (Python-Markdown's default slugify)."""
    ascii_ = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", ascii_).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def test_docs_links_resolve_inside_the_site():
    """Relative Markdown links between docs pages name existing files (mkdocs --strict does the
    same; this runs without mkdocs installed). A paper's page (``papers/<key>.md``, with its
    notes.md) is made at build time: a link to it names a paper, and its anchor a heading of it."""
    cfg = config.load(REPO / "config/config.yaml")
    generated = {
        (REPO / "docs" / "papers" / f"{k}.md").resolve(): {
            _slug(h) for h in re.findall(r"^#+ (.+)$", docs.paper_page(k, cfg), re.M)
        }
        for k in discovery.paper_keys()
    }
    broken = []
    for page in (REPO / "docs").rglob("*.md"):
        for target, anchor in re.findall(r"\]\(([^)#\s]+)(?:#([^)]*))?\)", page.read_text()):
            if "://" in target:
                continue
            path = (page.parent / target).resolve()
            if path in generated:
                if anchor and anchor not in generated[path]:
                    broken.append(f"{page.relative_to(REPO)} -> {target}#{anchor}")
            elif not path.is_file():
                broken.append(f"{page.relative_to(REPO)} -> {target}")
    assert not broken, broken


def test_a_link_into_a_paper_page_is_checked():
    """The anchors the check above reads from a paper's page are the site's (a check that cannot
    fail proves nothing): the notes' demoted headings, e.g. xu2022's replicate runs."""
    assert _slug("The same numbers whatever the batch: shards") == (
        "the-same-numbers-whatever-the-batch-shards"
    )
    page = docs.paper_page("xu2022", config.load(REPO / "config/config.yaml"))
    assert "\n### Replicate training runs, batched\n" in page
    assert "\n#### The same numbers whatever the batch: shards\n" in page


@pytest.mark.slow
def test_site_builds_strict(tmp_path):
    exe = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which("mkdocs")
    if exe is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    proc = subprocess.run(
        [exe, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for key in discovery.paper_keys():  # made by the hook
        assert (tmp_path / "site" / "papers" / key / "index.html").is_file()
