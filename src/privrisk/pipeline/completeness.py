"""``privrisk complete``: is this run complete? An answer whose exit code can be trusted.

``snakemake -n`` is not that answer: while another Snakemake holds the directory's lock it prints
the lock error *and* "Nothing to be done" and exits 0, and it cannot see a figure CSV edited after
it was written (an edited file is newer than its inputs, so it looks current). This command exits 0
only when all of these hold, and otherwise names each thing that does not:

* **no lock**: ``.snakemake/locks/`` is empty. A lock means another Snakemake is running in this
  directory (its outputs are not final yet), or one was killed (then ``snakemake --unlock``);
* **present and current**: Snakemake's own ``--summary`` (run with ``--nolock``, the same targets
  and config as the run) plans no update for any output: nothing ``missing``, nothing with updated
  inputs, changed params or code, nothing left ``incomplete`` by an interrupted job;
* **unedited**: every file a figure wrote (its picture or table, CSV and claims rows) matches the
  SHA-256 its provenance record holds (``outputs_sha256``), the record matches the digest it holds
  of itself (``record_sha256``), and every gathered ledger the ``.sha256`` sidecar written with it
  (:mod:`privrisk.core.checksums`). An output with no recorded digest cannot be vouched for and
  is reported ``unverified`` (a sidecar deleted after an edit included): its fix makes it again
  from its sources (``--forcerun`` of its rule), never a gather that would copy it onward;
* **made from what is there**: every step artifact a figure was made from is present with the
  bytes the figure's record holds (``inputs_sha256``). A figure whose input is missing or was
  replaced since is *stale* even where Snakemake plans nothing (it does not remake a missing
  intermediate of an output it deems current).

Each problem comes with the command that fixes it: the same command again where Snakemake would
redo the work itself, else that command with ``--forcerun`` and the rules to redo.

Exit status: 0 complete; 1 not complete (one line per problem); 2 the check itself could not run
(a config file unreadable, or Snakemake refused the config or the targets: its message is shown).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core import checksums

#: a ``--summary`` plan that means the output is final
NO_UPDATE = "no update"
#: Snakemake's start-up lines, left out of a refusal's message
CHATTER = (
    "Using workflow specific profile",
    "Config file ",
    "Building DAG",
    "Assuming unrestricted",
)


@dataclass(frozen=True)
class Problem:
    kind: str  # lock, missing, stale, incomplete, edited, unverified
    path: str
    detail: str = ""

    def line(self) -> str:
        return f"{self.kind:<10} {self.path}" + (f": {self.detail}" if self.detail else "")


class CheckFailed(RuntimeError):
    """Snakemake could not list the outputs (bad config, unknown target); the message is its own."""


def locks(workdir: Path) -> list[Problem]:
    folder = workdir / ".snakemake" / "locks"
    held = sorted(folder.iterdir()) if folder.is_dir() else []
    return [
        Problem(
            "lock",
            str(p.relative_to(workdir)),
            "a Snakemake is running in this directory (its outputs are not final), or one was "
            "killed: if none runs, `snakemake --unlock`, then run again",
        )
        for p in held
    ]


def summary(workdir: Path, snakemake_args: Sequence[str]) -> list[dict[str, str]]:
    """Snakemake's ``--summary`` rows (output_file, date, rule, log-file(s), status, plan)."""
    cmd = [sys.executable, "-m", "snakemake", "--summary", "--nolock", *snakemake_args]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if proc.returncode != 0:
        said = [
            ln for ln in (proc.stderr or proc.stdout).splitlines() if not ln.startswith(CHATTER)
        ]
        if any(ln.startswith("Traceback") for ln in said):  # Snakemake's own crash: its last word
            said = [next(ln for ln in reversed(said) if ln.strip())]
        raise CheckFailed("\n".join(said).strip() or f"{cmd} exited {proc.returncode}")
    lines = proc.stdout.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.startswith("output_file\t"))
    except StopIteration:
        raise CheckFailed(f"no summary table in Snakemake's output:\n{proc.stdout}") from None
    header = lines[start].split("\t")
    return [
        dict(zip(header, ln.split("\t"), strict=False)) for ln in lines[start + 1 :] if "\t" in ln
    ]


