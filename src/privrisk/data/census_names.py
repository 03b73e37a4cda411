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
        CensusFileError: one of its files is damaged (names the file and line).
    """
    try:
        import names as names_pkg
    except ImportError as err:  # pragma: no cover - dependency
        raise FileNotFoundError(
            "the 'names' package (census name frequencies) is not installed"
        ) from err
    base = Path(names_pkg.__file__).parent
    return {key: read_file(base / fname) for key, fname in FILES.items()}


class CensusFileError(ValueError):
    """A census names file is damaged (names the file and line). A ValueError, as
    :class:`privrisk.data.tabular.DataFormatError` is; defined here so that this module stays free
    of imports from the package (it is a code input of every rule that reads names)."""


def read_file(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """(names title-cased, frequencies in percent) of one census file: lines ``NAME  freq  cum
    rank``; a damaged file (undecodable bytes, a line without a name and a non-negative finite
    frequency, no names at all) is a :class:`CensusFileError` naming the file and the line."""
    reinstall = "reinstall it (pip install --force-reinstall -c constraints.txt names)"
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as err:
        raise CensusFileError(
            f"{path}: the 'names' package's census file is unreadable ({type(err).__name__}: "
            f"{str(err)[:100]}); {reinstall}"
        ) from None
    names, freqs = [], []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        try:
            freq = float(fields[1])
        except (IndexError, ValueError):
            freq = float("nan")
        if not (np.isfinite(freq) and freq >= 0 and fields[0].isalpha()):
            raise CensusFileError(
                f"{path}, line {i}: {line.strip()[:60]!r} is not a name and a frequency; the "
                f"'names' package's census file is damaged: {reinstall}"
            )
        names.append(fields[0].title())
        freqs.append(freq)
    if not names:
        raise CensusFileError(f"{path}: no names; the census file is damaged: {reinstall}")
    return np.array(names), np.array(freqs)
