"""Obtain a dataset's real files: download (verified), then convert to what its loader reads.

One generic driver for every dataset in :data:`privrisk.data.sources.DATASETS`: the download table
(``remotes``), where the downloads go (``archive_dir``), the conversion and the block keys it reads
all come from the dataset's :class:`~privrisk.data.dataset.Dataset`, declared in its own module.
The files produced are exactly the loader's ``real_files(block)``, so the pipeline's
``prepare_<dataset>`` rule (generated from :func:`rule_specs` by ``workflow/rules/data.smk``) is
what produces a figure's data inputs; the downloaded files sit beside them or inside the block's
path (the table in ``data/README.md``).

A data block may override a file's URL or checksum: ``urls: {<file name>: <url>}``,
``checksums: {<file name>: "md5:<hex>" | "sha256:<hex>"}`` (used by the offline tests, and by a
user with a mirror). GPT-2 small (the PII prior's scorer) is not a file of ours:
:func:`~privrisk.data.gpt2.prepare_gpt2` puts it into the Hugging Face cache (imported here for
the ``prepare_gpt2`` rule and the command line).

Command line (what the rules run; also usable by hand)::

    python -m privrisk.data.prepare mnist --block '{"path": "data/raw/mnist"}'
    python -m privrisk.data.prepare gpt2
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import sources, verified
from .dataset import Dataset, Remote, prepared_marker  # noqa: F401  (for data.smk)
from .download import fetch, file_digest
from .gpt2 import prepare_gpt2

log = logging.getLogger(__name__)


def _downloadable(name: str) -> Dataset:
    desc = sources.dataset(name)
    if not desc.downloadable:
        known = [n for n in sources.DATASETS if sources.dataset(n).downloadable]
        raise ValueError(f"no download table for dataset {name!r}; known: {', '.join(known)}")
    return desc


def archive_dir(name: str, block: Mapping[str, Any]) -> Path:
    """Where the downloaded files of ``name`` go: the block's path or the folder holding it."""
    desc = sources.dataset(name)
    path = Path(block["path"]) if "path" in block else sources.real_files(name, block)[0]
    return path if desc.archive_dir == "path" else path.parent


def remotes(name: str, block: Mapping[str, Any]) -> list[Remote]:
    """The dataset's download table with the block's ``urls`` / ``checksums`` overrides applied."""
    table = _downloadable(name).remotes
    urls, sums = block.get("urls") or {}, block.get("checksums") or {}
    unknown = (set(urls) | set(sums)) - {r.name for r in table}
    if unknown:
        raise ValueError(
            f"{name}: urls/checksums name unknown file(s) {sorted(unknown)}; "
            f"the files are {[r.name for r in table]}"
        )
    return [
        Remote(r.name, urls.get(r.name, r.url), sums.get(r.name, r.checksum), r.size) for r in table
    ]


def prepare(
    name: str,
    block: Mapping[str, Any],
    outputs: list[Path] | None = None,
    *,
    what: str = "",
    marker: str | Path | None = None,
) -> list[Path]:
    """Download (once, verified) and convert dataset ``name``; returns the prepared files.

    ``outputs`` defaults to the loader's ``real_files(block)``. Files already there (placed by
    hand, or an earlier preparation) are left exactly as they are, and when every one is there
    nothing is downloaded, so a forced rerun offline keeps the user's data. ``marker`` (the
    ``prepare_<name>`` rule's output, :func:`~privrisk.data.dataset.prepared_marker`) is written
    last, recording each file's SHA-256 and size and whether it is *verified* (converted here from
    downloads with a pinned checksum; see :func:`_write_marker`), which decides whether a load
    reports ``real`` or ``real-unverified`` (:mod:`privrisk.data.verified`).

    Raises DownloadError / ChecksumMismatch (from :func:`privrisk.data.download.fetch`) or
    ValueError on a malformed archive.
    """
    desc = _downloadable(name)
    outputs = [Path(p) for p in (outputs or sources.real_files(name, block))]
    what = what or name
    placed = [p for p in outputs if p.exists()]
    archives: dict[str, Path] = {}
    if len(placed) == len(outputs):
        log.info("%s: %s already in place; nothing downloaded or changed", what, _names(placed))
    else:
        folder = archive_dir(name, block)
        table = remotes(name, block)
        archives = {r.name: fetch(r, folder, what=what) for r in table}
        desc.convert(archives, block, outputs, what=what)
    missing = [str(p) for p in outputs if not p.exists()]
    if missing:
        raise ValueError(f"{what}: preparation did not produce {missing}")
    if marker is not None:
        _write_marker(Path(marker), name, what, outputs, placed, archives, block)
    return outputs


