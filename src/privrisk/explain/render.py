"""The card as a terminal table, as JSON, and as one self-contained HTML page.

The HTML page embeds its figures (curves of each bound against ε with a marker at the card's ε,
drawn by :mod:`.curves` in the project's plotting style) as base64 PNG, so it is one file with no
external references. matplotlib is imported only for the HTML page.
"""

from __future__ import annotations

import base64
import html
import io
import os
import textwrap
from pathlib import Path

from .card import RiskCard, Row

TITLES = {
    "membership": "Membership inference",
    "attribute": "Attribute inference",
    "reconstruction": "Reconstruction with a prior",
    "reverse": "The reverse question",
}
WIDTH = 100


def text(card: RiskCard, width: int = WIDTH) -> str:
    """The card as plain text for a terminal."""
    out = ["What does this guarantee mean against real attackers?  (upper bounds: no attacker of"]
    out.append("each kind below can do better, whatever it tries)")
    out.append("")
    lw = max(len(s.label) for s in card.settings)
    for s in card.settings:
        lines = textwrap.wrap(s.text, width - lw - 4) or [""]
        out.append(f"  {s.label.ljust(lw)}  {lines[0]}")
        out += [f"  {'':{lw}}  {line}" for line in lines[1:]]
    if card.headline:
        out += ["", "THE THREE NUMBERS TO QUOTE"]
        for i, h in enumerate(card.headline, start=1):
            out += textwrap.wrap(
                f"{h.phrase} {h.text}  [{h.key}]",
                width,
                initial_indent=f"  {i}. ",
                subsequent_indent="     ",
            )
    for group in TITLES:
        rows = [r for r in card.rows if r.group == group]
        if not rows:
            continue
        out += ["", TITLES[group].upper()]
        for r in rows:
            out += _row_lines(r, width)
    for sec in card.sections:
        out += ["", sec.title.upper()]
        for r in sec.rows:
            out += _row_lines(r, width)
        for note in sec.notes:
            out += textwrap.wrap(
                note, width, initial_indent="  note: ", subsequent_indent="        "
            )
    for note in card.notes:
        out.append("")
        out += textwrap.wrap(note, width, initial_indent="Note: ", subsequent_indent="      ")
    return "\n".join(out) + "\n"


def _row_lines(r: Row, width: int) -> list[str]:
    head = f"  {r.label} "
    value = f" {r.text}"
    dots = max(2, width - len(head) - len(value))
    if len(head) + len(value) + 2 > width:
        lines = [head.rstrip(), f"{'':6}{r.text}"]
    else:
        lines = [head + "." * dots + value]
    lines.append(f"      {r.source} [{r.adjacency}]")
    lines += textwrap.wrap(r.attacker, width, initial_indent=" " * 6, subsequent_indent=" " * 6)
    if r.note:
        lines += textwrap.wrap(
            r.note, width, initial_indent="      note: ", subsequent_indent=" " * 12
        )
    return lines


def to_json(card: RiskCard) -> str:
    return card.to_json() + "\n"


# --- HTML -----------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; color: #0072B2; }
table { border-collapse: collapse; width: 100%; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.35em 0.5em; text-align: left;
         vertical-align: top; font-size: 0.92em; }
th { background: #f2f5f8; }
td.value { font-weight: 600; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.na { color: #888; }
.note { color: #555; font-size: 0.88em; }
.settings td:first-child { white-space: nowrap; color: #555; }
img { max-width: 100%; }
"""


def html_page(card: RiskCard, figure_png: bytes | None = None) -> str:
    """One self-contained page: settings, one table per group, notes, the curves."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>privrisk explain: what does my ε mean?</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>What does my ε mean? A risk card</h1>",
        '<p class="note">Every number is an upper bound from one of five papers: no attacker of '
        "that kind can do better, whatever it tries. Computed by <code>privrisk explain</code>."
        "</p>",
        '<table class="settings">',
    ]
    parts += [f"<tr><td>{e(s.label)}</td><td>{e(s.text)}</td></tr>" for s in card.settings]
    parts.append("</table>")
    for group, title in TITLES.items():
        rows = [r for r in card.rows if r.group == group]
        if not rows:
            continue
        parts += [
            f"<h2>{e(title)}</h2>",
            "<table><tr><th>bound</th><th>value</th><th>source</th>"
            "<th>who the attacker is and what it knows</th></tr>",
        ]
        for r in rows:
            note = f'<div class="note">{e(r.note)}</div>' if r.note else ""
            cls = "value" if r.applies else "value na"
            parts.append(
                f'<tr id="{e(r.key)}"><td>{e(r.label)}</td><td class="{cls}">{e(r.text)}</td>'
                f'<td>{e(r.source)}<br><span class="note">{e(r.adjacency)}</span></td>'
                f"<td>{e(r.attacker)}{note}</td></tr>"
            )
        parts.append("</table>")
    if card.notes:
        parts.append("<h2>Why the numbers differ</h2>")
        parts += [f"<p>{e(n)}</p>" for n in card.notes]
    if figure_png is not None:
        b64 = base64.b64encode(figure_png).decode("ascii")
        parts += [
            "<h2>Each bound against ε</h2>",
            f'<img alt="bounds against epsilon" src="data:image/png;base64,{b64}">',
            '<p class="note">Curves: the bounds as functions of ε (at this card\'s δ and '
            "adjacency); markers: this card's values. Where the card reads the whole privacy "
            "profile (μ-GDP, DP-SGD), its markers sit below the curves of a single (ε, δ).</p>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def write_atomic(path: str | os.PathLike, content: str) -> None:
    """Write the whole file or nothing (a temporary file in the same folder, then a rename)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(content, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
