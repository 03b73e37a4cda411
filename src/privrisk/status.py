"""The README's status table, generated from a run's results so that its numbers cannot drift.

``privrisk status`` reads ``results/claims.csv`` (every claim's status and numbers), the figure
provenance records ``results/<key>/<fig>.json`` (every output and its data source) and the
training records ``results/<key>/intermediate/*_record.json`` (each trained model's
member-vs-hold-out AUC), and renders one Markdown block: a count of claims by status per paper,
then per paper its outputs, its trained models and every claim row (claim id, paper value, ours,
status). Numbers are rounded one fixed way (:func:`fmt`); nothing that changes from run to run of
the same config (wall times, paths, dates, commits, the CPU) is shown.

``--write`` puts the block between ``<!-- status:begin -->`` and ``<!-- status:end -->`` in
README.md; ``--check`` exits 1 with a diff when the README's block differs from the results
(CI runs it after the pipeline).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from . import claims
from .core.discovery import paper_keys

#: the page holding the status block (the docs site's status page)
TARGET = "docs/status.md"
BEGIN = "<!-- status:begin -->"
END = "<!-- status:end -->"
COMMAND = "privrisk status --write"


class StatusError(ValueError):
    """Results or a README that the status table cannot be made from (names the file)."""


# --- numbers -------------------------------------------------------------------------------------


def fmt(value: Any) -> str:
    """One rounding for every number of the table: integers as they are, |x| >= 100 to the unit,
    anything else to 3 significant digits (0.73105858 -> 0.731, 17.78 -> 17.8, 1e-05 -> 1e-05);
    text (a qualitative claim's evidence) unchanged, empty for a missing value."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            return text
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    x = float(value)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    if abs(x) >= 100:
        return str(round(x))
    return f"{x:.3g}"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _row(cells: Iterable[Any]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _natural(name: str) -> list:
    """fig2 before fig10, fig4a before fig4b."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


# --- reading the results -------------------------------------------------------------------------


def _json(path: Path) -> dict[str, Any]:
    try:
        out = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise StatusError(f"{path}: not a readable JSON record ({err})") from err
    if not isinstance(out, dict):
        raise StatusError(f"{path}: not a JSON object")
    return out


def outputs(results: Path, paper: str) -> list[dict[str, Any]]:
    """The paper's figure provenance records (``results/<paper>/<fig>.json``), in natural order."""
    records = []
    for path in (results / paper).glob("*.json"):
        rec = _json(path)
        if rec.get("paper") == paper and "figure" in rec:
            records.append(rec)
    return sorted(records, key=lambda r: _natural(r["figure"]))


def models(results: Path, paper: str) -> list[tuple[str, dict[str, Any]]]:
    """Training records with an ``auc`` (``results/<paper>/intermediate/<model>_record.json``)."""
    found = []
    for path in sorted((results / paper / "intermediate").glob("*_record.json"), key=str):
        rec = _json(path)
        if "auc" in rec:
            found.append((path.name.removesuffix("_record.json"), rec))
    return sorted(found, key=lambda m: _natural(m[0]))


def _data(sources: dict[str, str] | None) -> str:
    values = sorted(set((sources or {}).values()))
    return ", ".join(values) if values else "analytic"


def _aucs(auc: Any) -> str:
    if isinstance(auc, dict):
        return ", ".join(f"{k} {fmt(v)}" for k, v in sorted(auc.items()))
    return fmt(auc)


def _counts(statuses: Iterable[str]) -> str:
    s = list(statuses)
    return ", ".join(f"{s.count(k)} {k}" for k in claims.STATUSES if s.count(k)) or "no claims"


# --- the block -----------------------------------------------------------------------------------


def render(results: str | Path = "results") -> str:
    """The status block (without the markers) made from ``results``."""
    results = Path(results)
    ledger_path = results / "claims.csv"
    if not ledger_path.is_file():
        raise StatusError(f"{ledger_path} does not exist; run `snakemake --cores 2` first")
    ledger = claims.read(ledger_path)
    papers = [p for p in paper_keys() if p in set(ledger.paper) or (results / p).is_dir()]
    per_paper = {p: outputs(results, p) for p in papers}
    records = [r for recs in per_paper.values() for r in recs]
    scales = sorted({str(r.get("scale")) for r in records})
    threads = sorted({str(r["torch_threads"]) for r in records if r.get("torch_threads")})

    out = [
        f"<!-- Generated by `{COMMAND}` from the results of a clean run; do not edit by hand "
        "(CI checks it with `privrisk status --check`). -->",
        "",
        f"Made at scale {', '.join(scales) or '?'}"
        + (f" with `torch_threads: {', '.join(threads)}`" if threads else "")
        + "; numbers to 3 significant digits.",
        "",
        _row(["paper", "outputs", "claims", *claims.STATUSES]),
        "|---|" + "---:|" * (2 + len(claims.STATUSES)),
    ]
    totals = [0, 0] + [0] * len(claims.STATUSES)
    for paper in papers:
        statuses = list(ledger.status[ledger.paper == paper])
        counts = [len(per_paper[paper]), len(statuses)] + [
            statuses.count(s) for s in claims.STATUSES
        ]
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        out.append(_row([paper, *counts]))
    out.append(_row(["**all**", *[f"**{t}**" for t in totals]]))

    for paper in papers:
        rows = ledger[ledger.paper == paper]
        out += [
            "",
            f"<details><summary><b>{paper}</b>: {len(per_paper[paper])} outputs, {len(rows)} "
            f"claims ({_counts(rows.status)})</summary>",
            "",
            _row(["output", "data", "claims"]),
            "|---|---|---|",
        ]
        for rec in per_paper[paper]:
            fig_rows = rows[rows.figure == rec["figure"]]
            out.append(
                _row([rec["figure"], _data(rec.get("data_sources")), _counts(fig_rows.status)])
            )
        trained = models(results, paper)
        if trained:
            out += ["", _row(["trained model", "data", "member vs hold-out AUC"]), "|---|---|---|"]
            for name, rec in trained:
                out.append(_row([name, rec.get("data_source", ""), _aucs(rec["auc"])]))
        out += ["", _row(["figure", "claim", "paper", "ours", "status"]), "|---|---|---|---|---|"]
        for r in rows.itertuples(index=False):
            status = f"**{r.status}**" if r.status in ("differs", "qualitative-fails") else r.status
            out.append(_row([r.figure, f"`{r.claim_id}`", fmt(r.paper_value), fmt(r.ours), status]))
        out += ["", "</details>"]
    return "\n".join(out) + "\n"


# --- the README ----------------------------------------------------------------------------------


def _split(readme: Path) -> tuple[str, str, str]:
    text = readme.read_text()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise StatusError(f"{readme}: needs exactly one {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN)
    body, tail = rest.split(END)
    return head, body, tail


def _block(body: str) -> str:
    return "\n" + body + "\n"


def write(readme: str | Path, block: str) -> bool:
    """Put ``block`` between the README's markers; True when the file changed."""
    readme = Path(readme)
    head, body, tail = _split(readme)
    new = head + BEGIN + _block(block) + END + tail
    if new == readme.read_text():
        return False
    tmp = readme.with_suffix(readme.suffix + ".tmp")
    tmp.write_text(new)
    tmp.replace(readme)
    return True


def diff(readme: str | Path, block: str) -> list[str]:
    """Unified diff from the README's committed block to ``block`` (empty: they agree)."""
    readme = Path(readme)
    _, body, _ = _split(readme)
    return list(
        difflib.unified_diff(
            body.splitlines(keepends=True),
            _block(block).splitlines(keepends=True),
            f"{readme} (committed)",
            "from the results",
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="privrisk status", description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results", help="the run's results folder")
    ap.add_argument("--readme", default=TARGET, help="the page holding the status block")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the block into the README")
    mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1 with a diff when the README's block differs from the results",
    )
    args = ap.parse_args(argv)
    try:
        block = render(args.results)
        if args.write:
            changed = write(args.readme, block)
            print(f"{args.readme}: status table {'updated' if changed else 'already current'}")
        elif args.check:
            lines = diff(args.readme, block)
            if lines:
                sys.stdout.writelines(lines)
                print(
                    f"\n{args.readme}: the status table differs from {args.results}/ "
                    f"(regenerate it from a clean run: `{COMMAND}`)"
                )
                return 1
            print(f"{args.readme}: status table agrees with {args.results}/")
        else:
            print(block, end="")
    except (StatusError, ValueError) as err:
        print(f"privrisk status: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
