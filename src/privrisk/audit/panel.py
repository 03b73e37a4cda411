"""A panel of estimators on the same scores (``privrisk audit FILE --methods all``): the
two-sample threshold test, the one-run audit of Steinke et al. and the f-DP one-run audit of
Mahloujifar et al., each with the assumptions under which its bound holds, in one table.

The methods answer for different experiments, and on one file at most some of their assumptions
can hold: the threshold test treats each canary as an independent trial (one trained model per
canary, or per canary set); the one-run audits take all canaries from **one** training run, each
included independently with probability ½. The panel says which each needs; it does not pick
one. A method whose precondition the file fails (several canary sets for a one-run audit, a member
fraction no fair coin gives, a claim form the method cannot test) is listed as not run, with why.

The file is read once; each method is :func:`privrisk.audit.audit` on its columns, so every bound,
verdict and operating point is the one that method's own report gives (each is validated on null
files by its own tests: ``tests/audit/test_validity.py``, ``test_one_run.py``, and the panel's
``tests/audit/test_panel.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import privrisk.audit.columns as cols
import privrisk.audit.importers as importers
from privrisk.audit.build import audit
from privrisk.audit.report import AuditReport

from .errors import AuditInputError

SCHEMA = "privrisk.audit-panel/1"

#: method name → (what it is, the audit's arguments, what its bound assumes)
METHODS = {
    "threshold": (
        "two-sample threshold test (one family of tests, exact bounds)",
        {},
        "each canary an independent trial: one trained model per canary (or per canary set), "
        "members and non-members scored alike; valid for any mechanism",
    ),
    "steinke": (
        "one-run audit, Steinke, Nasr & Jagielski (2023)",
        {"one_run": True, "one_run_method": "steinke"},
        "one training run; each canary included independently with probability 1/2 (column "
        "member); valid for any (ε, δ)-DP mechanism",
    ),
    "fdp": (
        "one-run f-DP audit, Mahloujifar, Melis & Chaudhuri (2024)",
        {"one_run": True, "one_run_method": "fdp"},
        "one training run; each canary included independently with probability 1/2; mu_lower "
        "holds for any mechanism's μ-GDP, epsilon_lower is the μ̂-GDP Gaussian's (assumes a "
        "Gaussian mechanism), and an (ε, δ) claim is read as the Gaussian mechanism",
    ),
}
RECONSTRUCTION = (
    "reconstruction tail, Swanberg et al. Theorem 3.5",
    "each target reconstructed independently with the stated prior; replace-one (ε, δ)",
)


def methods_of(value) -> tuple[str, ...]:
    """``all`` or a comma-separated list of :data:`METHODS` (in the order given, once each)."""
    text = str(value).strip()
    if text == "all":
        return tuple(METHODS)
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in names if x not in METHODS]
    if bad or not names:
        raise AuditInputError(
            "--methods",
            f"must be 'all' or a comma-separated list of {', '.join(METHODS)}, got {text!r}",
        )
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Row:
    method: str
    title: str
    assumptions: str
    report: AuditReport | None = None
    not_run: str | None = None

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "title": self.title,
            "assumptions": self.assumptions,
            "not_run": self.not_run,
            "report": None if self.report is None else self.report.to_dict(),
        }


@dataclass(frozen=True)
class Panel:
    rows: tuple[Row, ...]
    inputs: dict

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "inputs": self.inputs,
            "methods": [r.to_dict() for r in self.rows],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)


def panel(source, *, methods="all", importer: str = "auto", one_model=None, guesses=None,
          **kwargs) -> Panel:  # fmt: skip
    """Every method of ``methods`` on the scores of ``source`` (a file any importer reads, or a
    mapping of columns), with the same claim, δ and confidence (``kwargs``, as :func:`audit`).

    Raises :class:`AuditInputError` for a file or argument no method can use (every method's
    own error is then the same; the first is raised)."""
    names = methods_of(methods)
    if "one_run" in kwargs or "one_run_method" in kwargs:
        raise AuditInputError("--methods", "chooses the methods; not with --one-run(-method)")
    if isinstance(source, dict):
        used, columns, file_info = "table", source, {"file": None}
    else:
        used, columns, digest = importers.load(Path(source), importer=importer)
        file_info = {"file": str(source), "sha256": digest}
    given = one_model
    if one_model is None:  # as audit() decides it from the importer, which it does not see here
        one_model = used in importers.ONE_MODEL
    if cols.kind_of(columns, file_info["file"] or "columns") == "reconstruction":  # its one test
        report = audit(columns, **kwargs)
        return Panel((Row("reconstruction", *RECONSTRUCTION,
                          report=_with(report, file_info, used, given)),),
                     {**file_info, "importer": used})  # fmt: skip
    rows, errors = [], []
    for name in names:
        title, args, assumes = METHODS[name]
        extra = {"guesses": guesses} if args else {"one_model": one_model}  # guesses: one-run
        try:
            report = audit(columns, **args, **extra, **kwargs)
        except AuditInputError as err:
            errors.append(_named(err, file_info["file"]))
            rows.append(Row(name, title, assumes, not_run=f"{errors[-1]}"))
            continue
        rows.append(Row(name, title, assumes, report=_with(report, file_info, used, given)))
    if len(errors) == len(rows):
        raise errors[0]
    return Panel(tuple(rows), {**file_info, "importer": used})


def _named(err: AuditInputError, file: str | None) -> AuditInputError:
    """The error naming the file, not "columns" (each method ran on the file's columns)."""
    if file and err.where.startswith("columns"):
        return AuditInputError(file + err.where[len("columns") :], err.message)
    return err


def _with(report: AuditReport, file_info: dict, used: str, one_model=None) -> AuditReport:
    """The report as the method's own audit of the file gives it (it ran on the file's columns):
    the file, its hash and importer, and ``one_model`` as the user gave it."""
    args = {**report.inputs["arguments"], "one_model": one_model}
    return replace(report, inputs={**report.inputs, **file_info, "importer": used,
                                   "arguments": args})  # fmt: skip


def _n(x, digits: int = 4) -> str:
    return "—" if x is None else f"{x:.{digits}g}"


def text(p: Panel) -> str:
    """The panel as one table, then each method's assumptions and the test behind its bound."""
    from .text import point_line

    first = next(r.report for r in p.rows if r.report is not None)
    src = p.inputs.get("file") or "columns"
    out = [
        f"Audit panel of {src} (importer {p.inputs.get('importer')}): lower bounds at confidence "
        f"{first.confidence:g}, δ = {first.delta:g}, each method on the same scores",
        "",
    ]
    claim = first.claim is not None
    table = [["method", "epsilon_lower", "mu_lower"] + (["in the claim's form", "verdict", "p"]
                                                        if claim else [])]  # fmt: skip
    for r in p.rows:
        if r.report is None:
            table.append([r.method, f"not run: {r.not_run}"])
            continue
        rep = r.report
        cells = [r.method, _n(rep.epsilon_lower), _n(rep.mu_lower)]
        if claim:
            form = rep.form or {}
            lower = form.get("lower")
            cells += [f"{form['parameter']}: {_n(lower)}" if lower is not None else "—",
                      rep.verdict, _n(rep.p_value, 3)]  # fmt: skip
        table.append(cells)
    full = [row for row in table if len(row) == len(table[0])]
    widths = [max(len(row[i]) for row in full) for i in range(len(table[0]))]
    for row in table:
        if len(row) < len(table[0]):  # a method not run: its reason across the columns
            out.append(f"  {row[0]:<{widths[0]}}  {row[1]}")
            continue
        out.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    if first.claim is not None:
        out += ["", f"  claim: {first.claim}"]
    out.append("")
    for r in p.rows:
        out.append(f"  {r.method}: {r.title}")
        out.append(f"    assumes: {r.assumptions}")
        if r.report is None:
            continue
        for a in r.report.assumptions:
            out.append(f"    note: {a}")
        for key, pt in (r.report.operating_point or {}).items():
            out.append(f"    behind {key}: {point_line(pt)}")
    return "\n".join(out) + "\n"
