"""Runs of record (``records/<name>/``): the folder layout and the readers every layer may call.

A record is a committed folder holding, per seed, the claims rows a run wrote and the per-run
values its decisions read (docs/records.md), plus ``manifest.json`` (what made it, a SHA-256 of
every file) and ``statuses.json`` (the statuses *derived* from the per-run values, with the
digests of the code that derived them). ``privrisk records`` (:mod:`privrisk.pipeline.records`)
makes and checks records; this module only reads them, so that the status page (``contract``)
can show a record's statuses without importing the pipeline:

* :func:`statuses`: ``{"paper/claim_id": [one entry per record that covers it]}``;
* :func:`stale`: the records whose statuses were derived by code that has changed since, each with
  the command that re-verifies or remakes it.

Nothing here imports numpy, pandas or torch.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: where records live, relative to the checkout's root (``PRIVRISK_RECORDS`` names another
#: folder: the tests' records, never the checkout's)
ROOT = Path("records")
ENV = "PRIVRISK_RECORDS"


def default_root() -> Path:
    return Path(os.environ.get(ENV) or ROOT)


MANIFEST = "manifest.json"
STATUSES = "statuses.json"
#: the version of the layout and of both JSON files (docs/records.md)
FORMAT = 1
#: the source tree the code digests are taken in (``src/privrisk/...`` paths are relative to it)
SRC = Path(__file__).resolve().parents[2]
#: statuses that decide a claim (anything else leaves it open)
DECIDED = ("reproduced", "differs", "qualitative-ok", "qualitative-fails")


class RecordError(ValueError):
    """A record that cannot be read (missing, malformed): one line naming the file."""


def seed_dir(seed: int | str) -> str:
    """The folder of one seed's run inside a record: ``seed-20221``."""
    return f"seed-{seed}"


def names(root: str | Path | None = None) -> list[str]:
    """The records under ``root`` (folders holding a manifest), sorted; [] when there is none."""
    root = Path(root or default_root())
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / MANIFEST).is_file())


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise RecordError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RecordError(f"{path}: not readable JSON ({str(err).splitlines()[0]})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError(f"{path}: not a format-{FORMAT} record file")
    return data


def manifest(name: str, root: str | Path | None = None) -> dict[str, Any]:
    return _read_json(Path(root or default_root()) / name / MANIFEST)


def derived(name: str, root: str | Path | None = None) -> dict[str, Any]:
    """The record's ``statuses.json``: its statuses as last derived, and by which code."""
    return _read_json(Path(root or default_root()) / name / STATUSES)


def sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return f"sha256:{h.hexdigest()}"


def changed_code(digests: Mapping[str, str], src: str | Path = SRC) -> list[str]:
    """The files of ``digests`` (paths relative to the source tree ``src``: ``privrisk/...``)
    whose bytes differ today or that are gone."""
    out = []
    for rel, digest in sorted(digests.items()):
        path = Path(src) / rel
        if not path.is_file() or sha256(path) != digest:
            out.append(rel)
    return out


def combined(by_seed: Mapping[str, str]) -> str:
    """One status for a claim measured at several seeds: the status when every seed gave it,
    else ``uninformative (reruns: …)``, the status page's mark for runs that disagree."""
    seen = set(by_seed.values())
    if len(seen) == 1:
        return next(iter(seen))
    order = (*DECIDED, "uninformative", "standin", "derived")
    ranked = sorted(seen, key=lambda s: order.index(s) if s in order else len(order))
    return f"uninformative (reruns: {', '.join(ranked)})"


def statuses(
    root: str | Path | None = None, src: str | Path = SRC
) -> dict[str, list[dict[str, Any]]]:
    """Every claim some record covers -> one entry per record (in name order)::

        {"record": "decide-1", "seeds": [20221, 1, 2], "statuses": {"20221": "qualitative-ok", …},
         "status": "qualitative-ok", "n": 3890, "unit": "samples", "runs": "3 seeds, 3890 samples",
         "complete": True, "every_seed": True, "stale": [], "derived_by": "recomputed"}

    ``status`` is :func:`combined` over the seeds the record holds; ``n``/``unit`` the planned
    count the record ran (None when the record's overlay does not set one for the claim); ``stale``
    the code files changed since the statuses were derived (empty: current); ``derived_by`` says
    whether they are the run's own rows (``recorded``, as made) or were recomputed by
    ``privrisk records --check --refresh`` (``recomputed``). A record that cannot be read is
    skipped here (``privrisk records --check`` names it)."""
    root = Path(root or default_root())
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names(root):
        try:
            man, der = manifest(name, root), derived(name, root)
        except RecordError:
            continue
        stale_files = changed_code(der.get("code", {}), src)
        planned = man.get("planned", {})
        for key, row in sorted(der.get("claims", {}).items()):
            by_seed = dict(row.get("statuses", {}))
            plan = planned.get(key) or {}
            n, unit = plan.get("n"), plan.get("unit")
            runs = f"{len(by_seed)} seed{'s' * (len(by_seed) != 1)}" + (
                f", {n} {unit}" if n is not None else ""
            )
            out.setdefault(key, []).append(
                {
                    "record": name,
                    "seeds": man.get("seeds", []),
                    "statuses": by_seed,
                    "status": combined(by_seed) if by_seed else "missing",
                    "n": n,
                    "unit": unit,
                    "runs": runs,
                    "complete": bool(man.get("complete", False)),
                    # measured at every seed the record must cover (its planned seeds, else the
                    # seeds it ran): a partial record decides nothing yet
                    "every_seed": {str(x) for x in man.get("planned_seeds") or man.get("seeds", [])}
                    <= set(by_seed),
                    "stale": stale_files,
                    "derived_by": der.get("derived_by", "recorded"),
                }
            )
    return out


@dataclass(frozen=True)
class Stale:
    """A record whose statuses were derived by code that has changed, or whose per-run values
    were made by step code that has changed (``kind`` "verify" or "remake")."""

    record: str
    kind: str
    files: tuple[str, ...]
    command: str

    def line(self) -> str:
        what = (
            "its statuses were derived by code changed since"
            if self.kind == "verify"
            else "its per-run values were made by step code changed since"
        )
        shown = ", ".join(self.files[:3]) + (
            f" (+{len(self.files) - 3})" if len(self.files) > 3 else ""
        )
        return f"records/{self.record}: stale ({what}: {shown}); fix: {self.command}"


def stale(root: str | Path | None = None, src: str | Path = SRC) -> list[Stale]:
    """The records older than today's code: ``verify`` when the code that derives their statuses
    (the covered figures' functions and the verdict rules they import) changed since they were
    derived (the fix recomputes them), ``remake`` when the code of a step that made their per-run
    values changed (the fix is the run again; ``privrisk records --check`` then tells whether
    the sampled job still gives the same bytes)."""
    root = Path(root or default_root())
    out = []
    for name in names(root):
        try:
            man, der = manifest(name, root), derived(name, root)
        except RecordError as err:
            out.append(Stale(name, "verify", (str(err),), f"privrisk records --check {name}"))
            continue
        steps = changed_code(man.get("code", {}).get("steps", {}), src)
        if steps:
            out.append(Stale(name, "remake", tuple(steps), man.get("remake", "the run again")))
        figures = changed_code(der.get("code", {}), src)
        if figures:
            out.append(
                Stale(name, "verify", tuple(figures), f"privrisk records --check {name} --refresh")
            )
    return out
