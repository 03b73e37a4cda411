"""``privrisk atlas``: every published deployment's parameters as risk-card numbers."""

from __future__ import annotations

import argparse
import sys


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="privrisk atlas",
        description="Every published DP deployment (OpenDP's registry and the papers it cites) "
        "with its unit, period and adjacency, and its risk card's headline numbers: the "
        "membership advantage bound, the posterior on a yes/no secret and the reconstruction "
        "success, each for the unit and period printed beside it.",
        epilog="A per-period budget is shown per period and, where the source states a horizon "
        "or --periods N is given, over N periods (ρ adds up; pure and approximate DP by the "
        "optimal composition). An unknown adjacency is read as add-remove, the safe reading. "
        "The conversions each publisher used and the lint list are in --json and --markdown.",
    )
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="every entry, its source and numbers")
    out.add_argument("--markdown", action="store_true", help="the table in Markdown")
    out.add_argument("--html", metavar="FILE", help="write a self-contained HTML page")
    ap.add_argument("--organisation", help="only entries whose organisation contains this")
    ap.add_argument("--unit", help="only entries whose unit contains this (person, user-day, ...)")
    ap.add_argument("--model", choices=("central", "local", "varies"), help="only this model")
    ap.add_argument("--key", help="only this deployment (KEY or KEY/LABEL)")
    ap.add_argument("--periods", type=_int, help="compose per-period budgets over N periods")
    ap.add_argument(
        "--prior", type=float, default=None, help="prior success of the posterior's secret (0.5)"
    )
    ap.add_argument(
        "--reconstruction-prior",
        type=float,
        default=None,
        help="prior success of the reconstruction's secret (0.01)",
    )
    ap.add_argument("--lint", action="store_true", help="print only the lint list")
    return ap


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    import privrisk.explain.atlas.cards as cards
    import privrisk.explain.atlas.lint as lint
    import privrisk.explain.atlas.render as render
    from privrisk.core.file_kinds import check_output_kind
    from privrisk.core.safe_io import FileRefused, check_output, write_output

    from .schema import AtlasError, load

    try:
        if args.html:  # before any work: a folder, a device, a pipe, a missing folder, a long name
            check_output(args.html, what="--html")
            check_output_kind(args.html, "html", what="--html")
        atlas = load()
        cards.check_periods(args.periods)
        prior = cards.PRIOR if args.prior is None else _prob("--prior", args.prior)
        recon = (
            cards.RECONSTRUCTION_PRIOR
            if args.reconstruction_prior is None
            else _prob("--reconstruction-prior", args.reconstruction_prior)
        )
        entries = [e for e in atlas.entries if _keep(e, args)]
        if args.key:
            entries = [cards.find(atlas, args.key, "--key")[0]]
        if not entries:
            raise AtlasError("no deployment matches the filters (`privrisk atlas` lists them all)")
        rows = [
            h
            for e in entries
            for h in cards.entry_headlines(
                e, periods=args.periods, prior=prior, reconstruction_prior=recon
            )
            if not args.key or "/" not in args.key or h.key == args.key
        ]
        lints = [x for e in entries for x in lint.entry_lints(e)]
    except (AtlasError, FileRefused) as err:
        print(f"privrisk atlas: {err}", file=sys.stderr)
        return 2
    if args.lint:
        print("\n".join(f"{x.key}: [{x.kind}] {x.text}" for x in lints))
    elif args.json:
        print(render.to_json(atlas, rows, lints, prior=prior, recon_prior=recon), end="")
    elif args.markdown:
        print(render.markdown(rows, prior=prior, recon_prior=recon), end="")
    elif args.html:
        page = render.page(rows, lints, prior=prior, recon_prior=recon)
        try:  # atomically, never over a device or a folder put there since the check
            path = write_output(args.html, page, what="--html")
        except FileRefused as err:
            print(f"privrisk atlas: {err}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    else:
        print(render.text(rows, prior=prior, recon_prior=recon), end="")
    return 0


def _prob(flag: str, x: float) -> float:
    from .schema import AtlasError

    if not 0 < x < 1:
        raise AtlasError(f"{flag}: must be a probability strictly between 0 and 1, got {x:g}")
    return x


def _keep(e, args) -> bool:
    if args.organisation and args.organisation.lower() not in e.organisation.lower():
        return False
    if args.unit and args.unit.lower() not in e.unit.lower():
        return False
    return not (args.model and e.model != args.model)


if __name__ == "__main__":
    raise SystemExit(main())
