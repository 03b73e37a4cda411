"""The status page (docs/status.md), generated from a run's results so that its numbers cannot drift.

``privrisk status`` reads ``results/claims.csv`` (every claim's status and numbers), the figure
provenance records ``results/<key>/<fig>.json`` (every output and its data source) and the
training records ``results/<key>/intermediate/*_record.json`` (each trained model's
member-vs-hold-out AUC of every query, mean and range over its training runs), and renders one Markdown block: a count of claims by status per paper,
then per paper its outputs, its trained models and every claim row (claim id, paper value, ours,
status). Numbers are rounded one fixed way (:func:`fmt`); nothing that changes from run to run of
the same config (wall times, paths, dates, commits, the CPU) is shown.

``--write`` puts the block between ``<!-- status:begin -->`` and ``<!-- status:end -->`` in
the status file (:data:`STATUS_FILE`); ``--write --paper KEY`` replaces (or adds) only that
paper's block and summary row, from the results ``snakemake KEY`` made, and recomputes the
**all** row from the paper rows: every number of a paper's parts comes from its own results, so
the page made paper by paper is the page a clean run makes (tested over random results).
``--check`` exits 1 when the file's block disagrees with the results: a paper, output, trained
model or claim on one side only is one line naming the command that fixes it
(``privrisk status --write --paper KEY after snakemake --cores 2 KEY``), then each row that
differs beyond what is allowed below. With only some papers' results it checks those papers and
says which it did not (CI runs it after a clean run, through ``privrisk docs --check``).

**Measured on several runs** (``--write --replicates DIR ...``: results folders of the same
config at other seeds or under another CPU's kernels): a decided status counts only if every run
gives it; a claim whose runs disagree is shown as ``uninformative (reruns: qualitative-ok,
uninformative)`` and counted as uninformative (:func:`combined`). The marks live on the page: a
``--write`` or ``--check`` from one run keeps a mark where the run's status is among those its
runs gave, and otherwise shows the plain status (``--check`` then names the row).

**The check holds on any machine** (design.md §4, "Verdicts"): every claim row carries its
``data`` (``analytic`` or where the experiment's data came from) and ``±``, the uncertainty the row
states (2 × the standard error behind a numeric experimental value). The check compares

* the structure (papers, outputs, claim rows, trained models) and every count and status exactly;
* analytic numbers exactly (after the one rounding, :func:`fmt`);
* an experimental number within the uncertainty both rows state (|a − b| ≤ ±a + ±b: the two
  intervals overlap); one without a stated uncertainty (an audit's ε̂, a confidence bound with no
  standard error) is shown and not compared: another CPU's floats move it, and its status, which
  is compared, carries the decision;
* the text of an experimental qualitative row (its evidence) with its numbers masked: the status
  carries the decision, which the verdict rules make robust (:mod:`privrisk.contract.verdicts`);
* trained models by name, data and number of runs; their AUCs (experimental, no stated
  uncertainty) are shown, not compared; the header's thread count is not compared (a run with another
  ``torch_threads`` must give the same table).
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

from ..core.discovery import paper_keys
from . import claims

#: the page holding the status block (the docs site's status page); one constant, one edit to move it
STATUS_FILE = "docs/status.md"
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


def run_aucs(rec: dict[str, Any]) -> dict[str, list[float]]:
    """Each query column's member-vs-hold-out AUC in every training run of a record: the runs'
    ``auc`` (``runs[k].auc``, a model trained several times) or the record's own (one run)."""
    runs = [r["auc"] for r in rec.get("runs") or [] if isinstance(r, dict) and "auc" in r]
    if not runs and "auc" in rec:
        runs = [rec["auc"]]
    out: dict[str, list[float]] = {}
    for auc in runs:
        for k, v in (auc if isinstance(auc, dict) else {"auc": auc}).items():
            out.setdefault(str(k), []).append(float(v))
    return out


def models(results: Path, paper: str) -> list[tuple[str, dict[str, Any]]]:
    """Training records with an AUC (``results/<paper>/intermediate/<model>_record.json``: the
    record's ``auc`` or its runs')."""
    found = []
    for path in sorted((results / paper / "intermediate").glob("*_record.json"), key=str):
        rec = _json(path)
        if run_aucs(rec):
            found.append((path.name.removesuffix("_record.json"), rec))
    return sorted(found, key=lambda m: _natural(m[0]))


