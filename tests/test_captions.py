"""Captions, one place per figure (CONTRIBUTING "Where a thing goes inside a paper"): the caption of
record is the figure's inline ``FigureResult.caption`` (with the run's values; its provenance record
keeps it); the docstring is the function's one-line title, which the generic report caption
``workflow/report/figure.rst`` shows; ``captions/<fig>.rst`` is a report caption only where it says
what the inline one does not, never a copy of it nor a retelling in other words (checked below on
content words, not only on verbatim runs). A new figure needs no caption file."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

from privrisk.core import discovery
from privrisk.pipeline import workflow
from tests.conftest import REPO


def test_caption_file_in_the_package_when_present_else_the_generic_one():
    own = workflow.caption_path("swanberg2025", "fig3")
    assert Path(own) == Path(str(discovery.files("swanberg2025"))) / "captions" / "fig3.rst"
    assert Path(own).is_absolute() and Path(own).is_file()
    assert workflow.caption_path("xu2022", "fig3") == workflow.GENERIC_CAPTION
    assert workflow.caption_path("thudi2022", "fig1") == workflow.GENERIC_CAPTION
    assert workflow.caption_path("thudi2022", "fig_new") == workflow.GENERIC_CAPTION
    assert (REPO / "workflow" / "rules" / workflow.GENERIC_CAPTION).is_file()


def test_every_caption_file_renders_as_the_report_renders_it():
    """A paper's own report caption is a Jinja template over the job (as Snakemake's report renders
    it): with a figure's params, title and outputs it leaves nothing unrendered."""
    from privrisk.pipeline import config

    cfg = config.load(REPO / "config/config.yaml")
    rendered = 0
    for key in discovery.paper_keys():
        for fig in workflow.load_registry(key, cfg).figures:
            path = workflow.caption_path(key, fig.name)
            if path == workflow.GENERIC_CAPTION:
                continue
            sm = SimpleNamespace(
                params=SimpleNamespace(
                    cfg=workflow.params(cfg, key, fig), caption=f"Title of {fig.name}."
                ),
                output=SimpleNamespace(csv=f"results/{key}/{fig.name}.csv", json="x.json"),
                config=cfg,
            )
            env = jinja2.Environment(undefined=jinja2.StrictUndefined)
            text = env.from_string(Path(path).read_text()).render(snakemake=sm)
            assert "{{" not in text and f"Title of {fig.name}." in text, (key, fig.name)
            rendered += 1
    assert rendered >= 1  # swanberg2025's fig3 points to its tuning grid


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


# --- no caption file retells the inline captions in other words -----------------------------------

#: a caption file retells when at least this share of its content words are already in the
#: strings of its paper's figure modules (the inline captions and what the provenance records) …
RETELL = 0.5
#: … and it has at least this many of them (a line pointing to a file is no retelling)
MIN_WORDS = 8
#: words a report caption uses about the report itself, not about the figure
REPORT_WORDS = {"caption", "captions", "csv", "data", "figure", "json", "latex", "markdown"}
REPORT_WORDS |= {"provenance", "record", "report", "results", "table"}
#: the usual function words of English (content words are the rest, 4 letters or more)
STOP = set(
    """about above after again against along also among another because been before being below
    between both could does done each either every from have having here into itself just like
    many more most much must never once only other over same should since some such than that
    their them then there these they this those through under until upon very were what when
    where whether which while whose will with within without would""".split()
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d+(?:\.\d+)?(?:e-?\d+)?")


def _content_words(text: str) -> set[str]:
    """The content words and numbers of ``text``: Jinja expressions, ``literals`` and result
    paths left out, lower case, 4 letters or more, no function word."""
    text = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|``[^`]*``|\S*results/\S*", " ", text, flags=re.S)
    out = set()
    for w in _WORD.findall(text.lower()):
        w = w.strip("'’-")
        if w[:1].isdigit() or (len(w) >= 4 and w not in STOP):
            out.add(w)
    return out


def _retellings(folder: Path) -> list[str]:
    """Caption files of a paper package whose content words are mostly said already by the
    strings of its figure modules: the inline captions (and what the figures record), retold."""
    said = set()
    for path in sorted(folder.glob("figures*.py")):
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                said |= _content_words(n.value)
    found = []
    for rst in sorted((folder / "captions").glob("*.rst")):
        own = {folder.name, rst.stem}
        words = {
            w
            for w in _content_words(rst.read_text())
            if w not in REPORT_WORDS and w not in own and not re.fullmatch(r"(fig|table)\w*", w)
        }
        share = len(words & said) / len(words) if words else 0.0
        if len(words) >= MIN_WORDS and share >= RETELL:
            found.append(
                f"captions/{rst.name}: {share:.0%} of its {len(words)} content words are the "
                f"figure's own ({', '.join(sorted(words & said)[:6])}, …)"
            )
    return found


@pytest.mark.parametrize("key", discovery.paper_keys())
def test_no_caption_file_retells_the_inline_caption(key):
    found = _retellings(Path(str(discovery.files(key))))
    assert not found, (
        f"{key}: the inline FigureResult.caption is the only prose of a figure; a captions/<fig>.rst "
        "holds only what a report needs that the caption cannot (a link to another file): "
        + "; ".join(found)
    )


#: xu2022's captions/fig5.rst before it went (a retelling of figures_dp.py's inline caption)
RETOLD = (
    "Xu et al. 2022 (Mace) Figure 5: membership advantage of DP-cGANs on MNIST 0-vs-6 (the bundled "
    "real sample) against ε, querying the discriminator's logit binned over its pooled range: the "
    'paper\'s W_N with its McDiarmid half-width (its upper end decides "below"), the null baseline, '
    'the cross-fitted classifier (± 2 bootstrap s.e.: its lower end decides "above"), the '
    "non-private control (ε = ∞, which must leak first) and the bound tanh(ε/2), drawn once."
)


def test_a_retold_caption_is_found(tmp_path):
    """The check fails on a caption file that says the inline caption again in other words, which
    the verbatim check misses (the xu2022 Figure 5 file the issue named, against the real module),
    and passes a file that only points to what the caption cannot hold."""
    folder = tmp_path / "xu2022"
    (folder / "captions").mkdir(parents=True)
    dp = Path(str(discovery.files("xu2022"))) / "figures_dp.py"
    (folder / "figures_dp.py").write_text(dp.read_text())
    (folder / "captions" / "fig5.rst").write_text(RETOLD + "\n")
    assert _copies(folder) == []  # no run of COPY characters in common: not a copy
    (found,) = _retellings(folder)
    assert re.match(r"captions/fig5\.rst: (\d+)% of its 3\d content words", found), found
    # a paraphrase with the words reordered and the function words changed is found all the same
    (folder / "captions" / "fig5.rst").write_text(
        "Drawn once: tanh(ε/2). Against ε, for DP-cGANs of MNIST 0-vs-6, a membership advantage; "
        "McDiarmid's half-width beside W_N of the paper; a classifier, cross-fitted; a control "
        "that is non-private and must leak before anything.\n"
    )
    assert len(_retellings(folder)) == 1
    # what a report needs that a caption cannot hold: a link to another file, no retelling
    (folder / "captions" / "fig5.rst").write_text(
        "{{ snakemake.params.caption }}\n\nThe models' training losses, which neither the caption "
        "nor the data hold: ``results/xu2022/intermediate/dpcgan_eps2_record.json``.\n"
    )
    assert _retellings(folder) == []
