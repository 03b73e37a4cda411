"""Other tools' native outputs → the audit's own columns (``score``, ``member``).

Each importer reads what the tool itself writes (read from the tools' code, not their docs):

* ``ml-privacy-meter`` — ML Privacy Meter's ``audit.py`` saves, per target model and averaged,
  ``np.savez(f"{report_dir}/attack_result_{idx}", fpr=…, tpr=…, auc=…, one_tenth_fpr=…,
  zero_fpr=…, scores=mia_scores.ravel(), memberships=target_memberships.ravel())`` (and
  ``attack_result_average_dp.npz`` with ``scores``/``memberships`` too). Higher score = member
  (it feeds ``sklearn.metrics.roc_curve(memberships, scores)``).
* ``leakpro`` — LeakPro's ``MIAResult.save`` writes ``data_objects/<attack_id>.json``, the
  ``MIAResultSchema.model_dump()`` of the result: ``signal_values`` (large = member, per its
  docstring) and ``true_labels`` (1 = member), beside the ROC arrays it derived from them.
* ``jax-privacy`` — jax_privacy's ``CanaryScoreAuditor(in_canary_scores, out_canary_scores)``
  takes two arrays and writes no file; the importer reads an NPZ holding the two arrays under
  those argument names (``np.savez(f, in_canary_scores=…, out_canary_scores=…)``). Higher =
  held in, as the auditor requires.

* ``lira`` — the log directory of Carlini et al.'s LiRA code (tensorflow/privacy,
  ``research/mi_lira_2021``): ``experiment-*/keep.npy`` (which examples each model trained on)
  and ``experiment-*/scores/*.npy`` (``score.py``'s per-example, per-augmentation logit scores;
  the last file in sorted order, as ``plot.py`` takes). The importer runs LiRA's online attack
  as ``plot.py`` does (:mod:`.lira`): the last experiment is the target, the others are shadows.

``table`` is the audit's own format (columns ``score``, ``member``, optional ``group``, ``id``;
or ``hit``, ``prior``); ``auto`` picks by the keys present.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .errors import AuditInputError
from .tables import read

IMPORTERS = ("auto", "table", "ml-privacy-meter", "leakpro", "jax-privacy", "lira")
#: importers whose files score many canaries on one target model (see audit's ``one_model``)
ONE_MODEL = ("ml-privacy-meter", "leakpro", "lira")


def load(path, *, importer: str = "auto") -> tuple[str, dict, str]:
    """(importer used, columns, the file's SHA-256) of the file at ``path``."""
    if importer not in IMPORTERS:
        raise AuditInputError(
            "--importer", f"unknown importer {importer!r}; expected one of {', '.join(IMPORTERS)}"
        )
    if importer in ("auto", "lira") and os.path.isdir(path):  # False on a name too long
        from .lira import read_lira

        columns, digest = read_lira(Path(path))
        return "lira", columns, digest
    if importer == "lira":
        raise AuditInputError(
            str(path), "a LiRA run is its log directory (experiment-*/keep.npy, scores/*.npy)"
        )
    kind, content, digest = read(path)
    return (*_columns(kind, content, str(path), importer), digest)


def _columns(kind: str, content, where: str, importer: str) -> tuple[str, dict]:
    if importer == "auto":
        importer = _detect(kind, content)
    if importer == "leakpro":
        return importer, _leakpro(content, where, kind)
    if kind != "table":
        raise AuditInputError(
            where, f"a JSON file is read only by --importer leakpro, not {importer}"
        )
    if importer == "ml-privacy-meter":
        return importer, _mlpm(content, where)
    if importer == "jax-privacy":
        return importer, _jax_privacy(content, where)
    return importer, content


def _detect(kind: str, content) -> str:
    if kind == "json":
        return "leakpro"
    if {"scores", "memberships"} <= set(content):
        return "ml-privacy-meter"
    if {"in_canary_scores", "out_canary_scores"} <= set(content):
        return "jax-privacy"
    return "table"


def _need(content: dict, keys: tuple[str, ...], where: str, tool: str) -> None:
    missing = [k for k in keys if k not in content]
    if missing:
        raise AuditInputError(
            where,
            f"not a {tool} file: no {', '.join(repr(k) for k in missing)} "
            f"(found {', '.join(repr(k) for k in sorted(content)) or 'nothing'})",
        )


def _mlpm(content: dict, where: str) -> dict:
    _need(content, ("scores", "memberships"), where, "ML Privacy Meter attack_result")
    scores = np.asarray(content["scores"]).ravel()
    member = np.asarray(content["memberships"]).ravel()
    if scores.shape != member.shape:
        raise AuditInputError(
            where, f"'scores' has {scores.size} entries but 'memberships' {member.size}"
        )
    return {"score": scores, "member": member}


def _jax_privacy(content: dict, where: str) -> dict:
    _need(content, ("in_canary_scores", "out_canary_scores"), where, "jax_privacy canary-score")
    inside = np.asarray(content["in_canary_scores"]).ravel()
    outside = np.asarray(content["out_canary_scores"]).ravel()
    return {
        "score": np.concatenate([inside, outside]),
        "member": np.concatenate([np.ones(inside.size, int), np.zeros(outside.size, int)]),
    }


def _leakpro(content, where: str, kind: str) -> dict:
    if kind != "json" or not isinstance(content, dict):
        raise AuditInputError(where, "a LeakPro result is the JSON file MIAResult.save writes")
    _need(content, ("signal_values", "true_labels"), where, "LeakPro MIAResult")
    if content["signal_values"] is None:
        raise AuditInputError(
            where,
            "this LeakPro result has no signal_values (made from confusion counts or fixed "
            "thresholds); an audit needs the per-canary scores",
        )
    try:
        scores = np.asarray(content["signal_values"], dtype=float).ravel()
        member = np.asarray(content["true_labels"], dtype=float).ravel()
    except (TypeError, ValueError):
        raise AuditInputError(
            where, "'signal_values' and 'true_labels' must be lists of numbers"
        ) from None
    if scores.shape != member.shape:
        raise AuditInputError(
            where, f"'signal_values' has {scores.size} entries but 'true_labels' {member.size}"
        )
    return {"score": scores, "member": member}
