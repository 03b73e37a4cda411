"""``privrisk records``: runs of record (``records/<name>/``, docs/records.md).

* ``privrisk records make NAME --results DIR... [--seeds S...] --overlay FILE``: a record from
  finished results folders, one per seed (:mod:`privrisk.pipeline.records_make`);
* ``privrisk records --check [NAME...]`` (CI): hashes, every covered decision recomputed by
  today's code, one small job rerun (:mod:`privrisk.pipeline.records_check`);
* ``privrisk records``: one line per record.

And what the other commands show of records: ``privrisk claims --record NAME`` (the record's
statuses beside the ledger's), ``privrisk plan`` (claims a record decided are not planned again;
``--record NAME`` picks the records, ``--no-records`` none). The readers the status page calls
are in :mod:`privrisk.core.records` (``statuses()``, ``stale()``), which any layer may import.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..core import records as rec


def decided(root: str | Path | None = None, only: Sequence[str] | None = None) -> dict[str, str]:
    """``paper/claim_id`` -> the record that decided it: every seed of the record gave it the same
    deciding status (reproduced, differs, qualitative-ok or -fails; a seed missing from a partial
    record decides nothing). ``only`` limits the records."""
    out: dict[str, str] = {}
    for key, entries in rec.statuses(root).items():
        for e in entries:
            if only and e["record"] not in only:
                continue
            if e["status"] in rec.DECIDED and e["every_seed"] and key not in out:
                out[key] = e["record"]
    return out


# --- privrisk records ---------------------------------------------------------------------------


def _make_parser() -> argparse.ArgumentParser:
    from .records_make import MAX_FILE_MB

    ap = argparse.ArgumentParser(
        prog="privrisk records make",
        description="Write records/NAME/ from finished results folders of a run of a config "
        "overlay, one folder per seed: each seed's claims rows, the per-run values the covered "
        "figures read, and manifest.json (docs/records.md).",
    )
    ap.add_argument("name", metavar="NAME", help="the record's folder name under records/")
    ap.add_argument("--results", nargs="+", required=True, metavar="DIR", help="results folders")
    ap.add_argument(
        "--seeds",
        nargs="+",
        type=int,
        metavar="S",
        help="their seeds (default: read from provenance)",
    )
    ap.add_argument(
        "--planned-seeds",
        nargs="+",
        type=int,
        metavar="S",
        help="every seed the run of record must cover (default: --seeds); a record lacking some "
        "is partial, and decides a claim only once every planned seed has run",
    )
    ap.add_argument(
        "--overlay", metavar="FILE", help="the config overlay the runs used (privrisk plan --write)"
    )
    ap.add_argument(
        "--configfile",
        action="append",
        default=[],
        metavar="FILE",
        help="config files under the overlay (default: the run's checkout's config/config.yaml)",
    )
    ap.add_argument(
        "--figures",
        nargs="+",
        default=[],
        metavar="PAPER/FIG",
        help="cover these figures (default: those the overlay changes)",
    )
    ap.add_argument(
        "--max-file-mb",
        type=float,
        default=MAX_FILE_MB,
        metavar="MB",
        help="leave out larger per-run value files (default: %(default)s)",
    )
    ap.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="where records live (default: records/, or $PRIVRISK_RECORDS)",
    )
    ap.add_argument("--force", action="store_true", help="replace records/NAME if it exists")
    return ap


def _check_parser() -> argparse.ArgumentParser:
    from .records_check import RERUN_LIMIT_S

    ap = argparse.ArgumentParser(
        prog="privrisk records",
        description="List the runs of record; --check verifies them: the hashes, every covered "
        "decision recomputed by today's code, one small job rerun (docs/records.md). "
        "`privrisk records make --help` makes one.",
    )
    ap.add_argument("names", nargs="*", metavar="NAME", help="records (default: all)")
    ap.add_argument("--check", action="store_true", help="verify them; exit 1 on a problem")
    ap.add_argument(
        "--full", action="store_true", help="also rerun the figures that draw their own trials"
    )
    ap.add_argument(
        "--refresh",
        action="store_true",
        help="(with --check) when all holds, rewrite statuses.json from today's code (implies --full)",
    )
    ap.add_argument("--no-rerun", action="store_true", help="skip part 3, the rerun of one job")
    ap.add_argument(
        "--rerun-seed",
        type=int,
        metavar="N",
        help="the seed of the job choice (default: random, printed)",
    )
    ap.add_argument(
        "--rerun-limit",
        type=float,
        default=RERUN_LIMIT_S,
        metavar="S",
        help="longest job to rerun, CPU seconds (default: %(default)s)",
    )
    ap.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="where records live (default: records/, or $PRIVRISK_RECORDS)",
    )
    return ap


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _fail(message: str) -> int:
    print(f"privrisk records: error: {message}", file=sys.stderr)
    return 2


def _summary(name: str, root: Path) -> str:
    man = rec.manifest(name, root)
    n_claims = len(rec.derived(name, root).get("claims", {}))
    state = (
        "complete"
        if man.get("complete")
        else f"PARTIAL ({len(man.get('missing', []))} files missing)"
    )
    return (
        f"records/{name}: seeds {', '.join(map(str, man.get('seeds', [])))}; "
        f"{len(man.get('figures', []))} figures, {n_claims} claims; {man.get('bytes', 0) / 1e6:.2f} MB; "
        f"commit {str(man.get('commit'))[:12]}; {state}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["make"]:
        return _make_main(argv[1:])
    args = _check_parser().parse_args(argv)
    root = Path(args.root or rec.default_root())
    names = args.names or rec.names(root)
    unknown = [n for n in names if not (root / n / rec.MANIFEST).is_file()]
    if unknown:
        return _fail(
            f"no record {unknown[0]!r} under {root}/ (records: {', '.join(rec.names(root)) or 'none'})"
        )
    if args.refresh and not args.check:
        return _fail("--refresh goes with --check")
    if not args.check:
        if not names:
            print(f"no records under {root}/ (privrisk records make NAME ... writes one)")
        for name in names:
            try:
                print(_summary(name, root))
            except rec.RecordError as err:
                print(f"records/{name}: unreadable ({err})")
        for s in rec.stale(root):
            print(s.line())
        return 0
    if not names:
        print(f"no records under {root}/: nothing to check")
        return 0
    from .records_check import check

    bad = 0
    for name in names:
        try:
            out = check(
                name,
                root,
                full=args.full,
                do_rerun=not args.no_rerun,
                rerun_limit=args.rerun_limit,
                rerun_seed=args.rerun_seed,
                refresh=args.refresh,
            )
        except rec.RecordError as err:
            return _fail(str(err))
        for p in out.problems:
            print(f"FAIL {p}")
        same = sum(len(v) for v in out.today.values())
        print(
            f"records/{name}: {'FAILED' if out.problems else 'ok'} ({len(out.problems)} problems; "
            f"{same} claim statuses at {_n(len(out.today), 'seed')}"
            + ("" if out.recomputed_all else "; some kept as recorded, see above")
            + ")"
        )
        bad += bool(out.problems)
    return 1 if bad else 0


def _make_main(argv: Sequence[str]) -> int:
    from .records_make import MakeError, make

    args = _make_parser().parse_args(argv)
    try:
        path = make(
            args.name,
            args.results,
            seeds=args.seeds,
            planned_seeds=args.planned_seeds,
            overlay=args.overlay,
            configfiles=args.configfile,
            figures=args.figures,
            root=args.root,
            max_file_mb=args.max_file_mb,
            force=args.force,
        )
    except MakeError as err:
        return _fail(str(err))
    print(f"wrote {path}; check it with: privrisk records --check {args.name}")
    return 0


# --- privrisk claims --record / privrisk plan: records beside the quick run -----------------------


def _pop_option(argv: list[str], flag: str) -> list[str]:
    """Remove every ``flag VALUE`` / ``flag=VALUE`` from ``argv``; returns the values."""
    values, rest, i = [], [], 0
    while i < len(argv):
        a = argv[i]
        if a == flag and i + 1 < len(argv):
            values.append(argv[i + 1])
            i += 2
            continue
        if a.startswith(flag + "="):
            values.append(a.split("=", 1)[1])
        else:
            rest.append(a)
        i += 1
    argv[:] = rest
    return values


def _help(command, argv: list[str], options: str) -> None:
    """The wrapped command's help, then the options this module adds to it; ends as argparse's
    --help does (SystemExit 0)."""
    try:
        command(argv)
    except SystemExit:
        pass
    print(f"\nrecords (docs/records.md):\n{options}")
    raise SystemExit(0)


def claims_main(argv: Sequence[str]) -> int:
    """``privrisk claims``; with ``--record NAME`` (repeatable) the record's statuses are listed
    after the ledger, beside the ledger's own status of each claim."""
    from ..contract import claims as claims_mod

    argv = list(argv)
    wanted = _pop_option(argv, "--record")
    if any(a in ("-h", "--help") for a in argv):
        _help(
            claims_mod.main,
            argv,
            "  --record NAME         also list records/NAME's statuses beside the ledger's",
        )
        return 0
    if not wanted:
        return claims_mod.main(argv)
    root = rec.default_root()
    missing = [n for n in wanted if n not in rec.names(root)]
    if missing:
        return _fail(
            f"--record {missing[0]}: no such record under {root}/ (records: {', '.join(rec.names(root)) or 'none'})"
        )
    # the ledger the claims command will read (its one positional argument); its options that
    # take a value are named so that their values are not taken for it
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("ledger", nargs="?", default="results/claims.csv")
    for opt in ("--paper", "--status", "--markdown"):
        ap.add_argument(opt)
    ledger = Path(ap.parse_known_args(argv)[0].ledger)
    quick: dict[str, str] = {}
    code = 0
    if ledger.is_file():
        code = claims_mod.main(argv)
        quick = {
            f"{r['paper']}/{r['claim_id']}": r["status"]
            for r in claims_mod.read(ledger).to_dict("records")
        }
    else:
        print(f"({ledger} not found: the records alone)")
    print()
    for line in record_lines(wanted, quick, root):
        print(line)
    return code