def _data(sources: dict[str, str] | None) -> str:
    values = sorted(set((sources or {}).values()))
    return ", ".join(values) if values else "analytic"


def _aucs(rec: dict[str, Any]) -> str:
    """'d 0.871 (0.652–0.951)': each query column's mean AUC over the runs and its range."""
    parts = []
    for k, vals in sorted(run_aucs(rec).items()):
        mean = fmt(sum(vals) / len(vals))
        parts.append(
            f"{k} {mean}" + (f" ({fmt(min(vals))}–{fmt(max(vals))})" if len(vals) > 1 else "")
        )
    return ", ".join(parts)


def _runs(rec: dict[str, Any]) -> str:
    return str(max((len(v) for v in run_aucs(rec).values()), default=0))


def _counts(statuses: Iterable[str]) -> str:
    s = list(statuses)
    return ", ".join(f"{s.count(k)} {k}" for k in claims.STATUSES if s.count(k)) or "no claims"


# --- the block -----------------------------------------------------------------------------------

OUTPUT_HEADER = ["output", "data", "claims"]
CLAIM_HEADER = ["figure", "claim", "paper", "ours", "±", "status", "data"]
MODEL_HEADER = [
    "trained model",
    "data",
    "runs",
    "member vs hold-out AUC of each query: mean over the runs (range)",
]
_SE = re.compile(r"2 × s\.e\. ([-+0-9.eE]+|inf)")


def uncertainty(row: Any) -> str:
    """The ± a claim row states: 2 × the s.e. of a numeric experimental value (the ledger's note
    ``tolerance t + 2 × s.e. s``), '' for an analytic or qualitative row."""
    if row.data == "analytic":
        return ""
    m = _SE.search(str(row.note))
    return fmt(2.0 * float(m.group(1))) if m else ""


# --- statuses measured on several runs -----------------------------------------------------------

#: a status cell of a claim whose runs disagreed: ``uninformative (reruns: qualitative-ok,
#: uninformative)`` — every status its measured runs gave, in the order of claims.STATUSES
_RERUNS = re.compile(r"^uninformative \(reruns: (?P<seen>[a-z-]+(?:, [a-z-]+)+)\)$")


def key(row: Any) -> str:
    """A claim row's name on the page and in a set of reruns: ``figure/claim_id``."""
    return f"{row.figure}/{row.claim_id}"


def combined(status: str, seen: set[str] | None) -> str:
    """The page's status cell of a claim whose run gave ``status`` and whose measured runs gave
    the statuses ``seen`` (None or one status: measured once, or every run agreed).

    A decided status counts only if every run agrees: where they differ the claim is
    ``uninformative``, and the cell names what the runs gave. The run's own status must be one of
    ``seen``: where it is not, the measurement does not cover this run, and its plain status is
    shown (so ``--check`` names the row, and a ``--write`` drops the stale mark)."""
    if not seen or len(seen) < 2 or status not in seen:
        return status
    return f"uninformative (reruns: {', '.join(sorted(seen, key=claims.STATUSES.index))})"


def seen_in(cell: str) -> set[str] | None:
    """The statuses a combined cell records (:func:`combined`), or None for a plain status."""
    m = _RERUNS.match(cell.strip("*"))
    return set(m["seen"].split(", ")) if m else None


def page_reruns(body: str) -> dict[str, dict[str, set[str]]]:
    """The rerun marks of a status block: paper → claim key → the statuses its runs gave."""
    _, _, _, blocks = parse(body)
    status_at = CLAIM_HEADER.index("status")
    out: dict[str, dict[str, set[str]]] = {}
    for paper, lines in blocks.items():
        for kind, cells in _table_rows(lines):
            if kind == "claim" and (seen := seen_in(cells[status_at])):
                out.setdefault(paper, {})[_claim_key(cells)] = seen
    return out


