"""The batched RAP objective ‖Q(X') − a‖² in Gram form, with every term fused across marginals.

With known columns fixed, record i's relaxed contribution to a marginal t is the outer product of
its rows of the unknown columns U_t ⊆ t, placed at the cells matching its known values. So

    n²‖Q‖² = Σ_ij Σ_t [i, j agree on t's known columns] Π_{u∈U_t} <p_iu, p_ju>.

A triple with one unknown column has two known ones, a triple with two unknown columns one known,
and a triple of three unknown columns none; with h_ij the number of known columns on which records
i and j agree and G_u = P_u P_uᵀ this sums to Σ_ij [C(h_ij, 2) e₁(G) + h_ij e₂(G) + e₃(G)]
(e_k the elementary symmetric polynomials of the G_u, pointwise; no scatter over cells).

The cross term n<Q, a> is linear in the single rows p_iu, in the pair outer products p_iu ⊗ p_iv
and in the triple outer products. Per-marginal loops (one small batched mat-vec per marginal) made
the step cost grow with the number of marginals in *operations*, not in arithmetic: at d' = 13 ACS
columns, 286 all-unknown triples and 78 pairs meant ~2,000 tiny kernels per step. Here the
coefficients are laid out once so that each term is a few large operations:

* rows: R = [p_i0 | p_i1 | …] (n, K) and singles coefficients S (n, K): lin₁ = Σ S ∘ R;
* pairs: the outer products of every pair (j < k), grouped by k, O_k = R_{<k} ⊗ p_k (n, s_k K_k)
  (s_k = K_0 + … + K_{k−1}), one broadcast product per k; W_k (n, s_k K_k) the coefficients of the
  marginals with one known column (gathered at each record's known value): lin₂ = Σ_k Σ W_k ∘ O_k;
* triples (all unknown, no record offset): the triples closing group k's pairs with a column m > k
  have their noisy marginals laid out as A_k (s_k K_k, K_{k+1} + …), and the rows of those columns
  are a contiguous slice R_{>k}: lin₃ = Σ_k Σ (O_k A_k) ∘ R_{>k} — one GEMM per unknown column, no
  padding and no slicing of the (large) outer products, whose backward would allocate them anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..mechanisms.marginals import Layout


def marginal_coefficients(
    x: np.ndarray, domains: Sequence[int], pos: dict[int, int], lay: Layout, noisy: np.ndarray
):
    """Per marginal, its noisy cells as coefficients of the unknown columns' relaxed rows: yields
    (key, g) with ``key`` the sorted positions (in ``unknown``) of its unknown columns and ``g``
    (B, n, K_u…) the cells at each record's known values, or (B, K_u…) when all are unknown."""
    b = x.shape[0]
    bidx = np.arange(b)[:, None]
    for ti, t in enumerate(lay.triples):
        kp = [j for j, c in enumerate(t) if c not in pos]
        up = [j for j, c in enumerate(t) if c in pos]
        if not up:
            raise ValueError(f"marginal {t} has no unknown column; the attack needs none of those")
        block = noisy[:, lay.offsets[ti] : lay.offsets[ti + 1]].reshape(
            (b,) + tuple(domains[c] for c in t)
        )
        block = block.transpose([0] + [1 + j for j in kp] + [1 + j for j in up])
        key = [pos[t[j]] for j in up]
        order = np.argsort(key)
        key = tuple(key[o] for o in order)
        if kp:
            g = block[(bidx,) + tuple(x[:, :, t[j]] for j in kp)]  # (B, n, K_u...)
            yield key, g.transpose([0, 1] + [2 + int(o) for o in order])
        else:
            yield key, block.transpose([0] + [1 + int(o) for o in order])


def quadratic(probs: Sequence[torch.Tensor], h: torch.Tensor) -> torch.Tensor:
    """n² × the quadratic term ‖Q(X')‖² (B,) from the records' agreeing known columns ``h``."""
    grams = [torch.bmm(p, p.transpose(1, 2)) for p in probs]
    e1 = sum(grams)
    quad = (h * (h - 1) / 2 * e1).sum(dim=(1, 2))
    if len(grams) > 1:
        p2 = sum(g * g for g in grams)
        quad = quad + (h * (e1 * e1 - p2) / 2).sum(dim=(1, 2))
        if len(grams) > 2:
            p3 = sum(g * g * g for g in grams)
            quad = quad + ((e1**3 - 3 * e1 * p2 + 2 * p3) / 6).sum(dim=(1, 2))
    return quad


