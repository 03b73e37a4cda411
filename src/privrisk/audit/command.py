"""``privrisk audit FILE``: the audit as text or JSON.

Bad input gets one line on stderr naming the file, column or argument, exit status 2, and
nothing is written: the report is made in full before anything is printed or saved.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

EXAMPLES = """examples:
  privrisk audit scores.csv
  privrisk audit scores.csv --epsilon 1 --delta 1e-5
  privrisk audit attack_result_0.npz --mu 1 --json
  privrisk audit outcomes.csv --epsilon 2          (columns hit, prior: reconstruction)
  privrisk audit one_run.csv --one-run --epsilon 4 --delta 1e-5
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
    ap.add_argument("file", help="CSV/Parquet/NPZ (or LeakPro JSON) of attack results")
    ap.add_argument(
        "--importer",
        default="auto",
        help="auto, table, ml-privacy-meter, leakpro or jax-privacy (default auto)",
    )
    ap.add_argument("--one-run", action="store_true", help="a one-run audit (Steinke et al.)")
    ap.add_argument("--guesses", help="one-run: number of guesses k (default: a grid)")
    ap.add_argument("--confidence", default="0.95", help="confidence of every bound (0.95)")
    g = ap.add_argument_group("a claimed guarantee (optional; any form privrisk explain takes)")
    g.add_argument("--epsilon")
    g.add_argument("--delta", help="δ of the claim and of epsilon_lower (default 0)")
    g.add_argument("--mu")
    g.add_argument("--sigma")
    g.add_argument("--sensitivity")
    g.add_argument("--noise-multiplier")
    g.add_argument("--sample-rate")
    g.add_argument("--steps")
    g.add_argument("--adjacency")
    o = ap.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print the report as JSON")
    o.add_argument("--out", metavar="FILE", help="also write the JSON report to FILE")
    return ap


def _write_atomic(path: str, content: str) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(content)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from .build import audit
    from .errors import AuditInputError
    from .text import text

    kwargs = {
        k: v
        for k, v in vars(args).items()
        if k not in ("file", "json", "out") and v is not None and v is not False
    }
    try:
        report = audit(args.file, **kwargs)
    except AuditInputError as err:
        print(f"privrisk audit: error: {err.where}: {err.message}", file=sys.stderr)
        return 2
    as_json = report.to_json()
    if args.out is not None:
        try:
            _write_atomic(args.out, as_json + "\n")
        except OSError as err:
            print(f"privrisk audit: error: --out: cannot write {args.out}: {err}", file=sys.stderr)
            return 2
    sys.stdout.write(as_json + "\n" if args.json else text(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
