"""RAP-based multi-attribute inference (M-AI) from noisy k-way marginals (Swanberg et al. §6.1).

Relaxed Adaptive Projection (Aydore et al. 2021), as used for reconstruction by Dick et al.
(2023), with the paper's three changes: the target marginals are the *noisy* release; the known
columns of every record are fixed one-hot rows that are never updated (so row i of the
reconstruction is record i's guess); and the unknown columns start from the Bayesian network's
conditional prior given the record's known columns.

Relaxation: each unknown column of each row is a probability vector softmax(logits). The relaxed
marginal of an attribute set is the average over rows of the outer product of its columns'
vectors. Because known columns are one-hot, a record contributes to a marginal only in the cells
that match its known values: its contribution is the outer product of its *unknown* columns'
vectors placed at a record-specific offset. We precompute, for every (record, sub-cell) pair, the
flat cell index and the three feature indices, so one step is one gather (three column lookups),
one product and one ``index_add`` over all marginals at once. The loss is ‖Q(X') − a‖² on the
normalised scale, minimised with Adam; the result is rounded by argmax per column.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..mechanisms.marginals import Layout

log = logging.getLogger(__name__)


@dataclass
class RapResult:
    """Attack output: ``guess`` (n, d') codes of the unknown columns (in ``unknown`` order),
    ``probs`` the relaxed rows per unknown column, ``loss`` the objective every ``log_every``,
    ``steps_run`` the number of Adam steps taken."""

    guess: np.ndarray
    probs: list[np.ndarray]
    loss: list[float]
    steps_run: int = 0


def _index_plan(records: np.ndarray, domains: Sequence[int], unknown: Sequence[int], lay: Layout):
    """Split the marginals into a scatter part and a dense part.

    Scatter part (marginals with a known column): per (record, sub-cell) the flat cell index and
    per sub-cell the three feature columns (the constant-1 column where a position is known).
    Dense part (all columns unknown): no record-specific offset, so each marginal is a plain
    contraction over records, computed as one einsum (BLAS) instead of n x cells gathers.
    """
    unknown = [int(u) for u in unknown]
    col_start = {}
    pos = 0
    for u in unknown:
        col_start[u] = pos
        pos += domains[u]
    one = pos  # index of the constant-1 feature column
    x = np.asarray(records, dtype=np.int64)
    feat, offs, trip, dense = [], [], [], []
    bases = np.zeros((len(lay.triples), x.shape[0]), dtype=np.int64)
    for ti, t in enumerate(lay.triples):
        strides = lay.strides[ti]
        known_pos = [j for j, c in enumerate(t) if c not in col_start]
        unk_pos = [j for j, c in enumerate(t) if c in col_start]
        if not unk_pos:
            raise ValueError(f"marginal {t} has no unknown column; the attack needs none of those")
        if not known_pos:
            dense.append((int(lay.offsets[ti]), tuple(unknown.index(c) for c in t)))
            continue
        bases[ti] = lay.offsets[ti] + sum(x[:, t[j]] * strides[j] for j in known_pos)
        grids = np.array(list(itertools.product(*[range(domains[t[j]]) for j in unk_pos])), dtype=np.int64)
        offs.append((grids * strides[unk_pos][None, :]).sum(axis=1))
        f = np.full((len(grids), 3), one, dtype=np.int64)
        for k, j in enumerate(unk_pos):
            f[:, k] = col_start[t[j]] + grids[:, k]
        feat.append(f)
        trip.append(np.full(len(grids), ti, dtype=np.int64))
    if feat:
        feat, offs, trip = np.concatenate(feat), np.concatenate(offs), np.concatenate(trip)
        cell = bases[trip].T + offs[None, :]  # (n, S)
    else:
        feat, cell = np.zeros((0, 3), dtype=np.int64), np.zeros((x.shape[0], 0), dtype=np.int64)
    # Group the dense marginals by their first two columns (a, b): one GEMM
    # (outer(p_a, p_b))^T @ [p_c for every c of the group] gives all of them; row-major cells
    # (a, b, c) of a marginal are exactly row-major entries of that GEMM's column block of c.
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for off, (a, b, c) in dense:
        groups.setdefault((a, b), []).append((c, off))
    dense_groups, idx_parts = [], []
    for (a, b), members in groups.items():
        ab = domains[unknown[a]] * domains[unknown[b]]
        widths = [domains[unknown[c]] for c, _ in members]
        total = sum(widths)
        col = 0
        block = np.empty((ab, total), dtype=np.int64)
        for (_c, off), w in zip(members, widths, strict=True):
            block[:, col:col + w] = off + np.arange(ab)[:, None] * w + np.arange(w)[None, :]
            col += w
        dense_groups.append((a, b, [c for c, _ in members]))
        idx_parts.append(block.reshape(-1))
    dense_idx = np.concatenate(idx_parts) if idx_parts else np.zeros(0, dtype=np.int64)
    dense = dense_groups
    return feat, cell, dense, dense_idx


def relaxed_marginals(probs: Sequence[torch.Tensor], plan, n_cells: int) -> torch.Tensor:
    """Q(X') on the normalised scale from the unknown columns' relaxed rows."""
    feat, cell, dense, dense_idx = plan
    n = probs[0].shape[0]
    q = torch.zeros(n_cells, dtype=probs[0].dtype)
    if feat.shape[0]:
        g = torch.cat(list(probs) + [torch.ones(n, 1, dtype=probs[0].dtype)], dim=1)
        vals = g[:, feat[:, 0]] * g[:, feat[:, 1]] * g[:, feat[:, 2]]
        q = q.index_add(0, cell.reshape(-1), vals.reshape(-1))
    if dense:
        pieces = []
        for a, b, cs in dense:
            outer = (probs[a][:, :, None] * probs[b][:, None, :]).reshape(n, -1)
            pieces.append((outer.T @ torch.cat([probs[c] for c in cs], dim=1)).reshape(-1))
        q = q.index_add(0, dense_idx, torch.cat(pieces))
    return q / n


def rap_attack(
    records: np.ndarray,
    domains: Sequence[int],
    unknown: Sequence[int],
    lay: Layout,
    noisy: np.ndarray,
    init: Sequence[np.ndarray],
    *,
    steps: int = 500,
    lr: float = 0.05,
    noise_std: float = 0.0,
    prior_weight: float = 0.0,
    stop_at_noise_level: bool = False,
    log_every: int = 50,
) -> RapResult:
    """Run the M-AI attack.

    Args:
        records: (n, d) codes; only the known columns (not in ``unknown``) are read.
        domains: domain sizes.
        unknown: the columns to infer.
        lay, noisy: the released marginals' layout and values (normalised, as from
            ``privrisk.mechanisms.marginals.release``).
        init: per unknown column, (n, |D_u|) initial probabilities (the prior given known columns).
        steps, lr: Adam iterations and learning rate on the logits.
        noise_std: the release's count-scale noise std σ (public: it follows from ε, δ and m).
        stop_at_noise_level: stop once ‖Q(X') − a‖² falls to the expected energy of the noise,
            n_cells·(σ/n)² (Morozov's discrepancy principle). Fitting the noisy marginals more
            closely than the noise itself only fits noise; the paper does not state its stopping
            rule (spec §4(b) [U]), and this one needs only public quantities. With σ = 0 (ε = ∞)
            it runs all ``steps``.
        prior_weight: λ in the objective ‖Q − a‖² − 2τ²λ Σ_i Σ_u <p_iu, log prior_iu>, with
            τ = σ/n the normalised noise std. λ = 0 is the paper's RAP (prior used only as the
            starting point); λ = 1 makes the objective the relaxed negative log posterior of the
            records under the Gaussian release and the prior (a Bayesian variant; at ε = ∞, τ = 0
            and the term vanishes).
    """
    unknown = [int(u) for u in unknown]
    if len(init) != len(unknown):
        raise ValueError("one initial probability table per unknown column expected")
    noisy = np.asarray(noisy, dtype=float)
    if noisy.shape != (lay.n_cells,):
        raise ValueError(f"noisy marginals have shape {noisy.shape}, layout expects ({lay.n_cells},)")
    feat, cell, dense, dense_idx = _index_plan(records, domains, unknown, lay)
    plan = (torch.from_numpy(feat), torch.from_numpy(cell), dense, torch.from_numpy(dense_idx))
    target = torch.as_tensor(noisy, dtype=torch.float32)
    logits = [torch.log(torch.as_tensor(np.clip(p, 1e-6, None), dtype=torch.float32)).requires_grad_(True)
              for p in init]
    opt = torch.optim.Adam(logits, lr=lr)
    n = np.asarray(records).shape[0]
    floor = lay.n_cells * (noise_std / n) ** 2 if stop_at_noise_level else -np.inf
    tau2 = (noise_std / n) ** 2
    log_prior = [torch.log(torch.as_tensor(np.clip(p, 1e-12, None), dtype=torch.float32)) for p in init]
    history, stopped = [], steps
    for step in range(steps):
        opt.zero_grad(set_to_none=True)
        probs = [torch.softmax(z, dim=1) for z in logits]
        loss = ((relaxed_marginals(probs, plan, lay.n_cells) - target) ** 2).sum()
        if prior_weight and tau2 > 0:
            ce = sum((p * lp).sum() for p, lp in zip(probs, log_prior, strict=True))
            loss = loss - 2 * tau2 * prior_weight * ce
        value = float(loss.detach())
        if step % log_every == 0 or step == steps - 1:
            history.append(value)
            log.debug("rap step %d loss %.5f", step, value)
        if value <= floor:
            stopped = step
            break
        loss.backward()
        opt.step()
    with torch.no_grad():
        probs = [torch.softmax(z, dim=1).numpy().astype(float) for z in logits]
    guess = np.stack([p.argmax(axis=1) for p in probs], axis=1)
    return RapResult(guess, probs, history, stopped)
