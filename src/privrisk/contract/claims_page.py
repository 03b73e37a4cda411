"""``results/claims.html``: the claims ledger as one page people can scan.

A status colour on every row with a legend saying what each status means, columns that sort when
their header is clicked, filters by paper, figure and status plus a text search, long notes
folded, and each row's figure linked (its ``.png``, or the ``.md`` of a table). Self-contained:
inline CSS and a few lines of JavaScript, no network, no library; without JavaScript it is still a
complete coloured table. The Snakemake report shows the same page as its "Claims ledger" entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path

import pandas as pd

from ..core import safe_io

#: status -> (background colour, what it means); design.md §3
STATUSES: Mapping[str, tuple[str, str]] = {
    "reproduced": ("#c8e6c9", "the paper's number, ours within tolerance plus our sampling error"),
    "differs": ("#ffcdd2", "outside the tolerance; the note says why"),
    "qualitative-ok": ("#dcedc8", "a statement the paper makes holds on our computed curve"),
    "qualitative-fails": ("#ffe0b2", "a statement the paper makes fails on our computed curve"),
    "uninformative": ("#e0e0e0", "the experiment cannot decide; the note says what would"),
    "standin": ("#bbdefb", "tied to the paper's own data, which we do not have"),
    "derived": ("#e1bee7", "derived by the spec or by us, not quoted by the paper"),
}
OTHER = "#ffffff"
#: columns shown, in order (a ledger's other columns follow)
FIRST = ("status", "paper", "figure", "claim_id", "claim", "paper_value", "ours", "tolerance")
#: notes longer than this are folded behind their first words
FOLD = 140

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.2em;color:#222}
h1{font-size:1.4em;margin:0 0 .3em}
.legend span,.st{display:inline-block;padding:1px 6px;border-radius:3px;border:1px solid #0002}
.legend{margin:.4em 0 .8em;line-height:2}
.legend span{margin-right:.3em}
.filters{position:sticky;top:0;background:#fff;padding:.4em 0;z-index:2;border-bottom:1px solid #ddd}
.filters label{margin-right:1em}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{cursor:pointer;background:#f5f5f5;position:sticky;top:2.6em;white-space:nowrap}
th.asc::after{content:" \\25B2"}th.desc::after{content:" \\25BC"}
td.claim{min-width:18em;max-width:34em}td.note{min-width:16em;max-width:40em}
td.num{white-space:nowrap;font-variant-numeric:tabular-nums}td.evidence{min-width:12em;max-width:24em}
details summary{cursor:pointer}
#shown{color:#555;margin-left:1em}
"""

JS = """
const rows=[...document.querySelectorAll('#ledger tbody tr')];
const sel=id=>document.getElementById(id);
function apply(){
  const p=sel('f-paper').value,f=sel('f-figure').value,s=sel('f-status').value,
        q=sel('f-text').value.toLowerCase();
  let n=0;
  for(const r of rows){
    const ok=(!p||r.dataset.paper===p)&&(!f||r.dataset.figure===f)&&(!s||r.dataset.status===s)
      &&(!q||r.textContent.toLowerCase().includes(q));
    r.hidden=!ok;n+=ok;
  }
  sel('shown').textContent=n+' of '+rows.length+' shown';
}
for(const id of ['f-paper','f-figure','f-status','f-text'])sel(id).addEventListener('input',apply);
document.querySelectorAll('#ledger th').forEach((th,i)=>th.addEventListener('click',()=>{
  const asc=!th.classList.contains('asc');
  document.querySelectorAll('#ledger th').forEach(h=>h.classList.remove('asc','desc'));
  th.classList.add(asc?'asc':'desc');
  const key=r=>r.children[i].dataset.sort??r.children[i].textContent.trim();
  const num=v=>v!==''&&!isNaN(v);
  rows.sort((a,b)=>{const x=key(a),y=key(b);
    const c=num(x)&&num(y)?x-y:x.localeCompare(y,undefined,{numeric:true});
    return asc?c:-c;});
  const body=document.querySelector('#ledger tbody');rows.forEach(r=>body.appendChild(r));
}));
apply();
"""


