"""The atlas as a text table, JSON, Markdown and a self-contained HTML page."""

from __future__ import annotations

import html
import json

import privrisk.explain.atlas.conversions as conversions

from .cards import PRIOR, RECONSTRUCTION_PRIOR, Headline
from .lint import Lint
from .schema import Atlas

COLUMNS = ("key", "organisation", "year", "published", "unit", "scope", "adv", "post", "recon")


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.3f}" if x < 0.9995 else f"1−{1 - x:.0e}" if x < 1 else "1"


def header(prior: float, recon_prior: float) -> tuple[str, ...]:
    return (
        "deployment",
        "organisation",
        "year",
        "published parameters",
        "unit",
        "period",
        "membership advantage",
        f"posterior (prior {prior:g})",
        f"reconstruction (prior {recon_prior:g})",
    )


def _cells(h: Headline) -> tuple[str, ...]:
    e = h.entry
    return (
        h.key,
        e.organisation,
        str(e.year),
        h.printed if not h.note or h.has_numbers else f"{h.printed} ({h.note})",
        h.unit,
        h.scope,
        _num(h.membership_advantage),
        _num(h.posterior),
        _num(h.reconstruction),
    )


def text(rows: list[Headline], *, prior=PRIOR, recon_prior=RECONSTRUCTION_PRIOR) -> str:
    """A fixed-width table: one line per row, the published text cut to fit."""
    head = header(prior, recon_prior)
    keep = (0, 4, 5, 6, 7, 8)  # the terminal table: key, unit, period and the three numbers
    table = [[head[i] for i in keep]] + [[_cells(h)[i] for i in keep] for h in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(keep))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = [f"  {h.key}: {h.note}" for h in rows if h.note and not h.has_numbers]
    foot = [
        "",
        "Upper bounds against the strongest attacker, per unit and period as printed; "
        "`privrisk atlas --json` has each entry's source, parameters and assumptions.",
    ]
    return "\n".join(lines + ([""] + notes if notes else []) + foot) + "\n"


def markdown(rows: list[Headline], *, prior=PRIOR, recon_prior=RECONSTRUCTION_PRIOR) -> str:
    head = header(prior, recon_prior)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for h in rows:
        cells = [c.replace("|", "\\|") for c in _cells(h)]
        cells[0] = f"`{cells[0]}`"
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def to_dict(atlas: Atlas, rows: list[Headline], lints: list[Lint], *, prior, recon_prior) -> dict:
    by_key: dict[str, list[Headline]] = {}
    for h in rows:
        by_key.setdefault(h.entry.key, []).append(h)
    entries = []
    for e in atlas.entries:
        if e.key not in by_key:
            continue
        entries.append(
            {
                "key": e.key,
                "name": e.name,
                "organisation": e.organisation,
                "year": e.year,
                "variant": e.variant,
                "unit": e.unit,
                "unit_as_printed": e.unit_as_printed,
                "adjacency": e.adjacency,
                "period": e.period,
                "horizon": None
                if e.horizon is None
                else {"periods": e.horizon.periods, "text": e.horizon.text},
                "model": e.model,
                "mechanism": e.mechanism,
                "parameters": [
                    {k: v for k, v in vars(p).items() if v not in (None, "")} for p in e.parameters
                ],
                "not_published": e.not_published or None,
                "source": {
                    "registry": None
                    if e.registry is None
                    else {
                        "repository": atlas.repository,
                        "commit": atlas.commit,
                        "path": e.registry,
                        "licence": atlas.licence,
                    },  # fmt: skip
                    "urls": list(e.urls),
                },
                "cards": [
                    {
                        "key": h.key,
                        "unit": h.unit,
                        "scope": h.scope,
                        "guarantee": h.printed,
                        "membership_advantage": h.membership_advantage,
                        "posterior": h.posterior,
                        "reconstruction": h.reconstruction,
                        "note": h.note or None,
                        "assumptions": list(h.assumptions),
                    }
                    for h in by_key[e.key]
                ],
                "conversions": [
                    {
                        "label": f.label,
                        "published": f.published,
                        "reproduced_by": list(f.reproduced_by),
                        "verdict": f.verdict,
                        "checks": [vars(c) for c in f.checks],
                    }
                    for f in conversions.findings(e)
                ],
                "lint": [{"kind": x.kind, "text": x.text} for x in lints if x.key == e.key],
            }
        )
    return {
        "schema": "privrisk.atlas.cards",
        "prior": prior,
        "reconstruction_prior": recon_prior,
        "numbers": {
            "membership_advantage": "TPR − FPR of any membership test (trade-off curve, tight)",
            "posterior": f"one guess of a secret with prior success {prior:g} is right at most",
            "reconstruction": f"one guess of a secret with prior success {recon_prior:g} "
            "is right at most",
        },
        "entries": entries,
    }


def to_json(*args, **kw) -> str:
    return json.dumps(to_dict(*args, **kw), ensure_ascii=False, indent=2) + "\n"


_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:12px;color:#222}
h1{font-size:1.4em}.wrap{overflow-x:auto}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{position:sticky;top:0;background:#f6f6f6}
@media (max-width:600px){body{font-size:13px}th,td{padding:3px}.hide{display:none}}
"""


def page(rows: list[Headline], lints: list[Lint], *, prior, recon_prior) -> str:
    """A self-contained page (no script, no network): the table and the lint list."""
    head = header(prior, recon_prior)
    hide = {1, 2, 3}  # organisation, year, published: dropped on a phone
    th = "".join(
        f"<th{' class=hide' if i in hide else ''}>{html.escape(c)}</th>" for i, c in enumerate(head)
    )
    body = []
    for h in rows:
        cells = _cells(h)
        tds = "".join(
            f"<td{' class=n' if i >= 6 else ' class=hide' if i in hide else ''}>"
            f"{html.escape(c)}</td>"
            for i, c in enumerate(cells)
        )
        body.append(f"<tr>{tds}</tr>")
    lint_items = "".join(
        f"<li><code>{html.escape(x.key)}</code>: {html.escape(x.text)}</li>" for x in lints
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>privrisk risk atlas</title><style>{_CSS}</style></head><body>"
        "<h1>The risk atlas: published DP deployments as risk cards</h1>"
        "<p>Upper bounds against the strongest attacker, per unit and period as published.</p>"
        f"<div class=wrap><table><thead><tr>{th}</tr></thead><tbody>{''.join(body)}"
        "</tbody></table></div>"
        f"<h2>What is inconsistent in what was published</h2><ul>{lint_items}</ul>"
        "</body></html>\n"
    )
