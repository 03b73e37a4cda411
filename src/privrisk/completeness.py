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
* **unedited**: every figure output matches the SHA-256 its provenance record holds
  (``outputs_sha256``), and every gathered ledger the ``.sha256`` sidecar written with it
  (:mod:`privrisk.core.checksums`). An output with no recorded digest cannot be vouched for and
  is reported too.

Exit status: 0 complete; 1 not complete (one line per problem); 2 the check itself could not run
(Snakemake refused the config or the targets: its message is shown).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .core import checksums

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


def edited(workdir: Path, outputs: Sequence[str]) -> list[Problem]:
    """Outputs whose bytes differ from the digests recorded when they were written, and outputs a
    record should cover but does not."""
    problems, covered = [], set()
    for rel in outputs:
        path = workdir / rel
        if path.suffix == ".json" and path.is_file() and path.with_suffix(".csv").is_file():
            try:
                recorded = json.loads(path.read_text()).get(checksums.PROVENANCE_KEY)
            except (json.JSONDecodeError, UnicodeDecodeError, AttributeError) as err:
                problems.append(Problem("edited", rel, f"not a provenance record ({err})"))
                continue
            if recorded is None:
                problems.append(
                    Problem(
                        "unverified", rel, "records no output digests (written by an older run)"
                    )
                )
                covered.add(str(path.with_suffix(".csv")))
                continue
            covered |= {str(path.parent / name) for name in recorded}
            problems += [
                Problem("edited", str(p.relative_to(workdir)), why)
                for p, why in checksums.changed(recorded, path.parent)
                if why != "missing"  # a missing file is Snakemake's "missing" already
            ]
    for rel in outputs:
        path = workdir / rel
        side = checksums.sidecar(path)
        if side.is_file() and path.is_file():
            problems += [
                Problem("edited", str(p.relative_to(workdir)), why)
                for p, why in checksums.changed(checksums.read_sidecar(side), path.parent)
            ]
    return problems


def check(
    workdir: str | Path = ".", snakemake_args: Sequence[str] = ()
) -> tuple[int, list[Problem]]:
    """(number of outputs listed, problems); no problem means complete."""
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
    problems += edited(workdir, [f for f in final if f not in gone])
    return len(rows), problems


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="privrisk complete",
        description="Exit 0 only when every target is present, current and unedited and no "
        "Snakemake lock is held; otherwise name what is missing, stale, edited or the lock.",
        epilog="Give the targets and config the run was given (default: every target of "
        "config/config.yaml). Exit status: 0 complete, 1 not complete, 2 the check could not run.",
    )
    ap.add_argument("targets", nargs="*", help="targets of the run (rules or files)")
    ap.add_argument("--configfile", nargs="+", default=[], metavar="FILE", help="as snakemake's")
    ap.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE", help="as snakemake's")
    ap.add_argument("-d", "--directory", default=".", help="the run's working directory")
    ap.add_argument("-s", "--snakefile", help="as snakemake's (default: its own search)")
    args = ap.parse_args(argv)
    smk = [*args.targets]
    if args.snakefile:
        smk += ["--snakefile", str(Path(args.snakefile).resolve())]
    if args.configfile:  # Snakemake runs in --directory: paths as the caller meant them
        smk += ["--configfile", *(str(Path(f).resolve()) for f in args.configfile)]
    if args.config:
        smk += ["--config", *args.config]
    try:
        n, problems = check(args.directory, smk)
    except CheckFailed as err:
        print(f"privrisk complete: could not list the outputs:\n{err}", file=sys.stderr)
        return 2
    if not problems:
        print(f"complete: {n} outputs present, current and unedited; no lock held")
        return 0
    print(f"NOT complete: {len(problems)} problem(s) among {n} outputs")
    for p in problems:
        print(f"  {p.line()}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
