"""Per-paper composition: one sub-package per paper key, found by :mod:`privrisk.core.discovery`.

A paper package holds everything the code owns about its paper: ``registry.py`` (``PAPER``,
``STEPS``, ``FIGURES``, optional ``check_config``), its figure, step and claims modules, its config
schema (``schema.yaml``), optional report captions (``captions/<fig>.rst``) and its modelling notes
(``notes.md``). A figure function takes its config section (``params``; and ``inputs`` if its rule
has inputs) and returns a :class:`privrisk.contract.figure.FigureResult`. It composes library concepts
(bounds, accounting, models, attacks); it does not re-implement them.
"""

import os

# Paper packages outside this directory (PRIVRISK_PAPERS, see privrisk.core.discovery) import as
# privrisk.papers.<key> too: a Snakemake job imports its figure function by that name.
__path__ += [  # noqa: F821  (a package's __path__)
    os.path.abspath(d)
    for d in os.environ.get("PRIVRISK_PAPERS", "").split(os.pathsep)
    if d and os.path.abspath(d) not in __path__  # noqa: F821
]
