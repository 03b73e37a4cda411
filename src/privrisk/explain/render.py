"""The card as a terminal table, as JSON, and as one self-contained HTML page.

The HTML page is the risk explorer: the headline, interactive curves (plotly.js, embedded so the
page opens from disk with no network) over grids that :mod:`.explorer` computed in Python, and the
full table. plotly is imported only for the HTML page.
"""

from __future__ import annotations

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
    if card.reading:
        out += ["", "IN PLAIN WORDS"]
        out += textwrap.wrap(card.reading, width, initial_indent="  ", subsequent_indent="  ")
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
    lines += textwrap.wrap(
        f"{r.source} [{r.adjacency}]", width, initial_indent=" " * 6, subsequent_indent=" " * 8
    )
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
.headline { background: #f2f5f8; border-left: 4px solid #0072B2; padding: 0.3em 1em; }
.headline .quote { font-size: 1.15em; }
.plot { width: 100%; min-height: 460px; }
"""


#: short legend names of the explorer's series
LEGEND = {
    "membership.tpr_at_fpr_0.01": "membership TPR at 1 % FPR",
    "membership.advantage_fdp": "membership TPR − FPR (tight)",
    "membership.positive_accuracy": "membership positive accuracy",
    "reconstruction.beta": "one guess right, β (Swanberg)",
    "reconstruction.baseline_fdp": "one guess right, 1 − f(κ) (Kulynych)",
    "attribute.precise": "attribute within ±1 unit, advantage",
}
#: line styles that keep overlapping series apart
_DASH = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")


def _headline_html(card: RiskCard) -> list[str]:
    e = html.escape
    if not card.headline:
        return []
    items = "".join(
        f'<li data-key="{e(h.key)}"><span class="phrase">{e(h.phrase)}</span> '
        f'<b class="quote">{e(h.text)}</b></li>'
        for h in card.headline
    )
    return ['<div class="headline"><h2>The three numbers to quote</h2>', f"<ol>{items}</ol></div>"]


def _explorer_html(data: dict) -> list[str]:
    """Two plots, two sliders and their readouts; the data is embedded as JSON."""
    import json

    e = html.escape
    parts = ["<h2>Explore: each risk against your knob and against the prior</h2>"]
    if "knob" in data:
        k = data["knob"]
        n = len(k["x"])
        rows = "".join(
            f"<tr><td>{e(data['labels'].get(key, key))}</td>"
            f'<td class="value" data-key="{e(key)}">{e(k["text"][key][k["user"]])}</td></tr>'
            for key in k["values"]
        )
        parts += [
            '<div id="knob-plot" class="plot"></div>',
            f'<label for="knob-slider">{e(k["symbol"])} = <b id="knob-value">'
            f"{k['xtext'][k['user']]}</b></label>",
            f'<input id="knob-slider" type="range" min="0" max="{n - 1}" step="1" '
            f'value="{k["user"]}" style="width:100%">',
            f'<table id="knob-readout">{rows}</table>',
        ]
    p = data["prior"]
    rows = "".join(
        f"<tr><td>{e(data['labels'].get(key, key))}</td>"
        f'<td class="value" data-key="{e(key)}">{e(p["text"][key][p["user"]])}</td></tr>'
        for key in p["values"]
    )
    parts += [
        '<div id="prior-plot" class="plot"></div>',
        f'<label for="prior-slider">prior success of one guess = <b id="prior-value">'
        f"{p['xtext'][p['user']]}</b></label>",
        f'<input id="prior-slider" type="range" min="0" max="{len(p["x"]) - 1}" step="1" '
        f'value="{p["user"]}" style="width:100%">',
        f'<table id="prior-readout">{rows}</table>',
        '<p class="note">Every value on this page was computed in Python by the card\'s own row '
        "functions at the grid points; the sliders only look them up. The dashed grey line is "
        "your own setting, the dotted one what the attacker gets from its prior alone.</p>",
        f"<script>const EXPLORER = {json.dumps(data, ensure_ascii=False)};</script>",
        f"<script>const LEGEND = {json.dumps(LEGEND)}; const DASH = {json.dumps(_DASH)}; "
        f"const COLOURS = {json.dumps(_COLOURS)};</script>",
        f"<script>{_JS}</script>",
    ]
    return parts


_JS = """
function traces(block, keys) {
  return keys.map((key, i) => ({
    x: block.x, y: block.values[key], name: LEGEND[key] || key, mode: 'lines+markers',
    line: {dash: DASH[i % DASH.length], color: COLOURS[i % COLOURS.length], width: 2.5},
    marker: {size: 5, symbol: ['circle','square','diamond','triangle-up','x','cross'][i % 6]},
    connectgaps: false,
  }));
}
function shapes(x, xuser, yprior) {
  const out = [
    {type: 'line', xref: 'x', yref: 'paper', x0: xuser, x1: xuser, y0: 0, y1: 1,
     line: {color: '#888', dash: 'dash', width: 1.5}},
    {type: 'line', xref: 'x', yref: 'paper', x0: x, x1: x, y0: 0, y1: 1,
     line: {color: '#222', width: 1}},
  ];
  return out;
}
function layout(title, xtitle, xtype, x, xuser) {
  return {title: {text: title}, xaxis: {title: {text: xtitle}, type: xtype},
          yaxis: {title: {text: 'upper bound'}, range: [-0.02, 1.02]},
          legend: {orientation: 'h', y: -0.25}, margin: {t: 40, r: 10},
          shapes: shapes(x, xuser), height: 460};
}
function setup(id, block, title, xtitle, xtype, priorLine) {
  const keys = Object.keys(block.values);
  const data = traces(block, keys);
  if (priorLine) data.push(priorLine);
  const xu = block.x[block.user];
  Plotly.newPlot(id + '-plot', data, layout(title, xtitle, xtype, xu, xu),
                 {displaylogo: false, responsive: true, staticPlot: false});
  const slider = document.getElementById(id + '-slider');
  slider.addEventListener('input', () => {
    const i = Number(slider.value);
    document.getElementById(id + '-value').textContent = block.xtext[i];
    for (const key of keys) {
      document.querySelector('#' + id + '-readout [data-key="' + key + '"]').textContent =
        block.text[key][i];
    }
    Plotly.relayout(id + '-plot', {shapes: shapes(block.x[i], xu)});
  });
}
if (EXPLORER.knob) {
  const k = EXPLORER.knob;
  const line = EXPLORER.prior_alone === null ? null : {
    x: [k.x[0], k.x[k.x.length - 1]], y: [EXPLORER.prior_alone, EXPLORER.prior_alone],
    name: 'prior alone (one guess)', mode: 'lines', line: {color: '#999', dash: 'dot'}};
  setup('knob', k, 'each risk against ' + k.symbol, k.symbol, k.scale === 'log' ? 'log' : 'linear', line);
}
{
  const p = EXPLORER.prior;
  const line = {x: [p.x[0], 1], y: [p.x[0], 1], name: 'prior alone', mode: 'lines',
                line: {color: '#999', dash: 'dot'}};
  setup('prior', p, 'one-guess risks against the prior, at your guarantee',
        "the attacker's prior success", 'log', line);
}
"""


def html_page(card: RiskCard, explorer: dict | None = None, plotly_js: str | None = None) -> str:
    """One self-contained page: the headline, the explorer (plotly.js embedded), the settings,
    one table per group, notes. No external reference: it opens from disk with no network."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>privrisk explain: what does my ε mean?</title>",
        f"<style>{_CSS}</style>",
    ]
    if plotly_js is not None:
        parts.append(f"<script>{plotly_js}</script>")
    parts += [
        "</head><body>",
        "<h1>What does my ε mean? A risk card</h1>",
        '<p class="note">Every number is an upper bound from one of five papers: no attacker of '
        "that kind can do better, whatever it tries. Computed by <code>privrisk explain</code>."
        "</p>",
        f"<p><b>{e(card.guarantee)}</b></p>",
    ]
    parts += _headline_html(card)
    if explorer is not None:
        parts += _explorer_html(explorer)
    parts += ["<h2>The setting</h2>", '<table class="settings">']
    parts += [f"<tr><td>{e(s.label)}</td><td>{e(s.text)}</td></tr>" for s in card.settings]
    parts.append("</table>")
    groups = [(g, t, [r for r in card.rows if r.group == g]) for g, t in TITLES.items()]
    groups += [(s.key, s.title, list(s.rows)) for s in card.sections]
    for _group, title, rows in groups:
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
