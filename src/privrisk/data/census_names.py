"""Real 1990 US census name frequencies (the files shipped in the PyPI package ``names``).

Used by the Enron name finder (:mod:`privrisk.data.enron`), the PII stand-in sequences and the
name-frequency scorer of the PII prior (:mod:`privrisk.priors.pii`). Data only: this module
imports nothing from the rest of the package.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

FILES = {"male": "dist.male.first", "female": "dist.female.first", "last": "dist.all.last"}


@cache
def census_names() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{"male": (names, freq), "female": (names, freq), "last": (names, freq)}.

    Frequencies are in percent of the population, as the census files give them.
    Raises:
        FileNotFoundError: the ``names`` package (a project dependency) is missing.
    """
    try:
        import names as names_pkg
    except ImportError as err:  # pragma: no cover - dependency
        raise FileNotFoundError(
            "the 'names' package (census name frequencies) is not installed"
        ) from err
    base = Path(names_pkg.__file__).parent
    out = {}
    for key, fname in FILES.items():
        rows = [line.split() for line in (base / fname).read_text().splitlines() if line.strip()]
        out[key] = (np.array([r[0].title() for r in rows]), np.array([float(r[1]) for r in rows]))
    return out