def measured_reruns(
    results: Path, replicates: Sequence[str | Path], paper: str
) -> dict[str, set[str]]:
    """Claim key → the statuses ``results`` and the ``replicates`` (results folders of the same
    config at other seeds, thread counts or CPUs) gave for ``paper``; a replicate without the
    paper's results is skipped, a claim only some runs have counts the runs that have it."""
    out: dict[str, set[str]] = {}
    for folder in (results, *replicates):
        folder = Path(folder)
        if not (folder / paper).is_dir():
            continue
        for r in paper_rows(folder, paper).itertuples(index=False):
            out.setdefault(key(r), set()).add(r.status)
    return out


def _paper_part(
    results: Path,
    paper: str,
    rows: Any,
    recs: list[dict[str, Any]],
    reruns: dict[str, set[str]] | None = None,
) -> tuple[list[int], list[str]]:
    """One paper's counts (its row of the summary table) and its ``<details>`` block; a claim
    whose ``reruns`` differ counts as uninformative (:func:`combined`)."""
    cells = [combined(r.status, (reruns or {}).get(key(r))) for r in rows.itertuples(index=False)]
    # combined() returns the run's own status unless it marks the claim (then uninformative)
    statuses = [r if c == r else "uninformative" for r, c in zip(rows.status, cells, strict=True)]
    rows = rows.assign(status=statuses, cell=cells)
    counts = [len(recs), len(statuses)] + [statuses.count(s) for s in claims.STATUSES]
    out = [
        f"<details><summary><b>{paper}</b>: {len(recs)} outputs, {len(rows)} "
        f"claims ({_counts(rows.status)})</summary>",
        "",
        _row(OUTPUT_HEADER),
        "|---|---|---|",
    ]
    for rec in recs:
        fig_rows = rows[rows.figure == rec["figure"]]
        out.append(_row([rec["figure"], _data(rec.get("data_sources")), _counts(fig_rows.status)]))
    trained = models(results, paper)
    if trained:
        out += ["", _row(MODEL_HEADER), "|---|---|---:|---|"]
        for name, rec in trained:
            out.append(_row([name, rec.get("data_source", ""), _runs(rec), _aucs(rec)]))
    out += ["", _row(CLAIM_HEADER), "|---|---|---|---|---|---|---|"]
    for r in rows.itertuples(index=False):
        status = f"**{r.cell}**" if r.cell in ("differs", "qualitative-fails") else r.cell
        out.append(
            _row(
                [
                    r.figure,
                    f"`{r.claim_id}`",
                    fmt(r.paper_value),
                    fmt(r.ours),
                    uncertainty(r),
                    status,
                    r.data,
                ]
            )
        )
    return counts, out + ["", "</details>"]


def _assemble(
    scales: Sequence[str],
    threads: Sequence[str],
    counts: dict[str, list[int]],
    blocks: dict[str, list[str]],
) -> str:
    """The block from its parts, papers in the order of ``counts``: the header, the summary table
    (its **all** row the sum of the paper rows), then each paper's ``<details>``."""
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
    for paper, row in counts.items():
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        out.append(_row([paper, *row]))
    out.append(_row(["**all**", *[f"**{t}**" for t in totals]]))
    for paper in counts:
        out += ["", *blocks[paper]]
    return "\n".join(out) + "\n"


def _scales_threads(records: Iterable[dict[str, Any]]) -> tuple[list[str], list[str]]:
    records = list(records)
    scales = sorted({str(r.get("scale")) for r in records})
    threads = sorted({str(r["torch_threads"]) for r in records if r.get("torch_threads")})
    return scales, threads


def render(
    results: str | Path = "results",
    reruns: dict[str, dict[str, set[str]]] | None = None,
) -> str:
    """The status block (without the markers) made from ``results``; ``reruns`` (paper → claim
    key → statuses, :func:`measured_reruns` or :func:`page_reruns`) marks the claims whose
    measured runs disagreed."""
    results = Path(results)
    ledger_path = results / "claims.csv"
    if not ledger_path.is_file():
        raise StatusError(f"{ledger_path} does not exist; run `snakemake --cores 2` first")
    ledger = claims.read(ledger_path)
    papers = [p for p in paper_keys() if p in set(ledger.paper) or (results / p).is_dir()]
    per_paper = {p: outputs(results, p) for p in papers}
    scales, threads = _scales_threads(r for recs in per_paper.values() for r in recs)
    counts, blocks = {}, {}
    for paper in papers:
        rows = ledger[ledger.paper == paper]
        counts[paper], blocks[paper] = _paper_part(
            results, paper, rows, per_paper[paper], (reruns or {}).get(paper)
        )
    return _assemble(scales, threads, counts, blocks)


