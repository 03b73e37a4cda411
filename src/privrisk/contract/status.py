"""The status page (docs/status.md and its data, docs/status.json), made from runs' results so that
its numbers cannot drift.

``privrisk status --write`` reads a run's ``results/claims.csv`` (every claim's status, numbers and
keep-probability), the figure provenance records ``results/<key>/<fig>.json`` and the training
records ``results/<key>/intermediate/*_record.json``, makes the page's data
(:mod:`privrisk.contract.status_data`: per claim each measured run's status and numbers, how and
when the page was measured), writes it to ``docs/status.json`` and renders the Markdown block
between ``<!-- status:begin -->`` and ``<!-- status:end -->`` of the page from it
(:mod:`privrisk.contract.status_page`). ``--write --paper KEY`` replaces (or adds) only that
paper's part, from the results ``snakemake KEY`` made; ``--write --replicates DIR ...`` measures
the page on several runs (results folders of the same config at other seeds or under another
CPU's kernels): a decided status counts only if every run gives it, and a claim whose runs
disagree reads ``uninformative (reruns: qualitative-fails on 4 of 5 runs, uninformative on 1)``.
A plain ``--write`` keeps what the page recorded of its other runs for each claim whose new status
is among those they gave.

**What the check promises** (docs/verdicts.md, "What the status check promises"):
``privrisk status --check`` compares a run's data with the page's and exits 1 on

* a structural difference: a paper, output, trained model or claim on one side only (one line
  naming the command that fixes it), another scale, or an output's, model's or claim's data
  source or number of training runs;
* an analytic row whose status or number differs (exactly, after the one rounding);
* an experimental row that **contradicts** the page: ``qualitative-ok`` ↔ ``qualitative-fails``
  or ``reproduced`` ↔ ``differs`` against any status the page's runs gave (or a change of kind:
  ``standin``, ``derived``);
* an experimental row that moves between a decided status and ``uninformative`` where the
  page's keep-probability gives that move a chance below 1 %.

The record columns (one per ``records/<name>/``, docs/records.md) are data that
``privrisk records --check`` recomputes from the record's per-run values; the status check does
not compare them with a run, only asks that the page shows what ``records/`` holds (else one line:
``privrisk status --write --records`` rewrites them, needing no results).

A move its keep-probability allows is printed, ``boundary row moved: p = 0.23 (…)``, and the check
passes; a status one of the page's runs already gave passes silently. Experimental numbers and
evidence texts are shown, not compared: the status carries the decision.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.discovery import paper_keys
from . import status_data as D
from .status_data import StatusError, fmt, key, page_status, shown, statuses
from .status_page import COMMAND, render
from .verdicts.keep import UNLIKELY

__all__ = [
    "COMMAND",
    "StatusError",
    "check",
    "check_results",
    "expected",
    "fmt",
    "main",
    "render",
    "write",
]

#: the page holding the status block (the docs site's status page); its data sits beside it
STATUS_FILE = "docs/status.md"
BEGIN = "<!-- status:begin -->"
END = "<!-- status:end -->"

#: statuses that contradict each other (a decided statement and its opposite)
OPPOSITE = {
    "qualitative-ok": "qualitative-fails",
    "qualitative-fails": "qualitative-ok",
    "reproduced": "differs",
    "differs": "reproduced",
}
#: statuses that say what kind of row it is, not what a run decided: a move to or from one is a
#: change of the row, not of its evidence
KINDS = ("standin", "derived")


def data_path(page: str | Path) -> Path:
    """The page's data file: beside it, ``.json`` for ``.md``."""
    return Path(page).with_suffix(".json")


#: rewrites only the record columns, from ``records/`` as it is (no results needed)
RECORDS_COMMAND = "privrisk status --write --records"


def paper_command(paper: str) -> str:
    """The command that puts one paper's part on the page."""
    return f"privrisk status --write --paper {paper} after snakemake --cores 2 {paper}"


