"""The audit beside the risk card (``privrisk explain <guarantee> --audit FILE``).

The card's rows are upper bounds (what no attacker can exceed if the guarantee holds); an audit
gives lower bounds from an attack that was run. This module turns an audit report — as its JSON
dict, so that explain never imports the audit package (it sits above explain) — into a
:class:`~privrisk.explain.card.Section` of the card: ε̂ and μ̂ beside the guarantee's ε and μ,
the verdict with its p-value, and one sentence a privacy officer can act on. The card's own
text, JSON and HTML renderers show the section after the card's rows; the options of the audit
(``--audit``, ``--confidence``, ``--importer``, ``--one-run``, ``--guesses``) are declared here
for ``privrisk explain --help``.
"""

from __future__ import annotations

import argparse
import html
import math

from .card import Row, Section

#: explain's options that only an audit takes (the audit path strips them from the card's call)
AUDIT_OPTIONS = ("audit", "confidence", "importer", "one_run", "guesses")
KEY = "audit"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("your attack, measured (privrisk audit beside the card)")
    g.add_argument("--audit", metavar="FILE", help="attack results to audit against the guarantee")
    g.add_argument("--confidence", help="confidence of the audit's bounds (0.95)")
    g.add_argument(
        "--importer", help="auto, table, ml-privacy-meter, leakpro, jax-privacy or lira (auto)"
    )
    # default None, not False: callers that pass on every option given (v is not None) skip it
    g.add_argument(
        "--one-run", action="store_true", default=None, help="a one-run audit (Steinke et al.)"
    )
    g.add_argument("--guesses", help="one-run: number of guesses k (default: a grid)")


def given(args: argparse.Namespace) -> list[str]:
    """The audit-only options given on the command line (an error without --audit)."""
    out = []
    for name in AUDIT_OPTIONS:
        v = getattr(args, name, None)
        if v is not None and v is not False:
            out.append("--" + name.replace("_", "-"))
    return out


def _n(x) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    return "∞" if math.isinf(x) else f"{x:.4g}"


def action(report: dict) -> str:
    """One sentence a privacy officer can act on, from the verdict and its numbers."""
    v, form = report.get("verdict"), report.get("form") or {}
    lower, claimed = form.get("lower"), form.get("claimed")
    what = form.get("parameter", "the bound")
    if v == "refuted":
        return (
            f"Do not rely on this guarantee: the attack alone proves more leakage than it allows "
            f"({what}: at least {_n(lower)} against {_n(claimed)} claimed); find the error in "
            "training or accounting, or state a weaker guarantee."
        )
    if v == "consistent":
        return (
            f"No contradiction found: the attack stays within the guarantee ({what}: at least "
            f"{_n(lower)}, {_n(claimed)} claimed); this does not prove the guarantee, and a "
            "stronger attack or more canaries could still refute it."
        )
    if v == "uninformative":
        need = report.get("canaries_needed")
        more = (
            f"about {need:,} canaries (or a stronger attack per canary) are needed"
            if need is not None
            else "no affordable design could, so check the guarantee another way"
        )
        return (
            "This audit cannot check the guarantee: no outcome of this many canaries could refute "
            f"it; {more}."
        )
    return "No claim was tested."


def card_epsilon(card, report: dict) -> float | None:
    """The guarantee's ε at the audit's δ, when the card states it at that δ (for the side by
    side); None otherwise."""
    try:
        s = card.setting("epsilon")
    except KeyError:
        return None
    return s.value if report["delta"] > 0 or "δ" not in s.text else None


def rebuild(report: dict):
    """A builder of the audit's section from the saved audit ``report`` (the JSON dict
    ``privrisk explain --audit --json`` writes beside the card), for
    :func:`privrisk.explain.validate.load`: the section is made again from the report, as the
    command made it; the report's own numbers cannot be recomputed without the attack results."""
    if not isinstance(report, dict):
        raise TypeError(f"the saved audit must be a JSON object, got {type(report).__name__}")

    def build(inputs: dict, saved: dict, card) -> Section:
        return section(report, card_epsilon=card_epsilon(card, report))

    return build


