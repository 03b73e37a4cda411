"""``privrisk explain``: the risk card of a DP guarantee, as a table, JSON or an HTML page.

Bad input gets one line on stderr naming the argument, exit status 2, and nothing is written:
the card (and the page) are made in full before anything is printed or saved.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import audit_section

EXAMPLES = """examples:
  privrisk explain --epsilon 3 --prior 0.1
  privrisk explain --epsilon 8 --records 10000 --unit person
  privrisk explain --noise-multiplier 1.1 --sample-rate 0.004 --steps 7000 --delta 1e-5
  privrisk explain --epsilon 1 --values 8 --targets 100 --json
  privrisk explain --mu 1 --prior-file priors.csv --html card.html
  privrisk explain --epsilon 3 --prior 0.1 --max-risk reconstruction.beta=0.5
  privrisk explain --deployment census-dhc-2020/persons
  privrisk explain --deployment google-mobility --periods 30 --prior 0.1
  privrisk explain --load card.json
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def add_guarantee_arguments(
    ap: argparse.ArgumentParser,
    title: str = "the guarantee (give it one way)",
    delta_help: str = "δ in [0, 1)",
) -> None:
    """The options that state a guarantee, one per field of
    :class:`~privrisk.explain.guarantee.Guarantee` (``--`` + the field with ``-`` for ``_``;
    tests/explain/test_guarantee.py checks the two match), shared by ``privrisk explain`` and
    ``privrisk audit`` so that both take every form."""
    g = ap.add_argument_group(title)
    g.add_argument("--epsilon", help="ε of a pure ε-DP or (with --delta) an (ε, δ)-DP guarantee")
    g.add_argument("--delta", help=delta_help)
    g.add_argument("--mu", help="μ of a μ-GDP guarantee")
    g.add_argument("--sigma", help="Gaussian mechanism: the noise's standard deviation")
    g.add_argument("--sensitivity", help="Gaussian mechanism: the query's L2 sensitivity (1)")
    g.add_argument("--noise-multiplier", help="DP-SGD: noise std / clipping norm")
    g.add_argument("--sample-rate", help="DP-SGD: Poisson sampling rate (batch / dataset size)")
    g.add_argument("--steps", help="DP-SGD: number of steps")
    g.add_argument("--rho", help="ρ of a ρ-zCDP guarantee")
    g.add_argument("--rdp", metavar="FILE", help="an RDP curve: two columns, order α and ε_α")
    g.add_argument("--profile", metavar="FILE", help="a privacy profile: two columns, ε and δ(ε)")
    g.add_argument(
        "--adjacency",
        help="replace-one or add-remove (default: add-remove for DP-SGD and for a curve file "
        "that does not say, else replace-one)",
    )
    g.add_argument(
        "--accountant",
        help="DP-SGD: pld (default: tight, with a stated error) or rdp (fast at any steps, looser)",
    )
    g.add_argument(
        "--pld-discretisation", help="DP-SGD: PLD discretisation interval (ε_RDP / 3000)"
    )


def parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="privrisk explain",
        description="What does my ε mean? One risk card from the five papers' bounds.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_guarantee_arguments(ap)
    d = ap.add_argument_group("or a published deployment (privrisk atlas lists them)")
    d.add_argument(
        "--deployment",
        metavar="KEY[/LABEL]",
        help="the guarantee of a deployment in the atlas, with its facts and every assumption "
        "added (adjacency, horizon, prior) printed; --adjacency and the attacker's options "
        "override them",
    )
    d.add_argument(
        "--periods",
        metavar="N",
        help="with --deployment: compose its per-period budget over N periods (default: the "
        "horizon its source states, else one period)",
    )
    a = ap.add_argument_group("the attacker (each has a default, stated on the card)")
    a.add_argument("--base-rate", help="fraction of candidates that are members (0.5)")
    a.add_argument("--prior", help="prior success of one guess of one secret, in (0, 1]")
    a.add_argument("--values", help="the secret is one of K equally likely values (2)")
    a.add_argument("--prior-file", help="per-target priors, one number per line")
    a.add_argument("--targets", help="targets attacked in one run (100, or --records)")
    a.add_argument(
        "--records",
        metavar="N",
        help="the number of people in your table: the reconstruction count is for them",
    )
    a.add_argument(
        "--unit",
        help="the unit the guarantee protects (person, user, user-day, ...): the card places it "
        "among published deployments of that unit",
    )
    a.add_argument(
        "--attribute-range", help="attribute range in units of the precision needed (20)"
    )
    o = ap.add_argument_group("output")
    o.add_argument(
        "--max-risk",
        metavar="KEY=VALUE",
        help="the reverse question: the largest ε (smallest noise) keeping row KEY <= VALUE",
    )
    o.add_argument(
        "--load",
        metavar="CARD.json",
        help="check a saved card (schema, ranges, recomputed from its inputs) and show it",
    )
    o.add_argument("--json", action="store_true", help="print the card as JSON")
    o.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page")
    audit_section.add_arguments(ap)  # --audit FILE and its options (the audit path handles them)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    from privrisk.accounting import quiet_absl

    # numerical warnings (a quadrature's roundoff, an overflow handled at the edge) and
    # dp-accounting's absl log lines are not the user's to act on: the card states its own
    # numbers; stderr keeps one line for errors
    with warnings.catch_warnings(), quiet_absl():
        warnings.simplefilter("ignore")
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from . import BadInput, explain, html
    from .render import text, to_json, write_atomic

    # --audit FILE itself goes the audit's way (privrisk.pipeline.cli)
    if audit_section.given(args):
        flag = audit_section.given(args)[0]
        print(f"privrisk explain: error: {flag}: only with --audit FILE", file=sys.stderr)
        return 2
    skip = ("json", "html", "load", *audit_section.AUDIT_OPTIONS)
    kwargs = {k: v for k, v in vars(args).items() if k not in skip and v is not None}
    try:
        if args.html is not None:
            check_output_path("html", args.html, inputs=input_files(args))
        if args.load is not None:
            card, saved_audit = _load(args.load, kwargs)
            if args.html is not None:  # the saved audit's section too, as the card has it
                kept = tuple(s for s in card.sections if s.key == audit_section.KEY)
                card, page = html(sections=kept, **card.inputs)
        elif args.html is not None:
            card, page = html(**kwargs)
        else:
            card = explain(**kwargs)
    except BadInput as err:
        print(f"privrisk explain: error: {err.flag}: {err.message}", file=sys.stderr)
        return 2
    if args.html is not None:
        try:  # never over a file this command read, a folder or a device
            write_atomic(args.html, page, inputs=input_files(args))
        except ValueError as err:  # privrisk.core.safe_io.FileRefused: one line naming it
            print(f"privrisk explain: error: {err}", file=sys.stderr)
            return 2
    try:
        if args.json and args.load is not None and saved_audit is not None:
            import json  # as it was saved: the card (rebuilt) beside its audit (loads back)

            both = {"card": json.loads(to_json(card)), "audit": saved_audit}
            sys.stdout.write(json.dumps(both, indent=2, ensure_ascii=False) + "\n")
        else:
            sys.stdout.write(to_json(card) if args.json else text(card))
        sys.stdout.flush()
    except BrokenPipeError:  # `privrisk explain ... | head`: the reader has what it wanted
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    if args.html is not None:
        print(f"privrisk explain: wrote {args.html}", file=sys.stderr)
    return 0