# --- one paper's block: `privrisk status --write --paper KEY` after `snakemake KEY` -------------


def paper_command(paper: str) -> str:
    """The command that puts one paper's block on the page."""
    return f"privrisk status --write --paper {paper} after snakemake --cores 2 {paper}"


_MADE_AT = re.compile(
    r"^Made at scale (?P<scales>.*?)(?: with `torch_threads: (?P<threads>[^`]*)`)?;"
)
_PAPER_ROW = re.compile(r"^\| (?P<paper>[^*|][^|]*?) \| (?P<counts>[0-9 |]+) \|$")


def parse(body: str) -> tuple[list[str], list[str], dict[str, list[int]], dict[str, list[str]]]:
    """A status block's parts, as :func:`_assemble` takes them: its scales and thread counts, each
    paper's summary row and each paper's ``<details>`` lines. A block with none of them (a new
    page's placeholder) gives empty parts."""
    lines = body.strip("\n").splitlines()
    scales: list[str] = []
    threads: list[str] = []
    counts: dict[str, list[int]] = {}
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        if current is not None:
            current.append(line)
            if line == "</details>":
                current = None
            continue
        m = re.match(r"<details><summary><b>([^<]+)</b>", line)
        if m:
            current = blocks.setdefault(m.group(1), [])
            current.append(line)
            continue
        m = _MADE_AT.match(line)
        if m:
            scales = [s for s in m["scales"].split(", ") if s and s != "?"]
            threads = [t for t in (m["threads"] or "").split(", ") if t]
            continue
        m = _PAPER_ROW.match(line)
        if m and m["paper"] != "paper":
            counts[m["paper"]] = [int(c) for c in m["counts"].split(" | ")]
    if current is not None:
        raise StatusError("the status block has a <details> without its </details>")
    if set(counts) != set(blocks):
        raise StatusError(
            "the status block's summary table and its paper blocks name different papers "
            f"({sorted(counts)} vs {sorted(blocks)}); regenerate it: {COMMAND} after a clean run"
        )
    return scales, threads, counts, blocks


def paper_rows(results: Path, paper: str) -> Any:
    """A paper's claim rows: ``results/<paper>/claims.csv`` (what ``snakemake <paper>`` makes),
    else its rows of ``results/claims.csv``."""
    own = results / paper / "claims.csv"
    if own.is_file():
        return claims.read(own)
    ledger_path = results / "claims.csv"
    if ledger_path.is_file():
        ledger = claims.read(ledger_path)
        return ledger[ledger.paper == paper]
    raise StatusError(f"{own} does not exist; run `snakemake --cores 2 {paper}` first")