def _names(paths: list[Path]) -> str:
    return ", ".join(map(str, paths))


def _write_marker(marker, name, what, outputs, placed, archives, block) -> None:
    """The preparation record :mod:`privrisk.data.verified` reads (``format`` 2).

    ``files``: one entry per prepared file (or folder): ``path``, ``origin`` (``converted`` or
    ``in place before this preparation``), its digest (:func:`~privrisk.data.verified.digest`:
    ``kind``, ``sha256``, ``size``, and ``files`` for a folder), ``verified`` and, when not
    verified, ``why`` (``"<reason>: <detail>"``). A file is verified when this preparation
    converted it from downloads whose checksum was pinned (published in the dataset's table or
    given in the block's ``checksums``) and matched; a file already in place, or one converted
    from a download trusted on first use, is not, unless the file is itself a download of the
    table (MNIST's ``.gz``, DermaMNIST's ``.npz``) matching its pinned checksum (then
    ``matches_pinned`` says whose: ``published`` or ``checksums``), or it still has the checksum
    an earlier preparation verified (:func:`verified_history`; then ``verified_by`` names it).
    ``downloads``: each download's path, checksum and where that checksum came from (``published``, ``checksums`` or ``null``: trusted on
    first use, its SHA-256 recorded beside it at the first download)."""
    table = {r.name: r for r in remotes(name, block)}
    published = {r.name: r.checksum for r in _downloadable(name).remotes}
    user = block.get("checksums") or {}
    pinned_by = {
        n: ("checksums" if n in user else "published" if published.get(n) else None)
        for n in archives
    }
    unpinned = sorted(n for n, by in pinned_by.items() if by is None)
    history = verified_history(marker)
    earlier = _read_history(history)
    files = []
    for p in outputs:
        entry: dict[str, Any] = {
            "path": str(p),
            "origin": "in place before this preparation" if p in placed else "converted",
            **verified.digest(p),
        }
        match = _download_match(p, table, user) if p in placed else ""
        kept = earlier.get(os.path.abspath(p))
        unchanged = kept is not None and (kept["sha256"], kept["size"]) == (
            entry["sha256"],
            entry["size"],
        )
        if p in placed and match.startswith(("published", "checksums")):
            entry["matches_pinned"] = match  # the file is a download: its checksum vouches
            why = ""
        elif p in placed and unchanged:
            entry["verified_by"] = kept["verified_by"]  # unchanged since a verified preparation
            why = ""
        elif p in placed:
            why = (
                f"placed by hand: {p} was in place before this preparation, so no download "
                "vouches for it" + (f" ({match})" if match else "")
            )
        elif unpinned:
            why = (
                f"trusted on first use: converted from {', '.join(unpinned)}, which has no "
                f"published checksum (pin one in {what}.checksums to verify)"
            )
        else:
            why = ""
        entry["verified"] = not why
        if why:
            entry["why"] = why
        files.append(entry)
    record = {
        "format": verified.MARKER_FORMAT,
        "dataset": name,
        "block": what,
        "verified": all(e["verified"] for e in files),
        "files": files,
        "downloads": {
            n: {"path": str(a), "checksum": table[n].checksum, "pinned_by": pinned_by[n]}
            for n, a in archives.items()
        },
    }
    now = datetime.now(UTC).isoformat(timespec="seconds")
    kept = {
        os.path.abspath(e["path"]): {
            "path": e["path"],
            "sha256": e["sha256"],
            "size": e["size"],
            "verified_by": e.get("verified_by", f"the preparation of {now}"),
        }
        for e in files
        if e["verified"]
    }
    marker.parent.mkdir(parents=True, exist_ok=True)
    _write_json(history, {"files": [*{**earlier, **kept}.values()]})
    _write_json(marker, record)


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(obj, indent=2) + "\n")
    tmp.replace(path)


