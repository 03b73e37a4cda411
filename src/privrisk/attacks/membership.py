"""Membership signals of a trained generative model (spec xu2022 §2, §7.5).

* :func:`membership_auc` — P(member score > non-member score) + ½ P(tie) of a 1-d query: the
  signal a model must show before any estimator can say something about it (every model's record
  carries it, per query column).
* :func:`nearest_distances` — Eq. 2's query, the L2 distance to the nearest of the first n
  synthetic samples (Hilprecht et al.'s black-box attack thresholds it), for a whole grid of n
  in one chunked pass.

The threshold adversaries of Hayes et al. (white-box, on D(z)) and Hilprecht et al. (on the
distance) are scored held out in :func:`privrisk.estimators.crossfit.heuristic`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from scipy import stats


def membership_auc(q_in, q_out) -> float:
    """P(member score > non-member score) + ½ P(tie) (Mann–Whitney), for a 1-d query.

    0.5 is no signal; below 0.5 members score *lower* (a heuristic must then flip its direction).
    """
    a, b = np.asarray(q_in, float).ravel(), np.asarray(q_out, float).ravel()
    if len(a) == 0 or len(b) == 0:
        raise ValueError("membership_auc needs members and non-members")
    ranks = stats.rankdata(np.r_[a, b])  # average ranks handle ties as ½
    return float((ranks[: len(a)].sum() - len(a) * (len(a) + 1) / 2) / (len(a) * len(b)))


def query_aucs(scores, member) -> dict[str, float]:
    """AUC of each query column (``d0``, ``d1``, …) and, for several columns, of their maximum."""
    s = np.asarray(scores, float)
    s = s[:, None] if s.ndim == 1 else s
    m = np.asarray(member, bool)
    out = {f"d{j}": membership_auc(s[m, j], s[~m, j]) for j in range(s.shape[1])}
    if s.shape[1] > 1:
        out["max"] = membership_auc(s[m].max(1), s[~m].max(1))
    return out


@torch.no_grad()
def nearest_distances(
    x: torch.Tensor, synthetic: torch.Tensor, sizes: Sequence[int], *, chunk: int = 4096
) -> np.ndarray:
    """(N, len(sizes)): min_{j < n} ||x_i − g_j||₂ for each n in ``sizes`` (Eq. 2, L2 in pixel space).

    One pass over the synthetic set in chunks of ``chunk`` rows keeps a running minimum, read off
    at each size, so memory is O(N · chunk) whatever the synthetic-set size (10⁵ at paper scale).
    Runs on the device of ``x``.
    """
    x, synthetic = torch.as_tensor(x), torch.as_tensor(synthetic)
    sizes = sorted(int(s) for s in sizes)
    if sizes[-1] > len(synthetic):
        raise ValueError(f"largest size {sizes[-1]} exceeds the {len(synthetic)} synthetic samples")
    xf = x.flatten(1).double()
    best = torch.full((len(x),), math.inf, dtype=torch.float64, device=x.device)
    out, k, start = np.empty((len(x), len(sizes))), 0, 0
    while k < len(sizes):
        stop = min(start + chunk, sizes[k])
        g = synthetic[start:stop].flatten(1).double().to(x.device)
        best = torch.minimum(best, torch.cdist(xf, g).min(1).values)
        start = stop
        while k < len(sizes) and sizes[k] == start:
            out[:, k] = best.cpu().numpy()
            k += 1
    return out
