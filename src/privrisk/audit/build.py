"""From a file (or columns) and the arguments to an :class:`AuditReport`: the one entry point."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

# absolute module imports: ``from . import x`` reads as importing the package itself, a cycle
# with its __init__ for the project's import graph (tests/test_layers.py)
import privrisk.audit.claim as claim_mod
import privrisk.audit.columns as cols
import privrisk.audit.importers as importers
import privrisk.audit.membership as mb
import privrisk.audit.one_run as onerun
import privrisk.audit.reconstruction as rec
import privrisk.audit.thresholds as th
import privrisk.audit.verdict as vd

from .errors import AuditInputError, flag
from .report import SCHEMA, AuditReport, Group, Roc, TprAtFpr

METHOD_MEMBERSHIP = (
    "thresholds fixed in advance at order statistics of the non-member (and member) scores; "
    "exact bounds (Beta for the false rates, Clopper-Pearson for the true rates), Bonferroni "
    "over every threshold of the family: no threshold is chosen on the labels and nothing is "
    "split off",
    "epsilon_lower: both tails, 2 x 12 geometric thresholds; mu_lower: 5 thresholds at FPR "
    "0.5, 0.3, 0.15, 0.05, 0.01; a claim is tested at the union of both families",
    "each bound is valid on its own at the stated confidence; several groups share it (Bonferroni)",
)
METHOD_RECONSTRUCTION = (
    "p-value: Swanberg et al. Theorem 3.5 tail at the observed hits (replace-one (epsilon, "
    "delta), product prior of the given per-target priors), smallest over the claim's profile",
    "epsilon_lower: the largest epsilon whose Theorem 3.5 tail at the hits is <= 1 - confidence",
)
METHOD_ONE_RUN = (
    "Steinke, Nasr & Jagielski (2023) one-run bound: k/2 highest scores guessed in, k/2 lowest "
    "out; the k are fixed in advance (given, or a grid of fractions 1%..100% of the canaries "
    "with Bonferroni over the grid)",
)


def _confidence(value) -> float:
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise AuditInputError("--confidence", f"must be a number, got {value!r}") from None
    if not 0 < c < 1:
        raise AuditInputError("--confidence", f"must be in (0, 1), got {value!r}")
    return c


def _delta(value) -> float:
    try:
        d = float(value)
    except (TypeError, ValueError):
        raise AuditInputError("--delta", f"must be a number, got {value!r}") from None
    if not 0 <= d < 1:
        raise AuditInputError("--delta", f"must be in [0, 1), got {value!r}")
    return d


def _source(source, importer: str) -> tuple[str, dict, dict]:
    if isinstance(source, Mapping):
        if importer not in ("auto", "table"):
            raise AuditInputError(flag("importer"), "columns given directly take no importer")
        return "table", {k: np.asarray(v) for k, v in source.items()}, {"file": None}
    path = Path(source)
    used, columns = importers.load(path, importer=importer)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return used, columns, {"file": str(source), "sha256": digest}


def audit(
    source,
    *,
    importer: str = "auto",
    one_run: bool = False,
    guesses=None,
    confidence=0.95,
    delta=None,
    epsilon=None,
    mu=None,
    sigma=None,
    sensitivity=None,
    noise_multiplier=None,
    sample_rate=None,
    steps=None,
    adjacency=None,
    rho=None,
    rdp=None,
    profile=None,
) -> AuditReport:
    """Audit a file of attack results (or a mapping of columns) against an optional claim.

    Args:
        source: path of a CSV/Parquet/NPZ with ``score``/``member`` (membership; optional
            ``group``, ``id``) or ``hit``/``prior`` (reconstruction), another tool's output
            (``importer``), or a mapping of those columns.
        importer: ``auto``, ``table``, ``ml-privacy-meter``, ``leakpro``, ``jax-privacy``.
        one_run: read the scores as a one-run audit (Steinke et al. 2023): ``member`` says which
            canaries were included (each with probability ½) in the single training run.
        guesses: one-run only: the number of guesses k (default: a grid, Bonferroni).
        confidence: the confidence of every bound and of the verdict (default 0.95).
        delta: δ of ``epsilon_lower``, and of the claim where the claim takes one.
        epsilon, mu, sigma, sensitivity, noise_multiplier, sample_rate, steps, adjacency, rho,
            rdp, profile: a claimed guarantee, any form ``privrisk explain`` accepts.

    Raises:
        AuditInputError: one message naming the file, column or argument.
    """
    conf = _confidence(confidence)
    claim_args = {
        "epsilon": epsilon,
        "delta": delta,
        "mu": mu,
        "sigma": sigma,
        "sensitivity": sensitivity,
        "noise_multiplier": noise_multiplier,
        "sample_rate": sample_rate,
        "steps": steps,
        "adjacency": adjacency,
        "rho": rho,
        "rdp": rdp,
        "profile": profile,
    }
    claim = claim_mod.parse(claim_args)
    if claim is None and adjacency is not None:
        raise AuditInputError("--adjacency", "is part of a claimed guarantee; give one with it")
    d = claim.delta if claim is not None else (0.0 if delta is None else _delta(delta))
    if guesses is not None and not one_run:
        raise AuditInputError("--guesses", "only a one-run audit (--one-run) takes guesses")
    used, columns, file_info = _source(source, importer)
    where = file_info["file"] or "columns"
    kind = cols.kind_of(columns, where)
    if one_run and kind != "membership":
        raise AuditInputError(where, "a one-run audit needs columns 'score' and 'member'")
    rows = int(np.asarray(next(iter(columns.values()))).size)
    inputs = {
        **file_info,
        "importer": used,
        "rows": rows,
        "arguments": {
            "one_run": bool(one_run),
            "guesses": None if guesses is None else int(guesses),
            "confidence": conf,
            **{k: (None if v is None else str(v)) for k, v in claim_args.items()},
        },
    }
    if kind == "reconstruction":
        return _reconstruction(cols.reconstruction(columns, where), claim, d, conf, inputs)
    sets = cols.membership(columns, where)
    if one_run:
        if len(sets) > 1:
            raise AuditInputError(
                f"{where}: column 'group'", "a one-run audit takes one canary set"
            )
        return _one_run(next(iter(sets.values())), claim, d, conf, guesses, inputs)
    return _membership(sets, claim, d, conf, inputs)


def _claim_text(claim) -> str | None:
    return None if claim is None else claim.description + f" [{claim.adjacency}]"


def _membership(sets, claim, delta, conf, inputs) -> AuditReport:
    g_count = len(sets)
    g_conf = 1 - (1 - conf) / g_count
    groups, per_p, per_needed, per_beyond = [], [], [], []
    for name, c in sets.items():
        m_desc, n_desc = np.sort(c.members)[::-1], np.sort(c.nonmembers)[::-1]
        n_m, n_n = m_desc.size, n_desc.size
        e_counts = th.count_sorted(m_desc, n_desc, th.epsilon_family(n_m, n_n))
        t_lo, f_hi = e_counts.pairs((1 - g_conf) / (2 * e_counts.family.size))
        eps = float(mb.epsilon_from_pairs(t_lo, f_hi, delta=delta)[0])
        m_counts = th.count_sorted(m_desc, n_desc, th.mu_family(n_m, n_n))
        t_lo, f_hi = m_counts.pairs((1 - g_conf) / (2 * m_counts.family.size))
        mu = float(mb.mu_from_pairs(t_lo, f_hi)[0])
        p = None
        if claim is not None:
            cc = th.count_sorted(m_desc, n_desc, mb.claim_family(n_m, n_n))
            p = float(mb.p_value(cc, claim.tradeoff)[0])
            beyond = bool(mb.violates(cc, claim.tradeoff)[0])
            per_p.append(p)
            per_beyond.append(beyond)
            per_needed.append(
                mb.canaries_needed(cc, claim.tradeoff, confidence=g_conf) if beyond else None
            )
        groups.append(
            Group(
                name=name,
                n_members=n_m,
                n_nonmembers=n_n,
                confidence=g_conf,
                epsilon_lower=eps,
                mu_lower=mu,
                auc=mb.auc(m_desc, n_desc),
                tpr_at_fpr=tuple(
                    TprAtFpr(**t) for t in mb.tpr_at_fpr(m_desc, n_desc, confidence=g_conf)
                ),
                roc=Roc(**mb.roc_band(m_desc, n_desc, confidence=g_conf)),
                p_value=p,
            )
        )
    verdict = p_all = needed = None
    note = ""
    if claim is not None:
        p_all = min(1.0, min(per_p) * g_count)
        verdict = vd.decide(p_value=p_all, beyond_claim=any(per_beyond), confidence=conf)
        if verdict == vd.UNINFORMATIVE:
            options = [n for n in per_needed if n is not None]
            needed = min(options) if options else None
        note = vd.note(
            verdict,
            claim=_claim_text(claim),
            p_value=p_all,
            confidence=conf,
            needed=needed,
            unit="canaries",
        )
    return AuditReport(
        schema=SCHEMA,
        kind="membership",
        confidence=conf,
        delta=delta,
        epsilon_lower=max(g.epsilon_lower for g in groups),
        mu_lower=max(g.mu_lower for g in groups),
        n_members=sum(g.n_members for g in groups),
        n_nonmembers=sum(g.n_nonmembers for g in groups),
        claim=_claim_text(claim),
        verdict=verdict,
        p_value=p_all,
        canaries_needed=needed,
        verdict_note=note,
        groups=tuple(groups),
        inputs=inputs,
        method=METHOD_MEMBERSHIP,
    )


def _reconstruction(t: cols.Targets, claim, delta, conf, inputs) -> AuditReport:
    hits = int(t.hits.sum())
    inputs = {**inputs, "prior_range": [float(t.priors.min()), float(t.priors.max())]}
    eps = rec.epsilon_lower(hits, t.priors, delta=delta, confidence=conf)
    verdict = p = needed = None
    note = ""
    if claim is not None:
        pairs = claim.pairs("replace-one")
        p = rec.p_value(hits, t.priors, pairs)
        beyond = rec.violates(hits, t.priors, pairs)
        verdict = vd.decide(p_value=p, beyond_claim=beyond, confidence=conf)
        if verdict == vd.UNINFORMATIVE:
            needed = rec.targets_needed(hits, t.priors, pairs, confidence=conf)
        note = vd.note(
            verdict,
            claim=_claim_text(claim),
            p_value=p,
            confidence=conf,
            needed=needed,
            unit="targets",
        )
    return AuditReport(
        schema=SCHEMA,
        kind="reconstruction",
        confidence=conf,
        delta=delta,
        epsilon_lower=float(eps),
        mu_lower=None,
        n_members=None,
        n_nonmembers=None,
        n_targets=int(t.hits.size),
        hits=hits,
        claim=_claim_text(claim),
        verdict=verdict,
        p_value=p,
        canaries_needed=needed,
        verdict_note=note,
        inputs=inputs,
        method=METHOD_RECONSTRUCTION,
    )


def _one_run(c: cols.Canaries, claim, delta, conf, guesses, inputs) -> AuditReport:
    scores = np.concatenate([c.members, c.nonmembers])
    included = np.concatenate([np.ones(c.members.size, bool), np.zeros(c.nonmembers.size, bool)])
    m = scores.size
    if guesses is not None:
        try:
            k = int(guesses)
        except (TypeError, ValueError):
            raise AuditInputError("--guesses", f"must be a whole number, got {guesses!r}") from None
        if not 1 <= k <= m or k != float(guesses):
            raise AuditInputError("--guesses", f"must be a whole number in 1..{m}, got {guesses!r}")
    ks = onerun.guess_grid(m, None if guesses is None else int(guesses))
    v = onerun.correct_guesses(scores, included, ks)[0]
    level = (1 - conf) / ks.size
    eps_k = onerun.epsilon_lower(m, ks, v, delta=delta, level=level)
    best = int(np.argmax(eps_k))
    verdict = p = needed = None
    note = ""
    if claim is not None:
        pairs = claim.pairs("stated")
        p_k = np.min([onerun.p_value(m, ks, v, epsilon=e, delta=dd) for e, dd in pairs], axis=0)
        p = float(min(1.0, np.min(p_k) * ks.size))
        i = int(np.argmin(p_k))
        beyond = bool(np.any(v / ks > 1 / (1 + math.exp(-min(claim.epsilon, 700)))))
        verdict = vd.decide(p_value=p, beyond_claim=beyond, confidence=conf)
        if verdict == vd.UNINFORMATIVE:
            needed = onerun.guesses_needed(
                m, int(ks[i]), int(v[i]), epsilon=claim.epsilon, delta=claim.delta, level=level
            )
        note = vd.note(
            verdict,
            claim=_claim_text(claim),
            p_value=p,
            confidence=conf,
            needed=needed,
            unit="canaries",
        )
    return AuditReport(
        schema=SCHEMA,
        kind="one-run",
        confidence=conf,
        delta=delta,
        epsilon_lower=float(eps_k[best]),
        mu_lower=None,
        n_members=int(c.members.size),
        n_nonmembers=int(c.nonmembers.size),
        guesses=int(ks[best]),
        correct=int(v[best]),
        claim=_claim_text(claim),
        verdict=verdict,
        p_value=p,
        canaries_needed=needed,
        verdict_note=note,
        inputs=inputs,
        method=METHOD_ONE_RUN,
    )
