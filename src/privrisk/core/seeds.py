"""One way to derive random streams from the config's seed.

Every job derives its generators from the global ``seed`` and names that say what the stream is
for (figure, dataset, ε, …): ``rng(seed, "fig1")``, ``rng(seed, "acs", "baynet")``. Integers are
used as they are; any other part enters through its CRC-32, so the stream does not depend on
Python's per-process string hashing and the same config gives the same numbers.
"""

from __future__ import annotations

import zlib

import numpy as np


def _entropy(part) -> int:
    if isinstance(part, bool | np.bool_):
        return int(part)
    if isinstance(part, int | np.integer) and part >= 0:
        return int(part)
    return zlib.crc32(str(part).encode())


def seed_sequence(seed: int, *parts) -> np.random.SeedSequence:
    """The SeedSequence for ``seed`` and ``parts`` (spawn from it for independent sub-streams)."""
    return np.random.SeedSequence([_entropy(seed), *map(_entropy, parts)])


def rng(seed: int, *parts) -> np.random.Generator:
    """A NumPy generator for ``seed`` and ``parts``."""
    return np.random.default_rng(seed_sequence(seed, *parts))


def torch_seed(seed: int, *parts) -> int:
    """A 32-bit integer seed for ``torch.Generator().manual_seed`` from ``seed`` and ``parts``."""
    return int(seed_sequence(seed, *parts).generate_state(1)[0])