def pending(rows: list[dict[str, str]]) -> list[Problem]:
    """One problem per rule and reason: the outputs Snakemake would make again."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for row in rows:
        if row.get("plan") == NO_UPDATE:
            continue
        status = row.get("status", "")
        kind = status if status in ("missing", "incomplete") else "stale"
        groups.setdefault((kind, row.get("rule", "?"), status), []).append(row["output_file"])
    return [
        Problem(
            kind,
            files[0] if len(files) == 1 else f"{files[0]} and {len(files) - 1} more",
            f"rule {rule}; {status}",
        )
        for (kind, rule, status), files in groups.items()
    ]


def _record(path: Path) -> dict | str:
    """A figure's provenance record, or why it is none."""
    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        return f"not a provenance record ({type(err).__name__}: {str(err)[:80]})"
    return record if isinstance(record, dict) else "not a provenance record (not a JSON object)"


def _records(workdir: Path, outputs: Sequence[str]) -> list[tuple[str, Path]]:
    """(output path, file) of every figure's provenance record among ``outputs`` (a ``.json``
    beside a ``.csv`` of the same name)."""
    return [
        (rel, workdir / rel)
        for rel in outputs
        if rel.endswith(".json")
        and (workdir / rel).is_file()
        and (workdir / rel).with_suffix(".csv").is_file()
    ]


#: where every generated file lives; each one there that no provenance record covers carries a
#: ``.sha256`` sidecar written with it (a step's artifact, a ledger, the claims page). Data markers
#: (``data/prepared/``) are not results: they record the checksums of the data they stand for.
RESULTS = "results/"


def _covered(workdir: Path, outputs: Sequence[str]) -> set[str]:
    """The outputs a provenance record vouches for: each record and the files it lists."""
    out = set()
    for rel, path in _records(workdir, outputs):
        out.add(rel)
        record = _record(path)
        recorded = record.get(checksums.PROVENANCE_KEY) if isinstance(record, dict) else None
        if isinstance(recorded, dict):
            out |= {os.path.relpath(path.parent / name, workdir) for name in recorded}
    return out


def _sidecar_problems(workdir: Path, rel: str) -> list[Problem]:
    """An output that must carry a sidecar: ``unverified`` when it has none (or one that does not
    name it), ``edited`` when its bytes differ from the digest there. A missing sidecar is never
    read as "nothing to check": deleting it after editing the file would launder the edit (the
    gather downstream would copy it into the global ledger with fresh digests)."""
    path = workdir / rel
    side = checksums.sidecar(path)
    if not side.is_file():
        return [
            Problem(
                "unverified",
                rel,
                f"no {side.name} beside it: its bytes cannot be vouched for (edited, or written "
                "by an older run); it is made again from its sources",
            )
        ]
    try:
        recorded = checksums.read_sidecar(side)
    except (OSError, UnicodeDecodeError) as err:
        recorded = {}
        why = f"{side.name} unreadable ({type(err).__name__})"
    else:
        why = f"{side.name} records no digest of it"
    if path.name not in recorded:
        return [Problem("unverified", rel, f"{why}: it is made again from its sources")]
    return [
        Problem("edited", str(p.relative_to(workdir)), why)
        for p, why in checksums.changed({path.name: recorded[path.name]}, path.parent)
    ]


