"""Which data a dataset's loader uses: real files, a real sample bundled in a package, or a stand-in.

One resolver for every dataset (design.md §6). A config data block is
``{source: auto | real | bundled-real | standin, path: ..., <loader options>}``:

* ``real``: the loader's real files must exist, else :class:`DataUnavailable` names them and
  says how to obtain them;
* ``auto``: real when every real file exists, else the dataset's fallback;
* ``bundled-real`` / ``standin``: that fallback, if the dataset has it.

:func:`resolve` says which data a load reads (``real`` for the real files); :func:`label` says
what the load reports to provenance: ``real`` only when the files are the ones a checksummed
preparation made (:mod:`privrisk.data.verified`), else ``real-unverified``, with the reason in
:func:`fallback_reason`.

Every dataset is described once, by a :class:`~privrisk.data.dataset.Dataset` in its own module
(``real_files``, ``fallback``, ``obtain``, its download table and conversion), and registered in
:data:`DATASETS`. The rule loop uses :func:`rule_inputs` so that adding real files reruns what
reads them; the loaders call :func:`resolve`, so both agree on the source, which goes to provenance.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from typing import Any

from . import verified
from .dataset import Dataset, prepared_marker

#: dataset name -> ``"module:attribute"`` of its :class:`Dataset`: the registry, one line per
#: dataset. Strings, imported on first use (:func:`dataset`), because each loader imports this
#: module (a static import back would be a cycle) and a rule's code inputs follow static imports:
#: a step that reads MNIST must not rerun when the FIRE module changes.
DATASETS = {
    "mnist": "privrisk.data.mnist:MNIST",
    "cifar10": "privrisk.data.cifar10:CIFAR10",
    "acs": "privrisk.data.acs:ACS",
    "fire": "privrisk.data.fire:FIRE",
    "enron": "privrisk.data.enron:ENRON",
    "dermamnist": "privrisk.data.dermamnist:DERMAMNIST",
}
SOURCES = ("auto", "real", "bundled-real", "standin")
#: (dataset, reason) already logged by this process: a job that loads a dataset often logs it once
_LOGGED: set[tuple[str, str]] = set()
log = logging.getLogger(__name__)


class DataUnavailable(FileNotFoundError):
    """Real data was asked for (or is needed) and is not there; the message says how to get it."""


def dataset(name: str) -> Dataset:
    """The description of dataset ``name``.

    Raises:
        ValueError: ``name`` is not in :data:`DATASETS` (the message lists the known ones).
        TypeError: the registry line does not point at a :class:`Dataset` of that name.
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    module, _, attr = DATASETS[name].partition(":")
    found = getattr(import_module(module), attr, None)
    if not isinstance(found, Dataset) or found.name != name:
        raise TypeError(
            f"sources.DATASETS[{name!r}] = {DATASETS[name]!r} is not the Dataset named {name!r}"
        )
    return found


def real_files(name: str, block: Mapping[str, Any]) -> list[Path]:
    return [Path(p) for p in dataset(name).real_files(block)]


def resolve(name: str, block: Mapping[str, Any]) -> str:
    """``real``, ``bundled-real`` or ``standin``: what a load of this block reads (whether real
    files are verified is :func:`label`'s business).

    An ``auto`` block that falls back says why in the log (the job's log file), once per process;
    :func:`fallback_reason` gives the same sentence for a provenance record.

    Raises:
        DataUnavailable: ``source: real`` and a real file is missing (the message names the
            files and how to obtain them).
        ValueError: an unknown source, or a fallback this dataset does not have.
    """
    used, why = _resolve(name, block)
    if why and (name, why) not in _LOGGED:  # once per process, however often a job loads the data
        log.info("%s: %s", name, why)  # the job log records INFO; a CLI listing stays quiet
        _LOGGED.add((name, why))
    return used


def label(name: str, block: Mapping[str, Any]) -> str:
    """The source a load of this block reports: ``real``, ``real-unverified``, ``bundled-real``
    or ``standin``. :func:`resolve`, and for real files :func:`privrisk.data.verified.check`:
    ``real`` only when the preparation marker vouches for them and they still match its
    checksums. Why real data is unverified is logged once per process, as a fallback is.

    Raises what :func:`resolve` raises; a missing or malformed marker never raises.
    """
    used = resolve(name, block)
    if used != verified.REAL:
        return used
    src, why = verified.check(name, real_files(name, block))
    if why and (name, why) not in _LOGGED:
        log.info("%s: %s: %s", name, src, why)
        _LOGGED.add((name, why))
    return src


def fallback_reason(name: str, block: Mapping[str, Any]) -> str:
    """Why a load of this block does not report plain ``real``, else ``""``: why an ``auto``
    block uses the fallback (the real files missing), or why its real files are
    ``real-unverified`` (:func:`privrisk.data.verified.check`; ``"<reason>: <detail>"``, e.g.
    ``"placed by hand: ..."``). For ``data_fallbacks`` of a
    :class:`~privrisk.contract.figure.FigureResult` and so provenance. Logs nothing."""
    used, why = _resolve(name, block)
    if used == verified.REAL:
        why = verified.check(name, real_files(name, block))[1]
    return why


def _resolve(name: str, block: Mapping[str, Any]) -> tuple[str, str]:
    """(source used, why an ``auto`` block falls back, else "")."""
    desc = dataset(name)
    source = block.get("source", "auto")
    if source not in SOURCES:
        raise ValueError(f"{name}: source {source!r} is not one of {SOURCES}")
    files = real_files(name, block)
    if source == "real":
        missing = [str(p) for p in files if not p.exists()]
        if missing:
            raise DataUnavailable(
                f"{name}: source 'real' but these files are missing: {', '.join(missing)}. "
                f"{desc.obtain} Or set the dataset's source to auto or {desc.fallback}."
            )
        return "real", ""
    if source == "auto":
        missing = [str(p) for p in files if not p.exists()]
        if files and not missing:
            return "real", ""
        return desc.fallback, (
            f"source auto fell back to {desc.fallback}: real file(s) missing: "
            f"{', '.join(missing) or 'none configured'}"
        )
    if source != desc.fallback:
        raise ValueError(f"{name}: has no {source!r} data; its fallback is {desc.fallback!r}")
    return source, ""


def obtains(name: str, block: Mapping[str, Any]) -> bool:
    """Whether the pipeline obtains the real data (its ``prepare_<name>`` rule downloads and converts
    whatever is missing): ``source: real``, or ``auto`` with ``download: true``, for a dataset with
    a download table (:attr:`Dataset.downloadable`)."""
    source = block.get("source", "auto")
    return dataset(name).downloadable and (
        source == "real" or (source == "auto" and bool(block.get("download", False)))
    )


def rule_inputs(name: str, block: Mapping[str, Any]) -> list[str]:
    """The real files as rule inputs when they will be read, else nothing.

    When the pipeline obtains the data (:func:`obtains`), the input is the ``prepare_<name>``
    rule's marker (:func:`~privrisk.data.dataset.prepared_marker`), never the data files, so that
    no Snakemake option can delete them; the rule makes whatever is missing (or fails saying how
    to place it by hand). The dataset's ``extra_inputs`` (Enron's GPT-2 marker) come with it."""
    if obtains(name, block):
        extra = [str(p) for p in dataset(name).extra_inputs(block)]
        return [str(prepared_marker(name))] + extra
    # _resolve: deciding rule inputs is no load, so nothing is logged or recorded
    return [str(p) for p in real_files(name, block)] if _resolve(name, block)[0] == "real" else []
