"""The one family of tests of a membership audit: every bound, the verdict and the p-value.

A membership test says "member" for scores above a threshold. Its false-positive rate FPR and
true-positive rate TPR are unknown; the audit bounds them (FPR from above, TPR from below) at
tests fixed by the design, and every reported number is read off the same bounds:
ε̂(δ) = max over tests of ln((TPR_lo − δ)/FPR_hi) and of the mirror ln((1 − δ − FPR_hi)/(1 −
TPR_lo)); μ̂ = max Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi); a claimed trade-off f is refuted when some test
has 1 − TPR_lo < f(FPR_hi). The error budget α = 1 − confidence is spread over the bounds in
advance (weighted Bonferroni), each bound at level α × its share, so that all hold together with
probability at least 1 − α whatever the scores' distributions. Three parts, shares fixed from
the design alone (never from the scores):

* **centre** (30 % of α): the tests "score > the k-th largest non-member" at k/(n+1) = FPR
  0.5, 0.3, 0.15, 0.05, 0.01 — where a Gaussian trade-off curve (μ) is measured best;
* **tails** (45 %): 8 geometric k per side (k = 1 … n/2) on the non-members' order statistics
  and, mirrored, on the members' ("non-member below the k-th smallest member") — where ε is
  decided on continuous scores;
* **bands** (25 %): two simultaneous one-sided bands, on the non-members' survival (upper) and the
  members' (lower), at checkpoint order statistics (every k ≤ 50 from each end, then a ratio of
  1.02). By monotonicity they bound the FPR and TPR of *every* threshold — every distinct score,
  both edges of every tied block — so discrete and tied scores lose nothing to a grid that misses
  their edges, and a tie never counts against the attack.

Why each bound is exact (no assumption on the distributions): with thresholds at the k-th
largest non-member x₍ₖ₎, the test's FPR is stochastically at most the k-th smallest of n uniforms,
Beta(k, n − k + 1) (ties only make it smaller), and given the non-members the members above it are
Binomial(n_members, TPR) (Clopper–Pearson). The bands use the same two facts for all order
statistics at once: FPR(t) ≤ U₍ⱼ₊₁₎ for a threshold with j non-members at or above it, and
TPR(t) ≥ U'₍ᵢ₎ with i members at or above it, each U₍ₖ₎ bounded at its checkpoint.

The shares follow the design's needs (μ in the centre, ε in the tails on continuous scores, the
bands for tied edges). Said plainly: the first choice, (40, 30, 30) % with 12 tail tests per side,
was changed once, to (30, 45, 25) % with 8, after measuring it against the all-thresholds
reference on Gaussian scores; docs/audit.md gives how every figure moves with the shares (a few
per cent). The numbers of canaries alone set which tests exist.

Everything is vectorised over a leading axis of independent trials (members (T, n_m)), so a
simulation of a thousand audits is one array computation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

#: false-positive rates of the centre tests (where a μ-GDP curve is measured with least variance)
CENTRAL_FPRS = (0.5, 0.3, 0.15, 0.05, 0.01)
#: tail tests per side, geometric in k from 1 to n/2
GEOMETRIC_POINTS = 8
#: the bands' checkpoints: every k up to this from each end, then geometric with BAND_RATIO
BAND_EXACT = 50
BAND_RATIO = 1.02
#: shares of α (fixed from the design, see the module docstring; they sum to 1)
SHARE_CENTRE, SHARE_TAILS, SHARE_BANDS = 0.3, 0.45, 0.25


def geometric(n: int, points: int = GEOMETRIC_POINTS) -> np.ndarray:
    top = max(1, n // 2)
    return np.unique(np.ceil(np.geomspace(1, top, points)).astype(int))


def central(n: int, fprs=CENTRAL_FPRS) -> np.ndarray:
    return np.unique(np.clip(np.round(np.asarray(fprs) * (n + 1)).astype(int), 1, n))


def checkpoints(n: int) -> np.ndarray:
    """Order statistics (1 … n) at which a band is bounded: dense at both ends, geometric between."""
    exact = np.arange(1, min(n, BAND_EXACT) + 1)
    steps = int(np.ceil(np.log(max(n / 2, BAND_EXACT) / BAND_EXACT) / np.log(BAND_RATIO))) + 1
    geo = np.ceil(BAND_EXACT * BAND_RATIO ** np.arange(steps)).astype(int)
    half = np.concatenate([exact, geo[geo <= n]])
    return np.unique(np.concatenate([half, n + 1 - half]))


@dataclass(frozen=True)
class Design:
    """The tests and their shares of α, from the numbers of members and non-members alone."""

    n_members: int
    n_nonmembers: int
    high: np.ndarray  # k of "member above the k-th largest non-member" (grid ∪ band checkpoints)
    high_share: np.ndarray  # share of α per bound of each high test from the grid (0: band only)
    low: np.ndarray  # k of "non-member below the k-th smallest member"
    low_share: np.ndarray
    band_n: np.ndarray  # checkpoints on the non-members' order statistics
    band_m: np.ndarray  # checkpoints on the members'
    band_n_share: float  # share per checkpoint bound
    band_m_share: float

    @property
    def size(self) -> int:
        return int(self.high.size + self.low.size)


def design(n_members: int, n_nonmembers: int) -> Design:
    n_m, n_n = int(n_members), int(n_nonmembers)
    tails_h, tails_l, centre = geometric(n_n), geometric(n_m), central(n_n)
    per_tail = SHARE_TAILS / (2 * (tails_h.size + tails_l.size))
    per_centre = SHARE_CENTRE / (2 * centre.size)
    band_n, band_m = checkpoints(n_n), checkpoints(n_m)
    high = np.union1d(np.union1d(tails_h, centre), band_n)
    share = np.isin(high, tails_h) * per_tail + np.isin(high, centre) * per_centre
    return Design(
        n_members=n_m,
        n_nonmembers=n_n,
        high=high,
        high_share=share,
        low=tails_l,
        low_share=np.full(tails_l.size, per_tail),
        band_n=band_n,
        band_m=band_m,
        # one one-sided bound per checkpoint; the two bands split their share equally
        band_n_share=SHARE_BANDS / (2 * band_n.size),
        band_m_share=SHARE_BANDS / (2 * band_m.size),
    )


def _upper(level, k, n):
    """Exact upper bound of the k-th smallest of n uniforms (a false rate) at ``level``."""
    return special.betainccinv(k, n - k + 1, level)  # Beta(k, n − k + 1).isf(level)


def _lower(level, c, n):
    """Clopper–Pearson lower bound of c successes out of n (0 at c = 0) at ``level``."""
    c = np.asarray(c)
    with np.errstate(invalid="ignore"):
        lo = special.betaincinv(np.maximum(c, 1), n - c + 1, level)  # Beta.ppf(level)
    return np.where(c > 0, lo, 0.0)


@dataclass(frozen=True)
class Evidence:
    """One or T audits' counts at the design's tests: ``tp`` (T, K_high) members above each high
    test's threshold, ``tn`` (T, K_low) non-members below each low test's."""

    design: Design
    tp: np.ndarray
    tn: np.ndarray

    def bounds(self, alpha) -> tuple[np.ndarray, np.ndarray]:
        """(true-rate lower bounds, false-rate upper bounds), each (T, K), with the budget
        ``alpha`` (a scalar, or (T,) for one level per trial): TPR and FPR for the high tests,
        TNR and FNR for the low ones."""
        d = self.design
        a = np.asarray(alpha, float).reshape(-1, 1)
        n_m, n_n = d.n_members, d.n_nonmembers
        grid = d.high_share > 0
        f_grid = np.where(grid, _upper(a * np.where(grid, d.high_share, 1.0), d.high, n_n), 1.0)
        f_band = _upper(a * d.band_n_share, d.band_n, n_n)
        at = np.searchsorted(d.band_n, d.high, side="left")  # smallest checkpoint >= k
        f_high = np.minimum(f_grid, f_band[:, at])
        t_grid = np.where(grid, _lower(a * np.where(grid, d.high_share, 1.0), self.tp, n_m), 0.0)
        t_band_cp = _lower(a * d.band_m_share, d.band_m, n_m)  # (T or 1, M)
        below = np.searchsorted(d.band_m, self.tp, side="right") - 1  # largest checkpoint <= tp
        t_band_cp = np.broadcast_to(t_band_cp, (self.tp.shape[0], d.band_m.size))
        t_band = np.where(
            below >= 0, np.take_along_axis(t_band_cp, np.maximum(below, 0), axis=1), 0.0
        )
        t_high = np.maximum(t_grid, t_band)
        t_low = _lower(a * d.low_share, self.tn, n_n)
        f_low = _upper(a * d.low_share, d.low, n_m) * np.ones_like(t_low)
        f_high = f_high * np.ones_like(t_high)
        return np.concatenate([t_high, t_low], axis=1), np.concatenate([f_high, f_low], axis=1)


def above_counts(pos: np.ndarray, neg: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """(T, K): how many of each row's ``pos`` lie strictly above its k-th largest ``neg``, for
    every k in ``ks`` (1-based); one sort of each side per row."""
    pos, neg = np.atleast_2d(pos), np.atleast_2d(neg)
    if ks.size == 0:
        return np.zeros((pos.shape[0], 0), int)
    p_asc = np.sort(pos, axis=1)
    n_desc = -np.sort(-neg, axis=1)
    s = n_desc[:, ks - 1]
    out = np.empty(s.shape, int)
    for r in range(s.shape[0]):  # per row: searchsorted is not vectorised over rows
        out[r] = pos.shape[1] - np.searchsorted(p_asc[r], s[r], side="right")
    return out


def evidence(members, nonmembers) -> Evidence:
    """The counts of T audits (members (T, n_m), non-members (T, n_n))."""
    m, x = np.atleast_2d(np.asarray(members, float)), np.atleast_2d(np.asarray(nonmembers, float))
    d = design(m.shape[1], x.shape[1])
    return Evidence(d, above_counts(m, x, d.high), above_counts(-x, -m, d.low))


def evidence_sorted(members_asc: np.ndarray, nonmembers_asc: np.ndarray) -> Evidence:
    """:func:`evidence` of one audit whose scores are already sorted in increasing order."""
    m, x = members_asc, nonmembers_asc
    d = design(m.size, x.size)
    s_high = x[x.size - d.high]  # k-th largest non-member
    tp = m.size - np.searchsorted(m, s_high, side="right")
    s_low = m[d.low - 1]  # k-th smallest member
    tn = np.searchsorted(x, s_low, side="left")  # non-members strictly below
    return Evidence(d, tp[None, :], tn[None, :])


def best_outcome(n_members: int, n_nonmembers: int) -> Evidence:
    """The evidence of perfectly separated scores (every member above every non-member): the
    strongest outcome a design of these sizes can give."""
    d = design(n_members, n_nonmembers)
    return Evidence(
        d, np.full((1, d.high.size), d.n_members), np.full((1, d.low.size), d.n_nonmembers)
    )


# --- statistics of the bounds: every reported number is one of these --------------------------


def frontier(t_lo: np.ndarray, f_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One trial's bounds (K,) without the dominated tests (another has a higher or equal true
    rate and a lower or equal false rate): every statistic below is increasing in the true rate
    and decreasing in the false rate, so it is the same on the frontier, which is much smaller."""
    order = np.lexsort((-t_lo, f_hi))  # by false rate, ties: highest true rate first
    t, f = t_lo[order], f_hi[order]
    best_before = np.r_[-np.inf, np.maximum.accumulate(t)[:-1]]
    keep = t > best_before
    return t[keep], f[keep]