def edited(workdir: Path, outputs: Sequence[str]) -> list[Problem]:
    """Outputs whose bytes differ from the digests recorded when they were written (a figure's
    files, its claims rows, its provenance record itself, a ledger, a step's artifact), and
    outputs whose digest is not there to check (``unverified``)."""
    problems = []
    for rel, path in _records(workdir, outputs):
        record = _record(path)
        if isinstance(record, str):
            problems.append(Problem("edited", rel, record))
            continue
        recorded = record.get(checksums.PROVENANCE_KEY)
        own = record.get(checksums.RECORD_KEY)
        if recorded is None or own is None:
            problems.append(
                Problem(
                    "unverified",
                    rel,
                    "records no digest of "
                    + ("its outputs" if recorded is None else "itself")
                    + " (written by an older run)",
                )
            )
        elif own != checksums.record_digest(record):
            problems.append(
                Problem("edited", rel, "its content differs from the SHA-256 it records of itself")
            )
        if not isinstance(recorded, dict):
            continue
        problems += [
            Problem("edited", str(p.relative_to(workdir)), why)
            for p, why in checksums.changed(recorded, path.parent)
            if why != "missing"  # a missing file is Snakemake's "missing" already
        ]
    covered = _covered(workdir, outputs)
    for rel in outputs:
        path = workdir / rel
        if rel in covered or not path.is_file():  # a record's, or a folder (a step may write one)
            continue
        if rel.startswith(RESULTS):
            problems += _sidecar_problems(workdir, rel)
        elif checksums.sidecar(path).is_file():
            problems += [
                Problem("edited", str(p.relative_to(workdir)), why)
                for p, why in checksums.changed(
                    checksums.read_sidecar(checksums.sidecar(path)), path.parent
                )
            ]
    return problems


def stale(workdir: Path, outputs: Sequence[str]) -> list[Problem]:
    """Figures made from a step artifact that is missing now, or whose bytes are not those the
    figure's record holds (``inputs_sha256``): Snakemake plans nothing for them (it does not remake
    a missing intermediate of an output it deems current), yet they may not show what the inputs
    there would give."""
    problems = []
    for rel, path in _records(workdir, outputs):
        record = _record(path)
        inputs = record.get(checksums.INPUTS_KEY) if isinstance(record, dict) else None
        if not isinstance(inputs, dict):
            continue
        figure = str(Path(rel).with_suffix(".csv"))
        for p, why in checksums.changed(inputs, path.parent):
            made = os.path.relpath(p, workdir)
            problems.append(
                Problem(
                    "stale",
                    figure,
                    f"made from {made}, which is missing now"
                    if why == "missing"
                    else f"made from an earlier {made} (its bytes differ from the SHA-256 "
                    "recorded when the figure was made)",
                )
            )
    return problems


@dataclass(frozen=True)
class Report:
    """What :func:`check` found: how many outputs were listed, the problems, and for each output
    the rule that makes it (for the ``--forcerun`` of the fix)."""

    n_outputs: int
    problems: list[Problem]
    rules: dict[str, str]

    def redo(self) -> tuple[bool, list[str]]:
        """(whether Snakemake would redo something by itself, the rules it would not redo
        without ``--forcerun``: those of outputs that are edited, stale or gone while Snakemake
        plans nothing for them)."""
        planned = any(p.detail.startswith("rule ") for p in self.problems)
        forced = sorted(
            {
                self.rules[p.path]
                for p in self.problems
                if p.kind != "lock" and not p.detail.startswith("rule ") and p.path in self.rules
            }
        )
        return planned, forced


def check(
    workdir: str | Path = ".", snakemake_args: Sequence[str] = ()
) -> tuple[int, list[Problem]]:
    """(number of outputs listed, problems); no problem means complete."""
    report = inspect(workdir, snakemake_args)
    return report.n_outputs, report.problems