def input_files(args) -> list[str]:
    """The files an ``explain`` command line reads (an output may be none of them)."""
    names = ("load", "rdp", "profile", "prior_file")
    return [v for v in (getattr(args, n, None) for n in names) if v]


def check_output_path(argument: str, path: str, *, inputs=()) -> None:
    """BadInput naming ``argument`` unless ``path`` names a file that can be written: not empty,
    not a directory, a device or a pipe, none of the command's ``inputs``, in a folder that
    exists. Checked before anything is computed."""
    import os
    from pathlib import Path

    from privrisk.core.file_kinds import check_output_kind
    from privrisk.core.safe_io import NAME_MAX, FileRefused, check_output, shown

    from . import BadInput

    if path is None or str(path).strip() == "":
        raise BadInput(argument, "needs a file name, got an empty one")
    longest = max((len(part) for part in Path(str(path)).parts), default=0)
    if longest > NAME_MAX:  # before any stat of it (which raises on such a name)
        raise BadInput(
            argument,
            f"{shown(path)}: a name in it is {longest} characters long (at most {NAME_MAX})",
        )
    p = Path(path)
    if p.is_dir() or str(path).endswith(os.sep):
        raise BadInput(argument, f"{path} is a directory; give a file name such as card.html")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise BadInput(argument, f"{path}: no folder {parent} to write it in")
    if not os.access(parent, os.W_OK):
        raise BadInput(argument, f"{path}: cannot write in {parent}")
    try:  # a device, a pipe, or a file this command reads (privrisk.core.safe_io)
        check_output(path, inputs=inputs, what=argument)
        check_output_kind(path, "html", what=argument)  # not over scores, a curve, a card
    except FileRefused as err:
        raise BadInput(argument, str(err).removeprefix(f"{argument} ")) from None


def _load(path: str, kwargs: dict):
    """(the saved card at ``path``, checked in full; the saved audit report beside it, or None);
    BadInput naming --load and the field. The file is what ``privrisk explain --json`` writes (a
    card), or what ``privrisk explain --audit FILE --json`` writes (``card``, ``audit``,
    ``comparison``): the card's audit section is then rebuilt from the saved report."""
    from privrisk.core.safe_io import FileRefused, read_json

    from . import BadInput, audit_section
    from .inputs import MAX_FILE_BYTES, read_text
    from .validate import CardError, load

    if kwargs:
        other = "--" + next(iter(kwargs)).replace("_", "-")
        raise BadInput("load", f"a saved card carries its own inputs; drop {other}")
    read_text("load", path)  # a file of another kind (scores, an audit report) named as such
    try:  # a regular file, a stated size cap, bounded nesting, a byte-order mark stripped
        data = read_json(path, max_bytes=MAX_FILE_BYTES, what="--load")
    except FileRefused as err:
        raise BadInput("load", str(err).removeprefix("--load ")) from None
    audit, builders = None, {}
    if isinstance(data, dict) and "schema" not in data and {"card", "audit"} <= set(data):
        audit, data = data["audit"], data["card"]
        try:
            builders = {audit_section.KEY: audit_section.rebuild(audit)}
        except TypeError as err:
            raise BadInput("load", f"{path}: audit: {err}") from None
    try:
        return load(data, builders), audit
    except CardError as err:
        raise BadInput("load", f"{path}: {err.field}: {err.message}") from None


if __name__ == "__main__":
    raise SystemExit(main())
