"""What the pipeline knows about one dataset, in one immutable description (:class:`Dataset`).

Each dataset's module declares its description once, beside its loader (``MNIST = Dataset(...)``
in :mod:`privrisk.data.mnist`), and :data:`privrisk.data.sources.DATASETS` names them all. The
description holds everything that is not the loader itself:

* ``real_files(block)``: the files a real load reads (rule inputs when used);
* ``fallback``: ``"bundled-real"`` (a real sample shipped in an installed package) or
  ``"standin"`` (a deterministic stand-in with the real schema), and ``obtain``, one sentence on
  how to get the real data by hand (:func:`privrisk.data.sources.resolve` uses both);
* the download table (:class:`Remote`: file name, URL, checksum, size) and ``convert``, which turns
  the verified downloads into exactly ``real_files(block)`` (run by :mod:`privrisk.data.prepare`);
* ``prepare_keys``: the data-block keys the preparation reads (the ``prepare_<dataset>`` rule's
  params, so that a loader option never re-extracts gigabytes).

This module imports nothing of the package: it is a code input of every rule that reads data, so
it holds descriptions and the one helper conversions share (:func:`atomic_output`), no download
or parsing code.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: checksum algorithms a :class:`Remote` may pin
ALGORITHMS = ("md5", "sha256")
#: what a load falls back to when the real files are missing
FALLBACK_KINDS = ("bundled-real", "standin")
#: where the downloads go: in the block's ``path`` (a folder) or in the folder that holds it
ARCHIVE_DIRS = ("path", "parent")
#: the data-block keys every preparation reads (the file locations and their overrides)
PREPARE_KEYS = ("path", "urls", "checksums")
#: where each ``prepare_<dataset>`` rule records that the real files are in place
PREPARED_DIR = Path("data/prepared")


def prepared_marker(name: str) -> Path:
    """The one output of the ``prepare_<name>`` rule, and the input of whatever reads the data.

    The real files themselves are never a rule's output: Snakemake deletes a job's outputs before
    it runs (``--forcerun``, ``--forceall``, an incomplete job), and a file a user placed by hand
    must survive a forced rerun that then fails offline. Only this marker is deleted and rewritten.
    """
    return PREPARED_DIR / f"{name}.json"


#: ``convert(archives, block, outputs, *, what)``: the verified downloads (file name -> path), the
#: data block and ``real_files(block)``; writes exactly ``outputs`` (each through
#: :func:`atomic_output`, leaving alone one that already exists) or raises ValueError naming the
#: archive. ``what`` names the block in messages (``"xu2022.data.mnist"``).
Convert = Callable[..., None]


@dataclass(frozen=True)
class Remote:
    """One downloadable file: its name on disk, its URL and its checksum ``"md5:<hex>"`` or
    ``"sha256:<hex>"`` (``None``: not published, trusted on first use)."""

    name: str
    url: str
    checksum: str | None = None
    size: str = ""  # approximate size for the documentation, e.g. "163 MB"

    def __post_init__(self):
        if self.checksum is not None:
            algo, _, digest = self.checksum.partition(":")
            if algo not in ALGORITHMS or not digest:
                raise ValueError(
                    f"{self.name}: checksum {self.checksum!r} is not md5:<hex> or sha256:<hex>"
                )


def _no_extra_inputs(block: Mapping[str, Any]) -> list[Path]:
    return []


@dataclass(frozen=True)
class Dataset:
    """One dataset: where its real files are, what replaces them, and how they are obtained.

    Args:
        name: the config's name (``<paper>.data.<name>``) and the ``prepare_<name>`` rule's.
        real_files: ``block -> [Path]``, the files (or the one folder) a real load reads.
        fallback: ``"bundled-real"`` or ``"standin"``.
        obtain: one sentence on how to obtain the real data by hand (goes into errors).
        remotes: the download table; empty when the pipeline cannot obtain the data.
        convert: downloads -> ``real_files(block)`` (see :data:`Convert`); given with ``remotes``.
        archive_dir: ``"path"``: the downloads go into the block's path (a folder, as torchvision's
            MNIST); ``"parent"``: into the folder holding it (beside the prepared files).
        prepare_keys: the block keys the preparation reads (:data:`PREPARE_KEYS` and the
            conversion's own, e.g. FIRE's ``prepare_rows``).
        folder: the real data is one folder (a Snakemake ``directory()`` output).
        extra_inputs: ``block -> [Path]``, files a real load also waits for once the data is
            obtained (Enron: the GPT-2 marker), beside ``real_files``.
        licence: the licence or terms of use, for ``data/README.md``.

    Raises:
        ValueError: an unknown ``fallback`` or ``archive_dir``, ``remotes`` without ``convert`` (or
            the reverse), or two remotes with one file name.
    """

    name: str
    real_files: Callable[[Mapping[str, Any]], list[Path]]
    fallback: str
    obtain: str
    remotes: tuple[Remote, ...] = ()
    convert: Convert | None = None
    archive_dir: str = "parent"
    prepare_keys: tuple[str, ...] = PREPARE_KEYS
    folder: bool = False
    extra_inputs: Callable[[Mapping[str, Any]], list[Path]] = _no_extra_inputs
    licence: str = ""

    def __post_init__(self):
        if self.fallback not in FALLBACK_KINDS:
            raise ValueError(
                f"dataset {self.name}: fallback {self.fallback!r} is not one of {FALLBACK_KINDS}"
            )
        if self.archive_dir not in ARCHIVE_DIRS:
            raise ValueError(
                f"dataset {self.name}: archive_dir {self.archive_dir!r} is not one of "
                f"{ARCHIVE_DIRS}"
            )
        if bool(self.remotes) != (self.convert is not None):
            raise ValueError(
                f"dataset {self.name}: a download table needs a conversion and the reverse"
            )
        names = [r.name for r in self.remotes]
        if len(set(names)) != len(names):
            raise ValueError(f"dataset {self.name}: a file name repeats in the table {names}")

    @property
    def downloadable(self) -> bool:
        """Whether the pipeline can obtain the real data (a ``prepare_<name>`` rule)."""
        return bool(self.remotes)


@contextmanager
def atomic_output(dest: Path) -> Iterator[Path]:
    """Yield ``dest.part`` to write (a file, or a folder the caller makes); rename it to ``dest``
    only if the block finishes, so an interrupted conversion never leaves a truncated file where
    the loader expects a complete one."""
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