def update(
    body: str, results: str | Path, paper: str, replicates: Sequence[str | Path] = ()
) -> str:
    """The status block ``body`` with ``paper``'s summary row and block made from ``results``
    (added in the papers' order when new), its **all** row recomputed from the paper rows.

    Every number of a paper's block and row comes from that paper's results alone, and the
    **all** row is their sum, so updating paper by paper gives what :func:`render` gives for the
    same results (tested). A run at another scale than the page's is refused: the page would
    mix scales. With ``replicates`` the paper's rerun marks are measured on them and ``results``
    (:func:`measured_reruns`), else the page's own marks are kept where this run is among them."""
    results = Path(results)
    if paper not in paper_keys():
        raise StatusError(f"--paper {paper!r}: not a paper; choose from {', '.join(paper_keys())}")
    if not (results / paper).is_dir():
        raise StatusError(
            f"{results / paper} does not exist; run `snakemake --cores 2 {paper}` first"
        )
    scales, threads, counts, blocks = parse(body)
    recs = outputs(results, paper)
    new_scales, new_threads = _scales_threads(recs)
    if scales and not set(new_scales) <= set(scales):
        raise StatusError(
            f"{results / paper} was made at scale {', '.join(new_scales)}, the page at "
            f"{', '.join(scales)}; run `snakemake --cores 2 {paper}` with the page's config, or "
            f"regenerate the whole page from a clean run ({COMMAND})"
        )
    rows = paper_rows(results, paper)
    reruns = (
        measured_reruns(results, replicates, paper) if replicates else page_reruns(body).get(paper)
    )
    counts[paper], blocks[paper] = _paper_part(results, paper, rows, recs, reruns)
    order = {k: i for i, k in enumerate(paper_keys())}
    ordered = sorted(counts, key=lambda k: order.get(k, len(order)))
    return _assemble(
        sorted(set(scales) | set(new_scales)),
        sorted(set(threads) | set(new_threads)),
        {k: counts[k] for k in ordered},
        blocks,
    )


# --- the status page ---------------------------------------------------------------------------


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


_NUMBER = re.compile(r"[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|∞")
_THREADS = re.compile(r" with `torch_threads: [^`]*`")


def _cells(line: str) -> list[str] | None:
    if not line.startswith("| "):
        return None
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _number(text: str) -> float | None:
    t = text.replace("−", "-").replace("∞", "inf")
    try:
        return float(t)
    except ValueError:
        return None


def _mask(text: str) -> str:
    return _NUMBER.sub("#", text)


def _claim_mismatch(old: list[str], new: list[str]) -> str:
    """Why two claim rows (``CLAIM_HEADER`` cells) disagree beyond what the row allows, or ''."""
    h = {k: i for i, k in enumerate(CLAIM_HEADER)}
    for name in ("figure", "claim", "paper", "status", "data"):
        if old[h[name]] != new[h[name]]:
            seen = seen_in(old[h[name]]) if name == "status" else None
            if seen:
                return (
                    f"status {new[h[name]].strip('*')!r} from the results is none of those the "
                    f"page's runs gave ({', '.join(sorted(seen))}): measure again with "
                    "`privrisk status --write --replicates ...`"
                )
            return f"{name} {old[h[name]]!r} in the table, {new[h[name]]!r} from the results"
    a, b = old[h["ours"]], new[h["ours"]]
    if a == b:
        return ""
    if old[h["data"]] == "analytic":
        return f"analytic value {a!r} in the table, {b!r} from the results (compared exactly)"
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        if not old[h["±"]].strip() and not new[h["±"]].strip():
            return ""  # experimental with no stated uncertainty: shown, not compared (docstring)
        pa, pb = _number(old[h["±"]]) or 0.0, _number(new[h["±"]]) or 0.0
        if abs(x - y) <= pa + pb:
            return ""
        return (
            f"experimental value {a} ± {pa:g} in the table, {b} ± {pb:g} from the results "
            "(the intervals do not overlap)"
        )
    if _mask(a) == _mask(b):
        return ""
    return f"evidence {a!r} in the table, {b!r} from the results (numbers masked)"


def compare(committed: str, block: str) -> list[str]:
    """Where the committed status block disagrees with ``block`` (made from the results) beyond
    what the module docstring allows: one line per row, naming it (empty: they agree)."""
    old = committed.strip("\n").splitlines()
    new = block.strip("\n").splitlines()
    if len(old) != len(new):
        d = difflib.unified_diff(old, new, "table", "results", lineterm="", n=0)
        changed = [x for x in d if x[:1] in "+-" and not x.startswith(("+++", "---"))]
        return [f"the table has {len(old)} lines, the results {len(new)}:", *changed]
    problems, header, paper = [], None, ""
    for i, (a, b) in enumerate(zip(old, new, strict=True)):
        m = re.search(r"<b>([^<]+)</b>", b)
        if m:
            paper = m.group(1)
        ca, cb = _cells(a), _cells(b)
        if cb is not None and cb in (CLAIM_HEADER, MODEL_HEADER):
            header = cb
        if a == b:
            continue
        if a.startswith("Made at scale") and _THREADS.sub("", a) == _THREADS.sub("", b):
            continue
        if ca is not None and cb is not None and len(ca) == len(cb) == len(header or []):
            if header == CLAIM_HEADER:
                why = _claim_mismatch(ca, cb)
                if not why:
                    continue
                problems.append(f"{paper}/{cb[1].strip('`')}: {why}")
                continue
            if header == MODEL_HEADER and ca[:3] == cb[:3] and _mask(ca[3]) == _mask(cb[3]):
                continue
        problems.append(f"line {i + 1}{f' ({paper})' if paper else ''}: {a!r} != {b!r}")
    return problems