def epsilon_at(t_lo, f_hi, delta) -> np.ndarray:
    """ε̂(δ): max over tests of ln((T − δ)/F) and ln((1 − δ − F)/(1 − T)), floored at 0; (T, K)
    bounds and δ scalar → (T,), δ (D,) → (T, D). The (ε, δ)-DP trade-off f_{ε,δ} is refuted
    exactly when ε̂(δ) > ε (the two pieces of f_{ε,δ})."""
    dl = np.asarray(delta, float)
    t = t_lo[..., None] if dl.ndim else t_lo
    f = f_hi[..., None] if dl.ndim else f_hi
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.log(np.maximum(t - dl, 0.0)) - np.log(f)
        down = np.log(np.maximum(1.0 - dl - f, 0.0)) - np.log1p(-t)
    e = np.maximum(np.where(np.isnan(up), -np.inf, up), np.where(np.isnan(down), -np.inf, down))
    axis = -2 if dl.ndim else -1
    return np.maximum(np.max(e, axis=axis, initial=0.0), 0.0)


def mu_of(t_lo, f_hi) -> np.ndarray:
    """μ̂: max over tests of Φ⁻¹(T) − Φ⁻¹(F), floored at 0 (G_μ is refuted exactly when μ̂ > μ;
    G_μ is symmetric, so the mirror is the same number)."""
    with np.errstate(invalid="ignore"):
        m = special.ndtri(t_lo) - special.ndtri(f_hi)
    m = np.where(np.isnan(m), -np.inf, m)
    return np.maximum(np.max(m, axis=-1, initial=0.0), 0.0)


def advantage_of(t_lo, f_hi) -> np.ndarray:
    """A lower bound on the largest TPR − FPR of any test (both orientations), floored at 0."""
    return np.maximum(np.max(t_lo - f_hi, axis=-1, initial=0.0), 0.0)
