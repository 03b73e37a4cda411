"""The informed attacker's ceiling on noisy marginals: the exact Bayes posterior attack.

Setting (Swanberg et al. §6): n records, each with known columns k_i and unknown columns U; the
adversary knows the prior of each record's unknown part given its known columns (a Bayesian network,
records independent) and sees the Gaussian release of every marginal touching U,
a = C(X) + N(0, σ² I) on the count scale. The posterior over the unknown part of the dataset is

    π(X_U | a) ∝ Π_i P(x_iU | k_i) · exp(−‖C(X) − a‖² / (2σ²)).

The attacker who maximises the expected number of records whose unknown columns are all right
guesses, per record, the mode of the posterior marginal P(x_iU | a): the Bayes decision, which no
attack beats in expectation (for a window metric |x − z| <= E, the centre of the most probable
window of that marginal). This module computes it:

* :func:`posterior_attack` — Gibbs sampling over the unknown cells, batched over independent
  problems (draws) and chains. The full conditional of record i's column u is the network's
  Markov-blanket conditional times exp(<e_i(v), R_{−i}> / σ²), where e_i(v) are the cells record i
  occupies with x_iu = v and R_{−i} = a − C(X_{−i}) the residual without record i (‖e_i(v)‖² is the
  same for every v). One unknown column: the residual reduces to a fixed linear term minus a
  field Σ_j C(h_ij, 2)[x_j = v] from the other records (h_ij = known columns on which i and j
  agree), updated in O(n) per move. Several columns: each record's whole unknown tuple is one
  block whose full conditional is enumerated over its joint values (exact enumeration where the
  domain is small, ``max_tuples``), the residual a − C(X) gathered on every marginal's sub-grid.
  Posterior marginals are Rao–Blackwellised: the full conditionals averaged over the kept sweeps.
  Records with identical known columns are also permuted among themselves (an exact move that
  joins the modes single-record moves cannot cross at small σ).
* :func:`enumerate_posterior` — the exact posterior by enumerating every assignment of the unknown
  cells (tiny problems: the tests' oracle, and used by :func:`posterior_attack` when the state
  space is small).
* :func:`exact_release_guess` — σ = 0 (ε = ∞, exact marginals), one unknown column: the
  marginals fix the multiset of values of every group of records with identical known columns
  that some pair of known columns isolates; the Bayes guess is the group's most frequent value.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..mechanisms import marginals as mm
from ..models.baynet import BayesNet, conditional_map


@dataclass
class PosteriorResult:
    """The Bayes attack's output for B problems of n records.

    Attributes:
        guess: (B, n, d') the guessed codes of the unknown columns (in ``unknown`` order).
        probs: per unknown column, (B, n, K_u) posterior marginals.
        mass: (B, n) estimated posterior probability of the guessed tuple.
        method: ``gibbs``, ``enumeration`` or ``exact-release``.
        info: diagnostics (sweeps, chains, undetermined groups, …).
    """

    guess: np.ndarray
    probs: list[np.ndarray]
    mass: np.ndarray
    method: str
    info: dict


# --------------------------------------------------------------------------------- helpers


def _check(bn: BayesNet, records, unknown, lay: mm.Layout, noisy):
    records = np.asarray(records, dtype=np.int64)
    if records.ndim != 3 or records.shape[2] != bn.d:
        raise ValueError(f"records must be (B, n, {bn.d}), got shape {records.shape}")
    unknown = [int(u) for u in unknown]
    if not unknown or len(set(unknown)) != len(unknown) or not all(0 <= u < bn.d for u in unknown):
        raise ValueError(f"unknown columns {unknown} must be distinct indices in 0..{bn.d - 1}")
    noisy = np.asarray(noisy, dtype=float)
    if noisy.shape != (records.shape[0], lay.n_cells):
        raise ValueError(
            f"noisy marginals have shape {noisy.shape}, expected ({records.shape[0]}, {lay.n_cells})"
        )
    if any(not (set(t) & set(unknown)) for t in lay.triples):
        raise ValueError("every released marginal must touch an unknown column")
    return records, unknown, noisy


def _cells(x: np.ndarray, lay: mm.Layout) -> np.ndarray:
    """Cell of every record in every marginal: (…, n, m) absolute indices into the cell vector."""
    t = np.asarray(lay.triples, dtype=np.int64)
    return lay.offsets[:-1] + (x[..., t] * lay.strides).sum(axis=-1)


def _counts(x: np.ndarray, lay: mm.Layout) -> np.ndarray:
    """Cell counts per problem: (B, n_cells) from records (B, n, d)."""
    b = x.shape[0]
    cell = _cells(x, lay).reshape(b, -1) + (np.arange(b) * lay.n_cells)[:, None]
    return np.bincount(cell.ravel(), minlength=b * lay.n_cells).reshape(b, -1).astype(float)


def _blanket_logprior(bn: BayesNet, xi: np.ndarray, u: int) -> np.ndarray:
    """log P(x_u = v | the other columns of each row) up to a constant per row: (rows, K_u)."""
    k = bn.domains[u]
    v = np.arange(k)[None, :]
    idx = tuple(xi[:, p][:, None] for p in bn.parents[u]) + (v,)
    with np.errstate(divide="ignore"):
        out = np.log(bn.cpts[u][idx]) * np.ones((xi.shape[0], 1))
        for c in range(bn.d):
            if u in bn.parents[c]:
                cidx = tuple(v if p == u else xi[:, p][:, None] for p in bn.parents[c])
                out = out + np.log(bn.cpts[c][cidx + (xi[:, c][:, None],)])
    return out


def _sample(logits: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Normalised probabilities (rows, K) and one draw per row by the inverse cdf."""
    m = logits.max(axis=1, keepdims=True)
    p = np.exp(logits - m)
    p /= p.sum(axis=1, keepdims=True)
    cdf = np.cumsum(p, axis=1)
    u = rng.random(p.shape[0])[:, None] * cdf[:, -1:]
    return p, np.minimum((u >= cdf).sum(axis=1), p.shape[1] - 1)


def _codes(x: np.ndarray, domains: Sequence[int]) -> np.ndarray:
    """Mixed-radix code of each tuple (…, d') (fits int64 for the data sets here)."""
    code = np.zeros(x.shape[:-1], dtype=np.int64)
    for j, k in enumerate(domains):
        code = code * int(k) + x[..., j]
    return code


def _decode(code: np.ndarray, domains: Sequence[int]) -> np.ndarray:
    out = []
    for k in reversed(list(domains)):
        out.append(code % int(k))
        code = code // int(k)
    return np.stack(out[::-1], axis=-1)


# --------------------------------------------------------------------------------- enumeration


def enumerate_posterior(
    bn: BayesNet,
    records: np.ndarray,
    unknown: Sequence[int],
    lay: mm.Layout,
    noisy: np.ndarray,
    *,
    noise_std: float,
    max_states: int = 1 << 16,
) -> PosteriorResult:
    """The exact posterior by enumerating every assignment of the unknown cells of the dataset.

    ``records`` (B, n, d) (the unknown columns' values are ignored), ``noisy`` (B, n_cells) the
    released marginals on the normalised scale (divided by n, as
    :func:`privrisk.mechanisms.marginals.release` returns them), ``noise_std`` the count-scale σ
    (> 0). Feasible when (Π_u K_u)^n <= ``max_states``.
    """
    records, unknown, noisy = _check(bn, records, unknown, lay, noisy)
    if not noise_std > 0:
        raise ValueError("enumeration needs noise_std > 0 (use exact_release_guess at σ = 0)")
    b, n, _ = records.shape
    doms = [bn.domains[u] for u in unknown]
    per = int(np.prod(doms))
    if per**n > max_states:
        raise ValueError(f"{per}^{n} states exceed max_states = {max_states}")
    tuples = _decode(np.arange(per), doms)  # (per, d')
    states = np.array(list(itertools.product(range(per), repeat=n)), dtype=np.int64)  # (S, n)
    guess = np.zeros((b, n, len(unknown)), dtype=np.int64)
    mass = np.zeros((b, n))
    probs = [np.zeros((b, n, k)) for k in doms]
    joint = np.zeros((b, n, per))
    for e in range(b):
        x = np.repeat(records[e][None], len(states), axis=0)  # (S, n, d)
        x[:, :, unknown] = tuples[states]
        lp = bn.log_prob(x.reshape(-1, bn.d)).reshape(len(states), n).sum(axis=1)
        resid = _counts(x, lay) - noisy[e] * n
        logw = lp - (resid**2).sum(axis=1) / (2 * noise_std**2)
        w = np.exp(logw - logw.max())
        w /= w.sum()
        for i in range(n):
            marg = joint[e, i] = np.bincount(states[:, i], weights=w, minlength=per)
            best = int(np.argmax(marg))
            guess[e, i], mass[e, i] = tuples[best], marg[best]
            for j in range(len(unknown)):
                probs[j][e, i] = np.bincount(tuples[states[:, i], j], weights=w, minlength=doms[j])
    info = {"method": "enumeration", "states": len(states), "joint": joint, "tuples": tuples}
    return PosteriorResult(guess, probs, mass, "enumeration", info)


# --------------------------------------------------------------------------------- ε = ∞


def exact_release_guess(records: np.ndarray, unknown: Sequence[int], lay: mm.Layout) -> tuple:
    """The Bayes guess from exact marginals (σ = 0) of one unknown column.

    Records with identical known columns form a group. If some released marginal's two known
    columns take values that no record outside the group shares, that marginal's cells count the
    group's unknown values exactly: the group's multiset is determined, every member has the same
    posterior (its frequencies), and the Bayes guess is the most frequent value (success: its
    multiplicity). An undetermined group gets the same guess, which is then an upper bound (a genie
    told the multiset); how many records sit in such groups is returned.

    Returns (guess (B, n, 1), mass (B, n), records in undetermined groups per problem (B,)).
    """
    records = np.asarray(records, dtype=np.int64)
    unknown = [int(u) for u in unknown]
    if len(unknown) != 1:
        raise ValueError("exact marginals (σ = 0) are supported for one unknown column")
    (u,) = unknown
    b, n, d = records.shape
    known = [c for c in range(d) if c != u]
    pairs = [tuple(c for c in t if c != u) for t in lay.triples if u in t]
    guess = np.zeros((b, n, 1), dtype=np.int64)
    mass = np.zeros((b, n))
    undetermined = np.zeros(b, dtype=np.int64)
    for e in range(b):
        x = records[e]
        _, gid = np.unique(x[:, known], axis=0, return_inverse=True)
        gid = gid.ravel()
        for g in np.unique(gid):
            members = np.flatnonzero(gid == g)
            vals = x[members, u]
            counts = np.bincount(vals)
            guess[e, members, 0] = int(np.argmax(counts))
            mass[e, members] = counts.max() / len(members)
            rep = x[members[0]]
            isolated = any(
                int(((x[:, list(p)] == rep[list(p)]).all(axis=1)).sum()) == len(members)
                for p in pairs
            )
            if not isolated and len(counts[counts > 0]) > 1:
                undetermined[e] += len(members)
    return guess, mass, undetermined


# --------------------------------------------------------------------------------- Gibbs


def posterior_attack(
    bn: BayesNet,
    records: np.ndarray,
    unknown: Sequence[int],
    lay: mm.Layout,
    noisy: np.ndarray,
    *,
    noise_std: float,
    sweeps: int,
    burn_in: int,
    chains: int,
    rng: np.random.Generator,
    anneal: float = 10.0,
    max_tuples: int = 2048,
    max_states: int = 1 << 12,
) -> PosteriorResult:
    """The Bayes (exact-posterior) attack on B independent problems.

    Args:
        bn: the prior (a Bayesian network; records independent given their known columns).
        records: (B, n, d) codes; only the known columns (not in ``unknown``) are read.
        unknown: the columns to infer.
        lay, noisy: the release's layout and values (B, n_cells), normalised (divided by n).
        noise_std: the count-scale Gaussian σ of the release (public); 0 = exact marginals.
        sweeps, burn_in: Gibbs sweeps over every unknown cell, of which the first ``burn_in``
            are discarded; ``chains`` independent chains per problem (started at the prior's
            MAP, a state of positive probability).
        rng: the random stream of the chains.
        anneal: the burn-in lowers the noise level geometrically from ``anneal``·σ to σ
            (simulated annealing into the bulk of the posterior; 1 = none). Only the kept sweeps,
            at σ itself, enter the estimates.
        max_tuples: several unknown columns are updated as one block whose joint values are
            enumerated; more joint values than this raise ValueError.
        max_states: below this many joint states per problem the posterior is enumerated.
    """
    records, unknown, noisy = _check(bn, records, unknown, lay, noisy)
    b, n, d = records.shape
    doms = [bn.domains[u] for u in unknown]
    if noise_std == 0:
        guess, mass, und = exact_release_guess(records, unknown, lay)
        probs = [np.eye(doms[0])[guess[..., 0]] * mass[..., None]]
        info = {"method": "exact-release", "undetermined": und}
        return PosteriorResult(guess, probs, mass, "exact-release", info)
    if not noise_std > 0:
        raise ValueError(f"noise_std must be >= 0, got {noise_std!r}")
    if int(np.prod(doms)) ** n <= max_states:
        return enumerate_posterior(
            bn, records, unknown, lay, noisy, noise_std=noise_std, max_states=max_states
        )
    if not (sweeps > burn_in >= 0 and chains >= 1):
        raise ValueError(
            f"need sweeps > burn_in >= 0 and chains >= 1, got {sweeps}, {burn_in}, {chains}"
        )
    z0, _ = conditional_map(bn, records.reshape(-1, d), unknown)
    x = np.repeat(records, chains, axis=0)  # element e = problem e // chains, chain e % chains
    x[:, :, unknown] = np.repeat(z0.reshape(b, n, -1), chains, axis=0)
    counts_a = np.repeat(noisy * n, chains, axis=0)
    kept = sweeps - burn_in
    prec = _precisions(noise_std, sweeps, burn_in, anneal)
    if len(unknown) == 1:
        acc = [np.zeros((b * chains, n, doms[0]))]
        _gibbs_one_column(bn, x, unknown[0], lay, counts_a, prec, burn_in, acc, rng)
        joint = acc[0]
    else:
        n_t = int(np.prod(doms))
        if n_t > max_tuples:
            raise ValueError(
                f"the unknown columns have {n_t} joint values, more than max_tuples = {max_tuples}: "
                "the block sampler enumerates them"
            )
        joint = np.zeros((b * chains, n, n_t))
        _gibbs_blocks(bn, x, unknown, lay, counts_a, prec, burn_in, joint, rng)
    # per chain, then pooled over chains: the Rao–Blackwellised joint posterior of each record
    per_chain = joint.reshape(b, chains, n, -1) / kept
    post = per_chain.mean(axis=1)
    tuples = _decode(np.arange(post.shape[-1]), doms)
    best = post.argmax(axis=2)
    guess = tuples[best]
    mass = post.max(axis=2)
    probs = [
        np.stack([post[..., tuples[:, j] == v].sum(axis=-1) for v in range(k)], axis=-1)
        for j, k in enumerate(doms)
    ]
    own = per_chain.argmax(axis=3)  # each chain's own guess
    disagreement = float((own != own[:, :1]).any(axis=1).mean()) if chains > 1 else float("nan")
    info = {
        "method": "gibbs",
        "sweeps": sweeps,
        "burn_in": burn_in,
        "chains": chains,
        "anneal": anneal,
        # fraction of records whose chains' own guesses differ (0: they agree; else poor mixing)
        "chain_disagreement": disagreement,
    }
    return PosteriorResult(guess, probs, mass, "gibbs", info)


def _twin_groups(x: np.ndarray, known: list[int]) -> list[tuple[int, np.ndarray]]:
    """Per element, the groups (of two or more records) with identical known columns."""
    out = []
    for e in range(x.shape[0]):
        _, gid, cnt = np.unique(x[e][:, known], axis=0, return_inverse=True, return_counts=True)
        gid = gid.ravel()
        out += [(e, np.flatnonzero(gid == g)) for g in np.flatnonzero(cnt > 1)]
    return out


def _permute_twins(x, groups, unknown, rng) -> None:
    """A Gibbs step on the arrangement within each twin group: records with identical known
    columns have the same prior and the same effect on every marginal, so the posterior is
    invariant under permuting their unknown values; a uniform permutation is an exact move (it
    joins the modes single-site moves cannot cross at small σ)."""
    for e, members in groups:
        perm = members[rng.permutation(len(members))]
        x[e, members[:, None], unknown] = x[e, perm[:, None], unknown]


def _precisions(sigma: float, sweeps: int, burn_in: int, anneal: float) -> np.ndarray:
    """1/σ_s² per sweep: the burn-in anneals σ_s geometrically from anneal·σ down to σ (at small σ a
    chain started far from the data freezes in a local mode otherwise); kept sweeps use σ."""
    s = np.full(sweeps, float(sigma))
    if burn_in > 0 and anneal > 1:
        s[:burn_in] = sigma * anneal ** (1 - np.arange(burn_in) / burn_in)
    return 1.0 / s**2


def _gibbs_one_column(bn, x, u, lay, counts_a, prec, burn_in, acc, rng):
    """One unknown column: linear term S_i(v) = Σ_t a[cell_t(i, v)] (fixed) minus the field
    F_i(v) = Σ_{j≠i} C(h_ij, 2)[x_j = v] of the other records, both per element."""
    e_all, n, d = x.shape
    k = bn.domains[u]
    known = [c for c in range(d) if c != u]
    h = (x[:, :, None, known] == x[:, None, :, known]).sum(axis=3).astype(float)
    coup = h * (h - 1) / 2  # C(h_ij, 2): marginals (u, a, b) on which i and j agree
    coup[:, np.arange(n), np.arange(n)] = 0.0
    # S: gather each record's cells at every candidate value (marginals all contain u here)
    t_u = [ti for ti, t in enumerate(lay.triples) if u in t]
    s_u = np.array([lay.strides[ti][lay.triples[ti].index(u)] for ti in t_u])
    cur = _cells(x, lay)[:, :, t_u]  # (E, n, m_u)
    base = cur - x[:, :, u][..., None] * s_u
    lin = np.zeros((e_all, n, k))
    for v in range(k):
        lin[:, :, v] = (
            np.take_along_axis(counts_a, (base + v * s_u).reshape(e_all, -1), axis=1)
            .reshape(e_all, n, -1)
            .sum(axis=2)
        )
    logprior = _blanket_logprior(bn, x.reshape(-1, d), u).reshape(e_all, n, k)
    onehot = np.eye(k)[x[:, :, u]]
    field = coup @ onehot  # (E, n, K)
    rows = np.arange(e_all)
    cols = np.arange(n)
    twins = _twin_groups(x, known)
    for sweep in range(len(prec)):
        if twins:
            _permute_twins(x, twins, [u], rng)
            for e, members in twins:  # the field of the others is unchanged (same h, same multiset)
                field[e, members] = coup[e, members] @ np.eye(k)[x[e, :, u]]
        for i in range(n):
            logits = logprior[:, i] + (lin[:, i] - field[:, i]) * prec[sweep]
            p, new = _sample(logits, rng)
            if sweep >= burn_in:
                acc[0][:, i] += p
            old = x[:, i, u]
            moved = new != old
            if moved.any():
                r = rows[moved]
                field[r[:, None], cols[None, :], old[moved][:, None]] -= coup[r, :, i]
                field[r[:, None], cols[None, :], new[moved][:, None]] += coup[r, :, i]
                x[r, i, u] = new[moved]


def _block_plan(x, unknown, lay, domains):
    """Everything a record's block update needs, fixed across sweeps.

    Marginals are grouped by the set S of unknown columns they contain (1 to 3 of them); a group's
    *slots* are the points of its sub-grid (the values of S). Every (marginal, sub-grid point) is an
    *entry* with its cell offset ``ent_off`` within the marginal; entries are sorted by slot so a
    residual gathered at them sums into slots with one ``reduceat``. ``tidx`` (T, groups) is the slot
    of each tuple of the unknown columns in each group, ``gsize`` the marginals per group; ``off_all`` (m, T) every tuple's offset in
    every marginal; ``base`` (E, n, m) every record's cell from its (fixed) known columns."""
    pos = {u: j for j, u in enumerate(unknown)}
    doms = [domains[u] for u in unknown]
    tuples = _decode(np.arange(int(np.prod(doms))), doms)  # (T, d')
    t = np.asarray(lay.triples, dtype=np.int64)
    known_part = np.where(np.isin(t, unknown), 0, x[..., t]) * lay.strides  # (E, n, m, 3)
    base = lay.offsets[:-1] + known_part.sum(axis=-1)
    groups: dict[tuple[int, ...], list[int]] = {}
    for ti, row in enumerate(lay.triples):
        groups.setdefault(tuple(sorted(pos[c] for c in row if c in pos)), []).append(ti)
    ent_t, ent_off, ent_slot, tidx, gsize = [], [], [], [], []
    off_all = np.zeros((len(lay.triples), len(tuples)), dtype=np.int64)
    slot0 = 0
    for key, members in groups.items():
        sizes = [doms[j] for j in key]
        grid = _decode(np.arange(int(np.prod(sizes))), sizes)  # (G, |S|)
        strides = np.array(
            [[lay.strides[ti][lay.triples[ti].index(unknown[j])] for j in key] for ti in members]
        )
        off = strides @ grid.T  # (g, G)
        tmap = np.ravel_multi_index(tuple(tuples[:, j] for j in key), sizes)  # (T,)
        off_all[members] = off[:, tmap]
        ent_t.append(np.repeat(members, len(grid)))
        ent_off.append(off.ravel())
        ent_slot.append(np.tile(np.arange(len(grid)), len(members)) + slot0)
        tidx.append(tmap + slot0)
        gsize.append(len(members))
        slot0 += len(grid)
    ent_t, ent_off, ent_slot = (np.concatenate(a) for a in (ent_t, ent_off, ent_slot))
    order = np.argsort(ent_slot, kind="stable")
    ent_t, ent_off, ent_slot = ent_t[order], ent_off[order], ent_slot[order]
    starts = np.flatnonzero(np.r_[True, ent_slot[1:] != ent_slot[:-1]])
    plan = (ent_t, ent_off, starts, np.stack(tidx, axis=1), np.array(gsize, float), off_all)
    return tuples, base, plan


def _gibbs_blocks(bn, x, unknown, lay, counts_a, prec, burn_in, acc_joint, rng):
    """Block Gibbs: each record's whole unknown tuple at once, its full conditional enumerated over
    the T tuples — prior(tuple | known) · exp(Σ_t R_{−i}[cell_t] / σ²), the residual gathered on
    every marginal's sub-grid of unknown values, summed per sub-grid point and then per tuple.
    Rao–Blackwellised joint marginals are accumulated in ``acc_joint`` (E, n, T)."""
    e_all, n, d = x.shape
    cells = lay.n_cells
    doms = [bn.domains[u] for u in unknown]
    tuples, base, (ent_t, ent_off, starts, tidx, gsize, off_all) = _block_plan(
        x, unknown, lay, bn.domains
    )
    n_t = len(tuples)
    # log prior of every tuple for every record (its known columns never change)
    full = np.repeat(x[:, :, None, :], n_t, axis=2)
    full[..., unknown] = tuples
    logprior = bn.log_prob(full.reshape(-1, d)).reshape(e_all, n, n_t)
    del full
    code = _codes(x[..., unknown], doms)  # (E, n) current tuple of each record
    resid = (counts_a - _counts(x, lay)).ravel()
    eoff = (np.arange(e_all) * cells)[:, None]
    rows = np.arange(e_all)
    twins = _twin_groups(x, [c for c in range(d) if c not in set(unknown)])
    # Σ over groups of every tuple's slot, slot-major and one group after another: bit for bit what
    # slots[:, tidx].sum(axis=2) gives (its fancy-indexed layout also adds the groups in order),
    # 4× faster on the Fig 6a sizes (T ≈ 1,000 tuples, 41 groups, E = 6)
    by_group = [np.ascontiguousarray(tidx[:, j]) for j in range(tidx.shape[1])]
    ll_t, term = np.empty((n_t, e_all)), np.empty((n_t, e_all))
    # where each record's entries sit in the residual: fixed, since its known columns never change
    at_entries = (eoff[None] + base[:, :, ent_t].transpose(1, 0, 2) + ent_off).astype(np.intp)
    for sweep in range(len(prec)):
        if twins:
            _permute_twins(x, twins, unknown, rng)
            for e, members in twins:  # same known columns: base and residual unchanged
                code[e, members] = _codes(x[e, members][:, unknown], doms)
        for i in range(n):
            cur = code[:, i]
            b_i = base[:, i]  # (E, m)
            vals = resid[at_entries[i]]  # (E, L)
            slots = np.add.reduceat(vals, starts, axis=1)
            # R_{−i} = R + record i's own counts: in each group, every marginal has its current
            # cell at the slot of the current tuple
            slots[rows[:, None], tidx[cur]] += gsize
            slots_t = slots.T.copy()
            np.take(slots_t, by_group[0], axis=0, out=ll_t)
            for g in by_group[1:]:
                ll_t += np.take(slots_t, g, axis=0, out=term)
            ll = ll_t.T  # (E, T)
            p, new = _sample(logprior[:, i] + ll * prec[sweep], rng)
            if sweep >= burn_in:
                acc_joint[:, i] += p
            moved = new != cur
            if moved.any():
                r = rows[moved]
                at = (r * cells)[:, None] + b_i[moved]
                resid[at + off_all[:, cur[moved]].T] += 1.0  # distinct cells per marginal
                resid[at + off_all[:, new[moved]].T] -= 1.0
                code[r, i] = new[moved]
                x[np.ix_(r, [i], unknown)] = tuples[new[moved]][:, None, :]


def exact_success(records: np.ndarray, unknown: Sequence[int], guess: np.ndarray) -> np.ndarray:
    """Records with every unknown column guessed right, per problem: (B,)."""
    truth = np.asarray(records)[:, :, [int(u) for u in unknown]]
    return (np.asarray(guess) == truth).all(axis=-1).sum(axis=-1)


__all__ = [
    "PosteriorResult",
    "enumerate_posterior",
    "exact_release_guess",
    "exact_success",
    "posterior_attack",
]
