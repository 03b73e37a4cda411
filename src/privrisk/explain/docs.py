"""The examples of ``docs/explain.md``, generated: never pasted, checked in CI.

The page marks each generated block with an HTML comment that holds the command's arguments::

    <!-- explain:headline --epsilon 3 --prior 0.1 -->
    ...generated...
    <!-- /explain -->

``headline`` blocks get the card's three numbers to quote, ``card`` blocks the command and the
whole card as the terminal shows it. ``python -m privrisk.explain.docs --write docs/explain.md``
regenerates every block; ``--check`` exits 1 naming the first stale block (CI).
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

BLOCK = re.compile(
    r"(?P<open><!-- explain:(?P<kind>headline|card) (?P<args>.*?) -->\n)(?P<body>.*?)"
    r"(?P<close><!-- /explain -->)",
    flags=re.S,
)


def _kwargs(args: str) -> dict:
    from .command import parser

    ns = parser().parse_args(shlex.split(args))
    return {
        k: v for k, v in vars(ns).items() if k not in ("json", "html", "load") and v is not None
    }


def render_block(kind: str, args: str) -> str:
    from . import explain
    from .render import text

    card = explain(**_kwargs(args))
    if kind == "headline":
        lines = [f"{i}. {h.phrase} **{h.text}**" for i, h in enumerate(card.headline, start=1)]
        return (
            f"```bash\nprivrisk explain {args}\n```\n\nThe three numbers to quote:\n\n"
            + "\n".join(lines)
            + "\n"
        )
    return (
        f"```bash\nprivrisk explain {args}\n```\n\n<details><summary>the whole card</summary>\n\n"
        f"```text\n{text(card)}```\n\n</details>\n"
    )


def regenerate(page: str) -> str:
    return BLOCK.sub(lambda m: m["open"] + render_block(m["kind"], m["args"]) + m["close"], page)


def stale_blocks(page: str) -> list[str]:
    """The arguments of every block whose body differs from what the command prints now."""
    return [
        f"{m['kind']} {m['args']}"
        for m in BLOCK.finditer(page)
        if m["body"] != render_block(m["kind"], m["args"])
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m privrisk.explain.docs",
        description="Regenerate (--write) or check (--check) the generated examples of a page.",
    )
    ap.add_argument("page", help="the Markdown page, e.g. docs/explain.md")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated blocks")
    mode.add_argument("--check", action="store_true", help="exit 1 if a block is stale")
    args = ap.parse_args(argv)
    from privrisk.core.safe_io import FileRefused, read_user_file

    from .inputs import MAX_FILE_BYTES

    path = Path(args.page)
    try:  # a regular file (a pipe would hang), a size cap, UTF-8: one line naming it, exit 2
        page = read_user_file(path, max_bytes=MAX_FILE_BYTES, what="page")
    except FileRefused as err:
        print(err, file=sys.stderr)
        return 2
    if not BLOCK.search(page):
        print(f"{path}: no generated blocks (<!-- explain:... -->)", file=sys.stderr)
        return 2
    if args.write:
        new = regenerate(page)
        if new != page:
            from .render import write_atomic

            try:  # a page replaced by a folder or a device meanwhile, a full disk: the page
                write_atomic(
                    path, new, what="page", kind=None
                )  # is unchanged, no temporary file is left
            except FileRefused as err:
                print(err, file=sys.stderr)
                return 2
        return 0
    stale = stale_blocks(page)
    if stale:
        print(
            f"{path}: stale example '{stale[0]}' ({len(stale)} stale); regenerate with "
            f"python -m privrisk.explain.docs --write {path}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
