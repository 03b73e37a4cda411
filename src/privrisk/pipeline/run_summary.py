"""What a finished ``snakemake`` run says last: where its outputs are, what the ledger says, what
changed since the last run, and what to do next (the Snakefile's ``onsuccess`` / ``onerror``).

The ledger's rows are compared with a copy kept from the previous run's end
(``results/.claims.previous.csv``): a row whose status or value changed, a new row and a row
that is gone are listed (the first few of each; ``privrisk claims`` shows them all).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..core.discovery import paper_keys

LEDGER = Path("results/claims.csv")
PREVIOUS = Path("results/.claims.previous.csv")
PAGE = Path("results/claims.html")
KEY = ["paper", "figure", "claim_id"]
#: changed rows listed by name before "and N more"
SHOWN = 8


def _read(path: Path) -> pd.DataFrame | None:
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError):
        return None
    return df if set(KEY) | {"status", "ours"} <= set(df.columns) else None


def counts(df: pd.DataFrame) -> str:
    by = df["status"].value_counts()
    return ", ".join(f"{n} {status}" for status, n in sorted(by.items(), key=lambda kv: -kv[1]))


def changes(before: pd.DataFrame, after: pd.DataFrame) -> list[str]:
    """One line per row whose status or value changed, per new row and per row gone."""
    old = {tuple(r[k] for k in KEY): r for r in before.to_dict("records")}
    new = {tuple(r[k] for k in KEY): r for r in after.to_dict("records")}
    lines = []
    for key, row in new.items():
        name = "/".join(key)
        if key not in old:
            lines.append(f"new      {name}: {row['status']} (ours {row['ours']})")
            continue
        was = old[key]
        if (was["status"], was["ours"]) != (row["status"], row["ours"]):
            lines.append(
                f"changed  {name}: {was['status']} -> {row['status']} "
                f"(ours {was['ours']} -> {row['ours']})"
            )
    lines += [f"gone     {'/'.join(key)}" for key in old if key not in new]
    return lines


#: what Snakemake's own log says (Snakemake 9.27: scheduling/job_scheduler.py, logging.py)
FAILED_RULE = re.compile(r"^Error in rule (\S+?):?$")
FAILED_LOG = re.compile(r"^\s+log: (.+?) \(check log file\(s\) for error details\)$")
STOPPED = "Will exit after finishing currently running jobs"  # SIGTERM
INTERRUPTED = "Terminating processes on user request"  # SIGINT (Ctrl-C)


def why_not_ok(logs: Sequence[str | Path] = ()) -> list[str]:
    """Why the run did not finish, from Snakemake's own log of it (``onerror``'s ``log``): the
    rules that failed with their logs, or that it was stopped (SIGTERM) or interrupted (Ctrl-C)
    with no job failing, or, where the log says neither, that the reason is in the messages above.
    Never "a job failed" when none did."""
    lines: list[str] = []
    for path in logs:
        try:
            lines += Path(path).read_text(errors="replace").splitlines()
        except OSError:
            continue
    failed: dict[str, str] = {}
    rule = None
    for line in lines:
        m = FAILED_RULE.match(line)
        if m:
            rule = m.group(1)
            failed.setdefault(rule, "")
            continue
        m = FAILED_LOG.match(line)
        if m and rule is not None and not failed[rule]:
            failed[rule] = m.group(1)
    again = "Jobs that finished are kept; run the same command again to do the rest."
    if failed:
        named = "; ".join(f"{r} (log {log})" if log else r for r, log in failed.items())
        return [
            f"Run FAILED: {len(failed)} job(s) failed: {named}. Jobs that finished are kept; "
            "fix the cause (the end of the job's log) and run the same command again."
        ]
    if any(STOPPED in line for line in lines):
        return [
            "Run STOPPED on request (SIGTERM): no job failed; the jobs that were running were "
            f"finished first. {again}"
        ]
    if any(INTERRUPTED in line for line in lines):
        return [
            "Run INTERRUPTED (Ctrl-C): no job failed; the jobs that were running were stopped and "
            f"will be redone. {again}"
        ]
    return [f"Run FAILED (Snakemake's messages above say why; no job log names a failure). {again}"]


def text(
    ok: bool, workdir: str | Path = ".", *, remember: bool = True, logs: Sequence[str | Path] = ()
) -> str:
    """The closing summary; with ``remember`` the ledger is kept for the next run's comparison.
    ``logs``: Snakemake's log of the run (what ``onerror`` receives), read to say why it ended."""
    root = Path(workdir)
    papers = [k for k in paper_keys() if (root / "results" / k).is_dir()]
    out = ["", "=" * 72]
    if ok:
        out.append("Run finished. Outputs (figures .pdf/.png, numbers .csv, provenance .json):")
    else:
        out += why_not_ok(logs)
        out.append("Outputs so far:")
    out += [f"  results/{k}/" for k in papers] or ["  (none yet under results/)"]
    ledger = _read(root / LEDGER)
    if ledger is not None:
        out.append(f"Claims ledger {LEDGER} ({len(ledger)} claims): {counts(ledger)}")
        before = _read(root / PREVIOUS)
        if before is None:
            out.append("  (no earlier run's ledger to compare with)")
        else:
            diff = changes(before, ledger)
            out.append(
                f"  since the last run: {len(diff)} row(s) changed"
                if diff
                else "  since the last run: no row changed"
            )
            out += [f"    {line}" for line in diff[:SHOWN]]
            if len(diff) > SHOWN:
                out.append(f"    ... and {len(diff) - SHOWN} more")
        if remember and ok:
            shutil.copyfile(root / LEDGER, root / PREVIOUS)
    out.append("Next:")
    if (root / PAGE).is_file():
        out.append(f"  open {PAGE}                       the ledger: colours, sorting, filters")
    out += [
        "  snakemake --report results/report.html   every figure with its caption",
        "  privrisk claims --status differs         the claims that do not reproduce",
        "  privrisk complete [TARGETS] [--configfile FILE ...]   (as this run was given them)",
        "                                           exit 0 only if every output is current",
        "=" * 72,
    ]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - for trying it by hand
    print(text(True, remember=False))
    return 0
