"""Conversions from the downloaded archives to the files each loader reads.

Each function ``f(archives, block, outputs, *, what)`` gets the verified downloads (file name ->
path), the data block and the loader's ``real_files`` and writes exactly those outputs. Every
output is written to ``<output>.part`` (or a ``.part`` folder) and renamed when complete, so an
interrupted conversion never leaves a truncated file where the loader expects a complete one.
An output that already exists (placed by hand) is left alone.
"""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import tarfile
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from ..core import seeds

log = logging.getLogger(__name__)


@contextmanager
def _atomic(dest: Path) -> Iterator[Path]:
    """Yield ``dest.part`` to write; rename it to ``dest`` only if the block finishes."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = Path(f"{dest}.part")
    try:
        yield part
        os.replace(part, dest)
    finally:
        if part.is_dir():
            shutil.rmtree(part, ignore_errors=True)
        else:
            part.unlink(missing_ok=True)


def mnist(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Decompress each idx ``.gz`` to the plain name the loader reads (and check it parses)."""
    from .mnist import read_idx

    for out in outputs:
        if out.exists() or out.suffix == ".gz":
            continue
        with _atomic(out) as part:
            with gzip.open(archives[f"{out.name}.gz"], "rb") as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            shape = read_idx(part).shape
        log.info("%s: %s %s", what, out, shape)


def cifar10(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Extract the files of ``cifar-10-batches-py/`` from the tarball into the block's path."""
    wanted = {p.name: p for p in outputs if not p.exists()}
    (archive,) = archives.values()
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            name = Path(member.name)
            if (
                member.isfile()
                and name.parent.name == "cifar-10-batches-py"
                and name.name in wanted
            ):
                with (
                    _atomic(wanted.pop(name.name)) as part,
                    tar.extractfile(member) as src,
                    open(part, "wb") as dst,
                ):
                    shutil.copyfileobj(src, dst, 1 << 20)
    if wanted:
        raise ValueError(
            f"{what}: {archive} has no cifar-10-batches-py/{sorted(wanted)}; not the CIFAR-10 "
            f"python tarball?"
        )


def dermamnist(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """The MedMNIST+ npz is read as it is; check it has the arrays the loader needs."""
    (archive,) = archives.values()
    with np.load(archive) as npz:
        missing = {
            f"{s}_{k}" for s in ("train", "val", "test") for k in ("images", "labels")
        } - set(npz.files)
    if missing:
        raise ValueError(
            f"{what}: {archive} lacks the arrays {sorted(missing)}; not a MedMNIST npz?"
        )
    for out in outputs:
        if not out.exists():
            raise ValueError(
                f"{what}: the loader reads {out}, but the download is {archive}; set the block's "
                f"path to {archive.parent}"
            )


def acs(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Extract folktables' person file (``psam_p06.csv``) from the Census zip; check its columns."""
    from .acs import COLUMNS

    (out,) = outputs
    if out.exists():
        return
    (archive,) = archives.values()
    with zipfile.ZipFile(archive) as zf:
        csvs = [n for n in zf.namelist() if n.lower().endswith(".csv")]
        if len(csvs) != 1:
            raise ValueError(
                f"{what}: {archive} holds {csvs or 'no'} CSV files; expected psam_p06.csv only"
            )
        with _atomic(out) as part:
            with zf.open(csvs[0]) as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            header = list(pd.read_csv(part, nrows=0).columns)
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise ValueError(
                    f"{what}: {archive}:{csvs[0]} lacks the ACSEmployment columns {missing}"
                )


def fire(
    archives: Mapping[str, Path],
    block,
    outputs: list[Path],
    *,
    what: str,
    chunk_rows: int = 200_000,
) -> None:
    """The 10 columns of the city's export, complete rows only, uniformly sub-sampled.

    The export has millions of rows and dozens of columns; it is streamed in chunks of
    ``chunk_rows`` and every complete row gets a seeded uniform key; the ``prepare_rows`` rows with
    the smallest keys are kept (a uniform sample without replacement, the same for the same file),
    written in file order. ``prepare_rows: null`` keeps every complete row.
    """
    from .fire import COLUMNS
    from .fire import PREPARE_ROWS as FIRE_PREPARE_ROWS

    (out,) = outputs
    if out.exists():
        return
    (archive,) = archives.values()
    keep = block.get("prepare_rows", FIRE_PREPARE_ROWS)
    header = list(pd.read_csv(archive, nrows=0).columns)
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise ValueError(
            f"{what}: {archive} lacks the columns {missing}; the export has {header[:12]}…"
        )
    rng = seeds.rng(0, "fire", "prepare")
    kept: pd.DataFrame | None = None
    n_read = n_complete = 0
    for chunk in pd.read_csv(
        archive,
        usecols=COLUMNS,
        dtype=str,
        chunksize=chunk_rows,
        keep_default_na=False,
        na_values=[""],
    ):
        n_read += len(chunk)
        chunk = chunk.dropna(how="any")[COLUMNS]
        chunk = chunk.assign(
            _row=np.arange(n_complete, n_complete + len(chunk)), _key=rng.random(len(chunk))
        )
        n_complete += len(chunk)
        kept = chunk if kept is None else pd.concat([kept, chunk])
        if keep is not None and len(kept) > keep:
            kept = kept.nsmallest(keep, "_key")
    if kept is None or len(kept) == 0:
        raise ValueError(f"{what}: {archive} has no row with all of {COLUMNS}")
    with _atomic(out) as part:
        kept.sort_values("_row")[COLUMNS].to_csv(part, index=False)
    log.info(
        "%s: %d rows read, %d complete, %d kept in %s", what, n_read, n_complete, len(kept), out
    )


def enron(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Unpack the tarball's ``maildir/`` to the block's path (a folder, renamed when complete)."""
    (out,) = outputs
    if out.exists():
        return
    (archive,) = archives.values()
    with _atomic(out) as part, tarfile.open(archive, "r:gz") as tar:
        part.mkdir(parents=True)
        n = 0

        def members():
            nonlocal n
            for m in tar:
                if (
                    m.name.startswith("maildir/")
                    and m.name != "maildir/"
                    and (m.isfile() or m.isdir())
                ):
                    m.name = m.name[len("maildir/") :]
                    n += m.isfile()
                    if n and n % 50_000 == 0 and m.isfile():
                        log.info("%s: %d files unpacked", what, n)
                    yield m

        tar.extractall(part, members=members(), filter="data")
        if n == 0:
            raise ValueError(f"{what}: {archive} has no maildir/ files; not the CMU Enron tarball?")
        log.info("%s: %d e-mails unpacked to %s", what, n, out)