def record_lines(
    names: Sequence[str], quick: dict[str, str], root: str | Path | None = None
) -> list[str]:
    """One line per claim of the records ``names``: its status in the ledger ``quick`` (claim key
    -> status) beside the record's, per seed."""
    out = []
    entries = rec.statuses(root)
    for name in names:
        man = rec.manifest(name, root)
        rows = [(k, e) for k, es in sorted(entries.items()) for e in es if e["record"] == name]
        stale = (
            " (STALE: privrisk records --check " + name + " --refresh)"
            if rows and rows[0][1]["stale"]
            else ""
        )
        out.append(
            f"at {name} ({_n(len(man.get('seeds', [])), 'seed')}, "
            f"{'complete' if man.get('complete') else 'partial'}){stale}: "
            f"{sum(e['status'] in rec.DECIDED for _, e in rows)} of {len(rows)} claims decided"
        )
        width = max((len(k) for k, _ in rows), default=10)
        for key, e in rows:
            seeds = ", ".join(f"{s}: {st}" for s, st in e["statuses"].items())
            runs = f" [{e['n']} {e['unit']}]" if e["n"] is not None else ""
            out.append(
                f"  {key:<{width}}  quick {quick.get(key, '-'):<17}  at {name}: {e['status']}{runs} ({seeds})"
            )
    return out


def plan_main(argv: Sequence[str]) -> int:
    """``privrisk plan`` without the claims a record decided (every record under ``records/``;
    ``--record NAME`` picks, ``--no-records`` none): they are listed first and not priced."""
    from . import plan

    argv = list(argv)
    wanted = _pop_option(argv, "--record")
    none = "--no-records" in argv
    argv = [a for a in argv if a != "--no-records"]
    if any(a in ("-h", "--help") for a in argv):
        _help(
            plan.main,
            argv,
            "  --record NAME         skip the claims records/NAME decided (default: every record)\n"
            "  --no-records          plan every uninformative claim of the ledger",
        )
    missing = [n for n in wanted if n not in rec.names()]
    if missing:
        return _fail(f"--record {missing[0]}: no such record under {rec.default_root()}/")
    done = {} if none else decided(None, wanted or None)
    return plan.main(argv, decided=done)


if __name__ == "__main__":
    raise SystemExit(main())
