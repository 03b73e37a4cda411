"""Captions, one place per figure (CONTRIBUTING "Where a thing goes inside a paper"): the caption of
record is the figure's inline ``FigureResult.caption`` (with the run's values; its provenance record
keeps it); the docstring is the function's one-line title, which the generic report caption
``workflow/report/figure.rst`` shows; ``captions/<fig>.rst`` is a report caption only where it says
what the inline one does not, never a copy of it. A new figure needs no caption file."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

from privrisk.core import discovery
from privrisk.pipeline import workflow
from tests.conftest import REPO


def test_caption_file_in_the_package_when_present_else_the_generic_one():
    own = workflow.caption_path("xu2022", "fig3")
    assert Path(own) == Path(str(discovery.files("xu2022"))) / "captions" / "fig3.rst"
    assert Path(own).is_absolute() and Path(own).is_file()
    assert workflow.caption_path("thudi2022", "fig1") == workflow.GENERIC_CAPTION
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


# --- no figure has two captions that say the same ------------------------------------------------

#: a run of this many characters shared with the inline caption's text is a copy, not an addition
COPY = 40


def _norm(text: str) -> str:
    return " ".join(text.split())


def _caption_code(tree: ast.AST):
    """The parts of a figure module that make an inline caption: ``caption=`` arguments,
    assignments to a name containing "caption", and functions named ``*caption*``."""
    for n in ast.walk(tree):
        if isinstance(n, ast.keyword) and n.arg == "caption":
            yield n.value
        elif isinstance(n, ast.Assign | ast.AnnAssign) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and "caption" in t.id.lower() for t in targets):
                yield n.value
        elif isinstance(n, ast.FunctionDef) and "caption" in n.name.lower():
            yield from n.body[1:] if ast.get_docstring(n) else n.body


def _inline_pieces(source: str) -> list[str]:
    """The literal text (plain and f-string parts) of a module's inline captions, each at least
    COPY characters long, whitespace-normalised."""
    out = []
    for root in _caption_code(ast.parse(source)):
        for n in ast.walk(root):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                t = _norm(n.value)
                if len(t) >= COPY:
                    out.append(t)
    return out


def _copies(folder: Path) -> list[str]:
    """Where a paper package says a figure's inline caption twice: an override file, or a figure
    function's docstring, that contains a piece of it (or a docstring contained in one)."""
    pieces, docs = [], []
    for path in sorted(folder.glob("figures*.py")):
        source = path.read_text()
        pieces += _inline_pieces(source)
        for n in ast.parse(source).body:
            if isinstance(n, ast.FunctionDef) and ast.get_docstring(n):
                docs.append((f"{path.name}:{n.name}", _norm(ast.get_docstring(n))))
    found = []
    for rst in sorted((folder / "captions").glob("*.rst")):
        text = _norm(rst.read_text())
        found += [f"captions/{rst.name} repeats {p[:60]!r}" for p in pieces if p in text][:1]
    for where, doc in docs:
        same = [p for p in pieces if p in doc or (len(doc) >= COPY and doc in p)]
        found += [f"{where} docstring repeats {p[:60]!r}" for p in same][:1]
    return found


@pytest.mark.parametrize("key", discovery.paper_keys())
def test_no_figure_has_two_captions_that_say_the_same(key):
    copies = _copies(Path(str(discovery.files(key))))
    assert not copies, (
        f"{key}: the inline FigureResult.caption is the caption of record; keep captions/<fig>.rst "
        "only for what it does not say, and the docstring a one-line title: " + "; ".join(copies)
    )


def test_a_copied_caption_is_found(tmp_path):
    """The check fails on an override file that starts with the inline text and on a docstring
    that repeats it (a check that cannot fail proves nothing)."""
    inline = "Figure 9. The bound on the success of an attack against epsilon, one curve per prior"
    (tmp_path / "captions").mkdir()
    (tmp_path / "figures.py").write_text(
        f'def fig9(params):\n    """{inline} at each ε."""\n'
        f'    caption = f"{inline} at {{params}}."\n    return caption\n'
    )
    # the override as the report would show it: the inline text rendered at one run's values
    (tmp_path / "captions" / "fig9.rst").write_text(f"{inline} at 0.5.\n\nData: x.csv\n")
    copies = _copies(tmp_path)
    assert len(copies) == 2 and copies[0].startswith("captions/fig9.rst")
    (tmp_path / "captions" / "fig9.rst").write_text(
        "Bands: ±{{ snakemake.params.cfg['z'] }} s.e.\n"
    )
    (tmp_path / "figures.py").write_text(
        f'def fig9(params):\n    """The bound against ε."""\n'
        f'    caption = f"{inline} at {{params}}."\n    return caption\n'
    )
    assert _copies(tmp_path) == []
