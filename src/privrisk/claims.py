"""The claims ledger: one row per number or statement a paper quotes.

Columns (design.md §3): paper, figure, claim_id, claim, paper_value, ours, tolerance, status, note.

``python -m privrisk.claims [results/claims.csv]`` prints the ledger as a table;
``--markdown OUT`` writes it as Markdown.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

COLUMNS = ["paper", "figure", "claim_id", "claim", "paper_value", "ours", "tolerance", "status", "note"]
STATUSES = ("reproduced", "differs", "qualitative-ok", "qualitative-fails", "standin")


@dataclass(frozen=True)
class Claim:
    """One quoted number or statement and what we obtained.

    ``paper_value``/``ours`` are numbers for quantitative claims and short strings for
    qualitative ones. ``status`` must be one of STATUSES; ``differs`` and
    ``qualitative-fails`` need a ``note`` saying why.
    """

    paper: str
    figure: str
    claim_id: str
    claim: str
    paper_value: float | str
    ours: float | str
    tolerance: float | str
    status: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"claim {self.claim_id}: status {self.status!r} not in {STATUSES}")
        if self.status in ("differs", "qualitative-fails", "standin") and not self.note:
            raise ValueError(f"claim {self.claim_id}: status {self.status!r} needs a note")


def numeric_claim(
    *,
    paper: str,
    figure: str,
    claim_id: str,
    claim: str,
    paper_value: float,
    ours: float,
    tolerance: float,
    note_if_differs: str = "",
    note: str = "",
    standin: bool = False,
    standin_note: str = "",
) -> Claim:
    """A quantitative claim whose status follows from |ours - paper_value| <= tolerance.

    With ``standin=True`` the status is ``standin`` whatever the numbers (the data differ from
    the paper's, so equality is not expected); the comparison is still recorded in the note.
    """
    ok = bool(math.isfinite(ours) and abs(ours - paper_value) <= tolerance) or (
        math.isinf(ours) and ours == paper_value
    )
    if standin:
        status = "standin"
        full_note = "; ".join(
            x
            for x in (standin_note or "stand-in data", f"within tolerance: {ok}", note)
            if x
        )
    elif ok:
        status, full_note = "reproduced", note
    else:
        status = "differs"
        full_note = "; ".join(x for x in (note_if_differs or "outside tolerance", note) if x)
    return Claim(paper, figure, claim_id, claim, paper_value, _round(ours), tolerance, status, full_note)


def qualitative_claim(
    *, paper: str, figure: str, claim_id: str, claim: str, holds: bool, ours: str, note: str = ""
) -> Claim:
    status = "qualitative-ok" if holds else "qualitative-fails"
    if not holds and not note:
        note = "the statement does not hold in our run"
    return Claim(paper, figure, claim_id, claim, "stated", ours, "", status, note)


def _round(x: float) -> float:
    return float(f"{x:.8g}") if isinstance(x, float) and math.isfinite(x) else x


def to_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in claims], columns=COLUMNS)


def write_claims(claims: Sequence[Claim], path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    to_frame(claims).to_csv(tmp, index=False)
    tmp.replace(path)


def gather(inputs: Sequence[str | Path], output: str | Path) -> pd.DataFrame:
    """Concatenate claims files (a figure's, a paper's) into one ledger, checking the columns."""
    frames = []
    for p in inputs:
        df = pd.read_csv(p, dtype=str, keep_default_na=False)
        if list(df.columns) != COLUMNS:
            raise ValueError(f"{p}: claims columns {list(df.columns)} != {COLUMNS}")
        frames.append(df)
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_suffix(output.suffix + ".tmp")
    out.to_csv(tmp, index=False)
    tmp.replace(output)
    return out


def to_markdown(df: pd.DataFrame) -> str:
    cols = ["paper", "figure", "claim_id", "paper_value", "ours", "status", "note"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        cells = [str(row[c]).replace("|", "\\|").replace("\n", " ") for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    counts = df["status"].value_counts().to_dict() if len(df) else {}
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    return "# Claims ledger\n\n" + f"{len(df)} claims ({summary}).\n\n" + "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m privrisk.claims", description=__doc__.splitlines()[0])
    ap.add_argument("ledger", nargs="?", default="results/claims.csv")
    ap.add_argument("--paper", help="show only this paper key")
    ap.add_argument("--status", help="show only this status")
    ap.add_argument("--markdown", metavar="OUT", help="write the ledger as Markdown to OUT")
    args = ap.parse_args(argv)
    path = Path(args.ledger)
    if not path.exists():
        ap.error(f"{path} does not exist; run `snakemake --cores 2` first")
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    if args.paper:
        df = df[df.paper == args.paper]
    if args.status:
        df = df[df.status == args.status]
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(df))
        return 0
    with pd.option_context("display.max_rows", None, "display.max_colwidth", 60, "display.width", 200):
        print(df[["paper", "figure", "claim_id", "paper_value", "ours", "status"]].to_string(index=False))
        print()
        print(df["status"].value_counts().to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
