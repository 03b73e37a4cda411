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
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..mechanisms.marginals import Layout
from .rap_gram import gram_loss, gram_plan

log = logging.getLogger(__name__)
OPTIMISERS = ("adam", "sgd")
_ADAM_BETAS, _ADAM_EPS = (0.9, 0.999), 1e-8  # torch.optim.Adam's defaults


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
        grids = np.array(
            list(itertools.product(*[range(domains[t[j]]) for j in unk_pos])), dtype=np.int64
        )
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
            block[:, col : col + w] = off + np.arange(ab)[:, None] * w + np.arange(w)[None, :]
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


@dataclass
class RapBatchResult:
    """Batched attack output at each checkpoint: ``guess`` (C, B, n, d') codes, ``probs`` per
    unknown column (C, B, n, K_u) relaxed rows, ``loss`` (C, B) objective values there;
    ``checkpoints`` the step counts (C,)."""

    guess: np.ndarray
    probs: list[np.ndarray]
    loss: np.ndarray
    checkpoints: tuple[int, ...]


def _as_batch(value, b: int, name: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != b):
        raise ValueError(f"{name} must be a scalar or have one entry per batch element ({b})")
    return np.broadcast_to(arr, (b,))


def rap_attack_batch(
    records: np.ndarray,
    domains: Sequence[int],
    unknown: Sequence[int],
    lay: Layout,
    noisy: np.ndarray,
    init: Sequence[np.ndarray],
    *,
    checkpoints: Sequence[int],
    lr,
    optimiser="adam",
    noise_std=0.0,
    prior_weight=0.0,
    dtype: torch.dtype = torch.float32,
) -> RapBatchResult:
    """Many RAP attacks as one tensor computation (draws × tuning settings × variants).

    Element b attacks its own records ``records[b]`` (B, n, d) from its own release ``noisy[b]``
    (B, n_cells) starting at ``init[u][b]`` (B, n, K_u), with its own learning rate, optimiser
    (``adam`` | ``sgd``), noise std and prior weight (scalars broadcast). All elements share the
    columns, domains and marginal layout. Every element runs ``max(checkpoints)`` steps; its state
    is recorded after each checkpoint's number of steps, so a grid over the number of steps costs
    one run. The losses of the elements are summed before the backward pass, which leaves each
    element's gradient its own; Adam and SGD are applied per element (Adam as torch.optim.Adam,
    same defaults), so element b equals :func:`rap_attack` with b's inputs and settings.
    """
    unknown = [int(u) for u in unknown]
    records = np.asarray(records, dtype=np.int64)
    if records.ndim != 3:
        raise ValueError("records must be (B, n, d)")
    b, n, _ = records.shape
    noisy = np.asarray(noisy, dtype=float)
    if noisy.shape != (b, lay.n_cells):
        raise ValueError(f"noisy marginals have shape {noisy.shape}, expected ({b}, {lay.n_cells})")
    if len(init) != len(unknown) or any(np.shape(p)[:2] != (b, n) for p in init):
        raise ValueError("one (B, n, K) initial probability table per unknown column expected")
    ckpts = tuple(sorted({int(c) for c in checkpoints}))
    if not ckpts or ckpts[0] < 0:
        raise ValueError("checkpoints must be non-negative step counts")
    opts = _as_batch(optimiser, b, "optimiser")
    if bad := set(opts) - set(OPTIMISERS):
        raise ValueError(f"optimiser {sorted(bad)} not in {OPTIMISERS}")
    lr_t = torch.as_tensor(_as_batch(lr, b, "lr").astype(float), dtype=dtype).reshape(b, 1, 1)
    is_adam = torch.as_tensor(opts == "adam").reshape(b, 1, 1)
    sigma = _as_batch(noise_std, b, "noise_std").astype(float)
    tau2 = torch.as_tensor((sigma / n) ** 2, dtype=dtype)
    lam = torch.as_tensor(_as_batch(prior_weight, b, "prior_weight").astype(float), dtype=dtype)
    plan = gram_plan(records, domains, unknown, lay, noisy, dtype)
    logits = [
        torch.log(torch.as_tensor(np.clip(p, 1e-6, None), dtype=dtype)).requires_grad_(True)
        for p in init
    ]
    log_prior = [torch.log(torch.as_tensor(np.clip(p, 1e-12, None), dtype=dtype)) for p in init]
    m1 = [torch.zeros_like(z) for z in logits]
    m2 = [torch.zeros_like(z) for z in logits]
    (b1, b2), eps = _ADAM_BETAS, _ADAM_EPS
    guesses, probs_out, losses = [], [[] for _ in unknown], []

    def objective():
        probs = [torch.softmax(z, dim=2) for z in logits]
        per = gram_loss(probs, plan)
        ce = sum((p * lp).sum(dim=(1, 2)) for p, lp in zip(probs, log_prior, strict=True))
        return probs, per - 2 * tau2 * lam * ce

    def record(probs, per):
        p_np = [p.detach().numpy().astype(float) for p in probs]
        guesses.append(np.stack([p.argmax(axis=2) for p in p_np], axis=2))
        for j, p in enumerate(p_np):
            probs_out[j].append(p)
        losses.append(per.detach().numpy().astype(float))

    for step in range(ckpts[-1] + 1):
        probs, per = objective()
        if step in ckpts:
            record(probs, per)
        if step == ckpts[-1]:
            break
        grads = torch.autograd.grad(per.sum(), logits)
        t = step + 1
        with torch.no_grad():
            for z, g, mm1, mm2 in zip(logits, grads, m1, m2, strict=True):
                mm1.mul_(b1).add_(g, alpha=1 - b1)
                mm2.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = (mm2.sqrt() / math.sqrt(1 - b2**t)).add_(eps)
                adam = mm1 / denom * (lr_t / (1 - b1**t))
                z.sub_(torch.where(is_adam, adam, lr_t * g))
    return RapBatchResult(
        np.stack(guesses), [np.stack(p) for p in probs_out], np.stack(losses), ckpts
    )


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
    optimiser: str = "adam",
    dtype: torch.dtype = torch.float32,
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
        steps, lr: iterations and learning rate on the logits.
        optimiser: ``adam`` (torch.optim.Adam) or ``sgd`` (plain gradient descent).
        dtype: float32 (default) or float64 (tests comparing against the batched attack).
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
        raise ValueError(
            f"noisy marginals have shape {noisy.shape}, layout expects ({lay.n_cells},)"
        )
    feat, cell, dense, dense_idx = _index_plan(records, domains, unknown, lay)
    plan = (torch.from_numpy(feat), torch.from_numpy(cell), dense, torch.from_numpy(dense_idx))
    if optimiser not in OPTIMISERS:
        raise ValueError(f"optimiser {optimiser!r} not in {OPTIMISERS}")
    target = torch.as_tensor(noisy, dtype=dtype)
    logits = [
        torch.log(torch.as_tensor(np.clip(p, 1e-6, None), dtype=dtype)).requires_grad_(True)
        for p in init
    ]
    opt = torch.optim.Adam(logits, lr=lr) if optimiser == "adam" else torch.optim.SGD(logits, lr=lr)
    n = np.asarray(records).shape[0]
    floor = lay.n_cells * (noise_std / n) ** 2 if stop_at_noise_level else -np.inf
    tau2 = (noise_std / n) ** 2
    log_prior = [torch.log(torch.as_tensor(np.clip(p, 1e-12, None), dtype=dtype)) for p in init]
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
