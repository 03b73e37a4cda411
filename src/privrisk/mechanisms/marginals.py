"""Noisy k-way marginals released with the Gaussian mechanism (Swanberg et al. App. A, §6.1).

A k-way marginal of attribute set V is the vector of cell counts over every value combination of
V (Def. A.1 normalises by the number of records; we add noise on the count scale and divide by
n afterwards, which is the same mechanism). Under replace-one adjacency one record leaves one
cell and enters another, so each marginal vector has L2 sensitivity √2 and the m released
marginals together have L2 sensitivity √(2m). Releasing all of them with one Gaussian of std
σ = √(2m)/μ is μ-GDP (= m compositions of μ/√m-GDP marginals); μ is the largest GDP parameter
that implies (ε, δ)-DP (privrisk.accounting.gdp_mu). ε = ∞ releases the exact marginals.

Only marginals touching at least one unknown column are released (the adversary knows the
others' columns anyway): m = C(d, k) − C(d − d', k).

ε and δ are keyword-only (:func:`noise_std`, :func:`release`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import accounting

SENSITIVITY_PER_MARGINAL = math.sqrt(2.0)  # replace-one adjacency


def workload(d: int, unknown: Sequence[int], k: int = 3) -> list[tuple[int, ...]]:
    """Every k-subset of the d columns (sorted tuples) containing at least one unknown column."""
    unk = set(int(u) for u in unknown)
    if not unk or any(not 0 <= u < d for u in unk):
        raise ValueError(f"unknown columns {sorted(unk)} must be a non-empty subset of 0..{d - 1}")
    return [t for t in itertools.combinations(range(d), k) if unk & set(t)]


def n_marginals(d: int, n_unknown: int, k: int = 3) -> int:
    """m = C(d, k) − C(d − d', k)."""
    return math.comb(d, k) - math.comb(d - n_unknown, k)


@dataclass(frozen=True)
class Layout:
    """Where each marginal's cells sit in the concatenated vector.

    Attributes:
        triples: the attribute sets (each a sorted tuple).
        offsets: start of each marginal in the flat vector (len = m + 1; last = total cells).
        strides: per marginal, the stride of each of its attributes (row-major cells).
    """

    triples: list[tuple[int, ...]]
    offsets: np.ndarray
    strides: np.ndarray

    @property
    def n_cells(self) -> int:
        return int(self.offsets[-1])


def layout(domains: Sequence[int], triples: Sequence[tuple[int, ...]]) -> Layout:
    dom = np.asarray(domains, dtype=np.int64)
    t = np.asarray(triples, dtype=np.int64)
    sizes = dom[t]  # (m, k)
    cells = sizes.prod(axis=1)
    strides = np.ones_like(sizes)
    for j in range(t.shape[1] - 2, -1, -1):
        strides[:, j] = strides[:, j + 1] * sizes[:, j + 1]
    return Layout(
        [tuple(int(v) for v in row) for row in t], np.concatenate([[0], np.cumsum(cells)]), strides
    )


def marginal_counts(records: np.ndarray, domains: Sequence[int], lay: Layout) -> np.ndarray:
    """Exact cell counts of every marginal, concatenated (one bincount over all records and marginals)."""
    x = np.asarray(records, dtype=np.int64)
    t = np.asarray(lay.triples, dtype=np.int64)
    cell = lay.offsets[:-1][None, :] + (x[:, t] * lay.strides[None, :, :]).sum(axis=2)  # (n, m)
    return np.bincount(cell.ravel(), minlength=lay.n_cells).astype(float)


def noise_std(*, epsilon: float, delta: float, m: int) -> float:
    """Count-scale Gaussian std for m marginals jointly (ε, δ)-DP: √(2m) / μ(ε, δ); 0 at ε = ∞."""
    if m < 1:
        raise ValueError("need at least one marginal")
    return accounting.gaussian_sigma(
        epsilon=epsilon, delta=delta, sensitivity=SENSITIVITY_PER_MARGINAL * math.sqrt(m)
    )


def release(
    records: np.ndarray,
    domains: Sequence[int],
    unknown: Sequence[int],
    *,
    epsilon: float,
    delta: float,
    rng: np.random.Generator,
    k: int = 3,
) -> tuple[Layout, np.ndarray, float]:
    """The mechanism: noisy normalised k-way marginals of every set touching an unknown column.

    Returns the layout, the noisy marginals divided by n (Def. A.1's scale; may be negative — no
    post-processing, as in the paper) and the count-scale noise std.
    """
    x = np.asarray(records, dtype=np.int64)
    lay = layout(domains, workload(x.shape[1], unknown, k))
    counts = marginal_counts(x, domains, lay)
    sigma = noise_std(epsilon=epsilon, delta=delta, m=len(lay.triples))
    noisy = counts + (rng.normal(0.0, sigma, size=counts.shape) if sigma > 0 else 0.0)
    return lay, noisy / x.shape[0], sigma
