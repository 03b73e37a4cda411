"""The claims ledger: one row per number or statement a paper quotes (design.md §3).

Columns: paper, figure, claim_id, claim, paper_value, ours, tolerance, status, data, note,
to_decide, keep. ``to_decide`` is set on every ``uninformative`` row from data (and only on
uninformative rows): the runs / draws / samples that would decide the statement at the observed
effect (:mod:`privrisk.contract.verdicts`, the planner), or why no amount of the same experiment would.
``keep`` is an experimental row's keep-probability: the chance that an independent rerun at the
same scale gives the same status (:mod:`privrisk.contract.verdicts.keep`; for a numeric row, from
its value's distance to the tolerance in standard errors, :func:`keep_numeric`); empty on an
analytic row and where the row has no estimate to take it from. A ledger written before the
column existed reads with it empty.
A paper makes its rows through its one :class:`Ledger`, ``LEDGER`` in its ``claims.py``: a quoted
number through :meth:`Ledger.quoted`, a statement through :meth:`Ledger.judged` with a rule of
:mod:`privrisk.contract.verdicts` (``V``) that decides it::

    LEDGER = Ledger("thudi2022")
    LEDGER.quoted("ours_eps1", ours=v)  # the rest from papers/thudi2022/quoted.yaml
    LEDGER.judged(figure="fig2", claim_id="y", claim="...", verdict=V.exact_below(u, 1.0), ours="...")

:meth:`Ledger.qualitative` (the caller's own ``holds``) is what ``judged`` builds on; a paper never
calls it (``tests/test_paper_layout.py``): it would write the decision rule itself.

A number the paper quotes is an entry of the paper's ``quoted.yaml`` (:mod:`privrisk.contract.quoted`)
made into a row by :meth:`Ledger.quoted`; :meth:`Ledger.numeric` is the row maker underneath.

The status follows from the *stored* numbers (``ours`` is rounded to 8 significant digits before
the comparison), so :func:`check` can recompute every status from the CSV alone; CI runs it.

``python -m privrisk.contract.claims [results/claims.csv]`` prints the ledger (``--paper``, ``--status``,
``--markdown OUT``); ``--check`` verifies its consistency and exits 1 on a problem.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..core import safe_io
from . import quoted as _quoted

COLUMNS = [
    "paper",
    "figure",
    "claim_id",
    "claim",
    "paper_value",
    "ours",
    "tolerance",
    "status",
    "data",
    "note",
    "to_decide",
    "keep",
]
STATUSES = (
    "reproduced",
    "differs",
    "qualitative-ok",
    "qualitative-fails",
    "uninformative",
    "standin",
    "derived",
)
#: where ``ours`` comes from (:data:`privrisk.contract.provenance.DATA_SOURCES`); ``real-unverified`` is
#: real data whose checksum nothing verified: it may be ``reproduced`` (the figure says it)
#: ``simulated`` rows are experimental (compared within their uncertainty), ``analytic`` exact
DATA = ("analytic", "simulated", "real", "real-unverified", "bundled-real", "standin")
#: statuses that need a note saying why
NEEDS_NOTE = ("differs", "qualitative-fails", "uninformative", "standin", "derived")


@dataclass(frozen=True)
class Claim:
    """One quoted number or statement and what we obtained (a ledger row).

    ``paper_value``/``ours`` are numbers for quantitative claims and short strings for
    qualitative ones. Construct rows with :class:`Ledger`, which decides the status.
    """

    paper: str
    figure: str
    claim_id: str
    claim: str
    paper_value: float | str
    ours: float | str
    tolerance: float | str
    status: str
    data: str = "analytic"
    note: str = ""
    #: uninformative rows only: what would decide it (runs, draws, samples)
    to_decide: str = ""
    #: experimental rows: the chance a rerun at the same scale gives the same status ('' unknown)
    keep: float | str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"claim {self.claim_id}: status {self.status!r} not in {STATUSES}")
        if self.data not in DATA:
            raise ValueError(f"claim {self.claim_id}: data {self.data!r} not in {DATA}")
        if self.status in NEEDS_NOTE and not self.note:
            raise ValueError(f"claim {self.claim_id}: status {self.status!r} needs a note")
        if self.status == "reproduced" and self.data == "standin":
            raise ValueError(
                f"claim {self.claim_id}: a number from stand-in data cannot be 'reproduced'"
            )
        problem = _to_decide_problem(self.status, self.data, self.to_decide) or _keep_problem(
            self.data, self.keep
        )
        if problem:
            raise ValueError(f"claim {self.claim_id}: {problem}")


def _keep_problem(data: str, keep) -> str:
    """'' when ``keep`` fits the row: empty, or a probability on a row from data."""
    text = "" if keep is None else str(keep).strip()
    if text in ("", "nan"):
        return ""
    try:
        p = float(text)
    except ValueError:
        return f"keep {text!r} is not a probability"
    if not 0.0 <= p <= 1.0:
        return f"keep {text!r} is not a probability in [0, 1]"
    if data == "analytic":
        return f"keep {text!r} on an analytic row (an exact number keeps its status)"
    return ""


def _keep_cell(keep: float | None, data: str) -> float | str:
    """The stored keep-probability: 4 decimals on a row from data, '' otherwise."""
    if keep is None or data == "analytic" or not math.isfinite(keep):
        return ""
    return round(min(1.0, max(0.0, float(keep))), 4)


def keep_numeric(ours: float, paper_value: float, tolerance: float, se: float) -> float | None:
    """The chance that a rerun of a numeric row keeps its status (``reproduced`` when
    |ours − paper| ≤ ``tolerance``, which already includes 2 s.e.): the rerun's value is ``ours``
    give or take √2 · se (this run's noise and the rerun's, as for every keep-probability); None
    without a standard error."""
    if not (se > 0 and math.isfinite(se) and math.isfinite(ours) and math.isfinite(paper_value)):
        return None

    def cdf(x: float) -> float:
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    sd = math.sqrt(2.0) * se
    inside = cdf((paper_value + tolerance - ours) / sd) - cdf((paper_value - tolerance - ours) / sd)
    return inside if within(ours, paper_value, tolerance) else 1.0 - inside


def _to_decide_problem(status: str, data: str, to_decide: str) -> str:
    """'' when ``to_decide`` fits the row: required on an uninformative row from data (an
    experiment), optional on an analytic one (a statement no computation decides), empty on a
    decided row."""
    if status == "uninformative" and data != "analytic" and not to_decide.strip():
        return "an uninformative experimental row needs to_decide (what would decide it)"
    if status != "uninformative" and to_decide.strip():
        return f"status {status} but to_decide {to_decide!r} (only uninformative rows have one)"
    return ""


def _round(x):
    return float(f"{x:.8g}") if isinstance(x, float) and math.isfinite(x) else x


def within(ours: float, paper_value: float, tolerance: float) -> bool:
    """|ours − paper_value| <= tolerance, with ±∞ equal to itself."""
    if math.isinf(ours) or math.isinf(paper_value):
        return ours == paper_value
    return math.isfinite(ours) and abs(ours - paper_value) <= tolerance


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


class Ledger:
    """Makes one paper's claims rows; ``data`` is the default source of ``ours``."""

    def __init__(self, paper: str, *, data: str = "analytic") -> None:
        self.paper = paper
        self.data = data

    def numeric(
        self,
        *,
        figure: str,
        claim_id: str,
        claim: str,
        paper_value: float,
        ours: float,
        tolerance: float,
        se: float = 0.0,
        data: str | None = None,
        derived: bool = False,
        note: str = "",
        note_if_differs: str = "",
        standin_note: str = "",
    ) -> Claim:
        """A number: ``reproduced`` when |ours − paper_value| <= tolerance + 2·se, else ``differs``.

        Args:
            se: the standard error of ``ours`` (Monte Carlo, repeated draws); the stored
                tolerance is ``tolerance + 2 se`` so the row can be re-checked on its own.
            data: where ``ours`` comes from; ``standin`` gives status ``standin`` whatever the
                numbers (the comparison goes to the note).
            derived: a value derived in the spec or by us, not quoted by the paper: status
                ``derived``, never counted as reproduced.
        """
        data = data or self.data
        if data == "analytic" and se:
            data = "simulated"  # a number with a Monte Carlo s.e. is not a closed form
        ours_r = _round(ours)
        tol = _round(float(tolerance) + 2.0 * float(se)) if se else tolerance
        ok = within(float(ours_r), float(paper_value), float(tol))
        se_note = f"tolerance {tolerance:g} + 2 × s.e. {se:.3g}" if se else ""
        if data == "standin":
            status = "standin"
            full = _join(standin_note or "stand-in data", f"within tolerance: {ok}", note, se_note)
        elif derived:
            status, full = (
                "derived",
                _join(note or "derived value (not quoted by the paper)", f"agrees: {ok}", se_note),
            )
        elif ok:
            status, full = "reproduced", _join(note, se_note)
        else:
            status, full = "differs", _join(note_if_differs or "outside tolerance", note, se_note)
        keep = None
        if status in ("reproduced", "differs") and se:
            keep = keep_numeric(float(ours_r), float(paper_value), float(tol), float(se))
        return Claim(
            self.paper,
            figure,
            claim_id,
            claim,
            paper_value,
            ours_r,
            tol,
            status,
            data,
            full,
            keep=_keep_cell(keep, data),
        )

    def quoted(
        self,
        claim_id: str,
        *,
        ours: float,
        se: float = 0.0,
        params: dict[str, Any] | None = None,
        **computed: Any,
    ) -> Claim | None:
        """The row of a number the paper quotes: figure, claim, paper value, tolerance and fixed
        notes from the paper's ``quoted.yaml`` entry ``claim_id``; the call gives ``ours``, its
        standard error and exactly the fields the entry lists under ``computed`` (a
        :class:`privrisk.contract.quoted.QuotedError` of one line otherwise). The status is
        :meth:`numeric`'s. An entry quoted at a ``setting`` needs the figure's ``params`` and is
        None (no row) when they are not at it."""
        if not _quoted.at_setting(self.paper, claim_id, params):
            return None
        return self.numeric(**_quoted.fields(self.paper, claim_id, computed), ours=ours, se=se)

    def qualitative(
        self,
        *,
        figure: str,
        claim_id: str,
        claim: str,
        holds: bool | None,
        ours: str,
        note: str = "",
        data: str | None = None,
        to_decide: str = "",
        keep: float | None = None,
    ) -> Claim:
        """A statement tested on our curve: ``holds=None`` means the experiment cannot decide
        (``uninformative``; the note must give estimate, null and half-width, and ``to_decide``
        what would decide it when the row comes from data); ``to_decide`` is dropped on a
        decided row. ``keep``: the verdict's keep-probability (stored on a row from data)."""
        if holds is None:
            if not note:
                raise ValueError(
                    f"claim {claim_id}: an uninformative claim needs a note (estimate, null, half-width)"
                )
            status = "uninformative"
        else:
            to_decide = ""
            status = "qualitative-ok" if holds else "qualitative-fails"
            if not holds and not note:
                note = "the statement does not hold in our run"
        return Claim(
            self.paper,
            figure,
            claim_id,
            claim,
            "stated",
            ours,
            "",
            status,
            data or self.data,
            note,
            to_decide,
            _keep_cell(keep, data or self.data),
        )

    def judged(
        self,
        *,
        figure: str,
        claim_id: str,
        claim: str,
        verdict,
        ours: str,
        note: str = "",
        data: str | None = None,
    ) -> Claim:
        """A statement decided by a rule of :mod:`privrisk.contract.verdicts`: the verdict's numbers go to
        the note (with ``note`` after them), its ``holds`` to the status, its plan to
        ``to_decide``, its keep-probability to ``keep``."""
        return self.qualitative(
            figure=figure,
            claim_id=claim_id,
            claim=claim,
            holds=verdict.holds,
            ours=ours,
            note=_join(verdict.note, note),
            data=data,
            to_decide=verdict.to_decide,
            keep=getattr(verdict, "keep", None),
        )