def figure_link(paper: str, figure: str, results: Path) -> str | None:
    """The figure's file relative to ``results/`` (where the page lives), or None if none is there."""
    for ext in (".png", ".md", ".csv"):
        rel = f"{paper}/{figure}{ext}"
        if (results / rel).is_file():
            return rel
    return None


def _cell(col: str, value: str, row: Mapping[str, str], results: Path) -> str:
    text = escape(value)
    if col == "status":
        colour = STATUSES.get(value, (OTHER, ""))[0]
        return f'<td><span class="st" style="background:{colour}">{text}</span></td>'
    if col == "figure":
        link = figure_link(row.get("paper", ""), value, results)
        return f'<td><a href="{escape(link)}">{text}</a></td>' if link else f"<td>{text}</td>"
    if col in ("note", "claim") and len(value) > FOLD:
        cut = value[:FOLD].rsplit(" ", 1)[0]
        return f'<td class="{col}"><details><summary>{escape(cut)} …</summary>{text}</details></td>'
    if col in ("paper_value", "ours", "tolerance"):  # a number on one line; evidence text wraps
        return f'<td class="{"num" if len(value) <= 24 else "evidence"}">{text}</td>'
    return f'<td class="{col}">{text}</td>' if col in ("claim", "note") else f"<td>{text}</td>"


def _options(values, label: str, ident: str) -> str:
    opts = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return (
        f'<label>{label} <select id="{ident}"><option value="">all</option>{opts}</select></label>'
    )


def render(df: pd.DataFrame, results: str | Path = "results") -> str:
    """The page for a ledger (as :func:`privrisk.contract.claims.gather` returns it); ``results`` is the
    folder the page is written to, where its figure links point."""
    results = Path(results)
    df = df.fillna("").astype(str)
    cols = [c for c in FIRST if c in df.columns] + [c for c in df.columns if c not in FIRST]
    counts = df["status"].value_counts() if "status" in df else pd.Series(dtype=int)
    legend = "".join(
        f'<span style="background:{colour}" title="{escape(meaning)}">{escape(status)}: '
        f"{int(counts.get(status, 0))}</span>"
        for status, (colour, meaning) in STATUSES.items()
    )
    meanings = "".join(
        f"<li><b>{escape(s)}</b>: {escape(m)}</li>" for s, (_, m) in STATUSES.items()
    )
    body = []
    for row in df.to_dict("records"):
        data = " ".join(
            f'data-{k}="{escape(row.get(k, ""))}"' for k in ("paper", "figure", "status")
        )
        cells = "".join(_cell(c, row[c], row, results) for c in cols)
        body.append(f"<tr {data}>{cells}</tr>")
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    filters = (
        _options(sorted(df.get("paper", pd.Series(dtype=str)).unique()), "paper", "f-paper")
        + _options(sorted(df.get("figure", pd.Series(dtype=str)).unique()), "figure", "f-figure")
        + _options(
            [s for s in STATUSES if s in set(counts.index)]
            + sorted(set(counts.index) - set(STATUSES)),
            "status",
            "f-status",
        )
        + '<label>text <input id="f-text" type="search" placeholder="any word"></label>'
        + '<span id="shown"></span>'
    )
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>Claims ledger</title><style>{CSS}</style></head><body>\n"
        f"<h1>Claims ledger</h1><p>{len(df)} claims. Click a column to sort it; "
        "pick a paper, figure or status to filter; the figure column links each row to its "
        "figure.</p>\n"
        f'<div class="legend">{legend}</div>'
        f"<details><summary>What each status means</summary><ul>{meanings}</ul></details>\n"
        f'<div class="filters">{filters}</div>\n'
        f'<table id="ledger"><thead><tr>{head}</tr></thead><tbody>\n'
        + "\n".join(body)
        + f"\n</tbody></table>\n<script>{JS}</script></body></html>\n"
    )


def write(df: pd.DataFrame, path: str | Path) -> Path:
    """Write the page for ``df`` to ``path`` (its figure links relative to ``path``'s folder)."""
    path = Path(path)  # atomic, never over a device or a pipe, no .part left on a failure
    return safe_io.write_output(path, render(df, path.parent), what="claims page")
