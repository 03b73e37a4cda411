"""The audit report as plain text for a terminal."""

from __future__ import annotations

from .report import AuditReport

KIND = {
    "membership": "membership scores",
    "reconstruction": "reconstruction outcomes",
    "one-run": "one-run audit (Steinke, Nasr & Jagielski 2023)",
}


def _f(x, digits: int = 4) -> str:
    return "n/a" if x is None else f"{x:.{digits}g}"


def text(r: AuditReport) -> str:
    src = r.inputs.get("file") or "columns"
    fdp = r.inputs.get("arguments", {}).get("one_run_method") == "fdp"
    kind = "one-run audit (f-DP, Mahloujifar, Melis & Chaudhuri 2024)" if fdp else KIND[r.kind]
    out = [
        f"Audit of {src} ({kind}, importer {r.inputs.get('importer')}): lower bounds, "
        f"each valid at confidence {r.confidence:g}",
        "",
    ]
    if r.kind == "reconstruction":
        out.append(f"  targets            {r.n_targets:,}, hits {r.hits:,}")
    else:
        out.append(f"  canaries           {r.n_members:,} members, {r.n_nonmembers:,} non-members")
    if r.kind == "one-run":
        out.append(f"  guesses            {r.guesses:,}, correct {r.correct:,}")
    beside = ""
    if fdp:
        beside = " (the ε of the μ̂-GDP Gaussian: assumes a Gaussian mechanism)"
        if r.epsilon_lower is None:
            beside = " (none: the μ̂-GDP Gaussian has ε = ∞ at delta = 0; see mu_lower)"
    out.append(f"  epsilon_lower      {_f(r.epsilon_lower)} at delta = {r.delta:g}{beside}")
    if r.mu_lower is not None:
        out.append(f"  mu_lower           {_f(r.mu_lower)} (mu-GDP)")
    for g in r.groups:
        head = f"  group {g.name!r}: " if len(r.groups) > 1 else "  "
        if len(r.groups) > 1:
            out.append(
                f"{head}epsilon_lower {_f(g.epsilon_lower)}, mu_lower {_f(g.mu_lower)} "
                f"(confidence {g.confidence:.4g}), {g.n_members:,}/{g.n_nonmembers:,}"
            )
        out.append(f"    AUC {g.auc:.4f}")
        for t in g.tpr_at_fpr:
            out.append(
                f"    TPR at FPR {t.fpr:.1%}: {t.tpr:.4f} [{t.tpr_lo:.4f}, {t.tpr_hi:.4f}] "
                f"(observed FPR {t.fpr_observed:.4f}, at most {t.fpr_hi:.4f})"
            )
    for key, pt in (r.operating_point or {}).items():
        out.append(f"  behind {key}: {point_line(pt)}")
    if r.epsilon_curve:
        pts = ", ".join(
            f"{_f(e, 3)} at {d:g}"
            for d, e in zip(r.epsilon_curve["delta"], r.epsilon_curve["epsilon_lower"], strict=True)
        )
        out.append(f"  epsilon_lower(δ)   {pts}")
    if r.claim is not None:
        out += ["", f"  claim              {r.claim}", f"  verdict            {r.verdict.upper()}"]
        if r.form is not None:
            out.append(
                f"  in its form        {r.form['parameter']}: lower bound {_f(r.form['lower'])}, "
                f"claimed {_f(r.form['claimed'])}"
            )
        out.append(f"  p_value            {_f(r.p_value, 3)}")
        if r.canaries_needed is not None:
            out.append(f"  canaries_needed    {r.canaries_needed:,}")
        out.append(f"                     {r.verdict_note}")
    for a in r.assumptions:
        out.append(f"  note: {a}")
    out.append("")
    out += [f"  method: {m}" for m in r.method]
    return "\n".join(out) + "\n"


def _lv(x: float) -> str:
    return f"{x:.3g}"


def point_line(pt: dict) -> str:
    """One line: the test behind a bound and its numbers, enough to recompute it
    (docs/audit.md says how for each kind)."""
    if "from" in pt:  # a bound converted from another
        return f"{_f(pt['value'])}: from {pt['from']}, {pt['conversion']}"
    if "tpr_lower" in pt:  # membership: one test of the family
        t, f = pt["tpr_lower"], pt["fpr_upper"]
        t_lv = f"{t['count']}/{t['n']} at level {_lv(t['level'])}" if "count" in t else "none"
        group = f" (group {pt['group']!r})" if pt.get("groups", 1) > 1 else ""
        return (
            f"{_f(pt['value'])} = {pt['piece']}{group}: {pt['test']}, k = {pt['k']}, threshold "
            f"{pt['threshold']:.6g}; TPR {pt['true_positives']}/{pt['n_true']} = {pt['tpr']:.4g}, "
            f"T = {t['bound']:.6g} (Clopper-Pearson, {t_lv}, {t['from']}); FPR "
            f"{pt['false_positives']}/{pt['n_false']} = {pt['fpr']:.4g}, F = {f['bound']:.6g} "
            f"(order statistic {f['order_statistic']} of {f['n']} at level {_lv(f['level'])}, "
            f"{f['from']})"
        )
    if "hits" in pt:  # reconstruction
        return (
            f"{_f(pt['value'])}: {pt['hits']}/{pt['n_targets']} targets hit "
            f"({pt['rate']:.4g}): the largest ε whose tail at the hits is <= {_lv(pt['level'])}; priors "
            f"{pt['prior_range'][0]:.4g}..{pt['prior_range'][1]:.4g}"
        )
    if "r" in pt:  # one-run, Steinke et al.
        out = f"below {pt['threshold_out']:.6g}" if pt["threshold_out"] is not None else ""
        return (
            f"{_f(pt['value'])}: k = {pt['guesses']} of {pt['m']} canaries guessed "
            f"({pt['guessed_in']} in, scores >= {pt['threshold_in']:.6g}; {pt['guessed_out']} "
            f"out{', scores <= ' + out[6:] if out else ''}), {pt['correct']} correct of "
            f"{pt['r']}; p-value at the bound {pt['p_at_value']:.7g}, just above the level "
            f"{pt['level']:.7g} (1 - confidence over a grid of {len(pt['grid'])}), below it for "
            "any smaller ε"
        )
    return (  # one-run, f-DP
        f"{_f(pt['value'])}: the {pt['guesses']} highest of {pt['m']} scores guessed in "
        f"(scores >= {pt['threshold_in']:.6g}), {pt['correct']} correct; refutes μ-GDP just "
        f"below the bound at level {_lv(pt['level'])} (1 - confidence over a grid of "
        f"{len(pt['grid'])})"
    )
