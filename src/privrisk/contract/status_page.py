"""The status page's Markdown block, rendered from its data (:mod:`privrisk.contract.status_data`).

A count of claims by status per paper, then per paper its outputs, its trained models and every
claim row (claim id, paper value, ours, ±, status, keep-probability, data). Numbers are rounded
one fixed way (:func:`~privrisk.contract.status_data.fmt`); nothing that changes from run to run
of the same config (wall times, paths, dates, commits, the CPU) is shown. Nothing is read back
from the Markdown: the data is the page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import claims
from .status_data import page_status, shown, statuses, tally
from .verdicts.keep import BOUNDARY

COMMAND = "privrisk status --write"
OUTPUT_HEADER = ["output", "data", "claims"]
CLAIM_HEADER = ["figure", "claim", "paper", "ours", "±", "status", "keep", "data"]
MODEL_HEADER = [
    "trained model",
    "data",
    "runs",
    "member vs hold-out AUC of each query: mean over the runs (range)",
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


def _summary_counts(part: dict[str, Any]) -> list[int]:
    s = [page_status(c) for c in part["claims"]]
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


def paper_block(part: dict[str, Any]) -> list[str]:
    """One paper's ``<details>`` block."""
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
        out += ["", _row(MODEL_HEADER), "|---|---|---:|---|"]
        for m in part["models"]:
            out.append(_row([m["name"], m["data"], m["runs"], m["auc"]]))
    out += ["", _row(CLAIM_HEADER), "|---|---|---|---|---|---|---:|---|"]
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
                ]
            )
        )
    return out + ["", "</details>"]


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
    for part in data["papers"]:
        out += ["", *paper_block(part)]
    return "\n".join(out) + "\n"
