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

    Raises:
        DataUnavailable: ``source: real`` and a real file is missing (the message names the
            files and how to obtain them).
        ValueError: an unknown source, or a fallback this dataset does not have.
    """
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
        return "real"
    if source == "auto":
        return "real" if files and all(p.exists() for p in files) else mod.FALLBACK
    if source != mod.FALLBACK:
        raise ValueError(f"{name}: has no {source!r} data; its fallback is {mod.FALLBACK!r}")
    return source


def rule_inputs(name: str, block: Mapping[str, Any]) -> list[str]:
    """The real files as rule inputs when they will be read, else nothing."""
    return [str(p) for p in real_files(name, block)] if resolve(name, block) == "real" else []
