"""The generated documentation, and ``privrisk docs --write`` / ``--check``, the one command that
regenerates or checks every generated doc (CI and CONTRIBUTING call it):

* ``docs/config.md``, the config reference, from the schemas (:func:`privrisk.pipeline.config.readme`);
* the paper table of ``README.md`` (read without the site), between ``<!-- papers:begin -->`` and
  ``<!-- papers:end -->``, from each paper package's ``PAPER`` (:func:`readme`);
* the examples of ``docs/explain.md``, from ``privrisk explain`` (:mod:`privrisk.explain.docs`);
* ``docs/status.md``, the status page, from a run's ``results/`` (:mod:`privrisk.contract.status`):
  ``--check`` checks every paper that has results (all of them after a clean run, as in CI) and
  says which it did not; ``--write`` writes the whole page from a clean run's results only (one
  paper's block is ``privrisk status --write --paper KEY``, on purpose); with no results, one
  line says the page was not written or checked and which command does it.

``--check`` prints one line per stale doc naming the command that fixes it and exits 1 if any is
stale. Each generator also keeps its own entry point (``python -m privrisk.pipeline.config
--readme``, ``python -m privrisk.pipeline.docs --write``, ``python -m privrisk.explain.docs PAGE
--write``, ``privrisk status --write``).

Made at build time, never committed: one page per paper, ``papers/<key>.md``, and the paper table
of the site's index (``mkdocs.yml`` loads ``docs/hooks.py``, which calls :func:`on_config`,
:func:`on_files` and :func:`on_page_markdown`), so adding a figure or a paper needs no edit of the
docs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core import discovery, records, safe_io
from . import config, workflow

BEGIN = "<!-- papers:begin -->"
END = "<!-- papers:end -->"
README = "README.md"
#: the site's page holding the paper table (filled at build time)
INDEX = "index.md"
#: the nav section the paper pages go to (before the entries it already lists)
NAV_SECTION = "Papers"
#: the largest generated doc read back (the biggest, docs/config.md, is under 100 KiB)
MAX_BYTES = 8 << 20


def paper_table(link: str) -> str:
    """The Markdown table of every paper, each key linking to ``link.format(key=key)``."""
    rows = ["| key | paper | what it needs |", "|---|---|---|"]
    for key in discovery.paper_keys():
        p = discovery.paper(key)
        target = link.format(key=key)
        rows.append(f"| [`{key}`]({target}) | {p.authors}, *{p.title}* ({p.venue}) | {p.summary} |")
    return "\n".join(rows)


def _demote(markdown: str) -> str:
    """Headings one level down, the notes' title dropped (the page gives its own)."""
    out = []
    for line in markdown.splitlines():
        if line.startswith("# "):
            continue
        out.append("#" + line if line.startswith("#") else line)
    return "\n".join(out).strip()