@dataclass
class GramPlan:
    """Constants of the objective for B batch elements (tensors, batch first).

    h (B, n, n) agreeing known columns; S (B, n, K) singles; per pair group k ≥ 1, W[k]
    (B, n, s_k K_k) pair coefficients (absent when every column is unknown) and A[k]
    (B, s_k K_k, K_{k+1} + …) triple coefficients (absent for the last column); ``starts`` the
    offsets of the unknown columns in R; const = ‖a‖² (B,).
    """

    h: torch.Tensor
    S: torch.Tensor
    W: dict[int, torch.Tensor]
    A: dict[int, torch.Tensor]
    starts: list[int]
    const: torch.Tensor


def gram_plan(
    records: np.ndarray,
    domains: Sequence[int],
    unknown: Sequence[int],
    lay: Layout,
    noisy: np.ndarray,
    dtype: torch.dtype = torch.float64,
) -> GramPlan:
    """Lay out the coefficients of ``noisy`` (B, cells) for records (B, n, d) and ``unknown``."""
    x = np.asarray(records, dtype=np.int64)
    b, n, d = x.shape
    unknown = [int(u) for u in unknown]
    pos = {u: j for j, u in enumerate(unknown)}
    sizes = [int(domains[u]) for u in unknown]
    starts = list(np.concatenate([[0], np.cumsum(sizes)]).astype(int))
    # k-group of O: pairs (j, k), j < k, entries ((j, a), b) row-major: s_k · K_k entries
    known = [c for c in range(d) if c not in pos]
    h = (x[:, :, None, known] == x[:, None, :, known]).sum(axis=3).astype(float)
    S = np.zeros((b, n, starts[-1]))
    groups = range(1, len(unknown))
    W = {k: np.zeros((b, n, starts[k] * sizes[k])) for k in groups} if known else {}
    A = {
        k: np.zeros((b, starts[k] * sizes[k], starts[-1] - starts[k + 1]))
        for k in groups
        if k + 1 < len(unknown)
    }
    for key, g in marginal_coefficients(x, domains, pos, lay, noisy):
        if len(key) == 1:
            (j,) = key
            S[:, :, starts[j] : starts[j + 1]] += g
        elif len(key) == 2:
            j, k = key
            lo = starts[j] * sizes[k]
            W[k][:, :, lo : lo + sizes[j] * sizes[k]] += g.reshape(b, n, -1)
        else:
            j, k, m = key
            lo, col = starts[j] * sizes[k], starts[m] - starts[k + 1]
            A[k][:, lo : lo + sizes[j] * sizes[k], col : col + sizes[m]] += g.reshape(
                b, sizes[j] * sizes[k], sizes[m]
            )
    as_t = lambda a: torch.as_tensor(a, dtype=dtype)  # noqa: E731
    return GramPlan(
        as_t(h),
        as_t(S),
        {k: as_t(w) for k, w in W.items()},
        {k: as_t(a) for k, a in A.items()},
        starts,
        as_t((noisy**2).sum(axis=1)),
    )


def gram_loss(probs: Sequence[torch.Tensor], plan: GramPlan) -> torch.Tensor:
    """Per-element ‖Q(X') − a‖² (B,) from the relaxed rows (B, n, K_u) of the unknown columns."""
    n = probs[0].shape[1]
    quad = quadratic(probs, plan.h)
    rows = torch.cat(list(probs), dim=2) if len(probs) > 1 else probs[0]
    lin = (plan.S * rows).sum(dim=(1, 2))
    bsz = rows.shape[0]
    for k in range(1, len(probs)):
        outer = (rows[:, :, : plan.starts[k], None] * probs[k][:, :, None, :]).reshape(bsz, n, -1)
        if k in plan.W:
            lin = lin + (plan.W[k] * outer).sum(dim=(1, 2))
        if k in plan.A:
            lin = lin + (torch.bmm(outer, plan.A[k]) * rows[:, :, plan.starts[k + 1] :]).sum(
                dim=(1, 2)
            )
    return quad / n**2 - 2 * lin / n + plan.const
