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
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto;
       max-width: 1100px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; color: #0072B2; }
h3 { font-size: 1.05em; margin: 0.2em 0; }
table { border-collapse: collapse; width: 100%; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.35em 0.5em; text-align: left;
         vertical-align: top; font-size: 0.92em; overflow-wrap: anywhere; }
th { background: #f2f5f8; }
td.value { font-weight: 600; font-variant-numeric: tabular-nums; }
td.na { color: #888; }
.note { color: #555; font-size: 0.88em; }
.settings td:first-child { color: #555; }
.reading { background: #fff7e6; border-left: 4px solid #E69F00; padding: 0.5em 1em;
           font-size: 1.05em; }
.headline { background: #f2f5f8; border-left: 4px solid #0072B2; padding: 0.3em 1em; }
.headline .quote { font-size: 1.1em; }
.panel { border: 1px solid #dde3ea; border-radius: 6px; padding: 0.6em 0.9em; margin: 1em 0; }
.controls { display: flex; flex-wrap: wrap; align-items: center; gap: 0.6em; margin: 0.4em 0; }
.controls input[type=range] { flex: 1 1 240px; min-width: 0; }
.controls output { font-weight: 600; min-width: 6em; font-variant-numeric: tabular-nums; }
.reading-at { background: #fffbf2; padding: 0.4em 0.7em; border-radius: 4px; }
code.command { display: block; white-space: pre-wrap; overflow-wrap: anywhere;
               background: #f6f6f6; padding: 0.3em 0.5em; font-size: 0.85em; }
.plot { width: 100%; height: 420px; }
pre.card-text { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.8em; }
@media (max-width: 640px) {
  body { margin: 0.5em auto; font-size: 15px; }
  .plot { height: 560px; }
  table.card, table.card tbody, table.card tr, table.card td { display: block; width: auto; }
  table.card th { display: none; }
  table.card tr { border-bottom: 2px solid #ccc; padding: 0.3em 0; }
  table.card td { border: none; padding: 0.15em 0.3em; }
}
"""


#: short legend names of the explorer's series
LEGEND = {
    "membership.tpr_at_fpr_0.01": "membership TPR at 1 % FPR",
    "membership.advantage_fdp": "membership TPR − FPR (tight)",
    "membership.positive_accuracy": "membership positive accuracy",
    "membership.mace": "membership Adv_p (Mace)",
    "reconstruction.beta": "one guess right, β (Swanberg)",
    "reconstruction.baseline_fdp": "one guess right, 1 − f(κ) (Kulynych)",
    "reconstruction.advantage": "reconstruction advantage",
    "reconstruction.quantiles": "targets reconstructed, 95 % bound (fraction)",
    "attribute.precise": "attribute within ±1 unit, advantage",
}
#: line styles that keep overlapping series apart
_DASH = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot", "solid")
_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


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


def _panel_html(p: dict) -> list[str]:
    """One knob's panel, rendered at the user's setting (what a reader without JavaScript sees);
    the page's script moves it."""
    e = html.escape
    name, i = p["name"], p["user"]
    dpsgd_note = f'<p class="note">{e(p["note"])}</p>' if p["note"] else ""
    rows = "".join(
        f"<tr><td>{e(p['labels'][k])}</td>"
        f'<td class="value" data-key="{e(k)}">{e(p["text"][k][i])}</td>'
        f'<td class="value card-value">{e(p["card"][k])}</td></tr>'
        for k in p["keys"]
    ) + "".join(  # numbers the knob moves that are no probability: in the table, not plotted
        f"<tr><td>{e(p['extra_labels'][k])}</td>"
        f'<td class="value" data-key="{e(k)}">{e(p["extra_text"][k][i])}</td>'
        f'<td class="value card-value">{e(p["extra_card"][k])}</td></tr>'
        for k in p.get("extra", ())
    )
    n = len(p["x"])
    return [
        f'<section class="panel" id="panel-{e(name)}">',
        f'<h3>What if {e(p["symbol"])} changes? <span class="note">(everything else at your '
        "setting)</span></h3>",
        dpsgd_note,
        '<div class="controls js-only">',
        f'<label for="slider-{e(name)}">{e(p["symbol"])} =</label>',
        f'<input id="slider-{e(name)}" type="range" min="0" max="{n - 1}" step="1" value="{i}" '
        f'aria-label="{e(p["symbol"])}">',
        f'<output id="value-{e(name)}" for="slider-{e(name)}">{e(p["xtext"][i])}</output>',
        "</div>",
        f'<p class="reading-at" id="reading-{e(name)}">{e(p["reading"][i])}</p>',
        f'<table class="readout" id="readout-{e(name)}"><tr><th>bound</th>'
        f"<th>at this {e(p['symbol'])}</th><th>the card (your setting)</th></tr>{rows}</table>",
        f'<code class="command" id="command-{e(name)}">{e(p["command"][i])}</code>',
        f'<div id="plot-{e(name)}" class="plot js-only"></div>',
        "</section>",
    ]


def _explorer_html(data: dict, card: RiskCard) -> list[str]:
    """The panels (one slider per knob), the data as JSON, and the script that moves them."""
    import json

    e = html.escape
    parts = [
        "<h2>Explore: what each setting means</h2>",
        '<p class="note">Each panel moves one setting over a fine grid with the others held at '
        "yours, and shows, at every position, the bounds as <code>privrisk explain</code> prints "
        "them, the plain reading, and the command that prints that card. Every value was "
        "computed in Python by the card's own row functions; the page only looks them up. On "
        "each curve the dashed grey line is your setting, the solid one the slider, and the "
        "dotted one what the attacker gets without the release.</p>",
        "<noscript><style>.js-only { display: none; }</style>"
        '<p class="reading"><b>JavaScript is off</b>, so the sliders and curves are hidden: each '
        "panel below shows your own setting, and the whole card follows as text and as tables."
        "</p>"
        f'<pre class="card-text">{e(text(card))}</pre></noscript>',
    ]
    for p in data["panels"]:
        parts += _panel_html(p)
    if data.get("skipped"):
        parts.append(
            '<p class="note">No panel for: '
            + e(", ".join(data["skipped"]))
            + " (every row they move needs a pure ε-DP guarantee).</p>"
        )
    parts += [
        f"<script>const EXPLORER = {json.dumps(data, ensure_ascii=False)};</script>",
        f"<script>const LEGEND = {json.dumps(LEGEND, ensure_ascii=False)}; "
        f"const DASH = {json.dumps(_DASH)}; const COLOURS = {json.dumps(_COLOURS)};</script>",
        f"<script>{_JS}</script>",
    ]
    return parts


_JS = """
function shapes(p, i) {
  const out = [];
  const xu = p.x[p.user], xi = p.x[i];
  if (xu !== null) out.push({type: 'line', xref: 'x', yref: 'paper', x0: xu, x1: xu, y0: 0,
                             y1: 1, line: {color: '#888', dash: 'dash', width: 1.5}});
  if (xi !== null) out.push({type: 'line', xref: 'x', yref: 'paper', x0: xi, x1: xi, y0: 0,
                             y1: 1, line: {color: '#222', width: 1}});
  return out;
}
function narrow() { return window.innerWidth < 640; }
function setup(p) {
  const traces = p.keys.map((key, j) => ({
    x: p.x, y: p.values[key], name: LEGEND[key] || p.labels[key], mode: 'lines',
    line: {dash: DASH[j % DASH.length], color: COLOURS[j % COLOURS.length], width: 2.5},
    connectgaps: false, hovertemplate: '%{y:.4g}<extra>' + (LEGEND[key] || key) + '</extra>'}));
  if (p.baseline.some(v => v !== null)) {
    traces.push({x: p.x, y: p.baseline, name: 'without the release', mode: 'lines',
                 line: {color: '#999', dash: 'dot', width: 1.5}, connectgaps: false});
  }
  const layout = {
    xaxis: {title: {text: p.symbol}, type: p.scale === 'log' ? 'log' : 'linear'},
    yaxis: {title: {text: 'upper bound'}, range: [-0.02, 1.02]},
    legend: {orientation: 'h', y: narrow() ? -0.2 : -0.25, yanchor: 'top',
             font: {size: narrow() ? 10 : 12}},
    margin: {t: 10, r: 10, l: 50, b: narrow() ? 230 : 50}, autosize: true,
    shapes: shapes(p, p.user)};
  Plotly.newPlot('plot-' + p.name, traces, layout, {displaylogo: false, responsive: true});
  const slider = document.getElementById('slider-' + p.name);
  slider.addEventListener('input', () => show(p, Number(slider.value)));
}
function show(p, i) {
  document.getElementById('value-' + p.name).textContent = p.xtext[i];
  document.getElementById('reading-' + p.name).textContent = p.reading[i];
  document.getElementById('command-' + p.name).textContent = p.command[i];
  for (const key of p.keys) {
    document.querySelector('#readout-' + p.name + ' [data-key="' + key + '"]').textContent =
      p.text[key][i];
  }
  for (const key of p.extra || []) {
    document.querySelector('#readout-' + p.name + ' [data-key="' + key + '"]').textContent =
      p.extra_text[key][i];
  }
  Plotly.relayout('plot-' + p.name, {shapes: shapes(p, i)});
}
for (const p of EXPLORER.panels) setup(p);
"""


def html_page(card: RiskCard, explorer: dict | None = None, plotly_js: str | None = None) -> str:
    """One self-contained page: the plain reading, the headline, the explorer (plotly.js
    embedded; a static card for a reader without JavaScript), the settings, one table per group,
    notes. No external reference: it opens from disk with no network, and fits a phone's width."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
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
        f'<p><b id="guarantee">{e(card.guarantee)}</b></p>',
    ]
    if card.reading:
        parts.append(
            f'<p class="reading" id="reading"><b>In plain words:</b> {e(card.reading)}</p>'
        )
    parts += _headline_html(card)
    if explorer is not None:
        parts += _explorer_html(explorer, card)
    parts += ["<h2>The setting</h2>", '<table class="settings card">']
    parts += [f"<tr><td>{e(s.label)}</td><td>{e(s.text)}</td></tr>" for s in card.settings]
    parts.append("</table>")
    groups = [(g, t, [r for r in card.rows if r.group == g]) for g, t in TITLES.items()]
    groups += [(s.key, s.title, list(s.rows)) for s in card.sections]
    for _group, title, rows in groups:
        if not rows:
            continue
        parts += [
            f"<h2>{e(title)}</h2>",
            '<table class="card"><tr><th>bound</th><th>value</th><th>source</th>'
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


def write_atomic(
    path: str | os.PathLike, content: str, *, inputs=(), what: str = "--html", kind="html"
) -> None:
    """Write the whole file or nothing, never over one of the command's ``inputs``, a folder, a
    device or a pipe (:func:`privrisk.core.safe_io.write_output`): any refusal or failure is a
    :class:`~privrisk.core.safe_io.FileRefused` (a ``ValueError``) whose message is one line
    naming the file as ``what``, with the target unchanged and no temporary file left."""
    from privrisk.core.safe_io import FileRefused, write_output

    if str(path).strip() == "":
        raise FileRefused(f"{what}: needs a file name, got an empty one")
    if str(path).endswith(os.sep):
        raise FileRefused(f"{what} {path}: is a directory, not a regular file")
    if kind is not None:  # not over a file of another kind (privrisk.core.file_kinds)
        from privrisk.core.file_kinds import check_output_kind

        check_output_kind(path, kind, what=what)
    write_output(path, content, inputs=inputs, what=what)
