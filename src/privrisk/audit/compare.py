"""The audit's lower bounds under the risk card's upper bounds: one page for both sides.

``compare(card, report)`` pairs each row of a :class:`privrisk.explain.RiskCard` that an audit
can speak to with the audit's lower bound on the same quantity, and names the gap (upper −
lower). Rows without a counterpart are left out; a pair whose settings differ (the card's prior
is not the audit's) is kept with the reason in its note.

* membership advantage (``membership.advantage*``): the audit's lower bound on TPR − FPR is the
  largest ``tpr_lo − fpr_hi`` over the audit's family of tests (the bounds its ε̂, μ̂ and verdict
  are read from, so valid at the group's confidence; the largest over groups);
* TPR at FPR (rows ``membership.tpr_at_fpr.<fpr>``, e.g. ``membership.tpr_at_fpr.0.01``, when the
  card has them): the audit's Clopper–Pearson lower bound at that FPR;
* reconstruction success (``reconstruction.beta``, ``reconstruction.baseline_fdp``: one guess's
  success probability; ``reconstruction.quantiles``: targets reconstructed in one run): the
  one-sided Clopper–Pearson lower bound of the audit's hit rate (scaled to the card's targets for
  the quantiles row), comparable when the audit's priors equal the card's prior.

The card is read through its public fields only (``rows``, ``setting``), so any card works.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import privrisk.audit.thresholds as th

from .report import AuditReport

ADVANTAGE_PREFIX = "membership.advantage"
TPR_PREFIX = "membership.tpr_at_fpr."
SUCCESS_ROWS = ("reconstruction.beta", "reconstruction.baseline_fdp", "reconstruction.mmc")
QUANTILES_ROW = "reconstruction.quantiles"


@dataclass(frozen=True)
class Pair:
    key: str
    label: str
    upper: float | None
    lower: float
    gap: float | None
    comparable: bool
    note: str


@dataclass(frozen=True)
class Comparison:
    guarantee: str
    audit: str
    confidence: float
    pairs: tuple[Pair, ...]

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def text(self) -> str:
        out = [
            f"Upper bounds ({self.guarantee}) against the audit's lower bounds ({self.audit}, "
            f"confidence {self.confidence:g})",
            "",
        ]
        if not self.pairs:
            out.append("  no row of the card can be compared with this audit")
        for p in self.pairs:
            up = "n/a" if p.upper is None else f"{p.upper:.4g}"
            gap = "" if p.gap is None else f", gap {p.gap:.4g}"
            flag = "" if p.comparable else "  (not comparable as is)"
            out.append(f"  {p.label}")
            out.append(f"      at most {up} (card) ; at least {p.lower:.4g} (audit){gap}{flag}")
            if p.note:
                out.append(f"      {p.note}")
        return "\n".join(out) + "\n"


def advantage_lower(report: AuditReport) -> float:
    """max over groups of the largest TPR_lo − FPR_hi of the audit's family of tests (the same
    bounds as ε̂, μ̂ and the verdict, valid together at the group's confidence)."""
    return max((g.advantage_lower for g in report.groups), default=0.0)


def _success_lower(report: AuditReport) -> float:
    level = 1 - report.confidence
    return float(th.true_rate_lower(report.hits, report.n_targets, level))


def _setting(card, name):
    try:
        return card.setting(name).value
    except KeyError:
        return None


def compare(card, report: AuditReport) -> Comparison:
    """The pairs (card row, audit lower bound) for ``card`` and ``report``."""
    pairs: list[Pair] = []
    if report.kind == "membership":
        adv = advantage_lower(report)
        for row in card.rows:
            if row.key.startswith(ADVANTAGE_PREFIX) and row.value is not None:
                pairs.append(
                    _pair(
                        row,
                        adv,
                        True,
                        "TPR − FPR proved by the audit's tests (those of ε̂, μ̂ and the verdict)",
                    )
                )
            elif row.key.startswith(TPR_PREFIX) and row.value is not None:
                fpr = float(row.key[len(TPR_PREFIX) :])
                hits = [t for g in report.groups for t in g.tpr_at_fpr if abs(t.fpr - fpr) < 1e-12]
                if hits:
                    lower = max(t.tpr_lo for t in hits)
                    pairs.append(
                        _pair(row, lower, True, f"Clopper–Pearson lower bound at FPR {fpr:g}")
                    )
    elif report.kind == "reconstruction":
        lower = _success_lower(report)
        priors = report.inputs.get("prior_range")
        card_prior = _setting(card, "prior")
        same = (
            priors is not None
            and card_prior is not None
            and (abs(priors[0] - card_prior) < 1e-9 and abs(priors[1] - card_prior) < 1e-9)
        )
        why = (
            "the audit's priors equal the card's prior"
            if same
            else f"audit priors {priors} vs the card's prior {card_prior}: set --prior to match"
        )
        for row in card.rows:
            if row.key in SUCCESS_ROWS and row.value is not None:
                pairs.append(_pair(row, lower, same, f"hit rate lower bound; {why}"))
            elif row.key == QUANTILES_ROW and row.values:
                targets = _setting(card, "targets")
                if targets:
                    upper = float(row.values[-1])
                    pairs.append(
                        Pair(
                            key=row.key,
                            label=row.label,
                            upper=upper,
                            lower=lower * targets,
                            gap=upper - lower * targets,
                            comparable=same,
                            note=f"hit rate lower bound × {targets:g} targets; {why}",
                        )
                    )
    return Comparison(
        guarantee=card.guarantee,
        audit=f"{report.kind} audit of {report.inputs.get('file') or 'columns'}",
        confidence=report.confidence,
        pairs=tuple(pairs),
    )


def _pair(row, lower: float, comparable: bool, note: str) -> Pair:
    upper = row.value
    gap = None if upper is None else float(upper) - lower
    if gap is not None and gap < 0 and comparable:
        note += "; the audit's lower bound exceeds the card's upper bound: the claim is refuted"
    return Pair(row.key, row.label, upper, lower, gap, comparable, note)
