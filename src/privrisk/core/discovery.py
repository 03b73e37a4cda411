"""Which papers exist: every sub-package of :mod:`privrisk.papers` that has a ``registry`` module
(kedro's ``find_pipelines`` is the model), so adding a paper edits no central list.

A paper may also live outside this package: the directories named in the environment variable
``PRIVRISK_PAPERS`` (``os.pathsep``-separated) are searched like ``privrisk/papers/`` itself and
their packages import as ``privrisk.papers.<key>`` (the tests' fixture paper is found this way;
Snakemake jobs inherit the variable). Packages are imported by name only (``import_module``), so
this core module stays below the papers in the layer contract.
"""

from __future__ import annotations

import os
from importlib import import_module, resources
from importlib.abc import Traversable
from pkgutil import iter_modules
from types import ModuleType

from .declarations import Paper, RegistryError

#: extra directories holding paper packages
ENV = "PRIVRISK_PAPERS"
PACKAGE = "privrisk.papers"


def search_path() -> list[str]:
    """The directories paper packages are found in (the package's own first); ``PRIVRISK_PAPERS``
    is read now, so a test that sets it after the package was imported is honoured."""
    pkg = import_module(PACKAGE)
    for d in os.environ.get(ENV, "").split(os.pathsep):
        if d and os.path.abspath(d) not in pkg.__path__:
            pkg.__path__.append(os.path.abspath(d))
    return list(pkg.__path__)


def _candidates() -> list[str]:
    return sorted(
        {m.name for m in iter_modules(search_path()) if m.ispkg and not m.name.startswith("_")}
    )


def registry_module(key: str) -> ModuleType:
    """``privrisk.papers.<key>.registry``.

    Raises:
        RegistryError: no paper package ``key`` (the message lists the known ones).
    """
    if key not in _candidates():
        raise RegistryError(f"unknown paper {key!r}; known: {', '.join(paper_keys())}")
    return import_module(f"{PACKAGE}.{key}.registry")


def paper(key: str) -> Paper:
    """The paper's ``PAPER`` description.

    Raises:
        RegistryError: the package has no ``PAPER`` of type :class:`Paper`.
    """
    found = getattr(registry_module(key), "PAPER", None)
    if not isinstance(found, Paper):
        raise RegistryError(f"{PACKAGE}.{key}.registry: PAPER must be a Paper, got {found!r}")
    return found


def paper_keys() -> tuple[str, ...]:
    """Every paper key, ordered by ``PAPER.order`` then key (the pipeline's and the docs' order)."""
    keys = [
        k for k in _candidates() if (resources.files(f"{PACKAGE}.{k}") / "registry.py").is_file()
    ]
    return tuple(sorted(keys, key=lambda k: (paper(k).order, k)))


def files(key: str) -> Traversable:
    """The paper package's directory, for its package data (schema, captions, notes)."""
    return resources.files(f"{PACKAGE}.{key}")