def inspect(workdir: str | Path = ".", snakemake_args: Sequence[str] = ()) -> Report:
    """Every problem, with the rule of every output (:class:`Report`)."""
    workdir = Path(workdir).resolve()
    problems = locks(workdir)
    rows = summary(workdir, snakemake_args)
    problems += pending(rows)
    final = [r["output_file"] for r in rows if r.get("plan") == NO_UPDATE]
    # Snakemake plans nothing for a job whose requested target exists while another of its
    # outputs is gone (`snakemake results/x.csv` with x.png deleted): every output must be there
    gone = [f for f in final if not (workdir / f).exists()]
    problems += [
        Problem("missing", f, "an output of a job Snakemake would not rerun") for f in gone
    ]
    present = [f for f in final if f not in gone]
    problems += edited(workdir, present)
    problems += stale(workdir, present)
    rules = {r["output_file"]: r.get("rule", "") for r in rows}
    return Report(len(rows), problems, rules)


def command(args: argparse.Namespace, forcerun: Sequence[str] = ()) -> str:
    """The ``snakemake`` command that redoes the run ``privrisk complete`` was asked about
    (targets first: ``--configfile`` takes several files and would swallow a target after it)."""
    parts = ["snakemake", "--cores", "all", *args.targets]
    if forcerun:
        parts += ["--forcerun", *forcerun]
    if args.directory != ".":
        parts += ["-d", args.directory]
    if args.snakefile:
        parts += ["-s", args.snakefile]
    if args.configfile:
        parts += ["--configfile", *args.configfile]
    if args.config:
        parts += ["--config", *args.config]
    return " ".join(shlex.quote(p) for p in parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="privrisk complete",
        description="Exit 0 only when every target is present, current and unedited and no "
        "Snakemake lock is held; otherwise name what is missing, stale, edited or the lock, and "
        "the command that fixes it.",
        epilog="Give the targets and config the run was given (default: every target of "
        "config/config.yaml). Exit status: 0 complete, 1 not complete, 2 the check could not run.",
    )
    ap.add_argument("targets", nargs="*", help="targets of the run (rules or files)")
    ap.add_argument("--configfile", nargs="+", default=[], metavar="FILE", help="as snakemake's")
    ap.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE", help="as snakemake's")
    ap.add_argument("-d", "--directory", default=".", help="the run's working directory")
    ap.add_argument("-s", "--snakefile", help="as snakemake's (default: its own search)")
    args = ap.parse_args(argv)
    from ..core import safe_io

    try:
        safe_io.check_folder(args.directory, what="-d")
    except safe_io.FileRefused as err:
        print(f"privrisk complete: {err}", file=sys.stderr)
        return 2
    from .config import ConfigError, read_file

    try:  # before Snakemake: its own message for a missing or damaged file is a traceback
        for f in args.configfile:
            read_file(f)
        if args.snakefile:  # a pipe would hang Snakemake's read of it
            safe_io.check_input(args.snakefile, what="-s")
    except (ConfigError, safe_io.FileRefused) as err:
        print(f"privrisk complete: {err}", file=sys.stderr)
        return 2
    smk = [*args.targets]
    if args.snakefile:
        smk += ["--snakefile", str(Path(args.snakefile).resolve())]
    if args.configfile:  # Snakemake runs in --directory: paths as the caller meant them
        smk += ["--configfile", *(str(Path(f).resolve()) for f in args.configfile)]
    if args.config:
        smk += ["--config", *args.config]
    try:
        report = inspect(args.directory, smk)
    except CheckFailed as err:
        print(f"privrisk complete: could not list the outputs:\n{err}", file=sys.stderr)
        return 2
    if not report.problems:
        print(f"complete: {report.n_outputs} outputs present, current and unedited; no lock held")
        return 0
    print(f"NOT complete: {len(report.problems)} problem(s) among {report.n_outputs} outputs")
    for p in report.problems:
        print(f"  {p.line()}")
    planned, forced = report.redo()
    if forced:
        print(
            "Snakemake would not redo all of these by itself (an edited output is newer than its "
            "inputs; a missing input of an output it deems current is not remade; an unverified "
            "one must be made again from its sources, not copied onward); this does, "
            f"with everything else listed:\n  {command(args, forced)}"
        )
    elif planned:
        print(f"Run the same command again; it redoes what is listed:\n  {command(args)}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
