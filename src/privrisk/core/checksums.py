"""SHA-256 digests of the files a job writes, recorded when they are written and checked later.

Snakemake decides what is out of date by modification times, recorded inputs, params and code; a
figure's CSV edited by hand (or overwritten with garbage) is newer than its inputs and looks
current. So every writer records the digests of what it wrote: a figure in its provenance record
(``outputs_sha256``: file name relative to the record's folder -> ``sha256:<hex>``, its claims
rows included; ``inputs_sha256``: the step artifacts it was made from; ``record_sha256``: the
record's own content), a gathered ledger in a ``<name>.sha256`` sidecar in ``sha256sum`` format.
:mod:`privrisk.pipeline.completeness` checks them all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from . import safe_io

#: the provenance record's key holding its figure's digests
PROVENANCE_KEY = "outputs_sha256"
#: the provenance record's key holding the digests of the step artifacts the figure was made from
INPUTS_KEY = "inputs_sha256"
#: the provenance record's key holding the digest of the record itself (:func:`record_digest`)
RECORD_KEY = "record_sha256"
CHUNK = 1 << 20


def sha256(path: str | Path) -> str:
    """``"sha256:<hex>"`` of the file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return f"sha256:{h.hexdigest()}"


def digests(files: Mapping[str, str | Path]) -> dict[str, str]:
    """``{recorded name: sha256 of the file at path}``; the name is what a later check looks for
    (a staged file's final name), the path what holds the bytes now."""
    return {name: sha256(path) for name, path in sorted(files.items())}


def record_digest(record: Mapping) -> str:
    """``"sha256:<hex>"`` of a JSON record's content without its own :data:`RECORD_KEY`: the
    record as JSON text with sorted keys and no spaces, so that reading and writing it again
    (or indenting it otherwise) keeps the digest and any change of a value does not."""
    body = {k: v for k, v in record.items() if k != RECORD_KEY}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return f"sha256:{hashlib.sha256(text.encode()).hexdigest()}"


def changed(recorded: Mapping[str, str], folder: str | Path) -> list[tuple[Path, str]]:
    """``(file, why)`` for each recorded file under ``folder`` that is missing or whose bytes differ."""
    out = []
    for name, digest in sorted(recorded.items()):
        path = Path(folder) / name
        if not path.is_file():
            out.append((path, "missing"))
        elif sha256(path) != digest:
            out.append((path, "its bytes differ from the SHA-256 recorded when it was written"))
    return out


def sidecar(path: str | Path) -> Path:
    """Where the digest of a file without a provenance record is kept: ``<path>.sha256``."""
    return Path(f"{path}.sha256")


def write_sidecars(paths: Iterable[str | Path]) -> None:
    """A ``<file>.sha256`` beside each file (``sha256sum -c`` reads it)."""
    for p in map(Path, paths):
        digest = sha256(p).removeprefix("sha256:")
        # atomic, and no temporary file left when the disk is full (privrisk.core.safe_io)
        safe_io.write_output(sidecar(p), f"{digest}  {p.name}\n", what="digest sidecar")


def read_sidecar(path: str | Path) -> dict[str, str]:
    """The digests a ``.sha256`` sidecar records, as :func:`changed` takes them."""
    out = {}
    for line in Path(path).read_text().splitlines():
        digest, _, name = line.partition("  ")
        if digest and name:
            out[name] = f"sha256:{digest}"
    return out
