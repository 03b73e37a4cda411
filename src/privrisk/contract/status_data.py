"""The status page as data (docs/status.json): what each measured run gave for every claim.

``privrisk status --write`` makes this structure from a run's results (and, with
``--replicates``, from results folders of the same config at other seeds or on other CPUs), writes
it as JSON beside the page, and renders the page (:mod:`privrisk.contract.status_page`) from it;
``--check`` compares a run's data with it (:mod:`privrisk.contract.status`). The structure::

    {"format": 1,
     "measured": {"command": ..., "when": ..., "runs": [{"folder", "scales", "threads",
                  "commits", "made"}, ...], "earlier": "..."},
     "records": [],
     "papers": [{"paper": KEY,
                 "outputs": [{"figure", "data"}],
                 "models": [{"name", "data", "runs", "auc", "heldout"}],
                 "claims": [{"figure", "claim_id", "paper", "data",
                             "runs": [{"status", "ours", "pm", "keep"} or null, ...],
                             "earlier": [status, ...]}]}]}

``runs`` of a claim line up with ``measured.runs`` (null where that run lacks the claim); the
first is the run whose numbers the page shows (its ``status`` null where it was not recorded:
a claim migrated from the Markdown page whose runs disagreed). ``earlier``: the statuses of measurements that
recorded only which statuses their runs gave, not each run's (the Markdown page's marks before
the page was data); absent when there are none. ``records``: the runs of record (``records/``,
docs/records.md), one column of the page each, read from their derived ``statuses.json`` by
:func:`record_columns`::

     "records": [{"name": "decide-1", "seeds": [20221, 1, 2], "complete": true,
                  "stale": [{"kind": "verify", "files": [...], "command": "privrisk records ..."}],
                  "claims": {"PAPER/CLAIM_ID": {"status", "statuses": {seed: status},
                                                "runs": "3 seeds, 3890 samples",
                                                "every_seed": true}}}]

A record's statuses are recomputed and verified by ``privrisk records --check``, not by the status
check: that only asks that the page shows what ``records/`` holds (:func:`records_differ`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..core import records as rec
from ..core.discovery import paper_keys
from . import claims

FORMAT = 1


class StatusError(ValueError):
    """Results or a page that the status data cannot be made from (names the file)."""


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


def natural(name: str) -> list:
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
    return sorted(records, key=lambda r: natural(r["figure"]))


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
    return sorted(found, key=lambda m: natural(m[0]))


def _reads(rec: dict[str, Any], names: Sequence[str]) -> list[str]:
    """The trained models a figure record reads: the ``names`` whose files
    (``intermediate/<name>_*``) are among its recorded inputs (``inputs_sha256``), the longest
    name matching each input (``a_b_queries.npz`` is model ``a_b``, not ``a``)."""
    found = []
    for path in rec.get("inputs_sha256") or {}:
        parts = str(path).split("/")
        if len(parts) != 2 or parts[0] != "intermediate":
            continue
        match = [n for n in names if parts[1].startswith(f"{n}_")]
        if match:
            found.append(max(match, key=len))
    return sorted(set(found), key=natural)


def heldout_aucs(rec: dict[str, Any]) -> dict[str, list[float]]:
    """The held-out AUCs a figure record states (``heldout_estimates``: per run, the AUC the
    figure's leak gate reads, ``auc`` or ``auc_<query>``), by query ('' for the bare key)."""
    est = rec.get("heldout_estimates")
    out: dict[str, list[float]] = {}
    for k, vals in est.items() if isinstance(est, dict) else []:
        if k == "auc" or str(k).startswith("auc_"):
            vs = [v for v in (vals if isinstance(vals, list) else [vals]) if _number(v)]
            if vs:
                out["" if k == "auc" else str(k).removeprefix("auc_")] = [float(v) for v in vs]
    return out


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _heldout(name: str, recs: list[dict[str, Any]], names: Sequence[str]) -> str:
    """'fig8: black 0.739 (0.699–0.766), white 0.734 (…)': the held-out AUCs of every figure that
    reads only model ``name`` and records them (a figure reading several models cannot say whose
    its AUCs are), '—' where none does."""
    parts = []
    for fig in recs:
        aucs = heldout_aucs(fig)
        if aucs and _reads(fig, names) == [name]:
            parts.append(f"{fig['figure']}: {_mean_range(aucs)}")
    return "; ".join(parts) or "—"


def _data(sources: dict[str, str] | None) -> str:
    values = sorted(set((sources or {}).values()))
    return ", ".join(values) if values else "analytic"


def _aucs(rec: dict[str, Any]) -> str:
    """'d 0.871 (0.652–0.951)': each query column's mean AUC over the runs and its range."""
    return _mean_range(run_aucs(rec))


def _mean_range(aucs: dict[str, list[float]]) -> str:
    parts = []
    for k, vals in sorted(aucs.items()):
        mean = fmt(sum(vals) / len(vals))
        parts.append(
            f"{k} {mean}".strip()
            + (f" ({fmt(min(vals))}–{fmt(max(vals))})" if len(vals) > 1 else "")
        )
    return ", ".join(parts)


_SE = re.compile(r"2 × s\.e\. ([-+0-9.eE]+|inf)")


def uncertainty(row: Any) -> str:
    """The ± a claim row states: 2 × the s.e. of a numeric experimental value (the ledger's note
    ``tolerance t + 2 × s.e. s``), '' for an analytic or qualitative row."""
    if row.data == "analytic":
        return ""
    m = _SE.search(str(row.note))
    return fmt(2.0 * float(m.group(1))) if m else ""


def _keep(row: Any) -> float | None:
    text = str(getattr(row, "keep", "") or "").strip()
    if row.data == "analytic" or text in ("", "nan"):
        return None
    return float(text)


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


def key(claim: dict[str, Any]) -> str:
    """A claim's name on the page and in a set of reruns: ``figure/claim_id``."""
    return f"{claim['figure']}/{claim['claim_id']}"


def run_info(results: Path, records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """How one run was made: its folder, scales, thread counts, commits, and when its newest
    output was made."""
    records = list(records)
    made = [str(r["created_utc"]) for r in records if r.get("created_utc")]
    return {
        "folder": str(results),
        "scales": sorted({str(r.get("scale")) for r in records}),
        "threads": sorted({str(r["torch_threads"]) for r in records if r.get("torch_threads")}),
        "commits": sorted({str(r["git_commit"]) for r in records if r.get("git_commit")}),
        "made": max(made) if made else "",
    }


def paper_part(results: Path, paper: str) -> dict[str, Any]:
    """One paper's data from one run: its outputs, trained models and claims (each claim with
    this run as its only run)."""
    results = Path(results)
    recs = outputs(results, paper)
    rows = paper_rows(results, paper)
    trained = models(results, paper)
    names = [name for name, _ in trained]
    claim_list = []
    for r in rows.itertuples(index=False):
        claim_list.append(
            {
                "figure": r.figure,
                "claim_id": r.claim_id,
                "paper": fmt(r.paper_value),
                "data": r.data,
                "runs": [
                    {
                        "status": r.status,
                        "ours": fmt(r.ours),
                        "pm": uncertainty(r),
                        "keep": _keep(r),
                    }
                ],
            }
        )
    return {
        "paper": paper,
        "outputs": [
            {"figure": rec["figure"], "data": _data(rec.get("data_sources"))} for rec in recs
        ],
        "models": [
            {
                "name": name,
                "data": rec.get("data_source", ""),
                "runs": max((len(v) for v in run_aucs(rec).values()), default=0),
                "auc": _aucs(rec),
                "heldout": _heldout(name, recs, names),
            }
            for name, rec in trained
        ],
        "claims": claim_list,
        "_run": run_info(results, recs),
    }


def present(results: Path) -> list[str]:
    """The papers with results in ``results`` (in the papers' order)."""
    return [p for p in paper_keys() if (Path(results) / p).is_dir()]


def from_run(results: str | Path, papers: Sequence[str] | None = None) -> dict[str, Any]:
    """The data of one run: every paper with results (or ``papers``), measured once."""
    results = Path(results)
    keys = list(papers) if papers is not None else present(results)
    if not keys:
        raise StatusError(f"{results} holds no paper's results; run `snakemake --cores 2` first")
    parts = [paper_part(results, p) for p in keys]
    run = _merge_info([p.pop("_run") for p in parts], results)
    return {"format": FORMAT, "measured": {"runs": [run]}, "records": [], "papers": parts}


def _merge_info(infos: list[dict[str, Any]], results: Path) -> dict[str, Any]:
    out = {"folder": str(results), "scales": [], "threads": [], "commits": [], "made": ""}
    for info in infos:
        for k in ("scales", "threads", "commits"):
            out[k] = sorted(set(out[k]) | set(info[k]))
        out["made"] = max(out["made"], info["made"])
    return out


def with_replicates(data: dict[str, Any], replicates: Sequence[str | Path]) -> dict[str, Any]:
    """``data`` (one run) with each replicate's statuses and numbers added as further runs of its
    claims (null where a replicate lacks the paper or the claim)."""
    for folder in replicates:
        folder = Path(folder)
        infos = []
        for part in data["papers"]:
            paper = part["paper"]
            if not (folder / paper).is_dir():
                for c in part["claims"]:
                    c["runs"].append(None)
                continue
            other = paper_part(folder, paper)
            infos.append(other["_run"])
            theirs = {key(c): c["runs"][0] for c in other["claims"]}
            for c in part["claims"]:
                c["runs"].append(theirs.get(key(c)))
        data["measured"]["runs"].append(_merge_info(infos, folder))
    return data


def carry(
    new: dict[str, Any], old: dict[str, Any] | None, papers: Sequence[str], *, others: bool = True
) -> dict[str, Any]:
    """``new`` (measured on one run, for ``papers``) with what the page ``old`` recorded of its
    other runs, for each claim whose new status is among the statuses its runs gave there (then
    the measurement still covers it); a claim whose new status is not among them is measured
    once, and a ``--check`` of the old page would have named it. The papers not in ``papers``
    are taken from ``old`` as they are (``others``), or dropped (a whole page's write)."""
    if not old:
        return new
    old_runs = old.get("measured", {}).get("runs", [])
    extra = len(old_runs) - 1
    mine = {p["paper"]: p for p in new["papers"]}
    theirs = {p["paper"]: p for p in old.get("papers", [])}
    for paper in papers:
        was = {key(c): c for c in theirs.get(paper, {}).get("claims", [])}
        for c in mine[paper]["claims"]:
            prev = was.get(key(c))
            if prev is None:
                c["runs"] += [None] * max(extra, 0)
                continue
            seen = statuses(prev)
            if c["runs"][0]["status"] in seen:
                c["runs"] += list(prev["runs"][1:]) + [None] * (extra - len(prev["runs"]) + 1)
                if prev.get("earlier"):
                    c["earlier"] = list(prev["earlier"])
            else:
                c["runs"] += [None] * max(extra, 0)
    measured = dict(old.get("measured", {}))
    runs = list(old_runs) or [{}]
    runs[0] = _merge_info(
        [new["measured"]["runs"][0]] + ([runs[0]] if others and runs[0] else []),
        Path(new["measured"]["runs"][0]["folder"]),
    )
    measured["runs"] = runs
    order = {k: i for i, k in enumerate(paper_keys())}
    merged = {**(theirs if others else {}), **mine}
    return {
        "format": FORMAT,
        "measured": measured,
        "records": list(old.get("records", [])),
        "papers": [merged[k] for k in sorted(merged, key=lambda k: order.get(k, len(order)))],
    }


# --- what the runs say ---------------------------------------------------------------------------


def statuses(claim: dict[str, Any]) -> set[str]:
    """Every status the claim's measured runs gave (its ``earlier`` marks included)."""
    got = {r["status"] for r in claim["runs"] if r and r.get("status")}
    return got | set(claim.get("earlier", []))


def tally(claim: dict[str, Any]) -> dict[str, int]:
    """How many of the measured runs gave each status (the runs with a record of their own)."""
    out: dict[str, int] = {}
    for r in claim["runs"]:
        if r and r.get("status"):
            out[r["status"]] = out.get(r["status"], 0) + 1
    return out


def page_status(claim: dict[str, Any]) -> str:
    """The status the page counts: the runs' status where every run agrees, else uninformative
    (a decided status counts only if every measured run gives it)."""
    seen = statuses(claim)
    return next(iter(seen)) if len(seen) == 1 else "uninformative"


def shown(claim: dict[str, Any]) -> dict[str, Any]:
    """The run whose numbers the page shows (the first with a record)."""
    return next(r for r in claim["runs"] if r)


# --- the runs of record ---------------------------------------------------------------------------


def record_columns(root: str | Path | None = None) -> list[dict[str, Any]]:
    """The page's ``records``: every record under ``root`` (``records/``, or ``PRIVRISK_RECORDS``)
    with the statuses it derived per claim (:func:`privrisk.core.records.statuses`) and, when the
    code changed since, what is stale and the command that refreshes it
    (:func:`privrisk.core.records.stale`)."""
    out: dict[str, dict[str, Any]] = {}
    for claim, entries in rec.statuses(root).items():
        for e in entries:
            col = out.setdefault(
                e["record"],
                {
                    "name": e["record"],
                    "seeds": list(e["seeds"]),
                    "complete": e["complete"],
                    "stale": [],
                    "claims": {},
                },
            )
            col["claims"][claim] = {
                "status": e["status"],
                "statuses": dict(e["statuses"]),
                "runs": e["runs"],
                "every_seed": e["every_seed"],
            }
    for s in rec.stale(root):
        if s.record in out:
            out[s.record]["stale"].append(
                {"kind": s.kind, "files": list(s.files), "command": s.command}
            )
    return [out[name] for name in sorted(out)]


def records_differ(page: list[dict[str, Any]], now: list[dict[str, Any]]) -> list[str]:
    """The records whose columns on the page are not what ``records/`` holds now (statuses, seeds,
    runs; whether the code is stale is left to ``privrisk docs --check``), one name each."""

    def plain(cols: list[dict[str, Any]]) -> dict[str, Any]:
        return {c["name"]: {k: v for k, v in c.items() if k != "stale"} for c in cols}

    a, b = plain(page), plain(now)
    return sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))


def record_status(entry: dict[str, Any] | None) -> str | None:
    """The status a record's entry counts for on the page: its status when measured at every seed
    it ran (one that disagrees across seeds counts as uninformative); None when it counts for
    nothing (a seed missing from a partial record, or no status)."""
    if not entry or not entry.get("every_seed") or entry.get("status") in (None, "missing"):
        return None
    s = str(entry["status"])
    return "uninformative" if s.startswith("uninformative") else s


# --- the file ------------------------------------------------------------------------------------


def load(path: str | Path) -> dict[str, Any] | None:
    """The data of ``path`` (None when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise StatusError(f"{path}: not readable status data ({err})") from err
    if not isinstance(data, dict) or data.get("format") != FORMAT or "papers" not in data:
        raise StatusError(
            f"{path}: not status data of format {FORMAT}; regenerate it: privrisk status --write"
        )
    return data


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