_TABLES = {
    tuple(OUTPUT_HEADER): "output",
    tuple(MODEL_HEADER): "trained model",
    tuple(CLAIM_HEADER): "claim",
}


def _table_rows(block: list[str]) -> Iterable[tuple[str, list[str]]]:
    """Each row of the tables in one paper's ``<details>``, as (its table's kind: ``output``,
    ``trained model`` or ``claim``; its cells), in page order."""
    kind = None
    for line in block:
        if line.startswith("|-"):  # a header's rule: the table goes on
            continue
        cells = _cells(line)
        if cells is None:
            kind = None
        elif tuple(cells) in _TABLES:
            kind = _TABLES[tuple(cells)]
        elif kind is not None:
            yield kind, cells


def _claim_key(cells: list[str]) -> str:
    """A claim row's name (:func:`key`) from its cells on the page."""
    return f"{cells[0]}/{cells[1].strip('`')}"


def _entries(block: list[str]) -> dict[str, list[str]]:
    """The names in one paper's ``<details>``: its outputs, trained models and claims
    (``figure/claim_id``), each list in page order."""
    out: dict[str, list[str]] = {kind: [] for kind in _TABLES.values()}
    for kind, cells in _table_rows(block):
        out[kind].append(_claim_key(cells) if kind == "claim" else cells[0])
    return out


def missing(body: str, block: str) -> list[str]:
    """What the results hold that the page does not, and what the page holds that the results no
    longer do: papers, outputs, trained models and claims, one line each naming the command that
    adds (or drops) it. Empty when the page's structure is the results'."""
    _, _, _, have = parse(body)
    _, _, _, want = parse(block)
    problems = []
    for paper in want:
        if paper not in have:
            problems.append(f"{paper}: not on the page; add it: {paper_command(paper)}")
            continue
        a, b = _entries(have[paper]), _entries(want[paper])
        for kind in b:
            new = [x for x in b[kind] if x not in a[kind]]
            gone = [x for x in a[kind] if x not in b[kind]]
            for name in new:
                problems.append(
                    f"{paper}/{name} ({kind}): not on the page; add it: {paper_command(paper)}"
                )
            for name in gone:
                problems.append(
                    f"{paper}/{name} ({kind}): on the page, not in the results; drop it: "
                    f"{paper_command(paper)}"
                )
    for paper in have:
        if paper not in want:
            problems.append(
                f"{paper}: on the page, not in the results (no longer a paper?); regenerate the page "
                f"from a clean run: {COMMAND}"
            )
    return problems


def expected(body: str, results: str | Path) -> tuple[str, list[str]]:
    """The block the results call for, and the papers it could not check.

    With every paper's results (a clean run, as in CI) it is :func:`render`'s block. With some
    (``snakemake KEY`` for a few papers), it is the committed block with each of those papers'
    parts made from the results (:func:`update`); the others are taken as they are, unchecked."""
    results = Path(results)
    keys = paper_keys()
    present = [p for p in keys if (results / p).is_dir()]
    absent = [p for p in keys if p not in present]
    if not absent and (results / "claims.csv").is_file():
        return render(results, page_reruns(body)), []
    if not present:
        raise StatusError(f"{results} holds no paper's results; run `snakemake --cores 2` first")
    for paper in present:
        body = update(body, results, paper)
    return body, absent


