"""The figure contract (design.md §3): what a figure function returns and how it is written.

A paper's figure function computes numbers and returns a :class:`FigureResult`;
:func:`write_outputs` then writes ``<prefix>.pdf/.png`` (or ``.md/.tex`` for tables),
``<prefix>.csv`` (every plotted number, tidy), ``<prefix>.json`` (provenance) and the figure's
claims rows. Files are written to temporary names and renamed at the end, so a failure never
leaves a half-written set of outputs (nor a temporary file) behind.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..core import checksums
from . import plotting, provenance
from .claims import Claim, to_frame

REQUIRED_COLUMNS = ("series", "x", "y")


@dataclass
class FigureResult:
    """What a figure (or table) function returns.

    Attributes:
        data: tidy table of every plotted number, with at least ``series``, ``x``, ``y``.
        caption: one paragraph a reader can understand without the paper.
        fig: the matplotlib figure (None for tables).
        table_md / table_tex: the table's Markdown / LaTeX (tables only).
        claims: claims-ledger rows this figure checks.
        data_sources: dataset name -> ``real`` | ``real-unverified`` | ``bundled-real`` |
            ``standin`` | ``simulated`` | ``analytic`` (:data:`privrisk.contract.provenance.DATA_SOURCES`).
        data_fallbacks: dataset -> why its ``auto`` block fell back to a bundled sample or a
            stand-in, or why its real data is ``real-unverified``
            (:func:`privrisk.data.sources.fallback_reason`), for provenance and the footnote.
        seeds: named seeds used.
        extra: anything else worth recording in provenance (chosen readings, accountant checks).
    """

    data: pd.DataFrame
    caption: str
    fig: Figure | None = None
    table_md: str | None = None
    table_tex: str | None = None
    claims: list[Claim] = field(default_factory=list)
    data_sources: dict[str, str] = field(default_factory=lambda: {"all": "analytic"})
    data_fallbacks: dict[str, str] = field(default_factory=dict)
    seeds: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = [c for c in REQUIRED_COLUMNS if c not in self.data.columns]
        if missing:
            raise ValueError(f"figure data lacks columns {missing}; has {list(self.data.columns)}")
        if self.fig is None and self.table_md is None:
            raise ValueError("a FigureResult needs a figure or a Markdown table")


def _json_default(o: Any):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def write_outputs(
    result: FigureResult,
    *,
    paper: str,
    figure: str,
    prefix: str | Path,
    claims_path: str | Path,
    params: dict[str, Any],
    scale: str,
    wall_time_s: float,
    inputs: dict[str, str] | None = None,
) -> list[Path]:
    """Write every output of one figure; returns the paths written.

    Every file is written under a temporary name first (``<prefix>.tmp.<ext>``, the claims rows'
    ``<name>.tmp.csv``) and renamed only once all of them are written, the provenance record last;
    a failure on the way removes the temporary files, so it leaves neither a half-written set nor
    a stray ``.tmp`` file. The record holds the SHA-256 of every other file written (claims rows
    included), of the step artifacts ``inputs`` (name -> path) the figure was made from, and of
    its own content (:mod:`privrisk.core.checksums`)."""
    prefix, claims_path = Path(prefix), Path(claims_path)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    claims_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = prefix.with_name(prefix.name + ".tmp")
    written: list[tuple[Path, Path]] = []

    def stage(final: Path, temp: Path | None = None) -> Path:
        written.append((temp or Path(f"{tmp}{''.join(final.suffixes[-1:])}"), final))
        return written[-1][0]

    try:
        if result.fig is not None:
            note = plotting.data_source_note(result.data_sources, result.data_fallbacks)
            if note:
                plotting.footnote(result.fig, note)
            for ext in (".pdf", ".png"):  # staged before saving: a failed save leaves nothing
                stage(Path(f"{prefix}{ext}"))
            plotting.save(result.fig, str(tmp))
        if result.table_md is not None:
            stage(Path(f"{prefix}.md")).write_text(result.table_md)
        if result.table_tex is not None:
            stage(Path(f"{prefix}.tex")).write_text(result.table_tex)
        result.data.to_csv(stage(Path(f"{prefix}.csv")), index=False)
        rows = stage(claims_path, claims_path.with_suffix(".tmp" + claims_path.suffix))
        to_frame(result.claims).to_csv(rows, index=False)
        record = provenance.make_record(
            paper=paper,
            figure=figure,
            caption=result.caption,
            scale=scale,
            parameters=params,
            seeds=result.seeds,
            data_sources=result.data_sources,
            data_fallbacks=result.data_fallbacks,
            wall_time_s=wall_time_s,
            extra=result.extra,
        )
        folder = prefix.parent
        record[checksums.PROVENANCE_KEY] = checksums.digests(
            {os.path.relpath(f, folder): t for t, f in written}
        )
        if inputs:
            record[checksums.INPUTS_KEY] = checksums.digests(
                {os.path.relpath(p, folder): p for p in inputs.values()}
            )
        # the record's own digest over what a reader will load (JSON has no numpy, no tuples)
        record = json.loads(json.dumps(record, default=_json_default))
        record[checksums.RECORD_KEY] = checksums.record_digest(record)
        stage(Path(f"{prefix}.json")).write_text(json.dumps(record, indent=2) + "\n")
        for t, final in written:  # the record last: it vouches for the files before it
            t.replace(final)
    except BaseException:
        for t, _ in written:
            t.unlink(missing_ok=True)
        raise
    return [final for _, final in written]


def resolve(dotted: str) -> Callable[..., Any]:
    """``"privrisk.papers.thudi2022.figures:fig1"`` -> the function."""
    module, _, name = dotted.partition(":")
    if not name:
        raise ValueError(f"expected 'module:function', got {dotted!r}")
    return getattr(import_module(module), name)


def run_figure(
    func: str | Callable[..., FigureResult],
    *,
    paper: str,
    figure: str,
    params: dict[str, Any],
    prefix: str | Path,
    claims_path: str | Path,
    scale: str = "quick",
    inputs: dict[str, str] | None = None,
) -> FigureResult:
    """Call a figure function (with ``inputs`` if it takes them) and write its outputs."""
    fn = resolve(func) if isinstance(func, str) else func
    t0 = time.perf_counter()
    # the project style for the figure's whole life (made, annotated, saved), restored afterwards
    with plotting.style():
        result = fn(params, inputs) if inputs is not None else fn(params)
        write_outputs(
            result,
            paper=paper,
            figure=figure,
            prefix=prefix,
            claims_path=claims_path,
            params=params,
            scale=scale,
            wall_time_s=time.perf_counter() - t0,
            inputs=inputs,
        )
    return result


PROVENANCE_KEYS = (
    "paper",
    "figure",
    "caption",
    "scale",
    "parameters",
    "seeds",
    "data_sources",
    "packages",
    "git_commit",
    "wall_time_s",
)


def check_outputs(root: str | Path, registry) -> list[str]:
    """Problems with the outputs of one paper under ``root`` (empty: the contract holds).

    Every figure the ``registry`` (a :class:`privrisk.pipeline.workflow.Registry`) declares must have its
    files, a tidy non-empty CSV with ``series, x, y``, a provenance record naming it, and the paper
    a consistent claims ledger. Used by the tests and by CI.
    """
    from ..core.paths import figure_outputs
    from . import claims

    root, paper, problems = Path(root), registry.paper, []
    for fig in registry.figures:
        out = figure_outputs(paper, fig.name, table=fig.table)
        missing = [
            rel
            for rel in out.values()
            if not (root / rel).is_file() or (root / rel).stat().st_size == 0
        ]
        if missing:
            problems += [f"{paper}/{fig.name}: missing or empty {rel}" for rel in missing]
            continue
        df = pd.read_csv(root / out["csv"])
        if not set(REQUIRED_COLUMNS) <= set(df.columns) or df.empty:
            problems.append(f"{out['csv']}: needs non-empty {', '.join(REQUIRED_COLUMNS)} columns")
        prov = json.loads((root / out["json"]).read_text())
        lacking = [k for k in PROVENANCE_KEYS if k not in prov]
        if lacking:
            problems.append(f"{out['json']}: no {lacking}")
        elif (prov["paper"], prov["figure"]) != (paper, fig.name):
            problems.append(f"{out['json']}: names {prov['paper']}/{prov['figure']}")
    ledger = root / "results" / paper / "claims.csv"
    if not ledger.is_file():
        problems.append(f"missing {ledger}")
    else:
        problems += claims.check(claims.read(ledger))
    return problems