def _first_sentence(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def paper_page(key: str, cfg: dict) -> str:
    """The site's ``papers/<key>.md``: what the paper is, what the pipeline makes of it, the choices."""
    p = discovery.paper(key)
    reg = workflow.load_registry(key, cfg)
    out = [
        f"# `{key}`: {p.title}",
        "",
        f"{p.authors}, *{p.title}* ({p.venue}).",
        "",
    ]
    if p.version:
        out += [p.version, ""]
    out += [
        f"Run it with `snakemake --cores 2 {key}`; its outputs land in `results/{key}/`. How each of",
        f"its claims fares is on the [status page](../status.md); its config keys are under "
        f"[`{key}` in the config reference](../config.md#{key}); its code is "
        f"`src/privrisk/papers/{key}/`.",
        "",
        "## Figures and tables",
        "",
        "Each is one rule; the title is the figure function's docstring. Its caption, with the",
        f"run's values, is in its provenance record (`results/{key}/<figure>.json`) and the report.",
        "",
        "| output | made by | reads steps | title |",
        "|---|---|---|---|",
    ]
    for fig in reg.figures:
        steps = sorted({ref.step for ref in fig.inputs.values()})
        out.append(
            f"| `{fig.name}`{' (table)' if fig.table else ''} | `{fig.func.rpartition('.')[2]}` "
            f"| {', '.join(f'`{s}`' for s in steps) or '—'} "
            f"| {_first_sentence(workflow.figure_caption(fig.func))} |"
        )
    if reg.steps:
        out += [
            "",
            "## Steps",
            "",
            "Expensive computations whose files the figures read (training, attacks, sweeps);",
            "editing a plot never reruns them. Resources are what a cluster job asks for.",
            "",
            "| step | made by | writes | quick scale | paper scale |",
            "|---|---|---|---|---|",
        ]
        for step in reg.steps:
            q, pa = step.resources_for("quick"), step.resources_for("paper")
            res = [
                f"{r.threads} thread(s), {r.mem_mb:,} MB, {r.runtime} min"
                + (", GPU" if r.gpu else "")
                for r in (q, pa)
            ]
            out.append(
                f"| `{step.name}` | `{step.func.rpartition('.')[2]}` "
                f"| {', '.join(f'`{f}`' for f in step.outputs.values())} | {res[0]} | {res[1]} |"
            )
    notes = discovery.files(key) / "notes.md"
    if notes.is_file():
        out += ["", "## Choices where the paper is silent", "", _demote(notes.read_text())]
    out += [
        "",
        "## Timings",
        "",
        "Measured job times at quick and paper scale are on the [benchmarks page](../benchmarks.md).",
    ]
    return "\n".join(out) + "\n"


def _with_table(text: str, where: str, table: str) -> str:
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(f"{where}: needs exactly one {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def readme(text: str) -> str:
    """The README with its paper table current."""
    # the paper pages exist only in the built site: the README links each paper's package
    return _with_table(text, README, paper_table("src/privrisk/papers/{key}/"))


# --- the mkdocs hooks (docs/hooks.py) ------------------------------------------------------------


def _site_config(mkdocs_config) -> dict:
    root = Path(mkdocs_config["config_file_path"]).parent
    return config.load(root / "config" / "config.yaml")


def on_config(mkdocs_config):
    """Put every paper's page at the head of the nav's ``Papers`` section."""
    pages = [{key: f"papers/{key}.md"} for key in discovery.paper_keys()]
    for item in mkdocs_config["nav"] or []:
        if isinstance(item, dict) and NAV_SECTION in item:
            item[NAV_SECTION] = pages + list(item[NAV_SECTION] or [])
            return mkdocs_config
    raise ValueError(f"mkdocs.yml: the nav has no {NAV_SECTION!r} section for the paper pages")


def on_files(files, config):  # noqa: ARG001 (mkdocs' hook signature)
    """Add the generated ``papers/<key>.md`` pages to the site."""
    from mkdocs.structure.files import File

    cfg = _site_config(config)
    for key in discovery.paper_keys():
        files.append(File.generated(config, f"papers/{key}.md", content=paper_page(key, cfg)))
    return files


def on_page_markdown(markdown, page, config, files):  # noqa: ARG001
    """Fill the index's paper table (links relative to the index)."""
    if page.file.src_uri == INDEX:
        return _with_table(markdown, INDEX, paper_table("papers/{key}.md"))
    return markdown


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m privrisk.pipeline.docs``: the README's paper table alone (kept for its callers)."""
    ap = argparse.ArgumentParser(
        prog="python -m privrisk.pipeline.docs", description="the README's paper table"
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite README.md's paper table")
    mode.add_argument("--check", action="store_true", help="exit 1 when it is stale")
    args = ap.parse_args(argv)
    path = Path(README)
    text = path.read_text()
    want = readme(text)
    if args.check:
        if want != text:
            print(
                f"{path}'s paper table is stale: python -m privrisk.pipeline.docs --write",
                file=sys.stderr,
            )
            return 1
        return 0
    if want != text:
        _write_atomic(path, want)
        print(f"wrote {path}")
    return 0


# --- `privrisk docs`: every generated doc -----------------------------------------------------

#: the command that writes every generated doc; the one a stale doc's line names
WRITE = "privrisk docs --write"


@dataclass(frozen=True)
class Generated:
    """A committed file made from the code: ``make`` turns its text into the current one."""

    path: str
    what: str
    make: Callable[[str], str]
    #: the generator's own command, for a caller that wants this file alone
    alone: str


def _config_reference(_: str) -> str:
    return config.readme()


def _explain_examples(text: str) -> str:
    from ..explain import docs as explain_docs

    return explain_docs.regenerate(text)


def _atlas(which: str) -> Callable[[str], str]:
    def make(text: str) -> str:
        from ..explain.atlas import page

        return getattr(page, which)(text)

    return make


def _quoted_table(key: str) -> Callable[[str], str]:
    def make(text: str) -> str:
        from ..contract import quoted

        return quoted.with_table(key, text)

    return make


def _quoted_notes() -> tuple[Generated, ...]:
    """Each paper's table of quoted numbers in its notes.md, from its quoted.yaml: the papers of
    this package (found by their files, not imported; a paper found through PRIVRISK_PAPERS keeps
    its notes elsewhere)."""
    from .. import papers

    here = Path(papers.__file__).parent
    return tuple(
        Generated(
            f"src/privrisk/papers/{d.name}/notes.md",
            f"{d.name}'s quoted numbers, from its quoted.yaml",
            _quoted_table(d.name),
            "privrisk docs --write",
        )
        for d in sorted(here.iterdir())
        if (d / "quoted.yaml").is_file()
    )


GENERATED = (
    Generated(
        "docs/config.md",
        "the config reference, from the schemas",
        _config_reference,
        "python -m privrisk.pipeline.config --readme > docs/config.md",
    ),
    Generated(
        README,
        "the paper table, from each paper package",
        readme,
        "python -m privrisk.pipeline.docs --write",
    ),
    Generated(
        "docs/explain.md",
        "the risk card examples, from privrisk explain",
        _explain_examples,
        "python -m privrisk.explain.docs docs/explain.md --write",
    ),
    Generated(
        "docs/atlas.md",
        "the risk atlas, from privrisk atlas",
        _atlas("regenerate_page"),
        "privrisk docs --write",
    ),  # fmt: skip
    Generated(
        "docs/atlas.svg",
        "the risk atlas figure",
        _atlas("regenerate_figure"),
        "privrisk docs --write",
    ),  # fmt: skip
    *_quoted_notes(),
)


def _record_columns(page: Path, *, write: bool) -> tuple[list[str], bool]:
    """The status page's record columns against ``records/`` (docs/records.md): rewritten with
    ``write``, else one line per record the page does not show as it is; and whether stale."""
    from ..contract import status
    from ..contract import status_data as D

    old = status.page_data(page)
    if old is None:
        return [], False
    if write:
        changed = status.write(page, old, status.RECORDS_COMMAND)
        return ([f"{page}: record columns updated from records/"] if changed else []), False
    differ = D.records_differ(old.get("records", []), D.record_columns())
    return [
        f"{page}: records/{name}: its column on the page is not what records/ holds; fix: "
        f"{status.RECORDS_COMMAND}"
        for name in differ
    ], bool(differ)


def _status(results: Path, *, write: bool) -> tuple[list[str], bool]:
    """The status page, made from a run, not from the code. ``--check`` checks it against
    ``results`` when that holds any paper's results (those papers, saying which it did not);
    ``--write`` writes it only from a clean run's (every paper's): a paper's block is rewritten
    on purpose (``privrisk status --write --paper KEY``), never from whatever older results lie
    beside the one just rebuilt. Otherwise one line says it was not written or checked and which
    command does it. Returns the lines to print and whether the page is stale."""
    from ..contract import status
    from ..core.discovery import paper_keys

    page = Path(status.STATUS_FILE)
    present = [key for key in paper_keys() if (results / key).is_dir()]
    if not present:
        # the record columns come from records/, not from a run: written or checked all the same
        cols, cols_stale = _record_columns(page, write=write)
        return [
            f"{page}: not {'written' if write else 'checked'}: it is made from a run's results and "
            f"{results}/ holds none (after `snakemake --cores 2`: `privrisk docs "
            f"{'--write' if write else '--check'}`; after `snakemake --cores 2 KEY`: "
            f"`privrisk status --write --paper KEY`{'' if write else ', then this'})"
        ] + cols, cols_stale
    old = status.page_data(page)
    data, unchecked = status.expected(old, results)
    if write and unchecked:
        return [
            f"{page}: not written: {results}/ holds only some papers' results "
            f"({', '.join(present)}); for each paper you rebuilt: privrisk status --write "
            f"--paper KEY (the whole page: {status.COMMAND} after a clean run)"
        ], False
    if write:
        changed = status.write(page, data, "privrisk docs --write")
        return [f"{page}: {'updated' if changed else 'current'} from {results}/"], False
    lines = []
    if unchecked:
        lines.append(
            f"{page}: not checked for the papers without results in {results}/: "
            f"{', '.join(unchecked)} (a clean run, `snakemake --cores 2`, covers them)"
        )
    problems, moves, _ = status.check_results(page, results)
    lines += [f"{page}: {m}" for m in moves]
    lines += [f"{page}: {p}" for p in problems]
    if not problems:
        lines.append(f"{page}: agrees with {results}/" + (" (its papers)" if unchecked else ""))
    if any("privrisk status" not in p for p in problems):
        # a row that moved (not one missing on either side): its paper's results decide it
        lines.append(
            f"{page}: fix the rows above: privrisk status --write --paper KEY after "
            f"snakemake --cores 2 KEY (one paper), or {status.COMMAND} after a clean run"
        )
    return lines, bool(problems)


def docs_main(argv: Sequence[str] | None = None) -> int:
    """``privrisk docs --write`` / ``--check``: every generated doc (see the parser's epilog)."""
    from ..contract import status

    ap = argparse.ArgumentParser(
        prog="privrisk docs",
        description="Write (--write) or check (--check) every generated doc: "
        + "; ".join(f"{g.path} ({g.what})" for g in GENERATED)
        + f"; {status.STATUS_FILE} (the status page, from a run's results/).",
        epilog="The status page is made from a run, not from the code: --check checks the papers "
        "that have results in results/ (every paper after a clean `snakemake --cores 2`) and says "
        "which it did not; --write writes it from a clean run only (one paper's block: `privrisk "
        "status --write --paper KEY` after `snakemake --cores 2 KEY`); with no results one line "
        "says it was left alone. --check prints one line per stale doc naming the command that fixes it "
        "and exits 1 if any is stale. Run it in the checkout's root.",
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate every generated doc")
    mode.add_argument("--check", action="store_true", help="exit 1 if any is stale")
    ap.add_argument(
        "--results",
        help="the run's results (default: results; a folder named here must exist)",
    )
    args = ap.parse_args(argv)
    # a folder named on purpose that is not there is a mistake, not "nothing to check": exit 2.
    # The default's absence (a fresh clone) is said in one line and the other docs are checked.
    if args.results is not None:
        try:
            safe_io.check_folder(args.results, what="--results")
        except safe_io.FileRefused as err:
            print(f"privrisk docs: {err}", file=sys.stderr)
            return 2
    args.results = args.results or "results"
    for path in [*(g.path for g in GENERATED), status.STATUS_FILE]:
        if not Path(path).is_file():
            print(f"privrisk docs: no {path} here; run it in the checkout's root", file=sys.stderr)
            return 2
    stale = []
    try:
        for g in GENERATED:
            text = safe_io.read_user_file(g.path, max_bytes=MAX_BYTES, what="generated doc")
            want = g.make(text)
            if want == text:
                continue
            if args.write:
                _write_atomic(Path(g.path), want)
                print(f"{g.path}: rewritten ({g.what})")
            else:
                stale.append(f"{g.path}: stale ({g.what}); fix: {WRITE} (alone: {g.alone})")
        lines, status_stale = _status(Path(args.results), write=args.write)
        # the runs of record (docs/records.md): statuses derived by code changed since are stale
        # (a re-verification fixes them); per-run values made by step code changed since are
        # named, not failed (the values stand for the commit the manifest names; remaking them
        # is the run again)
        for s in records.stale():
            lines.append(s.line())
            status_stale |= s.kind == "verify"
    except safe_io.FileRefused as err:  # a doc that is not a regular file: the check cannot run
        print(f"privrisk docs: {err}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:  # StatusError, a page without its markers, a bad results/
        print(f"privrisk docs: {err}", file=sys.stderr)
        return 1
    if stale + lines:
        print("\n".join(stale + lines))
    if stale or status_stale:
        return 1
    if args.check:
        print("generated docs current")
    return 0


def _write_atomic(path: Path, text: str) -> None:
    """Atomic, refused over anything but a regular file, no temporary file left on a failure."""
    safe_io.write_output(path, text, what="generated doc")


if __name__ == "__main__":
    raise SystemExit(main())