# --- files ---------------------------------------------------------------------------------------


def to_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in claims], columns=COLUMNS)


#: the largest ledger read (a paper's ledger is a few thousand rows, well under a MiB)
MAX_LEDGER_BYTES = 256 << 20


def _write_atomic(df: pd.DataFrame, path: str | Path, *, inputs: Sequence = ()) -> None:
    """The ledger as CSV, atomically, never over one of ``inputs``, a folder or a device, and no
    temporary file left when the write fails (:func:`privrisk.core.safe_io.write_output`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    safe_io.write_output(path, df.to_csv(index=False), inputs=inputs, what="claims ledger")


def write_claims(claims: Sequence[Claim], path: str | Path) -> None:
    _write_atomic(to_frame(claims), path)


def read(path: str | Path) -> pd.DataFrame:
    """A claims CSV: a regular file of at most :data:`MAX_LEDGER_BYTES` (a FileRefused, a
    ValueError, naming it otherwise), its columns checked."""
    text = safe_io.read_user_file(path, max_bytes=MAX_LEDGER_BYTES, what="claims ledger")
    if "\0" in text:
        raise UnicodeDecodeError("utf-8", b"\0", 0, 1, "a NUL byte")
    df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    if list(df.columns) == COLUMNS[:-1]:  # written before keep-probabilities: none known
        df["keep"] = ""
    if list(df.columns) != COLUMNS:
        raise ValueError(f"{path}: claims columns {list(df.columns)} != {COLUMNS}")
    return df


def gather(inputs: Sequence[str | Path], output: str | Path) -> pd.DataFrame:
    """Concatenate claims files (a figure's, a paper's) into one ledger, checking the columns."""
    frames = [read(p) for p in inputs]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    _write_atomic(out, output, inputs=inputs)
    return out


def check(df: pd.DataFrame) -> list[str]:
    """Consistency problems of a ledger read with :func:`read` (empty list: consistent).

    Every status must agree with the row's own numbers: ``reproduced`` exactly when
    |ours − paper_value| <= tolerance, ``differs`` exactly when not; statuses other than
    ``reproduced`` and ``qualitative-ok`` carry a note; nothing from stand-in data is
    ``reproduced``; claim ids are unique per paper; every uninformative row from data has a
    ``to_decide`` and no decided row has one; ``keep`` is empty or a probability, and empty on
    an analytic row.
    """
    problems = []
    for _, r in df.iterrows():
        where = f"{r.paper}/{r.claim_id}"
        if r.status not in STATUSES:
            problems.append(f"{where}: unknown status {r.status!r}")
            continue
        if r.data not in DATA:
            problems.append(f"{where}: unknown data {r.data!r}")
        if r.status in NEEDS_NOTE and not r.note.strip():
            problems.append(f"{where}: status {r.status} without a note")
        if r.status == "reproduced" and r.data == "standin":
            problems.append(f"{where}: reproduced from stand-in data")
        problem = _to_decide_problem(r.status, r.data, r.to_decide) or _keep_problem(
            r.data, getattr(r, "keep", "")
        )
        if problem:
            problems.append(f"{where}: {problem}")
        if r.status in ("reproduced", "differs"):
            try:
                ok = within(float(r.ours), float(r.paper_value), float(r.tolerance))
            except ValueError:
                problems.append(
                    f"{where}: {r.status} needs numeric paper_value, ours and tolerance"
                )
                continue
            if ok != (r.status == "reproduced"):
                problems.append(
                    f"{where}: status {r.status} but |{r.ours} - {r.paper_value}| "
                    f"{'<=' if ok else '>'} {r.tolerance}"
                )
    dupes = df[df.duplicated(["paper", "claim_id"], keep=False)]
    for (paper, cid), _ in dupes.groupby(["paper", "claim_id"]):
        problems.append(f"{paper}/{cid}: claim id used more than once")
    return problems


def to_markdown(df: pd.DataFrame) -> str:
    cols = [
        "paper",
        "figure",
        "claim_id",
        "paper_value",
        "ours",
        "status",
        "data",
        "note",
        "to_decide",
        "keep",
    ]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        cells = [str(row[c]).replace("|", "\\|").replace("\n", " ") for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    counts = df["status"].value_counts().to_dict() if len(df) else {}
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    return "# Claims ledger\n\n" + f"{len(df)} claims ({summary}).\n\n" + "\n".join(lines) + "\n"


def _fail(message: str) -> int:
    print(f"privrisk claims: error: {message}", file=sys.stderr)
    return 2


def _read_ledger(path: Path) -> pd.DataFrame | str:
    """The ledger at ``path``, or one line saying why it cannot be read (a directory, binary data,
    a CSV of other columns)."""
    if path.is_dir():
        return f"{path} is a directory, not a claims ledger (a CSV file such as results/claims.csv)"
    if not path.exists():
        return f"{path} does not exist; run `snakemake --cores 2` first"
    try:  # a regular file, a size cap (a pipe would hang, /dev/zero fill memory)
        return read(path)
    except safe_io.FileRefused as err:
        return str(err).removeprefix("claims ledger ")
    except UnicodeDecodeError:
        return f"{path} is not text (binary data?); a claims ledger is a CSV file"
    except (OSError, ValueError) as err:  # pandas' parse errors are ValueErrors
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        return f"{path} is not a claims ledger ({first[:200]})"


def _write_text(path: Path, text: str, *, inputs: Sequence = ()) -> str | None:
    """Write ``text`` to ``path`` through a temporary file renamed at the end (a failure leaves
    neither a half-written file nor the temporary one); returns why it failed, or None."""
    if path.is_dir():
        return f"--markdown {path}: is a directory; give a file name"
    if not path.parent.is_dir():
        return f"--markdown {path}: no folder {path.parent} to write it in"
    try:  # never over a device or a pipe; no temporary file left (privrisk.core.safe_io)
        safe_io.write_output(path, text, inputs=inputs, what="--markdown")
    except safe_io.FileRefused as err:
        return str(err)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """``privrisk claims``; a reader that stops early (``privrisk claims | head``) ends it
    quietly, as it ends any Unix filter, with exit status 0."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # inside the try: a closed pipe fails here, not at interpreter exit
        return code
    except BrokenPipeError:
        # nothing more can be printed; point stdout at /dev/null so Python's own final flush
        # does not fail again with "Exception ignored ... BrokenPipeError"
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="privrisk claims", description=__doc__.splitlines()[0])
    ap.add_argument("ledger", nargs="?", default="results/claims.csv")
    ap.add_argument("--paper", help="show only this paper key")
    ap.add_argument("--status", choices=STATUSES, help="show only this status")
    ap.add_argument("--markdown", metavar="OUT", help="write the ledger as Markdown to OUT")
    ap.add_argument(
        "--check",
        action="store_true",
        help="check every row's status against its numbers; exit 1 on a problem",
    )
    args = ap.parse_args(argv)
    df = _read_ledger(Path(args.ledger))
    if isinstance(df, str):
        return _fail(df)
    if args.check:
        problems = check(df)
        print(f"{len(df)} claims checked: {len(problems)} problem(s)")
        print("\n".join(problems))
        return 1 if problems else 0
    if args.paper:
        if args.paper not in set(df.paper):
            return _fail(
                f"no claims for paper {args.paper!r}; papers: {', '.join(sorted(set(df.paper)))}"
            )
        df = df[df.paper == args.paper]
    if args.status:
        df = df[df.status == args.status]
    if args.markdown:
        problem = _write_text(Path(args.markdown), to_markdown(df), inputs=[args.ledger])
        return _fail(problem) if problem else 0
    with pd.option_context(
        "display.max_rows", None, "display.max_colwidth", 60, "display.width", 200
    ):
        print(
            df[
                [
                    "paper",
                    "figure",
                    "claim_id",
                    "paper_value",
                    "ours",
                    "status",
                    "data",
                    "to_decide",
                ]
            ].to_string(index=False)
        )
        print()
        print(df["status"].value_counts().to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
