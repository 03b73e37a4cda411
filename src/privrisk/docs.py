"""The generated parts of the documentation, made from each paper package's ``PAPER``, ``notes.md``
and registry, so that adding a figure or a paper needs no edit of the docs:

* one page per paper, ``papers/<key>.md``, and the paper table of the site's index: made when the
  site is built (``mkdocs.yml`` loads ``docs/hooks.py``, which calls :func:`on_config`,
  :func:`on_files` and :func:`on_page_markdown`); nothing is committed;
* the paper table of ``README.md`` (read without the site), between ``<!-- papers:begin -->`` and
  ``<!-- papers:end -->``: ``python -m privrisk.docs --write`` rewrites it, ``--check`` exits 1
  when it is stale (CI runs it, like the config reference's and the status page's checks).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import config, workflow
from .core import discovery

BEGIN = "<!-- papers:begin -->"
END = "<!-- papers:end -->"
README = "README.md"
#: the site's page holding the paper table (filled at build time)
INDEX = "index.md"
#: the nav section the paper pages go to (before the entries it already lists)
NAV_SECTION = "Papers"


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
        "Each is one rule; its caption is the figure function's docstring (or the package's",
        "`captions/<figure>.rst`, which the report shows instead).",
        "",
        "| output | made by | reads steps | caption |",
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
    ap = argparse.ArgumentParser(
        prog="python -m privrisk.docs", description="the README's paper table"
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
                f"{path}'s paper table is stale: python -m privrisk.docs --write", file=sys.stderr
            )
            return 1
        return 0
    if want != text:
        path.write_text(want)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