def verified_history(marker: Path) -> Path:
    """Where the checksums of verified files outlive the marker: Snakemake deletes the marker
    (the rule's output) before a forced rerun, which then finds every file in place; a file
    still matching a verified checksum recorded here stays verified. Not a rule output."""
    return marker.with_name(marker.name.removesuffix(".json") + ".verified.json")


def _read_history(path: Path) -> dict[str, dict]:
    """absolute path -> {path, sha256, size, verified_by}; empty when missing or malformed (a
    malformed history only costs the carried verification)."""
    try:
        entries = json.loads(path.read_text())["files"]
        return {
            os.path.abspath(e["path"]): {k: e[k] for k in ("path", "sha256", "size", "verified_by")}
            for e in entries
        }
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _download_match(path: Path, table: Mapping[str, Remote], user: Mapping[str, str]) -> str:
    """For a prepared file that is itself a download of the table (same name, e.g. MNIST's
    ``.gz`` read as they are): ``"published"`` / ``"checksums"`` when it matches that pinned
    checksum, else why not (``""``: not a download, or nothing pinned)."""
    remote = table.get(path.name)
    if remote is None or remote.checksum is None or not path.is_file():
        return ""
    algo, _, want = remote.checksum.partition(":")
    got = file_digest(path, algo)
    if got != want.lower():
        return f"its {algo} {got} is not the pinned {want}"
    return "checksums" if path.name in user else "published"


@dataclass(frozen=True)
class RuleSpec:
    """One ``prepare_<dataset>`` rule: the config block it serves and the files it makes."""

    dataset: str
    where: str  # "<paper>.data.<dataset>"
    block: dict
    outputs: tuple[str, ...]
    directory: bool  # the output is a folder (Enron's maildir)


def rule_specs(config: Mapping[str, Any]) -> list[RuleSpec]:
    """A rule per data block (of every paper) whose dataset has a download table."""
    specs, seen = [], {}
    for paper, section in config.items():
        blocks = section.get("data", {}) if isinstance(section, Mapping) else {}
        for name, block in blocks.items():
            if name not in sources.DATASETS or not isinstance(block, Mapping):
                continue
            desc = sources.dataset(name)
            if not desc.downloadable:
                continue
            outs = tuple(str(p) for p in sources.real_files(name, block))
            if name in seen:  # the same dataset in two papers: one rule, unless the paths differ
                if seen[name] != outs:
                    raise ValueError(
                        f"dataset {name} configured with different paths in two papers: "
                        f"{seen[name]} vs {outs}"
                    )
                continue
            seen[name] = outs
            # only the keys the preparation reads: Snakemake reruns a rule whose params change, and a
            # loader option (raw_rows, standin_size) or the source must not re-extract gigabytes
            keys = {k: block[k] for k in desc.prepare_keys if k in block}
            specs.append(RuleSpec(name, f"{paper}.data.{name}", keys, outs, desc.folder))
    return specs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m privrisk.data.prepare", description=__doc__.split("\n")[0]
    )
    downloadable = [n for n in sources.DATASETS if sources.dataset(n).downloadable]
    ap.add_argument("dataset", choices=[*downloadable, "gpt2"])
    ap.add_argument(
        "--block", default="{}", help="the data block as JSON (path, urls, checksums, ...)"
    )
    args = ap.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
    try:
        if args.dataset == "gpt2":
            done = [prepare_gpt2()]
        else:
            # the same marker as the prepare rule's, so a load reports `real` after either
            done = prepare(
                args.dataset, json.loads(args.block), marker=prepared_marker(args.dataset)
            )
    except KeyError as err:
        print(
            f'error: the block needs {err} (e.g. --block \'{{"path": "data/raw/{args.dataset}"}}\')',
            file=sys.stderr,
        )
        return 1
    except (OSError, RuntimeError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print("\n".join(map(str, done)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