# --- the page file -------------------------------------------------------------------------------


def _split(page: Path) -> tuple[str, str, str]:
    text = page.read_text()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise StatusError(f"{page}: needs exactly one {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN)
    body, tail = rest.split(END)
    return head, body, tail


def page_data(page: str | Path) -> dict[str, Any] | None:
    """The page's data (None when it has none yet); the page must have its markers."""
    _split(Path(page))
    return D.load(data_path(page))


def _comparable(data: dict[str, Any] | None) -> Any:
    """``data`` without when and how it was written (a rewrite that changes nothing else keeps
    them)."""
    if data is None:
        return None
    out = copy.deepcopy(data)
    out["measured"].pop("when", None)
    out["measured"].pop("command", None)
    return out


def write(
    page: str | Path,
    data: dict[str, Any],
    command: str = COMMAND,
    records_root: str | Path | None = None,
) -> bool:
    """Write ``data`` beside the page and its rendering between the page's markers; True when
    either changed. The record columns are taken from ``records_root`` (``records/``) as it is
    now (:func:`~privrisk.contract.status_data.record_columns`). ``measured.when`` (the date) and
    ``measured.command`` change only with the data: rewriting the same data leaves both files as
    they are."""
    page = Path(page)
    head, _, tail = _split(page)
    old = D.load(data_path(page))
    data = copy.deepcopy(data)
    data["records"] = D.record_columns(records_root)
    if old is not None and _comparable(old) == _comparable(data):
        data["measured"]["when"] = old["measured"].get("when", "")
        data["measured"]["command"] = old["measured"].get("command", command)
    else:
        data["measured"]["when"] = datetime.now(UTC).date().isoformat()
        data["measured"]["command"] = command
    text = head + BEGIN + "\n" + render(data) + "\n" + END + tail
    json_text = D.dumps(data)
    changed = False
    for path, new in ((data_path(page), json_text), (page, text)):
        if path.is_file() and path.read_text() == new:
            continue
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(new)
        tmp.replace(path)
        changed = True
    return changed


# --- what the results call for ------------------------------------------------------------------


def expected(old: dict[str, Any] | None, results: str | Path) -> tuple[dict[str, Any], list[str]]:
    """The data the results call for (each paper with results made from them, what the page
    recorded of its other runs carried where the new status is among them), and the papers it
    could not check (no results: taken from the page as they are)."""
    results = Path(results)
    have = D.present(results)
    if not have:
        raise StatusError(f"{results} holds no paper's results; run `snakemake --cores 2` first")
    absent = [p for p in paper_keys() if p not in have]
    return D.carry(D.from_run(results, have), old, have, others=bool(absent)), absent


def update(old: dict[str, Any] | None, results: str | Path, paper: str) -> dict[str, Any]:
    """The page's data with ``paper``'s part made from ``results`` (added in the papers' order
    when new). A run at another scale than the page's is refused: the page would mix scales."""
    results = Path(results)
    if paper not in paper_keys():
        raise StatusError(f"--paper {paper!r}: not a paper; choose from {', '.join(paper_keys())}")
    if not (results / paper).is_dir():
        raise StatusError(
            f"{results / paper} does not exist; run `snakemake --cores 2 {paper}` first"
        )
    new = D.from_run(results, [paper])
    if old is not None and old["measured"].get("runs"):
        scales = old["measured"]["runs"][0].get("scales", [])
        mine = new["measured"]["runs"][0]["scales"]
        if scales and not set(mine) <= set(scales):
            raise StatusError(
                f"{results / paper} was made at scale {', '.join(mine)}, the page at "
                f"{', '.join(scales)}; run `snakemake --cores 2 {paper}` with the page's config, "
                f"or regenerate the whole page from a clean run ({COMMAND})"
            )
    return D.carry(new, old, [paper])


# --- the check -----------------------------------------------------------------------------------


def _names(items: list[dict[str, Any]], field: str) -> list[str]:
    return [i[field] for i in items]


def _structure(paper: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Outputs, trained models and claims on one side only, one line each naming the command."""
    problems = []
    for kind, field, a, b in (
        ("output", "figure", old["outputs"], new["outputs"]),
        ("trained model", "name", old["models"], new["models"]),
        ("claim", None, old["claims"], new["claims"]),
    ):
        names_a = [key(c) for c in a] if field is None else _names(a, field)
        names_b = [key(c) for c in b] if field is None else _names(b, field)
        for name in names_b:
            if name not in names_a:
                problems.append(
                    f"{paper}/{name} ({kind}): not on the page; add it: {paper_command(paper)}"
                )
        for name in names_a:
            if name not in names_b:
                problems.append(
                    f"{paper}/{name} ({kind}): on the page, not in the results; drop it: "
                    f"{paper_command(paper)}"
                )
    return problems


def _claim(paper: str, page: dict[str, Any], run: dict[str, Any]) -> tuple[str, str]:
    """(a problem, a boundary move) of one claim: the run's status against the page's."""
    where = f"{paper}/{key(run)}"
    for field in ("paper", "data"):
        if page[field] != run[field]:
            return (
                f"{where}: {field} {page[field]!r} on the page, {run[field]!r} from the results",
                "",
            )
    r = run["runs"][0]
    if page["data"] == "analytic":
        want = shown(page)
        if r["status"] != page_status(page):
            return (
                f"{where}: analytic status {page_status(page)!r} on the page, {r['status']!r} "
                "from the results (compared exactly)",
                "",
            )
        if r["ours"] != want["ours"]:
            return (
                f"{where}: analytic value {want['ours']!r} on the page, {r['ours']!r} from the "
                "results (compared exactly)",
                "",
            )
        return "", ""
    seen = statuses(page)
    if r["status"] in seen:
        return "", ""
    listed = ", ".join(sorted(seen))
    if r["status"] in KINDS or any(s in KINDS for s in seen):
        return (
            f"{where}: status {r['status']!r} from the results, the page's runs gave {listed}",
            "",
        )
    if OPPOSITE.get(r["status"]) in seen:
        return (
            f"{where}: contradiction: {r['status']!r} from the results, "
            f"{OPPOSITE[r['status']]!r} on the page's runs ({listed})",
            "",
        )
    k = shown(page).get("keep")
    move = f"{where}: {shown(page)['status'] or page_status(page)} → {r['status']}"
    if k is None:
        return "", f"boundary row moved: p unknown (no keep-probability on the page) ({move})"
    p = 1.0 - k
    if p < UNLIKELY:
        return (
            f"{move}, a move its keep-probability {k:.4g} gives p = {p:.2g} < {UNLIKELY:g}: "
            "measure the page again (`privrisk status --write --replicates ...`) or find what "
            "changed",
            "",
        )
    return "", f"boundary row moved: p = {p:.2g} ({move}, keep-probability {k:.3g})"


def compare(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Where the page's data ``old`` and a run's data ``new`` disagree beyond what the module
    docstring allows (problems), and the boundary moves it allows (moves), one line each."""
    problems: list[str] = []
    moves: list[str] = []
    runs_a, runs_b = old["measured"].get("runs", []), new["measured"].get("runs", [])
    if runs_a and runs_b and runs_a[0].get("scales") != runs_b[0].get("scales"):
        problems.append(
            f"scale {', '.join(runs_a[0].get('scales', []))} on the page, "
            f"{', '.join(runs_b[0].get('scales', []))} in the results"
        )
    have = {p["paper"]: p for p in old["papers"]}
    want = {p["paper"]: p for p in new["papers"]}
    for paper in want:
        if paper not in have:
            problems.append(f"{paper}: not on the page; add it: {paper_command(paper)}")
    for paper in have:
        if paper not in want:
            problems.append(
                f"{paper}: on the page, not in the results (no longer a paper?); regenerate the "
                f"page from a clean run: {COMMAND}"
            )
    for paper in [p for p in want if p in have]:
        a, b = have[paper], want[paper]
        struct = _structure(paper, a, b)
        problems += struct
        if struct:
            continue
        for x, y in zip(a["outputs"], b["outputs"], strict=True):
            if x != y:
                problems.append(
                    f"{paper}/{x['figure']}: output {x} on the page, {y} in the results"
                )
        for x, y in zip(a["models"], b["models"], strict=True):
            if (x["data"], x["runs"]) != (y["data"], y["runs"]):
                problems.append(
                    f"{paper}/{x['name']}: trained model data {x['data']!r}, {x['runs']} runs on "
                    f"the page; {y['data']!r}, {y['runs']} runs in the results"
                )
        for x, y in zip(a["claims"], b["claims"], strict=True):
            problem, move = _claim(paper, x, y)
            problems += [problem] if problem else []
            moves += [move] if move else []
    return problems, moves


def check(
    page: str | Path, new: dict[str, Any], records_root: str | Path | None = None
) -> tuple[list[str], list[str]]:
    """The problems and the allowed boundary moves of a run's data ``new`` against the page's
    (:func:`compare`); a run with only some papers' results is checked on those papers. The
    record columns are not compared with the run (another run made them, and ``privrisk records
    --check`` recomputes and verifies them); only whether the page shows what ``records/`` holds
    (one line per record, fixed by :data:`RECORDS_COMMAND`)."""
    old = page_data(page)
    if old is None:
        raise StatusError(
            f"{data_path(page)} does not exist: the page has no data to check against; write it "
            f"from a clean run: {COMMAND}"
        )
    mine = {p["paper"] for p in new["papers"]}
    problems = [
        f"records/{name}: its column on the page is not what records/ holds (made, remade or "
        f"refreshed since); fix: {RECORDS_COMMAND}"
        for name in D.records_differ(old.get("records", []), D.record_columns(records_root))
    ]
    if mine != set(paper_keys()):
        old = {**old, "papers": [p for p in old["papers"] if p["paper"] in mine]}
    more, moves = compare(old, new)
    return problems + more, moves


def check_results(page: str | Path, results: str | Path) -> tuple[list[str], list[str], list[str]]:
    """The problems, the allowed boundary moves and the papers not checked (no results) of the
    run in ``results`` against the page."""
    results = Path(results)
    have = D.present(results)
    if not have:
        raise StatusError(f"{results} holds no paper's results; run `snakemake --cores 2` first")
    problems, moves = check(page, D.from_run(results, have))
    return problems, moves, [p for p in paper_keys() if p not in have]


# --- the command ---------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="privrisk status", description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results", help="the run's results folder")
    ap.add_argument(
        "--page",
        "--readme",
        dest="readme",
        default=STATUS_FILE,
        help="the page holding the status block (%(default)s); its data is the .json beside it",
    )
    ap.add_argument(
        "--paper",
        metavar="KEY",
        help="with --write: update only this paper's part (and the summary's counts) from "
        "results/KEY/, made by `snakemake --cores 2 KEY`, without a full run",
    )
    ap.add_argument(
        "--replicates",
        nargs="+",
        metavar="DIR",
        default=(),
        help="with --write: results folders of the same config at other seeds or on other CPUs "
        "(`snakemake --config seed=1 --directory ...`); the page records every run's status and "
        "numbers, and a claim whose runs disagree is shown as uninformative with the way they "
        "lean. Without it, --write keeps what the page recorded of its other runs where this "
        "run's status is among theirs",
    )
    ap.add_argument(
        "--records",
        action="store_true",
        help="with --write: rewrite only the record columns (one per records/NAME/) from "
        "records/ as it is, after `privrisk records make` or `privrisk records --check NAME "
        "--refresh`; needs no results",
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--write", action="store_true", help="write the page's data and render the page from it"
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1, one line per problem, on a structural difference, an analytic row that "
        "differs, an experimental row that contradicts the page (ok ↔ fails, reproduced ↔ "
        "differs) or that moves where its keep-probability gives the move p < 1 %%; a move it "
        "allows is printed (boundary row moved: p = ...); with only some papers' results, checks "
        "those papers",
    )
    args = ap.parse_args(argv)
    if args.paper and not args.write:
        ap.error("--paper goes with --write (--check checks every paper that has results)")
    if args.replicates and not args.write:
        ap.error("--replicates goes with --write (--check reads the runs from the page's data)")
    if args.replicates and args.paper:
        ap.error("--replicates goes with a whole page's --write, not --paper")
    if args.records and (not args.write or args.paper or args.replicates):
        ap.error("--records goes with --write alone (it rewrites only the record columns)")
    for folder in args.replicates:
        if not Path(folder).is_dir():
            ap.error(f"--replicates {folder!r}: no such results folder")
        if not any((Path(folder) / p).is_dir() for p in paper_keys()):
            ap.error(f"--replicates {folder!r}: holds no paper's results (give a run's results/)")
    if args.paper and args.paper not in paper_keys():
        ap.error(f"--paper {args.paper!r}: not a paper; choose from {', '.join(paper_keys())}")
    command = "privrisk status " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if a
    )
    try:
        results = Path(args.results)
        if args.write and args.records:
            old = page_data(args.readme)
            if old is None:
                raise StatusError(
                    f"{data_path(args.readme)} does not exist: write the page from a clean run "
                    f"first ({COMMAND})"
                )
            changed = write(args.readme, old, command)
            print(
                f"{args.readme}: record columns "
                f"{'updated' if changed else 'already current'} from records/"
            )
        elif args.write and args.paper:
            old = page_data(args.readme)
            changed = write(args.readme, update(old, results, args.paper), command)
            print(
                f"{args.readme}: {args.paper}'s part "
                f"{'updated' if changed else 'already current'} from {results}/{args.paper}/"
            )
        elif args.write:
            old = page_data(args.readme)
            if args.replicates:
                if not (results / "claims.csv").is_file():
                    raise StatusError(f"{results}/claims.csv does not exist; run a clean run first")
                data = D.with_replicates(D.from_run(results), args.replicates)
            else:
                if not (results / "claims.csv").is_file():
                    raise StatusError(
                        f"{results}/claims.csv does not exist: the whole page is written from a "
                        f"clean run (`snakemake --cores 2`); one paper's part: privrisk status "
                        f"--write --paper KEY"
                    )
                have = D.present(results)
                data = D.carry(D.from_run(results, have), old, have, others=False)
            changed = write(args.readme, data, command)
            print(f"{args.readme}: status page {'updated' if changed else 'already current'}")
        elif args.check:
            problems, moves, unchecked = check_results(args.readme, results)
            if unchecked:
                print(
                    f"not checked (no results): {', '.join(unchecked)}; a clean run checks every "
                    f"paper: snakemake --cores 2 && privrisk status --check"
                )
            if moves:
                print("\n".join(moves))
            if problems:
                print("\n".join(problems))
                print(
                    f"\n{args.readme}: {len(problems)} row(s) disagree with {results}/ beyond what "
                    f"the page promises; each line names its fix (one paper: "
                    f"`privrisk status --write --paper KEY` after `snakemake --cores 2 KEY`; the "
                    f"whole page from a clean run: `{COMMAND}`)"
                )
                return 1
            print(
                f"{args.readme}: agrees with {results}/ (analytic rows exactly; no experimental row "
                f"contradicts the page or moves against its keep-probability"
                + (f"; {len(moves)} boundary row(s) moved" if moves else "")
                + ")"
            )
        else:
            print(render(D.from_run(results)), end="")
    except (StatusError, ValueError, OSError) as err:
        print(f"privrisk status: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
