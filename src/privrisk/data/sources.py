"""Which data a dataset's loader uses: real files, a real sample bundled in a package, or a stand-in.

One resolver for every dataset (design.md §6). A config data block is
``{source: auto | real | bundled-real | standin, path: ..., <loader options>}``:

* ``real``: the loader's real files must exist, else :class:`DataUnavailable` names them and
  says how to obtain them;
* ``auto``: real when every real file exists, else the loader's fallback;
* ``bundled-real`` / ``standin``: that fallback, if the loader has it.

Each loader module (``DATASETS[name]``) provides ``real_files(block) -> list[Path]`` (the files a
real load reads), ``FALLBACK`` (``"bundled-real"`` or ``"standin"``) and ``OBTAIN`` (how to get the
real data). The rule loop uses :func:`rule_inputs` so that adding real files reruns what reads
them; the loaders call :func:`resolve`, so both agree on the source, which goes to provenance.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from typing import Any

#: dataset name -> loader module
DATASETS = {
    "mnist": "privrisk.data.mnist",
    "cifar10": "privrisk.data.cifar10",
    "acs": "privrisk.data.acs",
    "fire": "privrisk.data.fire",
    "enron": "privrisk.data.enron",
    "dermamnist": "privrisk.data.dermamnist",
}
SOURCES = ("auto", "real", "bundled-real", "standin")
#: dataset -> why an ``auto`` load in this process used the fallback (goes to provenance)
FALLBACKS: dict[str, str] = {}
log = logging.getLogger(__name__)
#: datasets with a download table in privrisk.data.prepare (not imported here: the rules' code
#: inputs follow imports, and a download edit must not rerun every step that reads data)
DOWNLOADABLE = frozenset({"mnist", "cifar10", "dermamnist", "acs", "fire", "enron"})
#: written by the prepare_gpt2 rule once GPT-2 small is in the Hugging Face cache; an input of the
#: Enron rules when the real corpus is obtained (the PII prior is scored by GPT-2, as in the paper)
GPT2_MARKER = Path("data/prepared/gpt2.json")


class DataUnavailable(FileNotFoundError):
    """Real data was asked for (or is needed) and is not there; the message says how to get it."""


def loader(name: str):
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    return import_module(DATASETS[name])


def real_files(name: str, block: Mapping[str, Any]) -> list[Path]:
    return [Path(p) for p in loader(name).real_files(block)]


def resolve(name: str, block: Mapping[str, Any]) -> str:
    """``real``, ``bundled-real`` or ``standin``: what a load of this block uses.

    An ``auto`` block that falls back says why in the log (the job's log file) and in
    :data:`FALLBACKS` (the provenance record of a figure made in this process).

    Raises:
        DataUnavailable: ``source: real`` and a real file is missing (the message names the
            files and how to obtain them).
        ValueError: an unknown source, or a fallback this dataset does not have.
    """
    used, why = _resolve(name, block)
    if why and FALLBACKS.get(name) != why:  # once per process, however often a job loads the data
        log.info("%s: %s", name, why)  # the job log records INFO; a CLI listing stays quiet
        FALLBACKS[name] = why
    return used


def _resolve(name: str, block: Mapping[str, Any]) -> tuple[str, str]:
    """(source used, why an ``auto`` block falls back, else "")."""
    mod = loader(name)
    source = block.get("source", "auto")
    if source not in SOURCES:
        raise ValueError(f"{name}: source {source!r} is not one of {SOURCES}")
    files = real_files(name, block)
    if source == "real":
        missing = [str(p) for p in files if not p.exists()]
        if missing:
            raise DataUnavailable(
                f"{name}: source 'real' but these files are missing: {', '.join(missing)}. {mod.OBTAIN} "
                f"Or set the dataset's source to auto or {mod.FALLBACK}."
            )
        return "real", ""
    if source == "auto":
        missing = [str(p) for p in files if not p.exists()]
        if files and not missing:
            return "real", ""
        return mod.FALLBACK, (
            f"source auto fell back to {mod.FALLBACK}: real file(s) missing: "
            f"{', '.join(missing) or 'none configured'}"
        )
    if source != mod.FALLBACK:
        raise ValueError(f"{name}: has no {source!r} data; its fallback is {mod.FALLBACK!r}")
    return source, ""


def obtains(name: str, block: Mapping[str, Any]) -> bool:
    """Whether the pipeline obtains the real data (its ``prepare_<name>`` rule downloads and converts
    whatever is missing): ``source: real``, or ``auto`` with ``download: true``, for a dataset with
    a download table (:data:`DOWNLOADABLE`)."""
    source = block.get("source", "auto")
    return name in DOWNLOADABLE and (
        source == "real" or (source == "auto" and bool(block.get("download", False)))
    )


def rule_inputs(name: str, block: Mapping[str, Any]) -> list[str]:
    """The real files as rule inputs when they will be read, else nothing.

    When the pipeline obtains the data (:func:`obtains`), they are inputs even if missing: the
    ``prepare_<name>`` rule makes them (or fails saying how to place them by hand)."""
    if obtains(name, block):
        gpt2 = [str(GPT2_MARKER)] if name == "enron" and block.get("gpt2", True) else []
        return [str(p) for p in real_files(name, block)] + gpt2
    # _resolve: deciding rule inputs is no load, so nothing is logged or recorded
    return [str(p) for p in real_files(name, block)] if _resolve(name, block)[0] == "real" else []
