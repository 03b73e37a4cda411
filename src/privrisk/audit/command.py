"""``privrisk audit FILE``: the audit as text or JSON; and ``privrisk explain <guarantee> --audit
FILE``: the risk card with the audit's lower bounds under its upper bounds (:func:`explain_main`,
a thin dispatcher over ``explain``'s own parser, :func:`privrisk.audit.audit` and
:func:`privrisk.audit.compare`; ``explain`` never imports the audit).

Bad input gets one line on stderr naming the file, column or argument, exit status 2, and
nothing is written: the report is made in full before anything is printed or saved.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from privrisk.core.file_kinds import check_output_kind
from privrisk.core.safe_io import FileRefused, check_output, write_output
from privrisk.explain import GUARANTEE_ARGS
from privrisk.explain.command import add_guarantee_arguments

EXAMPLES = """examples:
  privrisk audit scores.csv
  privrisk audit scores.csv --epsilon 1 --delta 1e-5
  privrisk audit attack_result_0.npz --mu 1 --json
  privrisk audit outcomes.csv --epsilon 2          (columns hit, prior: reconstruction)
  privrisk audit one_run.csv --one-run --epsilon 4 --delta 1e-5
  privrisk audit one_run.csv --methods all --epsilon 4 --delta 1e-5   (a panel, one table)
  privrisk audit fixtures [--write-docs docs/audit.md]
                   (DP-SGD bug fixtures: every bug refuted, every control consistent)
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="privrisk audit",
        description="Valid lower bounds on a mechanism's privacy from attack results, and a "
        "verdict on a claimed guarantee.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "file", help="CSV/Parquet/NPZ (or LeakPro JSON, or a LiRA log directory) of attack results"
    )
    ap.add_argument(
        "--importer",
        default="auto",
        help="auto, table, ml-privacy-meter, leakpro, jax-privacy or lira (default auto)",
    )
    ap.add_argument("--one-run", action="store_true", help="a one-run audit (Steinke et al.)")
    ap.add_argument("--guesses", help="one-run: number of guesses k (default: a grid)")
    ap.add_argument(
        "--one-run-method",
        help="steinke (Steinke et al. 2023, (ε, δ); default) or fdp (Mahloujifar et al. 2024, "
        "μ-GDP, as jax_privacy's epsilon_one_run_fdp)",
    )
    ap.add_argument(
        "--one-model",
        action="store_true",
        default=None,
        help="the canaries' scores come from one trained model (the report says which test's "
        "assumptions hold; ML Privacy Meter, LeakPro and LiRA files are known to be)",
    )
    ap.add_argument(
        "--methods",
        help="a panel on the same scores: 'all' or a list of threshold, steinke, fdp (the "
        "two-sample test, the one-run audits of Steinke et al. and Mahloujifar et al.), one "
        "table with each method's assumptions",
    )
    ap.add_argument("--confidence", default="0.95", help="confidence of every bound (0.95)")
    add_guarantee_arguments(
        ap,
        title="a claimed guarantee (optional; any form privrisk explain takes)",
        delta_help="δ of the claim and of epsilon_lower (default 0)",
    )
    o = ap.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print the report as JSON")
    o.add_argument("--out", metavar="FILE", help="also write the JSON report to FILE")
    return ap


#: ``privrisk audit fixtures …`` runs the bug fixtures (:mod:`privrisk.audit.fixtures`), not an
#: audit of a file named "fixtures" (a file needs a suffix the readers know: .csv, .npz, …)
FIXTURES = "fixtures"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == [FIXTURES]:
        from .fixtures import main as fixtures_main

        return fixtures_main(argv[1:], prog="privrisk audit fixtures")
    args = parser().parse_args(argv)
    from .build import audit
    from .errors import AuditInputError
    from .text import text

    kwargs = {
        k: v
        for k, v in vars(args).items()
        if k not in ("file", "json", "out") and v is not None and v is not False
    }
    # the files this command reads: --out may be none of them (it would destroy it)
    inputs = [args.file, *(f for f in (args.rdp, args.profile) if f)]
    if args.out is not None:
        try:  # before the work: nothing is computed for an output that would be refused
            check_output(args.out, inputs=inputs, what="--out")
            check_output_kind(args.out, "report", what="--out")  # not over scores, a curve ...
        except FileRefused as err:
            print(f"privrisk audit: error: {err}", file=sys.stderr)
            return 2
    try:
        if args.methods is not None:
            from . import panel as panel_mod

            report = panel_mod.panel(args.file, **kwargs)
            text = panel_mod.text
        else:
            report = audit(args.file, **kwargs)
    except AuditInputError as err:
        print(f"privrisk audit: error: {err.where}: {err.message}", file=sys.stderr)
        return 2
    as_json = report.to_json()
    if args.out is not None:
        try:  # atomic; never over an input, a folder or a device (privrisk.core.safe_io)
            write_output(args.out, as_json + "\n", inputs=inputs, what="--out")
        except FileRefused as err:
            print(f"privrisk audit: error: {err}", file=sys.stderr)
            return 2
    sys.stdout.write(as_json + "\n" if args.json else text(report))
    return 0


AUDIT_FLAG = "--audit"


def wants_audit(argv: Sequence[str]) -> bool:
    """True when an ``explain`` command line asks for an audit beside the card."""
    return any(a == AUDIT_FLAG or a.startswith(AUDIT_FLAG + "=") for a in argv)


