"""The status page's Markdown block, rendered from its data (:mod:`privrisk.contract.status_data`).

A count of claims by status per paper, then per paper its outputs, its trained models and every
claim row (claim id, paper value, ours, ±, status, keep-probability, data, and a column per run of
record that covers the paper: ``at decide-1``, its status over its seeds and how many runs it
took). Each record also gets a line saying what it is (seeds, complete or partial, stale with the
command that refreshes it) and a count of the page's statuses with the rows it covers at every
seed counted at its status. Numbers are rounded
one fixed way (:func:`~privrisk.contract.status_data.fmt`); nothing that changes from run to run
of the same config (wall times, paths, dates, commits, the CPU) is shown. Nothing is read back
from the Markdown: the data is the page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import claims
from .status_data import page_status, record_status, shown, statuses, tally
from .verdicts.keep import BOUNDARY

COMMAND = "privrisk status --write"
OUTPUT_HEADER = ["output", "data", "claims"]
CLAIM_HEADER = ["figure", "claim", "paper", "ours", "±", "status", "keep", "data"]
MODEL_HEADER = [
    "trained model",
    "data",
    "runs",
    "member vs hold-out AUC of each query: mean over the runs (range)",
    "held-out AUC the figures' leak gates read: mean over the runs (range)",
]
DECIDED = ("reproduced", "differs", "qualitative-ok", "qualitative-fails")


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _row(cells: Iterable[Any]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _counts(statuses_: Iterable[str]) -> str:
    s = list(statuses_)
    return ", ".join(f"{s.count(k)} {k}" for k in claims.STATUSES if s.count(k)) or "no claims"


def status_cell(claim: dict[str, Any]) -> str:
    """The page's status cell: the status where every measured run agrees; else
    ``uninformative`` and which way the runs lean (``qualitative-fails on 4 of 5 runs,
    uninformative on 1``; a measurement that recorded only the statuses its runs gave lists them)."""
    seen = statuses(claim)
    if len(seen) < 2:
        return page_status(claim)
    counts = tally(claim)
    if claim.get("earlier") or sum(counts.values()) < 2:
        names = sorted(seen, key=claims.STATUSES.index)
        return f"uninformative (reruns: {', '.join(names)})"
    total = sum(counts.values())
    order = sorted(counts, key=lambda s: (-counts[s], claims.STATUSES.index(s)))
    first, rest = order[0], order[1:]
    text = f"{first} on {counts[first]} of {total} runs" + "".join(
        f", {s} on {counts[s]}" for s in rest
    )
    return f"uninformative (reruns: {text})"


def keep_cell(claim: dict[str, Any]) -> str:
    """The shown run's keep-probability to 2 decimals (3 past 0.99), marked ``boundary`` below
    :data:`~privrisk.contract.verdicts.keep.BOUNDARY` on a decided row."""
    run = shown(claim)
    k = run.get("keep")
    if k is None:
        return ""
    text = f"{k:.3f}" if k >= 0.99 and k < 1 else f"{k:.2f}"
    if run.get("status") in DECIDED and k < BOUNDARY:
        text += " (boundary)"
    return text


def _summary_counts(part: dict[str, Any], col: dict[str, Any] | None = None) -> list[int]:
    """Outputs, claims and the claims per status; with a record ``col``, each row it covers at
    every seed counted at the record's status instead of the quick run's."""
    s = []
    for c in part["claims"]:
        mine = record_status(col["claims"].get(_claim_key(part, c))) if col else None
        s.append(mine or page_status(c))
    return [len(part["outputs"]), len(s)] + [s.count(k) for k in claims.STATUSES]


def calibration(data: dict[str, Any]) -> dict[str, float] | None:
    """The keep-probabilities against the measured runs: over the decided rows of the first run
    that carry one, the moves they predict on the other runs (Σ (1 − keep) per other run that
    measured the row) and the moves observed there (another status than the first run's). None
    when no row carries a keep-probability."""
    rows = boundary = 0
    predicted = observed = 0.0
    for part in data["papers"]:
        for c in part["claims"]:
            first = c["runs"][0] if c["runs"] else None
            if not first or first.get("keep") is None or first.get("status") not in DECIDED:
                continue
            rows += 1
            boundary += first["keep"] < BOUNDARY
            others = [r for r in c["runs"][1:] if r and r.get("status")]
            predicted += (1.0 - first["keep"]) * len(others)
            observed += sum(r["status"] != first["status"] for r in others)
    if not rows:
        return None
    return {"rows": rows, "boundary": boundary, "predicted": predicted, "observed": observed}


def _boundary_line(data: dict[str, Any]) -> str:
    """How many decided rows carry a keep-probability, how many are boundary rows, how many
    moves a rerun is expected to make, and, measured on several runs, the moves predicted
    against those observed."""
    cal = calibration(data)
    if cal is None:
        return ""
    moves = 0.0
    for part in data["papers"]:
        for c in part["claims"]:
            first = c["runs"][0] if c["runs"] else None
            if first and first.get("keep") is not None and first.get("status") in DECIDED:
                moves += 1.0 - first["keep"]
    out = (
        f"{cal['rows']} decided rows from data carry a keep-probability (the chance that a rerun "
        f"at the same scale gives the same status); {cal['boundary']} are boundary rows (below "
        f"{BOUNDARY:g}); a rerun is expected to move {moves:.1f} of them."
    )
    if len(data["measured"].get("runs", [])) > 1:
        out += (
            f" On the page's other measured runs they predict {cal['predicted']:.1f} moves; "
            f"{cal['observed']:g} were observed."
        )
    return out


def _claim_key(part: dict[str, Any], claim: dict[str, Any]) -> str:
    """A claim's name in a record: ``paper/claim_id``."""
    return f"{part['paper']}/{claim['claim_id']}"


def record_cell(col: dict[str, Any], entry: dict[str, Any] | None) -> str:
    """A record's cell of one claim row: its status over its seeds and its runs (``qualitative-ok;
    3 seeds, 3890 samples``), marked ``stale`` when the code changed since it was derived and
    ``partial`` when a seed it ran lacks the row; empty where the record does not cover it."""
    if entry is None:
        return ""
    text = f"{entry['status']}; {entry['runs']}"
    if not entry.get("every_seed"):
        text += " (partial)"
    if col.get("stale"):
        text += " (stale)"
    return text


def record_line(col: dict[str, Any]) -> str:
    """What a record is, in one paragraph: its seeds, whether complete, what it decides, and when
    stale, what changed and the command that refreshes it."""
    decided = sum(record_status(e) in DECIDED for e in col["claims"].values())
    seeds = col.get("seeds", [])
    out = (
        f"Run of record `records/{col['name']}` (column *at {col['name']}*; docs/records.md): "
        f"{len(seeds)} seed{'s' * (len(seeds) != 1)} ({', '.join(map(str, seeds))}), "
        f"{'complete' if col.get('complete') else 'partial'}; covers {len(col['claims'])} rows, "
        f"decides {decided} at every seed; below, the summary counted again with it (a row it "
        "covers at every seed at its status; quick → with the record where that changes a count)."
    )
    for s in col.get("stale", []):
        what = (
            "its statuses were derived by code changed since"
            if s["kind"] == "verify"
            else "its per-run values were made by step code changed since"
        )
        files = ", ".join(s["files"][:3]) + (
            f" (+{len(s['files']) - 3})" if len(s["files"]) > 3 else ""
        )
        out += f" **Stale**: {what} ({files}); refresh: `{s['command']}`."
    return out


def paper_block(part: dict[str, Any], cols: list[dict[str, Any]] | None = None) -> list[str]:
    """One paper's ``<details>`` block (with a column per record in ``cols`` covering a row)."""
    cols = [
        col
        for col in cols or []
        if any(_claim_key(part, c) in col["claims"] for c in part["claims"])
    ]
    page = [page_status(c) for c in part["claims"]]
    out = [
        f"<details><summary><b>{part['paper']}</b>: {len(part['outputs'])} outputs, "
        f"{len(page)} claims ({_counts(page)})</summary>",
        "",
        _row(OUTPUT_HEADER),
        "|---|---|---|",
    ]
    for o in part["outputs"]:
        mine = [page_status(c) for c in part["claims"] if c["figure"] == o["figure"]]
        out.append(_row([o["figure"], o["data"], _counts(mine)]))
    if part["models"]:
        out += ["", _row(MODEL_HEADER), "|---|---|---:|---|---|"]
        for m in part["models"]:
            # a page written before the held-out column has none to show
            out.append(_row([m["name"], m["data"], m["runs"], m["auc"], m.get("heldout", "—")]))
    header = CLAIM_HEADER + [f"at {col['name']}" for col in cols]
    out += ["", _row(header), "|---|---|---|---|---|---|---:|---|" + "---|" * len(cols)]
    for c in part["claims"]:
        run = shown(c)
        cell = status_cell(c)
        status = f"**{cell}**" if cell in ("differs", "qualitative-fails") else cell
        out.append(
            _row(
                [
                    c["figure"],
                    f"`{c['claim_id']}`",
                    c["paper"],
                    run["ours"],
                    run["pm"],
                    status,
                    keep_cell(c),
                    c["data"],
                    *[record_cell(col, col["claims"].get(_claim_key(part, c))) for col in cols],
                ]
            )
        )
    return out + ["", "</details>"]


def record_summary(data: dict[str, Any], col: dict[str, Any]) -> list[str]:
    """The summary table counted again with a record: per paper the quick run's count of each
    status and, where the record changes it, ``quick → with the record``."""
    out = [
        _row(["paper", "outputs", "claims", *claims.STATUSES]),
        "|---|" + "---:|" * (2 + len(claims.STATUSES)),
    ]
    width = 2 + len(claims.STATUSES)
    quick_all, with_all = [0] * width, [0] * width
    for part in data["papers"]:
        quick, mine = _summary_counts(part), _summary_counts(part, col)
        quick_all = [a + b for a, b in zip(quick_all, quick, strict=True)]
        with_all = [a + b for a, b in zip(with_all, mine, strict=True)]
        out.append(_row([part["paper"], *_moved(quick, mine)]))
    out.append(
        _row([f"**all, with {col['name']}**", *[f"**{t}**" for t in _moved(quick_all, with_all)]])
    )
    return out


def _moved(quick: list[int], mine: list[int]) -> list[str]:
    return [str(a) if a == b else f"{a} → {b}" for a, b in zip(quick, mine, strict=True)]


def render(data: dict[str, Any]) -> str:
    """The Markdown block (without the markers) of ``data``."""
    first = data["measured"]["runs"][0] if data["measured"].get("runs") else {}
    scales = first.get("scales", [])
    threads = first.get("threads", [])
    n_runs = len(data["measured"].get("runs", []))
    out = [
        f"<!-- Generated by `{COMMAND}` from docs/status.json (the data of the measured runs); "
        "do not edit by hand (CI checks it with `privrisk status --check`). -->",
        "",
        f"Made at scale {', '.join(scales) or '?'}"
        + (f" with `torch_threads: {', '.join(threads)}`" if threads else "")
        + f"; measured on {n_runs} run{'s' if n_runs != 1 else ''}"
        + (" (and earlier runs, see the marks)" if data["measured"].get("earlier") else "")
        + "; numbers to 3 significant digits.",
        "",
    ]
    line = _boundary_line(data)
    if line:
        out += [line, ""]
    out += [
        _row(["paper", "outputs", "claims", *claims.STATUSES]),
        "|---|" + "---:|" * (2 + len(claims.STATUSES)),
    ]
    totals = [0, 0] + [0] * len(claims.STATUSES)
    for part in data["papers"]:
        row = _summary_counts(part)
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        out.append(_row([part["paper"], *row]))
    out.append(_row(["**all**", *[f"**{t}**" for t in totals]]))
    cols = data.get("records") or []
    for col in cols:
        out += ["", record_line(col), "", *record_summary(data, col)]
    for part in data["papers"]:
        out += ["", *paper_block(part, cols)]
    return "\n".join(out) + "\n"