def check(path: str | Path, block: str) -> list[str]:
    """Where the block in ``path`` disagrees with ``block`` (made from the results): first what
    one holds and the other does not (:func:`missing`, one line per paper, output, model or
    claim, naming the command that fixes it), then, paper by paper where the structure agrees, the
    rows that differ beyond what the module docstring allows (:func:`compare`)."""
    _, body, _ = _split(Path(path))
    problems = missing(body, block)
    if problems:
        struct = {p.split("/")[0].split(":")[0] for p in problems}
        _, _, _, have = parse(body)
        _, _, _, want = parse(block)
        for paper in want:
            if paper in have and paper not in struct:
                problems += compare("\n".join(have[paper]), "\n".join(want[paper]))
        return problems
    return compare(body, block)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="privrisk status", description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results", help="the run's results folder")
    ap.add_argument(
        "--page",
        "--readme",
        dest="readme",
        default=STATUS_FILE,
        help="the page holding the status block (%(default)s)",
    )
    ap.add_argument(
        "--paper",
        metavar="KEY",
        help="with --write: update only this paper's block (and the summary's counts) from "
        "results/KEY/, made by `snakemake --cores 2 KEY`, without a full run",
    )
    ap.add_argument(
        "--replicates",
        nargs="+",
        metavar="DIR",
        default=(),
        help="with --write: results folders of the same config at other seeds or on other CPUs "
        "(`snakemake --config seed=1 --directory ...`); a claim whose runs (--results and these) "
        "give different statuses is shown as uninformative, naming what each gave. Without it, "
        "--write keeps the page's marks where this run's status is among them",
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the block into the status page")
    mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1, one line per disagreement, when the page disagrees with the results (a "
        "paper, output or claim missing on either side; statuses and analytic numbers exactly, "
        "experimental numbers within their uncertainty); with only some papers' results, checks "
        "those papers",
    )
    args = ap.parse_args(argv)
    if args.paper and not args.write:
        ap.error("--paper goes with --write (--check checks every paper that has results)")
    if args.replicates and not args.write:
        ap.error("--replicates goes with --write (--check reads the marks from the page)")
    for folder in args.replicates:
        if not Path(folder).is_dir():
            ap.error(f"--replicates {folder!r}: no such results folder")
        if not any((Path(folder) / p).is_dir() for p in paper_keys()):
            ap.error(f"--replicates {folder!r}: holds no paper's results (give a run's results/)")
    if args.paper and args.paper not in paper_keys():
        ap.error(f"--paper {args.paper!r}: not a paper; choose from {', '.join(paper_keys())}")
    try:
        if args.write and args.paper:
            _, body, _ = _split(Path(args.readme))
            changed = write(args.readme, update(body, args.results, args.paper, args.replicates))
            print(
                f"{args.readme}: {args.paper}'s status block "
                f"{'updated' if changed else 'already current'} from {args.results}/{args.paper}/"
            )
        elif args.write:
            _, body, _ = _split(Path(args.readme))
            reruns = (
                {p: measured_reruns(Path(args.results), args.replicates, p) for p in paper_keys()}
                if args.replicates
                else page_reruns(body)
            )
            changed = write(args.readme, render(args.results, reruns))
            print(f"{args.readme}: status table {'updated' if changed else 'already current'}")
        elif args.check:
            _, body, _ = _split(Path(args.readme))
            block, unchecked = expected(body, args.results)
            problems = check(args.readme, block)
            if unchecked:
                print(
                    f"not checked (no results): {', '.join(unchecked)}; a clean run checks every "
                    f"paper: snakemake --cores 2 && privrisk status --check"
                )
            if problems:
                print("\n".join(problems))
                print(
                    f"\n{args.readme}: the status table disagrees with {args.results}/ in "
                    f"{len(problems)} row(s); each line names its fix (one paper: "
                    f"`privrisk status --write --paper KEY` after `snakemake --cores 2 KEY`; the "
                    f"whole page from a clean run: `{COMMAND}`)"
                )
                return 1
            print(
                f"{args.readme}: status table agrees with {args.results}/ (statuses and analytic "
                "numbers exactly, experimental numbers within their stated uncertainty)"
            )
        else:
            print(render(args.results), end="")
    except (StatusError, ValueError, OSError) as err:
        print(f"privrisk status: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