def _split_audit(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """(the FILE of ``--audit FILE`` or ``--audit=FILE``, the other arguments); None when the
    flag has no value."""
    rest, file, i = [], None, 0
    while i < len(argv):
        a = argv[i]
        if a.startswith(AUDIT_FLAG + "="):
            file = a.split("=", 1)[1] or None
        elif a == AUDIT_FLAG:
            file = argv[i + 1] if i + 1 < len(argv) and not argv[i + 1].startswith("--") else None
            i += 1 if file is None else 2
            continue
        else:
            rest.append(a)
        i += 1
    return file, rest


def explain_main(argv: Sequence[str]) -> int:
    """``privrisk explain <guarantee> [attacker] --audit FILE [--confidence C] [--importer I]
    [--one-run [--guesses K]] [--json] [--html PAGE]``: the card with the audit as a section of
    it (ε̂, μ̂, the verdict and its p-value beside the guarantee's numbers, and what to do), the
    comparison of comparable rows under it (text), or all as one JSON object (``card`` — with the
    section —, ``audit``, ``comparison``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _explain_main(argv)


def _explain_main(argv: Sequence[str]) -> int:
    from privrisk.explain import BadInput, explain
    from privrisk.explain import audit_section as section_mod
    from privrisk.explain import command as explain_command
    from privrisk.explain import html as explain_html
    from privrisk.explain.render import text as card_text
    from privrisk.explain.render import to_json as card_json
    from privrisk.explain.render import write_atomic

    from .build import audit
    from .compare import compare
    from .errors import AuditInputError

    file, rest = _split_audit(argv)
    if file is None:
        print("privrisk explain: error: --audit: needs a FILE of attack results", file=sys.stderr)
        return 2
    args = explain_command.parser().parse_args(rest)
    if args.load is not None:
        print(
            "privrisk explain: error: --load: not with --audit (give the guarantee)",
            file=sys.stderr,
        )
        return 2
    skip = ("json", "html", "load", *section_mod.AUDIT_OPTIONS)
    kwargs = {k: v for k, v in vars(args).items() if k not in skip and v is not None}
    audit_kwargs = {
        "importer": args.importer or "auto",
        "one_run": bool(args.one_run),
        "guesses": args.guesses,
        "confidence": args.confidence if args.confidence is not None else 0.95,
        **{k: v for k, v in kwargs.items() if k in GUARANTEE_ARGS},
    }
    try:
        card = explain(**kwargs)
    except BadInput as err:
        print(f"privrisk explain: error: {err.flag}: {err.message}", file=sys.stderr)
        return 2
    try:
        report = audit(file, **audit_kwargs)  # the card's guarantee is the audit's claim
    except AuditInputError as err:
        where = err.where if err.where.startswith("--") else f"--audit: {err.where}"
        print(f"privrisk explain: error: {where}: {err.message}", file=sys.stderr)
        return 2
    inputs = [file, *explain_command.input_files(args)]  # --html may be none of them
    if args.html is not None:
        try:  # before the work: a folder, a device, a pipe, an input of the command
            explain_command.check_output_path("html", args.html, inputs=inputs)
        except BadInput as err:
            print(f"privrisk explain: error: {err.flag}: {err.message}", file=sys.stderr)
            return 2
    as_dict = report.to_dict()
    card_eps = section_mod.card_epsilon(card, as_dict)
    sec = section_mod.section(as_dict, card_epsilon=card_eps)
    card = card.with_section(sec)
    comparison = compare(card, report)
    if args.html is not None:
        try:
            _, page = explain_html(sections=(sec,), **kwargs)
            write_atomic(args.html, with_audit(page, report, comparison), inputs=inputs)
        except BadInput as err:
            print(f"privrisk explain: error: {err.flag}: {err.message}", file=sys.stderr)
            return 2
        except ValueError as err:  # privrisk.core.safe_io.FileRefused: one line naming it
            print(f"privrisk explain: error: {err}", file=sys.stderr)
            return 2
    if args.json:
        import json

        both = {
            "card": json.loads(card_json(card)),
            "audit": json.loads(report.to_json()),
            "comparison": comparison.to_dict(),
        }
        sys.stdout.write(json.dumps(both, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(card_text(card) + "\n" + comparison.text())
    if args.html is not None:
        print(f"privrisk explain: wrote {args.html}", file=sys.stderr)
    return 0


def with_audit(page: str, report, comparison) -> str:
    """The risk card's page (with the audit's section in its tables) followed by the ε̂(δ)
    curve, the comparison of comparable rows and the full audit report, as the terminal shows
    them, before the page's end."""
    from html import escape

    from privrisk.explain.audit_section import curve_svg

    from .text import text

    section = (
        '<h2 id="audit">Your attack, measured: the comparable rows</h2>\n'
        f"<pre>{escape(comparison.text())}</pre>\n"
        "<h2>The audit's lower bound on ε at every δ</h2>\n"
        f"{curve_svg(report.to_dict())}\n"
        f"<h2>The audit</h2>\n<pre>{escape(text(report))}</pre>\n"
    )
    end = page.rindex("</body>")
    return page[:end] + section + page[end:]


if __name__ == "__main__":
    raise SystemExit(main())
