"""Whether the real files a load reads are the published data: ``real`` or ``real-unverified``.

A real file's format says nothing about its content (a 20-image MNIST parses as MNIST), so the
source a load reports is ``real`` only when the files are vouched for by a checksum:

* the ``prepare_<dataset>`` rule's marker (:func:`~privrisk.data.dataset.prepared_marker`,
  written by :mod:`privrisk.data.prepare`) exists and parses;
* it records each file the load reads as *verified*: converted by that preparation from
  downloads whose checksum was pinned (published in the dataset's table, or given by the user in
  the block's ``checksums``) and matched;
* each file still has the SHA-256 and size the marker recorded (:func:`digest`).

Anything else is ``real-unverified``, with a one-line reason ``"<what>: <detail>"`` (what is one
of :data:`REASONS`), which :func:`privrisk.data.sources.fallback_reason` returns for provenance
and the figure's footnote shows. :func:`check` never raises: a missing, unreadable or malformed
marker makes the load unverified, naming the marker file.

A folder (Enron's maildir, half a million files) is summarised by a manifest digest: the SHA-256
of its sorted ``relative path, size`` lines. It notices a file added, removed, renamed or resized,
not an edit that keeps a file's size; hashing 1.7 GB of e-mails at every load would cost more than
the load. A file's digest is its content's SHA-256, computed once per process for a given
(path, size, mtime) (:data:`_CACHE`): a job that loads a dataset twice hashes it once. A folder's
is computed once per process for a given modification time of the folder itself
(:data:`_FOLDERS`; walking half a million files takes seconds): within one job, a change deep
inside it goes unnoticed; the next job (a new process) sees it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..core import checksums
from .dataset import prepared_marker

REAL = "real"
UNVERIFIED = "real-unverified"
#: the sources that are real data (verified or not); what is loaded is the same
REAL_SOURCES = (REAL, UNVERIFIED)
#: the version of the marker's layout that records checksums (older markers have no ``format``)
MARKER_FORMAT = 2
#: the first part of every unverified reason, before ``": "``; the footnote shows this part
REASONS = (
    "no preparation record",
    "malformed preparation record",
    "placed by hand",
    "trusted on first use",
    "changed since preparation",
    "recorded without checksums",
)
#: (absolute path, size, mtime_ns) -> SHA-256 of a file's content, for this process
_CACHE: dict[tuple[str, int, int], str] = {}
#: (absolute path, -1, the folder's own mtime_ns) -> its digest, for this process
_FOLDERS: dict[tuple[str, int, int], dict[str, Any]] = {}


def _file_sha256(path: Path) -> str:
    st = path.stat()
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    if key not in _CACHE:
        _CACHE[key] = checksums.sha256(path).partition(":")[2]  # the outputs' own hashing
    return _CACHE[key]


def digest(path: str | Path) -> dict[str, Any]:
    """``{"kind": "file", "sha256", "size"}`` of a file (its content), or
    ``{"kind": "folder", "sha256", "size", "files"}`` of a folder (the manifest digest of its
    files' relative paths and sizes; ``size`` is their total).

    Raises:
        OSError: the path cannot be read.
    """
    path = Path(path)
    if not path.is_dir():
        return {"kind": "file", "sha256": _file_sha256(path), "size": path.stat().st_size}
    key = (os.path.abspath(path), -1, path.stat().st_mtime_ns)
    if key in _FOLDERS:
        return dict(_FOLDERS[key])
    entries: list[tuple[str, int]] = []
    todo = [("", os.fspath(path))]
    while todo:  # os.scandir: one stat per file, no Path objects (half a million e-mails)
        rel, full = todo.pop()
        with os.scandir(full) as it:
            for e in it:
                name = f"{rel}{e.name}"
                if e.is_dir(follow_symlinks=False):
                    todo.append((f"{name}/", e.path))
                else:
                    entries.append((name, e.stat().st_size))
    entries.sort()
    h = hashlib.sha256()
    for rel, size in entries:
        h.update(f"{rel}\t{size}\n".encode())
    _FOLDERS[key] = {
        "kind": "folder",
        "sha256": h.hexdigest(),
        "size": sum(s for _, s in entries),
        "files": len(entries),
    }
    return dict(_FOLDERS[key])


def _same(a: str | Path, b: str | Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def check(name: str, files: list[Path], marker: str | Path | None = None) -> tuple[str, str]:
    """(``"real"``, ``""``) when the preparation ``marker`` (default: the dataset's) vouches for
    every one of ``files`` and each still matches its recorded digest, else
    (``"real-unverified"``, the reason). Never raises."""
    marker = Path(marker) if marker is not None else prepared_marker(name)
    rerun = f"snakemake prepare_{name} with the data files removed (the downloads kept)"
    try:
        if not marker.is_file():
            return UNVERIFIED, (
                f"no preparation record: {marker} does not exist, so the files were not made "
                f"by prepare_{name} from checksummed downloads (placed by hand?)"
            )
        record = json.loads(marker.read_text())
        entries = record["files"]
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) for e in entries
        ):
            raise ValueError("'files' is not a list of {path: ...} entries")
    except (OSError, ValueError, KeyError, TypeError) as err:
        return UNVERIFIED, f"malformed preparation record: {marker} is unreadable ({err})"
    for f in files:
        entry = next((e for e in entries if _same(e["path"], f)), None)
        if entry is None:
            return UNVERIFIED, (
                f"no preparation record: {marker} does not list {f} (prepared for other paths)"
            )
        if "sha256" not in entry:
            return UNVERIFIED, (
                f"recorded without checksums: {marker} (an older preparation) records no "
                f"checksum for {f}; to verify, run {rerun}"
            )
        if entry.get("verified") is not True:
            why = entry.get("why")
            return UNVERIFIED, (
                why
                if isinstance(why, str) and why.split(":")[0] in REASONS
                else f"malformed preparation record: {marker} gives no reason for {f}"
            )
        try:
            now = digest(f)
        except OSError as err:
            return UNVERIFIED, f"changed since preparation: {f} is unreadable ({err})"
        if (now["sha256"], now["size"]) != (entry.get("sha256"), entry.get("size")):
            return UNVERIFIED, (
                f"changed since preparation: {f} has sha256 {now['sha256'][:12]}… "
                f"({now['size']} bytes), {marker} recorded {str(entry.get('sha256'))[:12]}… "
                f"({entry.get('size')} bytes); to verify again, run {rerun}"
            )
    return REAL, ""
