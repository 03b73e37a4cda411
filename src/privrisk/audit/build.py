"""From a file (or columns) and the arguments to an :class:`AuditReport`: the one entry point."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

# absolute module imports: ``from . import x`` reads as importing the package itself, a cycle
# with its __init__ for the project's import graph (tests/test_layers.py)
import privrisk.audit.columns as cols
import privrisk.audit.family as fam
import privrisk.audit.importers as importers
import privrisk.audit.membership as mb
import privrisk.audit.operating_point as op
import privrisk.audit.verdict as vd
from privrisk.audit.search import seeded_sup

from .errors import AuditInputError, flag
from .report import SCHEMA, AuditReport, Group, Roc, TprAtFpr

METHOD_MEMBERSHIP = (
    "one family of tests gives epsilon_lower, mu_lower, the verdict and the p-value: exact "
    "bounds (Beta for the false rates, Clopper-Pearson for the true rates) with the error budget "
    "spread in advance (weighted Bonferroni): 30% on 5 centre tests (FPR 0.5 ... 0.01), 45% on "
    "2 x 8 geometric tail tests, 25% on two simultaneous bands that bound every threshold (every "
    "distinct score, both edges of tied blocks); nothing is chosen on the labels",
    "refuted <=> the lower bound in the claim's form exceeds the claim; the p-value is the "
    "smallest level at which it would be; 'uninformative' only when no outcome of these numbers "
    "of canaries could refute",
    "all bounds hold together at the stated confidence; several groups share it (Bonferroni)",
)
ONE_RUN_METHODS = ("steinke", "fdp")
METHOD_ONE_RUN_FDP = (
    "Mahloujifar, Melis & Chaudhuri (2024) f-DP one-run audit, as jax_privacy's "
    "epsilon_one_run_fdp: the k highest scores guessed 'in' for k fixed in advance (a grid of "
    "fractions 1%..50%, Bonferroni), tested against Gaussian trade-off curves G_mu; mu_lower is "
    "the largest mu refuted, epsilon_lower the epsilon of the mu_lower-GDP Gaussian at delta",
)
#: said beside every f-DP one-run ε̂: it is read off a Gaussian trade-off curve
FDP_EPSILON_NOTE = (
    "epsilon_lower is the ε of the μ̂-GDP Gaussian (assumes a Gaussian mechanism); mu_lower is "
    "the bound the test gives, and at delta = 0 no epsilon_lower is given (a Gaussian has ε = ∞ "
    "there for any μ > 0)"
)
#: what the report says when the canaries of a membership audit share one trained model
ONE_MODEL_NOTE = (
    "the canaries' scores come from one trained model: the membership bounds treat each canary "
    "as an independent trial, which holds for one model per canary (or per canary set), not "
    "here: one model's canaries share its training run, so their scores are dependent and the "
    "bounds are not proven for them. The audit proven for this setting is the one-run audit "
    "(--one-run; Steinke, Nasr & Jagielski 2023), which needs each canary included in training "
    "independently with probability 1/2"
)
#: the largest designs a plan may ask for (the reconstruction tail is quadratic in the targets)
MAX_TARGETS = 2_000
MAX_ONE_RUN = 10**5
#: a one-run member count a fair coin per canary gives with less than this probability is refused
ONE_RUN_FRACTION_LEVEL = 1e-3
#: the δ of the ε̂(δ) curve in the report (the claim's δ is added)
CURVE_DELTAS = (0.0, 1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.05, 0.1)
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


#: the confidences a bound is stated at: below ½ a "lower bound" is likelier wrong than right;
#: above 1 − 10⁻⁶ the tails are below what the bounds' arithmetic resolves
CONFIDENCE = (0.5, 0.999999)


def _confidence(value) -> float:
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise AuditInputError("--confidence", f"must be a number, got {value!r}") from None
    if not CONFIDENCE[0] <= c <= CONFIDENCE[1]:  # 1e-300 printed a "bound" that bounds nothing
        raise AuditInputError(
            "--confidence", f"must be in [{CONFIDENCE[0]:g}, {CONFIDENCE[1]:g}], got {value!r}"
        )
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
    used, columns, digest = importers.load(Path(source), importer=importer)
    return used, columns, {"file": str(source), "sha256": digest}


def audit(
    source,
    *,
    importer: str = "auto",
    one_run: bool = False,
    one_model: bool | None = None,
    one_run_method: str = "steinke",
    guesses=None,
    confidence=0.95,
    guarantee=None,
    **guarantee_args,
) -> AuditReport:
    """Audit a file of attack results (or a mapping of columns) against an optional claim.

    Args:
        source: path of a CSV/Parquet/NPZ with ``score``/``member`` (membership; optional
            ``group``, ``id``) or ``hit``/``prior`` (reconstruction), another tool's output
            (``importer``), or a mapping of those columns.
        importer: ``auto``, ``table``, ``ml-privacy-meter``, ``leakpro``, ``jax-privacy``.
        one_run: read the scores as a one-run audit (Steinke et al. 2023): ``member`` says which
            canaries were included (each with probability ½) in the single training run.
        one_run_method: ``steinke`` (Steinke, Nasr & Jagielski 2023: (ε, δ) from the guesses'
            accuracy) or ``fdp`` (Mahloujifar et al. 2024, as jax_privacy's
            ``epsilon_one_run_fdp``: μ-GDP, the mechanism taken to be Gaussian-shaped).
        one_model: the canaries' scores come from one trained model (True), or one model per
            canary (False); None: as the importer knows (ML Privacy Meter, LeakPro and LiRA files
            score many canaries on one target model), else False. The report then says which
            test's assumptions hold.
        guesses: one-run only: the number of guesses k (default: a grid, Bonferroni).
        confidence: the confidence of every bound and of the verdict (default 0.95).
        guarantee: a claimed guarantee (:class:`privrisk.explain.Guarantee`), or its fields as
            keyword arguments (``epsilon=1, delta=1e-5``, …; any form ``privrisk explain``
            accepts, :data:`privrisk.explain.GUARANTEE_ARGS`).
        delta: δ of ``epsilon_lower``, and of the claim where the claim takes one (alone, with
            no claim: the δ of ``epsilon_lower``).

    Raises:
        AuditInputError: one message naming the file, column or argument.
    """
    conf = _confidence(confidence)
    import privrisk.audit.claim as claim_mod  # explain's guarantee: only for a claim

    claim_args, claim = claim_mod.from_arguments(guarantee, guarantee_args)
    delta, adjacency = claim_args["delta"], claim_args["adjacency"]
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
            "one_model": one_model,
            "one_run_method": one_run_method if one_run else None,
            "guesses": None if guesses is None else str(guesses),
            "confidence": conf,
            **{k: (None if v is None else str(v)) for k, v in claim_args.items()},
        },
    }
    if one_model is None:
        one_model = used in importers.ONE_MODEL
    if kind == "reconstruction":
        return _reconstruction(cols.reconstruction(columns, where), claim, d, conf, inputs)
    sets = cols.membership(columns, where)
    if one_run:
        if len(sets) > 1:
            raise AuditInputError(
                f"{where}: column 'group'", "a one-run audit takes one canary set"
            )
        if one_run_method not in ONE_RUN_METHODS:
            raise AuditInputError(
                "--one-run-method", f"must be one of {', '.join(ONE_RUN_METHODS)}, got "
                f"{one_run_method!r}"
            )  # fmt: skip
        c = next(iter(sets.values()))
        if one_run_method == "fdp":
            return _one_run_fdp(c, claim, d, conf, guesses, inputs, where)
        return _one_run(c, claim, d, conf, guesses, inputs, where)
    report = _membership(sets, claim, d, conf, inputs)
    if one_model:
        report = replace(report, assumptions=(*report.assumptions, ONE_MODEL_NOTE))
    return report


def _claim_text(claim) -> str | None:
    return None if claim is None else claim.description + f" [{claim.adjacency}]"


def _curve(t_lo, f_hi, delta: float) -> dict:
    ds = np.unique(np.r_[CURVE_DELTAS, delta])
    return {"delta": [float(d) for d in ds], "epsilon_lower": []} | {
        "epsilon_lower": [float(e) for e in fam.epsilon_at(t_lo, f_hi, ds)[0]]
    }


def _membership(sets, claim, delta, conf, inputs) -> AuditReport:
    alpha = 1 - conf
    g_count = len(sets)
    g_alpha = alpha / g_count
    groups, evs, bounds, sorted_scores = [], [], [], []
    for name, c in sets.items():
        m_asc, x_asc = np.sort(c.members), np.sort(c.nonmembers)
        m_desc, x_desc = m_asc[::-1], x_asc[::-1]
        ev = fam.evidence_sorted(m_asc, x_asc)
        t_lo, f_hi = ev.bounds(g_alpha)
        evs.append(ev)
        sorted_scores.append((m_asc, x_asc))
        bounds.append((t_lo, f_hi))
        groups.append(
            Group(
                name=name,
                n_members=m_asc.size,
                n_nonmembers=x_asc.size,
                confidence=1 - g_alpha,
                epsilon_lower=float(fam.epsilon_at(t_lo, f_hi, delta)[0]),
                mu_lower=float(fam.mu_of(t_lo, f_hi)[0]),
                advantage_lower=float(fam.advantage_of(t_lo, f_hi)[0]),
                auc=mb.auc(m_desc, x_desc),
                tpr_at_fpr=tuple(
                    TprAtFpr(**t) for t in mb.tpr_at_fpr(m_desc, x_desc, confidence=1 - g_alpha)
                ),
                roc=Roc(**mb.roc_band(m_desc, x_desc, confidence=1 - g_alpha)),
                epsilon_curve=_curve(t_lo, f_hi, delta),
            )
        )
    curve = {
        "delta": groups[0].epsilon_curve["delta"],
        "epsilon_lower": [
            max(g.epsilon_curve["epsilon_lower"][i] for g in groups)
            for i in range(len(groups[0].epsilon_curve["delta"]))
        ],
    }
    points = {}
    for key in ("epsilon_lower", "mu_lower"):  # each from the group whose bound is the largest
        i = int(np.argmax([getattr(g, key) for g in groups]))
        pt = op.membership_of(evs[i], *sorted_scores[i], delta=delta, confidence=conf,
                              groups=g_count)[key]  # fmt: skip
        points[key] = {**pt, "value": getattr(groups[i], key), "group": groups[i].name}
    verdict = p = needed = form_info = design_info = None
    note = ""
    if claim is not None:
        import privrisk.audit.forms as forms

        form = forms.form_of(claim)
        lower = max(float(form.lower(t, f)[0]) for t, f in bounds)
        refuted = mb.refuted_at(evs, form, alpha)
        p = mb.p_value(evs, form, alpha)
        sizes = [(g.n_members, g.n_nonmembers) for g in groups]
        best_evs = [fam.best_outcome(a, b) for a, b in sizes]
        best = max(float(form.lower(*ev.bounds(g_alpha))[0]) for ev in best_evs)
        can = mb.refuted_at(best_evs, form, alpha)
        verdict = vd.decide(refuted=refuted, design_can_refute=can)
        if verdict == vd.UNINFORMATIVE:
            needed = _membership_needed(sizes, form, alpha)
        form_info = {
            "name": form.name,
            "parameter": form.parameter,
            "claimed": form.claimed,
            "lower": lower,
        }
        design_info = {"best_outcome_lower": best, "can_refute": bool(can)}
        total = sum(a + b for a, b in sizes)
        note = vd.note(
            verdict,
            claim=_claim_text(claim),
            parameter=form.parameter,
            claimed=form.claimed,
            lower=lower,
            best=best,
            p_value=p,
            confidence=conf,
            needed=needed,
            unit="canaries",
            design=f"{total:,} canaries",
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
        p_value=p,
        canaries_needed=needed,
        verdict_note=note,
        form=form_info,
        design=design_info,
        epsilon_curve=curve,
        groups=tuple(groups),
        inputs=inputs,
        method=METHOD_MEMBERSHIP,
        operating_point=points,
    )


def _smallest(refutes, start: int, limit: int) -> int | None:
    """The smallest size n in [start, limit] with ``refutes(n)`` (monotone: doubling, then
    bisection), or None."""
    lo, hi = start, start
    while not refutes(hi):
        if hi >= limit:
            return None
        lo, hi = hi, min(2 * hi, limit)
    while hi - lo > max(1, lo // 200):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if refutes(mid) else (mid, hi)
    return hi


def _membership_needed(sizes, form, alpha) -> int | None:
    """Canaries (all sets together, in today's proportions) at which perfectly separated scores
    would refute the claim: computed from the design, never from the observed effect."""
    total = sum(a + b for a, b in sizes)

    def refutes(n: int) -> bool:
        s = n / total
        scaled = [(max(1, round(a * s)), max(1, round(b * s))) for a, b in sizes]
        return mb.refuted_at([fam.best_outcome(a, b) for a, b in scaled], form, alpha)

    return _smallest(refutes, total, vd.MAX_CANARIES)


def _reconstruction(t: cols.Targets, claim, delta, conf, inputs) -> AuditReport:
    import privrisk.audit.reconstruction as rec  # only this kind needs the Poisson-binomial

    hits, n = int(t.hits.sum()), int(t.hits.size)
    alpha = 1 - conf
    inputs = {**inputs, "prior_range": [float(t.priors.min()), float(t.priors.max())]}
    verdict = p = needed = form_info = design_info = None
    note = ""
    eps = None
    if claim is not None:
        pairs = claim.pairs("replace-one")
        p = rec.p_value(hits, t.priors, pairs)
        refuted = p <= alpha
        best_p = rec.p_value(n, t.priors, pairs)
        can = best_p <= alpha
        verdict = vd.decide(refuted=refuted, design_can_refute=can)
        lower = best = None
        e1, d1 = pairs[0]
        parameter = f"replace-one ε at δ = {d1:g}"
        if len(pairs) == 1:  # one (ε, δ): the bound in its form, seeded so that it agrees
            lower = seeded_sup(
                lambda th: rec.tail_at(hits, t.priors, epsilon=th, delta=d1) <= alpha, e1, 200.0
            )
            best = seeded_sup(
                lambda th: rec.tail_at(n, t.priors, epsilon=th, delta=d1) <= alpha, e1, 200.0
            )
            form_info = {"name": "epsilon", "parameter": parameter, "claimed": e1, "lower": lower}
            if d1 == delta:
                eps = lower
        design_info = {"best_outcome_lower": best, "can_refute": bool(can)}
        if verdict == vd.UNINFORMATIVE and _finite(pairs):
            needed = rec.targets_needed(t.priors, pairs, alpha=alpha, limit=MAX_TARGETS)
        note = vd.note(
            verdict,
            claim=_claim_text(claim),
            parameter=parameter,
            claimed=e1,
            lower=lower,
            best=best,
            p_value=p,
            confidence=conf,
            needed=needed,
            unit="targets",
            design=f"{n:,} targets (every one reconstructed)",
            limit=MAX_TARGETS,
        )
    if eps is None:
        eps = rec.epsilon_lower(hits, t.priors, delta=delta, confidence=conf)
    point = {
        "value": float(eps),
        "hits": hits,
        "n_targets": n,
        "rate": hits / n,
        "prior_range": inputs["prior_range"],
        "level": alpha,
        "delta": delta,
        "confidence": conf,
        "test": "Swanberg et al. Theorem 3.5 tail Pr[hits >= v] at the observed hits, the file's "
        "per-target priors (replace-one)",
    }
    return AuditReport(
        schema=SCHEMA,
        kind="reconstruction",
        confidence=conf,
        delta=delta,
        epsilon_lower=float(eps),
        mu_lower=None,
        n_members=None,
        n_nonmembers=None,
        n_targets=n,
        hits=hits,
        claim=_claim_text(claim),
        verdict=verdict,
        p_value=p,
        canaries_needed=needed,
        verdict_note=note,
        form=form_info,
        design=design_info,
        inputs=inputs,
        method=METHOD_RECONSTRUCTION,
        operating_point={"epsilon_lower": point},
    )


def _finite(pairs) -> bool:
    """Whether some (ε, δ) of the claim could be refuted by any design (ε finite, δ < 1)."""
    return any(math.isfinite(e) and d < 1 - 1e-9 for e, d in pairs)


def _guesses(value, m: int) -> int | None:
    if value is None:
        return None
    text = str(value).strip()
    if not text.isdigit() or not 1 <= int(text) <= m:
        raise AuditInputError("--guesses", f"must be a whole number in 1..{m}, got {text!r}")
    return int(text)


def _fraction_covered(c: cols.Canaries, where: str) -> None:
    """Steinke et al.'s bound needs each canary included independently with probability ½:
    refuse a member count that a fair coin per canary would give with probability < 10⁻³."""
    from scipy import stats

    m = c.members.size + c.nonmembers.size
    p = stats.binomtest(int(c.members.size), m, 0.5).pvalue
    if p < ONE_RUN_FRACTION_LEVEL:
        raise AuditInputError(
            f"{where}: column 'member'",
            f"{c.members.size} of {m} canaries are members ({c.members.size / m:.1%}): a one-run "
            "audit (Steinke et al. 2023) needs each canary included with probability 1/2, and a "
            f"fair coin gives such a split with probability {p:.2g}; use the membership audit",
        )


def _one_run(c: cols.Canaries, claim, delta, conf, guesses, inputs, where) -> AuditReport:
    import privrisk.audit.one_run as onerun

    scores = np.concatenate([c.members, c.nonmembers])
    included = np.concatenate([np.ones(c.members.size, bool), np.zeros(c.nonmembers.size, bool)])
    m = scores.size
    k_given = _guesses(guesses, m)
    _fraction_covered(c, where)
    ks = onerun.guess_grid(m, k_given)
    v = onerun.correct_guesses(scores, included, ks)[0]
    alpha = 1 - conf

    def p_of(vv, mm, kk, theta, d):
        return min(1.0, float(np.min(onerun.p_value(mm, kk, vv, epsilon=theta, delta=d))) * kk.size)

    seed = 0.0
    pairs = None
    if claim is not None:
        pairs = claim.pairs("stated")
        if len(pairs) == 1 and pairs[0][1] == delta:
            seed = pairs[0][0]
    eps = seeded_sup(lambda th: p_of(v, m, ks, th, delta) <= alpha, seed, 64.0)
    point = op.one_run_steinke(scores, included, epsilon=eps, delta=delta, confidence=conf,
                               guesses=k_given)  # fmt: skip
    best_k = int(np.searchsorted(ks, point["guesses"]))
    verdict = p = needed = form_info = design_info = None
    note = ""
    if claim is not None:
        p = min(p_of(v, m, ks, e, d) for e, d in pairs)
        best_p = min(p_of(ks, m, ks, e, d) for e, d in pairs)
        can = best_p <= alpha
        verdict = vd.decide(refuted=p <= alpha, design_can_refute=can)
        e1, d1 = pairs[0]
        lower = best = None
        if len(pairs) == 1:
            lower = (
                eps
                if d1 == delta
                else seeded_sup(lambda th: p_of(v, m, ks, th, d1) <= alpha, e1, 64.0)
            )
            best = seeded_sup(lambda th: p_of(ks, m, ks, th, d1) <= alpha, e1, 64.0)
            form_info = {"name": "epsilon", "parameter": f"ε at δ = {d1:g}", "claimed": e1,
                         "lower": lower}  # fmt: skip
        design_info = {"best_outcome_lower": best, "can_refute": bool(can)}
        if verdict == vd.UNINFORMATIVE and _finite(pairs):

            def refutes(mm: int) -> bool:
                kk = onerun.guess_grid(mm, None if k_given is None else round(k_given * mm / m))
                return min(p_of(kk, mm, kk, e, d) for e, d in pairs) <= alpha

            needed = _smallest(refutes, m, MAX_ONE_RUN)
        note = vd.note(
            verdict,
            claim=_claim_text(claim),
            parameter=f"ε at δ = {d1:g}",
            claimed=e1,
            lower=lower,
            best=best,
            p_value=p,
            confidence=conf,
            needed=needed,
            unit="canaries",
            design=f"{m:,} canaries (every guess right)",
            limit=MAX_ONE_RUN,
        )
    return AuditReport(
        schema=SCHEMA,
        kind="one-run",
        confidence=conf,
        delta=delta,
        epsilon_lower=float(eps),
        mu_lower=None,
        n_members=int(c.members.size),
        n_nonmembers=int(c.nonmembers.size),
        guesses=int(ks[best_k]),
        correct=int(v[best_k]),
        claim=_claim_text(claim),
        verdict=verdict,
        p_value=p,
        canaries_needed=needed,
        verdict_note=note,
        form=form_info,
        design=design_info,
        inputs=inputs,
        method=METHOD_ONE_RUN,
        operating_point={"epsilon_lower": point},
    )


def _one_run_fdp(c: cols.Canaries, claim, delta, conf, guesses, inputs, where) -> AuditReport:
    """The f-DP one-run audit: μ̂ (μ-GDP) from the top-k guesses; a claim is tested as μ-GDP (an
    (ε, δ) claim as the Gaussian mechanism with that (ε, δ), as jax_privacy does)."""
    import privrisk.audit.one_run as onerun
    from privrisk import accounting

    scores = np.concatenate([c.members, c.nonmembers])
    included = np.concatenate([np.ones(c.members.size, bool), np.zeros(c.nonmembers.size, bool)])
    m = scores.size
    k_given = _guesses(guesses, m)
    _fraction_covered(c, where)
    ks = onerun.fdp_grid(m, k_given)
    v = onerun.top_correct(scores, included, ks)
    alpha = 1 - conf
    level = alpha / ks.size

    def refutes(vv, mm, kk, mu):
        return any(
            onerun.fdp_refutes(mm, int(r), int(x), mu=mu, level=alpha / kk.size)
            for r, x in zip(kk, vv, strict=True)
        )

    mu_claim = None
    assumptions = ()
    if claim is not None:
        p = claim.guarantee.as_stated
        if p.mu is not None:
            mu_claim = float(p.mu)
        elif not p.has_profile and 0 < p.delta < 1:
            mu_claim = float(accounting.gdp_mu(epsilon=p.epsilon, delta=p.delta))
            assumptions = (
                f"the claim (ε = {p.epsilon:g}, δ = {p.delta:g}) is tested as the Gaussian "
                f"mechanism with that (ε, δ), μ = {mu_claim:.4g}-GDP (as jax_privacy's "
                "epsilon_one_run_fdp): a refutation refutes a Gaussian-shaped mechanism, not "
                "every (ε, δ)-DP one; the Steinke et al. audit (--one-run-method steinke) tests "
                "(ε, δ) itself",
            )
        else:
            raise AuditInputError(
                "--one-run-method",
                "fdp tests μ-GDP claims (--mu, --sigma) and (ε, δ) with δ > 0 read as a "
                "Gaussian mechanism; use steinke for this claim",
            )
    seed = 0.0 if mu_claim is None else mu_claim
    mu_hat = seeded_sup(lambda th: refutes(v, m, ks, th), seed, 100.0)
    # ε̂ is the ε at δ of the μ̂-GDP Gaussian, not a bound on every mechanism: at δ = 0 a Gaussian
    # has ε = ∞ for any μ > 0, which says nothing about the mechanism, so none is printed there
    if mu_hat == 0:
        eps = 0.0
    elif delta > 0:
        eps = float(accounting.gaussian_epsilon(delta=delta, mu=mu_hat))
    else:
        eps = None
    assumptions = (FDP_EPSILON_NOTE, *assumptions)
    mu_point = op.one_run_fdp(scores, included, mu=mu_hat, confidence=conf, guesses=k_given)
    points = {"mu_lower": mu_point}
    if eps is not None:
        points["epsilon_lower"] = {
            "value": eps,
            "from": "mu_lower",
            "conversion": "the epsilon at delta of the mu_lower-GDP Gaussian (assumes a Gaussian "
            "mechanism)",
            "delta": delta,
            "confidence": conf,
        }
    best_k = int(np.searchsorted(ks, mu_point["guesses"]))
    verdict = p_val = needed = form_info = design_info = None
    note = ""
    if mu_claim is not None:
        refuted = refutes(v, m, ks, mu_claim)

        def p_pred(log_a):
            a = float(np.exp(log_a))
            return any(
                onerun.fdp_refutes(m, int(r), int(x), mu=mu_claim, level=a / ks.size)
                for r, x in zip(ks, v, strict=True)
            )

        p_val = _seeded_p(p_pred, alpha)
        best = seeded_sup(lambda th: refutes(ks, m, ks, th), mu_claim, 100.0)
        can = refutes(ks, m, ks, mu_claim)
        verdict = vd.decide(refuted=refuted, design_can_refute=can)
        form_info = {"name": "mu", "parameter": "μ (μ-GDP)", "claimed": mu_claim, "lower": mu_hat}
        design_info = {"best_outcome_lower": best, "can_refute": bool(can)}
        if verdict == vd.UNINFORMATIVE and math.isfinite(mu_claim):

            def more(mm: int) -> bool:
                kk = onerun.fdp_grid(mm, None if k_given is None else round(k_given * mm / m))
                return refutes(kk, mm, kk, mu_claim)

            needed = _smallest(more, m, MAX_ONE_RUN)
        note = vd.note(
            verdict,
            claim=_claim_text(claim),
            parameter="μ (μ-GDP)",
            claimed=mu_claim,
            lower=mu_hat,
            best=best,
            p_value=p_val,
            confidence=conf,
            needed=needed,
            unit="canaries",
            design=f"{m:,} canaries (every guess right)",
            limit=MAX_ONE_RUN,
        )
    del level
    return AuditReport(
        schema=SCHEMA,
        kind="one-run",
        confidence=conf,
        delta=delta,
        epsilon_lower=eps,
        mu_lower=float(mu_hat),
        n_members=int(c.members.size),
        n_nonmembers=int(c.nonmembers.size),
        guesses=int(ks[best_k]),
        correct=int(v[best_k]),
        claim=_claim_text(claim),
        verdict=verdict,
        p_value=p_val,
        canaries_needed=needed,
        verdict_note=note,
        form=form_info,
        design=design_info,
        assumptions=assumptions,
        inputs=inputs,
        method=METHOD_ONE_RUN_FDP,
        operating_point=points,
    )


def _seeded_p(pred, alpha: float) -> float:
    """The smallest level with ``pred`` (in log α), seeded at ``alpha`` so that the claim is
    refuted at ``alpha`` exactly when the returned p-value is <= ``alpha``."""
    seed = math.log(alpha)
    if pred(seed):
        lo, hi = math.log(mb.P_FLOOR), seed
        if pred(lo):
            return mb.P_FLOOR
    else:
        lo, hi = seed, 0.0
        if not pred(hi):
            return 1.0
    for _ in range(mb.P_ITERATIONS):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if pred(mid) else (mid, hi)
    return float(min(1.0, math.exp(hi)))
