"""The audit report: a frozen dataclass with a schema version, serialisable to JSON and back.

Top-level fields (the ones a user quotes, named in docs/audit.md): ``epsilon_lower`` (at
``delta``), ``mu_lower``, ``confidence``, ``n_members``, ``n_nonmembers`` and, with a claimed
guarantee, ``verdict``, ``p_value`` and ``canaries_needed``. ``inputs`` records the file (path,
SHA-256, importer, rows) and every argument, so that the report says what it is an audit of.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields

SCHEMA = "privrisk.audit/3"
#: older reports that still load (their ``operating_point`` is None): /2 lacks only that field
READABLE = (SCHEMA, "privrisk.audit/2")


@dataclass(frozen=True)
class TprAtFpr:
    fpr: float
    tpr: float
    tpr_lo: float
    tpr_hi: float
    fpr_observed: float
    fpr_hi: float


@dataclass(frozen=True)
class Roc:
    fpr: tuple[float, ...]
    tpr: tuple[float, ...]
    tpr_lo: tuple[float, ...]
    tpr_hi: tuple[float, ...]
    fpr_lo: tuple[float, ...]
    fpr_hi: tuple[float, ...]
    simultaneous: bool = True


@dataclass(frozen=True)
class Group:
    """One canary set's results (each at the group's share of the error budget)."""

    name: str
    n_members: int
    n_nonmembers: int
    confidence: float
    epsilon_lower: float
    mu_lower: float
    auc: float
    tpr_at_fpr: tuple[TprAtFpr, ...]
    roc: Roc
    advantage_lower: float = 0.0
    epsilon_curve: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AuditReport:
    schema: str
    kind: str
    confidence: float
    delta: float
    epsilon_lower: float | None  # None: f-DP one-run at δ = 0 (no ε from a Gaussian there)
    mu_lower: float | None
    n_members: int | None
    n_nonmembers: int | None
    n_targets: int | None = None
    hits: int | None = None
    guesses: int | None = None
    correct: int | None = None
    claim: str | None = None
    verdict: str | None = None
    p_value: float | None = None
    canaries_needed: int | None = None
    verdict_note: str = ""
    form: dict | None = None
    design: dict | None = None
    epsilon_curve: dict | None = None
    assumptions: tuple[str, ...] = ()
    groups: tuple[Group, ...] = ()
    inputs: dict = field(default_factory=dict)
    method: tuple[str, ...] = ()
    #: per top-level bound (``epsilon_lower``, ``mu_lower``), the test behind it: threshold(s),
    #: counts (k of n), rates, the bounds on them and the levels they were computed at
    #: (:mod:`privrisk.audit.operating_point`), enough to recompute the bound from the report
    operating_point: dict | None = None

    def to_dict(self) -> dict:
        return _clean(asdict(self))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_dict(cls, d: dict) -> AuditReport:
        if d.get("schema") not in READABLE:
            raise ValueError(f"not a {SCHEMA} report (schema {d.get('schema')!r})")
        d = dict(d)
        d["groups"] = tuple(_group(g) for g in d.get("groups", ()))
        d["method"] = tuple(d.get("method", ()))
        d["assumptions"] = tuple(d.get("assumptions", ()))
        d["epsilon_lower"] = _num(d["epsilon_lower"])
        for key in ("form", "design", "epsilon_curve", "operating_point"):
            if d.get(key) is not None:
                d[key] = _unclean(d[key])
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})

    @classmethod
    def from_json(cls, text: str) -> AuditReport:
        return cls.from_dict(json.loads(text))

    @property
    def verdict_object(self):
        """The verdict as :class:`privrisk.contract.verdicts.Verdict` (None without a claim)."""
        if self.verdict is None:
            return None
        from .verdict import as_verdict

        return as_verdict(self.verdict, self.verdict_note)


def _group(g: dict) -> Group:
    g = dict(g)
    g["tpr_at_fpr"] = tuple(TprAtFpr(**t) for t in g["tpr_at_fpr"])
    g["roc"] = Roc(**{k: tuple(v) if isinstance(v, list) else v for k, v in g["roc"].items()})
    return Group(**g)


def _num(x):
    return {"inf": math.inf, "-inf": -math.inf}.get(x, x) if isinstance(x, str) else x


def _unclean(x):
    """The inverse of :func:`_clean` for the numbers of a nested dict ("inf" → ∞)."""
    if isinstance(x, dict):
        return {k: _unclean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_unclean(v) for v in x]
    return _num(x)


def _clean(x):
    """JSON-safe: tuples as lists; an infinite bound as the string "inf" (JSON has no ∞)."""
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x