def section(report: dict, *, card_epsilon: float | None = None) -> Section:
    """The audit as a section of the card: lower bounds beside the guarantee's own numbers."""
    src = (report.get("inputs") or {}).get("file") or "columns"
    conf = report["confidence"]
    kind = report["kind"]
    size = (
        f"{report['n_targets']:,} targets"
        if kind == "reconstruction"
        else f"{report['n_members']:,} members, {report['n_nonmembers']:,} non-members"
    )
    source = f"privrisk audit of {src} ({kind}, {size}; confidence {conf:g})"
    attacker = "your own attack's results: a lower bound any correct guarantee must be above"
    adjacency = (report.get("claim") or "").rsplit("[", 1)[-1].rstrip("]") or "as audited"
    rows = []
    verdict = report.get("verdict")
    if verdict is not None:
        rows.append(
            Row(
                key=f"{KEY}.verdict",
                group=KEY,
                label="Verdict on this guarantee",
                value=report.get("p_value"),
                text=f"{verdict.upper()} (p = {report['p_value']:.3g}). {action(report)}",
                source=source,
                attacker=attacker,
                adjacency=adjacency,
                note=report.get("verdict_note", ""),
                function="privrisk.audit.audit",
            )
        )
    delta = report["delta"]
    beside = "" if card_epsilon is None else f" (the guarantee: at most {_n(card_epsilon)})"
    rows.append(
        Row(
            key=f"{KEY}.epsilon_lower",
            group=KEY,
            label=f"ε̂: lower bound on ε at δ = {delta:g}",
            value=report["epsilon_lower"] if not isinstance(report["epsilon_lower"], str) else None,
            text=f"at least {_n(report['epsilon_lower'])}{beside}",
            source=source,
            attacker=attacker,
            adjacency=adjacency,
            function="privrisk.audit.audit",
        )
    )
    if report.get("mu_lower") is not None:
        rows.append(
            Row(
                key=f"{KEY}.mu_lower",
                group=KEY,
                label="μ̂: lower bound on μ (μ-GDP)",
                value=report["mu_lower"],
                text=f"at least {_n(report['mu_lower'])}",
                source=source,
                attacker=attacker,
                adjacency=adjacency,
                function="privrisk.audit.audit",
            )
        )
    form = report.get("form")
    if form is not None and form.get("name") not in ("epsilon", "mu"):
        rows.append(
            Row(
                key=f"{KEY}.form",
                group=KEY,
                label=f"In the guarantee's own form: {form['parameter']}",
                value=form["lower"] if not isinstance(form["lower"], str) else None,
                text=f"at least {_n(form['lower'])} (claimed {_n(form['claimed'])})",
                source=source,
                attacker=attacker,
                adjacency=adjacency,
                function="privrisk.audit.audit",
            )
        )
    notes = tuple(report.get("assumptions") or ())
    return Section(
        key=KEY,
        title="Your attack, measured: lower bounds beside the card's upper bounds",
        rows=tuple(rows),
        notes=notes,
    )


def curve_svg(report: dict, width: int = 420, height: int = 220) -> str:
    """The ε̂(δ) curve of the report as a small inline SVG (log δ; δ = 0 drawn at the left)."""
    curve = report.get("epsilon_curve") or {}
    ds, es = curve.get("delta") or [], curve.get("epsilon_lower") or []
    pts = [(d, e) for d, e in zip(ds, es, strict=True) if d > 0 and not isinstance(e, str)]
    if len(pts) < 2:
        return ""
    lx = [math.log10(d) for d, _ in pts]
    top = max(max(e for _, e in pts), 1e-9)
    x0, x1 = min(lx), max(lx)
    pad = 36

    def xy(d, e):
        x = pad + (math.log10(d) - x0) / (x1 - x0) * (width - 2 * pad)
        y = height - pad - e / (top * 1.1) * (height - 2 * pad)
        return f"{x:.1f},{y:.1f}"

    line = " ".join(xy(d, e) for d, e in pts)
    ticks = "".join(
        f'<text x="{xy(d, 0).split(",")[0]}" y="{height - pad + 14}" font-size="10" '
        f'text-anchor="middle">1e{round(math.log10(d))}</text>'
        for d, _ in pts[:: max(1, len(pts) // 5)]
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'role="img" aria-label="audit lower bound on epsilon against delta">'
        f'<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{line}"/>'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        'stroke="#888"/>'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#888"/>'
        f"{ticks}"
        f'<text x="{width / 2}" y="{height - 4}" font-size="11" text-anchor="middle">δ</text>'
        f'<text x="6" y="{pad - 8}" font-size="11">ε̂(δ), max {html.escape(_n(top))}</text>'
        "</svg>"
    )
