"""Reconstruction / attribute-inference bounds of Swanberg et al., "Beyond the Worst Case" (v1).

For an ε-DP (or (ε, δ)-DP) mechanism, a product prior over n targets and a decomposable success
metric (number of targets attacked successfully), the number of successes is dominated by a sum of
independent Bernoullis with success probabilities

    β_i = β(ε, p_i) = e^ε / (e^ε − 1 + 1/p_i) = σ(ε + logit p_i),

where p_i is the prior probability that the attack attempt on target i succeeds (the chance a
guess would be right against a perfectly private mechanism). All functions broadcast over their
array arguments with numpy rules and are exact at the edges (p = 0 → 0, p = 1 → 1, ε = 0 → p,
ε = ∞ → 1, δ = 0 → the pure-DP value) without overflow.

Which function for which use:

- One target, one guess (n = k = 1):
  :func:`beta_pure` (Theorem 3.2, ε-DP); :func:`beta_approx` (Theorem 3.3 / Corollary 3.4 for
  (ε, δ)-DP: min(1, β + δ); with a random attack output z, Cor 3.4 is the average over runs of
  ``beta_approx(epsilon=ε, delta=δ, p=p(z_run))``); :func:`beta_one_run` (Theorem 3.5: β + (1 − β)δ, equal to
  MMC with f_{ε,δ} at p = 1/K).
- n targets in one run (tabular attacks): per-record ``betas = beta_multi(epsilon=ε, p=p_star)``
  with p_star the prior probability of each record's a-priori Bayes-optimal guess, then
  ``success_quantiles(betas, (0.05, 0.5, 0.95), delta=δ)`` → the high-probability upper bounds
  v_UB on the number of successes (Theorem 3.5: the paper's LP, in closed form while nδ <= 1;
  ``bound_tail_multi`` gives the whole tail Pr[#successes >= v]; ``success_quantiles_many`` the
  same bounds for many rows of β, each at its own δ, as the card's search over a privacy profile
  asks). ``beta_multi(epsilon=ε, delta=δ, p=p, n=n)`` bounds one record's success probability in
  such a run, min(1, β_i + (1 − β_i) n δ).
- Advantage: :func:`advantage` ((Posterior − Prior)/(1 − Prior)), :func:`advantage_bound`
  (Cor 3.4 for one canary, the paper's figures), :func:`advantage_one_run` (Theorem 3.5, n = 1,
  consistent with :func:`beta_one_run`; the risk card's), :func:`epsilon_protect` and
  :func:`epsilon_protect_one_run` (largest ε with Adv <= 0.05, closed forms).
- Prior work: :func:`rero_pure` (Balle et al., min(1, e^ε p)), :func:`mmc_fdp` and
  :func:`mmc_gdp` (Mahloujifar et al.'s one-guess bound at the uniform prior 1/K, with the
  trade-off functions f_{ε,δ} and G_μ; μ from :func:`privrisk.accounting.gdp_mu`).
- :func:`leaked_bits` (Section 3.2), :func:`poisson_binomial_pmf`, :func:`tail_probabilities`.
- A ceiling on any attack at a given Gaussian release (not a DP bound: it uses the release's noise):
  :func:`bayes_success_revealed` (one record, every other record revealed, exact quadrature),
  :func:`bayes_window_success_revealed` (the same for an L1 window, Monte Carlo) and
  :func:`max_bayes_gain_binary` (its largest gain over the prior for a binary column, any prior).

Quantile convention: v_UB(c) = min{v : Pr[#successes > v] <= 1 − c}, i.e. ``binom.ppf(c, n, β)``
for equal β and δ = 0; it reproduces the paper's SEX example (β = 0.7758, n = 100 → 84 at 95 %).

Keyword-only: ε, δ, μ and the threat-model scalars (p, K, alpha, threshold, n) in every function
(``beta_pure(epsilon=1.0, p=0.56)``, ``mmc_gdp(mu=…, K=…)``); the array ``betas`` (and ``levels``)
stay positional.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from .core import check_epsilon_p, sigmoid_shift


def _eps_p(epsilon, p):
    return check_epsilon_p(epsilon=epsilon, p=p, p_name="prior success probabilities p")


def _check_delta(delta):
    d = np.asarray(delta, dtype=float)
    if np.any(np.isnan(d)) or np.any((d < 0) | (d >= 1)):
        raise ValueError("delta must be in [0, 1)")
    return d


def beta_pure(*, epsilon, p):
    """Theorem 3.2: β(ε, p) = e^ε / (e^ε − 1 + 1/p), computed as σ(ε + logit p)."""
    eps, p = _eps_p(epsilon, p)
    return sigmoid_shift(eps, p)


def beta_multi(*, epsilon, delta=None, p=None, n=None):
    """Per-record quantities of Theorem 3.5 (one run of the mechanism, n targets).

    Two call forms (the δ-free one is what the count quantiles need):

    - ``beta_multi(epsilon=ε, p=p)``: the per-record β_i = β(ε, p_i) (δ-free), where p_i is the
      prior probability of the a-priori Bayes-optimal guess z*_i for record i (e.g. its MAP
      probability). Feed these to :func:`success_quantiles` / :func:`bound_tail_multi` with
      ``delta=δ``: they add the closed-form λ(v)·n·δ correction to the tail of Σ S_i.
    - ``beta_multi(epsilon=ε, delta=δ, p=p, n=n)``: the Theorem 3.5 bound on the probability that
      one given record is attacked successfully in a run with n targets,
      min(1, β_i + (1 − β_i)·n·δ) (the theorem applied to that record's indicator: T[1] = β_i,
      λ(1) = 1 − β_i). With n = 1 this is :func:`beta_one_run`.

    Args:
        epsilon: ε >= 0 (∞ allowed), broadcast against p. Keyword-only.
        delta: δ in [0, 1); omitted (None) in the δ-free form. Keyword-only.
        p: prior success probabilities p_i in [0, 1]. Keyword-only.
        n: number of targets in the run (integer >= 1; default 1); only with ``delta``.

    Returns:
        array (or float) broadcast over ε and p.

    Raises:
        TypeError: ``p`` missing, or ``n`` given without ``delta``.
        ValueError: n not an integer >= 1, δ outside [0, 1), ε < 0 or p outside [0, 1].
    """
    if p is None:
        raise TypeError("beta_multi needs p= (the prior success probabilities)")
    if delta is None:  # beta_multi(epsilon=ε, p=p)
        if n is not None:
            raise TypeError(
                "beta_multi(epsilon=, p=) takes no n; use beta_multi(epsilon=, delta=, p=, n=)"
            )
        return beta_pure(epsilon=epsilon, p=p)
    n = 1 if n is None else n
    if int(n) != n or n < 1:
        raise ValueError(f"n (number of targets) must be an integer >= 1, got {n}")
    d = _check_delta(delta)
    b = beta_pure(epsilon=epsilon, p=p)
    out = np.minimum(1.0, b + (1 - b) * n * d)
    return out if np.ndim(out) else float(out)


def beta_approx(*, epsilon, delta, p):
    """Corollary 3.4 / Theorem 3.3 for one target and one guess: min(1, β(ε, p) + δ)."""
    d = _check_delta(delta)
    return np.minimum(1.0, beta_pure(epsilon=epsilon, p=p) + d)


def beta_one_run(*, epsilon, delta, p):
    """Theorem 3.5 for n = 1, v = 1: β + (1 − β)δ (equals MMC with f_{ε,δ} at p = 1/K)."""
    d = _check_delta(delta)
    b = beta_pure(epsilon=epsilon, p=p)
    return b + (1 - b) * d


#: above this many targets the Poisson-binomial pmf is built by FFT convolutions (O(n log² n))
#: rather than one target at a time (O(n²)); below it the exact loop is as fast
_FFT_TARGETS = 2048


def poisson_binomial_pmf(betas) -> np.ndarray:
    """pmf of Σ S_i, S_i ~ Bernoulli(β_i) independent.

    Equal β: the binomial pmf (scipy). Otherwise the exact O(n²) convolution one target at a time,
    or for more than 2,048 targets a tree of FFT convolutions of blocks of 64 (absolute error about
    10⁻¹⁵ per entry, clipped at 0), so that 10⁵ targets take a fraction of a second.
    """
    b = np.asarray(betas, dtype=float).ravel()
    if np.any((b < 0) | (b > 1)) or np.any(np.isnan(b)):
        raise ValueError("betas must lie in [0, 1]")
    if b.size and np.all(b == b[0]):
        return stats.binom.pmf(np.arange(b.size + 1), b.size, b[0])
    if b.size <= _FFT_TARGETS:
        return _pmf_loop(b)
    return _pmf_fft(b)


def _pmf_loop(b: np.ndarray) -> np.ndarray:
    pmf = np.zeros(b.size + 1)
    pmf[0] = 1.0
    for k, q in enumerate(b, start=1):
        pmf[1 : k + 1] = pmf[1 : k + 1] * (1 - q) + pmf[:k] * q
        pmf[0] *= 1 - q
    return pmf


def _pmf_fft(b: np.ndarray, block: int = 64) -> np.ndarray:
    from scipy import signal

    pad = (-b.size) % block
    blocks = np.concatenate([b, np.zeros(pad)]).reshape(-1, block)  # β = 0 adds nothing
    # the exact loop, vectorised over the blocks: (blocks, block + 1) pmfs
    pmf = np.zeros((blocks.shape[0], block + 1))
    pmf[:, 0] = 1.0
    for k in range(1, block + 1):
        q = blocks[:, k - 1 : k]
        pmf[:, 1 : k + 1] = pmf[:, 1 : k + 1] * (1 - q) + pmf[:, :k] * q
        pmf[:, 0] *= 1 - q[:, 0]
    while pmf.shape[0] > 1:
        if pmf.shape[0] % 2:
            one = np.zeros((1, pmf.shape[1]))
            one[0, 0] = 1.0  # the pmf of an empty sum
            pmf = np.vstack([pmf, one])
        pmf = np.clip(signal.fftconvolve(pmf[0::2], pmf[1::2], axes=1), 0.0, None)
    return pmf[0, : b.size + 1]


def tail_probabilities(betas) -> np.ndarray:
    """T[v] = Pr[Σ S_i >= v] for v = 0..n (T[0] = 1)."""
    b = np.asarray(betas, dtype=float).ravel()
    if b.size and np.all(b == b[0]) and 0 <= b[0] <= 1:
        return _binomial_tails(b.size, b[0])
    pmf = poisson_binomial_pmf(b)
    return np.minimum(1.0, np.cumsum(pmf[::-1])[::-1])


def _binomial_tails(n: int, beta) -> np.ndarray:
    """T[0..n] of n targets of one β each (a scalar, or a column of β: one tail per row). The
    binomial survival function keeps its relative precision far in the tail."""
    t = stats.binom.sf(np.arange(-1, n), n, beta)
    t[..., 0] = 1.0
    return np.minimum(1.0, t)


def bound_tail_multi(betas, *, delta: float = 0.0) -> np.ndarray:
    """Theorem 3.5: B[v] = min(1, T[v] + V_v(nδ)), v = 0..n+1, V_v the optimum of the paper's LP.

    The LP of Appendix B (maximise Σ_j q_j T[v − j] over laws q of F with E[F] <= nδ) is, with
    g_j = T[v − j] − T[v] (non-decreasing in j, g_0 = 0), the upper concave envelope of the points
    (j, g_j) at b = nδ: an LP with two constraints has an optimum on at most two j. While b <= 1
    the envelope's first segment, from the origin to the j of largest g_j / j, reaches b, so
    V_v(b) = b·max_j g_j / j = λ(v)·nδ — the paper's closed form, used there. Beyond (large δ, e.g.
    from a privacy profile) the closed form is only an upper bound and the envelope is computed:
    max over i <= b <= k of the mix of (i, g_i) and (k, g_k). The tests compare both with
    ``scipy.optimize.linprog`` for nδ up to 5.

    With δ = 0 this is Theorem 3.2's tail. Index n + 1 is 0 (no more successes than targets).
    """
    d = float(_check_delta(delta))
    t = tail_probabilities(betas)
    n = t.size - 1
    tail = np.append(t, 0.0)  # T[n+1] = 0
    if d == 0 or n == 0:
        return tail
    b = n * d
    # g[v, j] = T[v − j] − T[v] for j = 0..n, T[<= 0] = 1: an (n + 2) × (n + 1) table
    v = np.arange(n + 2)[:, None]
    j = np.arange(n + 1)[None, :]
    prev = np.where(v - j <= 0, 1.0, tail[np.clip(v - j, 0, n + 1)])
    g = np.maximum(prev - tail[:, None], 0.0)
    if b <= 1:
        value = b * np.max(g[:, 1:] / j[:, 1:], axis=1)
    else:
        value = lp_envelope(g, b)
    out = np.minimum(1.0, tail + value)
    out[-1] = 0.0  # never more successes than targets
    return out


def lp_envelope(g: np.ndarray, b: float) -> np.ndarray:
    """max Σ_j q_j g[:, j] over probability vectors q with Σ_j j q_j <= b, one per row of g
    (g non-decreasing along a row, g[:, 0] = 0): the concave envelope of (j, g_j) at b."""
    n = g.shape[1] - 1
    if b >= n:
        return g[:, -1]
    lo = int(math.floor(b))
    best = g[:, lo].copy()  # all mass on j = floor(b) (g non-decreasing: the best pure choice)
    ks = np.arange(lo + 1, n + 1)
    for i in range(lo + 1):  # mixes of i <= b and k > b: q_k = (b − i)/(k − i)
        w = (b - i) / (ks - i)
        best = np.maximum(best, np.max(g[:, [i]] * (1 - w) + g[:, ks] * w, axis=1))
    return best


def lp_value(tail: np.ndarray, v: int, b: float) -> float:
    """V_v(b) of :func:`bound_tail_multi` for one v, in O(n) time and memory.

    ``tail`` is T[0..n] followed by T[n + 1] = 0. The LP max Σ_j q_j g_j over laws q with
    Σ_j j q_j <= b has the dual min over λ >= 0 of λb + max_j (g_j − λj): every λ gives an upper
    bound (weak duality), and the slope of the concave envelope of (j, g_j) at b gives the optimum.
    g's increments are the pmf read downwards from v − 1, and a Poisson-binomial pmf is unimodal,
    so g is convex then concave: its envelope is the tangent from the origin (slope max_j g_j / j,
    the paper's closed form while b is below the tangent point) and then g itself. Those slopes are
    tried (and the neighbouring segments', in case rounding breaks the shape) and the smallest
    bound kept: exact when the shape holds, an upper bound always.
    """
    return _lp_value(tail, v, b, _ones(tail))


def _ones(tail: np.ndarray) -> int:
    """How many leading entries of the tail are 1 (to double precision): T[m] = 1 for m < this."""
    return int(np.searchsorted(-tail, -1.0, side="right"))


def _lp_value(tail: np.ndarray, v: int, b: float, ones: int) -> float:
    """:func:`lp_value` with :func:`_ones` of the tail given (one tail, many v)."""
    n = tail.size - 2
    if b <= 0 or v <= 0:
        return 0.0
    # T[m] = 1 for m < ones (to double precision): g is flat from j = v − ones + 1 on, and a flat
    # stretch adds nothing to the envelope beyond its first point, so j stops there
    top = min(n, max(1, v - ones + 1))
    # g_j = T[v − j] − T[v], j = 0..top, with T[m] = 1 for m <= 0: the tail read backwards from v
    # (a slice, not a gather: this runs a dozen times per level of every quantile)
    k = min(top, v - 1)  # the j with v − j >= 1
    prev = np.ones(top + 1)
    prev[: k + 1] = tail[v - k : v + 1][::-1]
    g = np.maximum(prev - tail[v], 0.0)
    if b >= top:
        return float(g[-1])
    n = top
    j = np.arange(top + 1)
    ratios = g[1:] / j[1:]
    jt = int(ratios.argmax()) + 1
    slopes = [float(ratios[jt - 1])]
    if b > jt:
        k = math.ceil(b)
        slopes += [float(g[i] - g[i - 1]) for i in (k - 1, k, k + 1) if 1 <= i <= n]
    return min(lam * b + float((g - lam * j).max()) for lam in slopes if lam >= 0)


def success_quantiles(betas, levels=(0.05, 0.5, 0.95), *, delta: float = 0.0) -> np.ndarray:
    """High-probability upper bounds v_UB(c) on the number of successes, one per confidence c.

    v_UB(c) = min{v in 0..n : B[v + 1] <= 1 − c}, so that Pr[successes > v_UB] <= 1 − c. For pure
    DP and equal β this is ``binom.ppf(c, n, β)``; it reproduces the paper's SEX example
    (β = 0.7758, n = 100 → 84 at 95 %). Uses the cdf (scipy's poisson_binom.ppf fails for large n).

    B is non-increasing in v (the LP's objective is, for every feasible law), so each level is a
    bisection over v with one O(n) LP value (:func:`lp_value`) per step: 10⁵ targets take well under
    a second. The answer always satisfies B[v + 1] <= 1 − c, so it is a valid bound even where
    rounding makes B not quite monotone.
    """
    d = float(_check_delta(delta))
    levels = _check_levels(levels)
    return _quantiles_of_tail(np.append(tail_probabilities(betas), 0.0), levels, d)


def success_quantiles_many(betas, levels=(0.05, 0.5, 0.95), *, deltas) -> np.ndarray:
    """:func:`success_quantiles` of each row of ``betas`` (k targets' β, one row per mechanism)
    at its own δ (``deltas``, one per row): a (rows, levels) array of the very same numbers, with
    the rows' tails computed in one call where every row has one β for all its targets (one prior
    for every target, the card's usual case: one binomial per row)."""
    b = np.asarray(betas, dtype=float)
    if b.ndim != 2:
        raise ValueError(f"betas must be one row of β per mechanism (2-D), got shape {b.shape}")
    ds = [float(_check_delta(d)) for d in np.asarray(deltas, dtype=float).ravel()]
    if len(ds) != b.shape[0]:
        raise ValueError(f"deltas must be one per row of betas: {len(ds)} for {b.shape[0]} rows")
    levels = _check_levels(levels)
    tails = _tails(b)
    out = np.empty((b.shape[0], levels.size), dtype=int)
    for i, d in enumerate(ds):
        out[i] = _quantiles_of_tail(np.append(tails[i], 0.0), levels, d)
    return out


def _check_levels(levels) -> np.ndarray:
    levels = np.atleast_1d(levels)
    for c in levels:
        if not 0 < c < 1:
            raise ValueError(f"confidence level must be in (0, 1), got {c}")
    return levels


def _tails(b: np.ndarray) -> np.ndarray:
    """:func:`tail_probabilities` of each row of b: one binomial survival function for all rows
    when each row has a single β in [0, 1] (elementwise the same values as row by row)."""
    first = b[:, :1]
    if b.shape[1] and np.all(b == first) and np.all((first >= 0) & (first <= 1)):
        return _binomial_tails(b.shape[1], first)
    return np.array([tail_probabilities(row) for row in b])


def _quantiles_of_tail(tail: np.ndarray, levels: np.ndarray, d: float) -> np.ndarray:
    """:func:`success_quantiles` from the tail T[0..n + 1] (T[n + 1] = 0) at δ = d."""
    n = tail.size - 2
    b = n * d
    ones = _ones(tail)
    known: dict[int, float] = {}  # B[v] by v: the levels' bisections share their first steps

    def at_most(v: int, limit: float) -> bool:  # B[v] <= limit
        if v > n:
            return 0.0 <= limit
        t = float(tail[v])
        if d == 0 or v == 0:
            return t <= limit
        # B[v] = min(1, T[v] + V) decided without the LP where its bounds decide it, so that the
        # bisection takes the very steps (and gives the very answer) it would with V computed:
        # V >= 0 (the law with all mass on j = 0), so B[v] >= T[v] (T <= 1); and V <= b·max_j
        # g_j / j <= b (every g_j <= 1), which the LP value as computed exceeds by rounding only
        # (a few 1e-16), far inside the margins here
        if t > limit:
            return False
        if (t + b * (1 + 1e-12) + 1e-15) * (1 + 1e-12) <= limit:
            return True
        if v not in known:
            known[v] = min(1.0, t + _lp_value(tail, v, b, ones))
        return known[v] <= limit

    out = []
    for c in levels:
        lo, hi = -1, n  # B[n + 1] = 0 <= 1 − c: v = n always qualifies
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if at_most(mid + 1, 1 - c + 1e-12):
                hi = mid
            else:
                lo = mid
        out.append(hi)
    return np.array(out)


def advantage(posterior, prior):
    """Generalised advantage (Posterior − Prior) / (1 − Prior); 0 when the prior is 1."""
    post = np.asarray(posterior, float)
    pr = np.asarray(prior, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(pr >= 1, 0.0, (post - pr) / (1 - pr))
    return out if out.ndim else float(out)


def advantage_bound(*, epsilon, p, delta: float = 0.0):
    """Adv bound from Corollary 3.4 for one target: (β(ε, p) + δ − p) / (1 − p) (the paper's
    Fig. 2/3 bound; :func:`advantage_one_run` is the tighter Theorem 3.5 one)."""
    return advantage(beta_approx(epsilon=epsilon, delta=delta, p=p), p)


def advantage_one_run(*, epsilon, p, delta: float = 0.0):
    """Adv bound from Theorem 3.5 for one target (n = 1): the advantage of
    :func:`beta_one_run`, (β + (1 − β)δ − p) / (1 − p) = (1 − δ)·(β − p)/(1 − p) + δ; never above
    Corollary 3.4's :func:`advantage_bound`, equal to it at δ = 0. Clipped to [0, 1]: at a prior
    within rounding of 1, β − p is rounding noise divided by 1 − p."""
    out = np.clip(advantage(beta_one_run(epsilon=epsilon, delta=delta, p=p), p), 0.0, 1.0)
    return out if out.ndim else float(out)


def epsilon_protect_one_run(*, p, delta: float = 0.0, threshold: float = 0.05):
    """Largest ε with :func:`advantage_one_run` <= threshold (closed form; ∞ if p = 0 and δ small).

    β + (1 − β)δ <= p + t(1 − p) ⟺ β <= s := (p + t(1 − p) − δ)/(1 − δ), so
    ε = logit(s) − logit(p); 0 if s <= p.
    """
    p = np.asarray(p, float)
    if np.any(np.isnan(p)) or np.any((p < 0) | (p >= 1)):
        raise ValueError("p must be in [0, 1)")
    if not 0 < threshold < 1:
        raise ValueError(f"threshold (advantage level) must be in (0, 1), got {threshold}")
    d = float(_check_delta(delta))
    s = (p + threshold * (1 - p) - d) / (1 - d)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(s) + np.log1p(-p) - np.log(p) - np.log1p(-s)
    eps = np.where(s <= p, 0.0, np.where(p == 0, np.inf, np.maximum(eps, 0.0)))
    return eps if eps.ndim else float(eps)


def epsilon_protect(*, p, delta: float = 0.0, threshold: float = 0.05):
    """Largest ε with advantage_bound(ε, p, δ) <= threshold (closed form; ∞ if p = 0 and δ small).

    With t = threshold (1 − p) + p − δ: ε = ln(t (1 − p) / (p (1 − t))); 0 if t <= p.
    """
    p = np.asarray(p, float)
    if np.any(np.isnan(p)) or np.any((p < 0) | (p >= 1)):
        raise ValueError("p must be in [0, 1)")
    if not 0 < threshold < 1:
        raise ValueError(f"threshold (advantage level) must be in (0, 1), got {threshold}")
    _check_delta(delta)
    t = threshold * (1 - p) + p - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(t) + np.log1p(-p) - np.log(p) - np.log1p(-t)
    eps = np.where(t <= p, 0.0, np.where(p == 0, np.inf, eps))
    return eps if eps.ndim else float(eps)


# --- prior work -------------------------------------------------------------------------------


def rero_pure(*, epsilon, p):
    """Balle et al. (2022), pure DP: min(1, e^ε κ) with κ the prior success (heaviest item)."""
    eps, p = _eps_p(epsilon, p)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.minimum(1.0, np.exp(eps) * p)
    out = np.where(p == 0, 0.0, out)
    return out if out.ndim else float(out)


def _mmc(binv, K, *params):
    """max{x in [0, 1] : x + (K − 1) B⁻¹(x) <= 1} for a non-decreasing B⁻¹ (MMC, one guess).

    Vectorised bisection over the broadcast of K and the trade-off parameters (60 halvings reach
    double precision); K = 1 gives 1.
    """
    K = np.asarray(K, dtype=float)
    if np.any(np.isnan(K)) or np.any(K < 1) or np.any(K != np.floor(K)):
        raise ValueError("K (number of equally likely secrets) must be a positive integer")
    arrs = np.broadcast_arrays(K, *[np.asarray(a, dtype=float) for a in params])
    K, params = arrs[0], arrs[1:]
    lo, hi = np.zeros(K.shape), np.ones(K.shape)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        ok = mid + (K - 1) * binv(mid, *params) <= 1.0
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return np.where(K == 1, 1.0, lo)


def _fdp_binv(y, eps, delta):
    # B⁻¹(y): the least probability that a guess is right on a neighbouring input when it is right
    # with probability y on this one; (ε, δ)-DP applied to the event and to its complement gives
    # max(0, (y − δ)e^−ε, 1 − δ − e^ε (1 − y)).
    with np.errstate(over="ignore", invalid="ignore"):
        a = (y - delta) * np.exp(-eps)
        b = 1 - delta - np.exp(eps) * (1 - y)
    return np.maximum(0.0, np.maximum(a, np.nan_to_num(b, nan=-np.inf)))


def _gdp_binv(y, mu):
    return stats.norm.cdf(stats.norm.ppf(y) - mu)


def mmc_fdp(*, epsilon, delta, K):
    """MMC bound with the (ε, δ)-DP trade-off function f_{ε,δ} at uniform prior 1/K.

    Mahloujifar et al.'s one-guess reconstruction bound: the largest x with
    x + (K − 1) B⁻¹(x) <= 1. Equals :func:`beta_one_run` (ε, δ, 1/K) — β + (1 − β)δ — which the
    tests check. Broadcasts over ε, δ and K; ε = ∞ gives 1.
    """
    _check_delta(delta)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise ValueError("epsilon must be >= 0 (inf allowed)")
    out = _mmc(_fdp_binv, K, np.where(np.isinf(eps), 0.0, eps), delta)
    out = np.where(np.isinf(eps) & (np.asarray(K) > 0), 1.0, out)
    return out if out.ndim else float(out)


def mmc_gdp(*, mu, K):
    """MMC bound with the μ-GDP trade-off function G_μ at uniform prior 1/K (broadcasts; μ = ∞ → 1).

    G_μ(α) = Φ(Φ⁻¹(1 − α) − μ); the bound is the largest x with x + (K − 1) Φ(Φ⁻¹(x) − μ) <= 1.
    μ = 0 gives 1/K. For DP-SGD, μ comes from :func:`privrisk.accounting.gdp_mu` (ε, δ).
    """
    m = np.asarray(mu, dtype=float)
    if np.any(np.isnan(m)) or np.any(m < 0):
        raise ValueError("mu must be >= 0 (inf allowed)")
    out = _mmc(_gdp_binv, K, np.where(np.isinf(m), 0.0, m))
    out = np.where(np.isinf(m) & (np.asarray(K) > 0), 1.0, out)
    return out if out.ndim else float(out)


def leaked_bits(*, epsilon, alpha: float = 0.05):
    """Section 3.2: with probability at most α an ε-DP mechanism leaks log2(e^ε (1/α − 1) + 1) bits."""
    eps = np.asarray(epsilon, float)
    return np.log2(np.exp(eps) * (1 / alpha - 1) + 1)


# --- the Gaussian release of one record's cells: a ceiling on any attack ---------------------


def _prior_rows(p) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    if p.ndim == 0 or p.shape[-1] < 2:
        raise ValueError("p must hold a distribution over at least 2 values (last axis)")
    if np.any(np.isnan(p)) or np.any(p < 0) or not np.allclose(p.sum(axis=-1), 1.0, atol=1e-6):
        raise ValueError("each row of p must be a probability vector")
    return p


def _check_mu(mu) -> float:
    m = float(mu)
    if math.isnan(m) or m < 0:
        raise ValueError(f"mu must be >= 0 (inf allowed), got {mu!r}")
    return m


def bayes_success_revealed(*, mu, p, nodes: int = 32):
    """Bayes-optimal probability of guessing one record's value from a Gaussian release in which
    every value moves the record's cells by the same L2 distance, when every other record is
    revealed: an upper bound on the expected success of *any* attack on that record.

    Setting: a release of m marginals, each one cell per value of the record's unknown column
    (Swanberg et al. §6, one unknown column), with count-scale noise σ = √(2m)/μ (μ-GDP). Given the
    other records, the release carries information on record i's value v only through its cells;
    projected on them it is y = s·e_v + N(0, I_K) with s = μ/√2. The Bayes guess maximises
    log p_v + s y_v, and

        success = Σ_v p_v ∫ φ(z) Π_{v' ≠ v} Φ(z + s + (log p_v − log p_{v'}) / s) dz,

    computed with Gauss–Hermite quadrature (``nodes`` points; the integrand is smooth on the unit
    scale: 32 nodes agree with 300 to 3e-7 for 25 values and μ up to 8). Revealing the other records can only help, so Σ_i of this over a dataset bounds the
    expected number of records any attack recovers, for any prior of the others.

    Args:
        mu: GDP parameter of the whole release (keyword-only); 0 gives max p, ∞ gives 1.
        p: prior probabilities of the record's value, shape (..., K) (rows sum to 1).

    Returns:
        array (...) of success probabilities (a float for one row).
    """
    p = _prior_rows(p)
    m = _check_mu(mu)
    if m == 0:
        out = p.max(axis=-1)
    elif math.isinf(m):
        out = np.ones(p.shape[:-1])
    else:
        s = m / math.sqrt(2.0)
        z, w = np.polynomial.hermite_e.hermegauss(nodes)
        w = w / math.sqrt(2 * math.pi)
        lp = np.log(np.where(p > 0, p, 1.0))
        # (…, v, v') log-prior differences; a value without mass never competes (and never wins)
        diff = np.where(p[..., None, :] > 0, lp[..., :, None] - lp[..., None, :], np.inf)
        arg = z + s + diff[..., None] / s  # (…, v, v', Q)
        logphi = special.log_ndtr(arg)
        same = special.log_ndtr(z + s)  # the v' = v term, removed from the product
        win = np.exp(logphi.sum(axis=-2) - same) @ w  # (…, v)
        out = np.where(p > 0, p * win, 0.0).sum(axis=-1)
    return out if np.ndim(out) else float(out)


def bayes_window_success_revealed(*, mu, p, radii, draws: int = 4000, rng=None):
    """As :func:`bayes_success_revealed` for the window metric |X − z| <= E (ordinal codes), for
    every E in ``radii``: the expected largest posterior mass of a window of width 2E + 1, by Monte
    Carlo over y (``draws`` per row of ``p``, from ``rng``; E[max_z P(window_z | y)] is the Bayes
    success). E = 0 uses the quadrature. Returns (estimate, standard error), each (..., len(radii)).
    """
    p = _prior_rows(p)
    m = _check_mu(mu)
    radii = [int(r) for r in np.atleast_1d(radii)]
    if any(r < 0 for r in radii):
        raise ValueError(f"radii must be integers >= 0, got {radii!r}")
    k = p.shape[-1]
    rows = p.reshape(-1, k)
    centre = np.arange(k)

    def best_windows(post):  # (N, K) -> (N, len(radii))
        cum = np.concatenate([np.zeros((len(post), 1)), np.cumsum(post, axis=1)], axis=1)
        out = []
        for r in radii:
            lo, hi = np.clip(centre - r, 0, k), np.clip(centre + r + 1, 0, k)
            out.append((cum[:, hi] - cum[:, lo]).max(axis=1))
        return np.stack(out, axis=1)

    est = np.empty((len(rows), len(radii)))
    se = np.zeros((len(rows), len(radii)))
    if m == 0 or math.isinf(m):
        est[:] = best_windows(rows) if m == 0 else 1.0
    else:
        if rng is None and any(r > 0 for r in radii):
            raise ValueError("a Monte Carlo window bound needs rng=")
        s = m / math.sqrt(2.0)
        lp = np.log(np.where(rows > 0, rows, 1e-300))
        for i, pr in enumerate(rows):
            if not any(r > 0 for r in radii):
                break
            x = rng.choice(k, size=draws, p=pr / pr.sum())
            y = rng.standard_normal((draws, k))
            y[np.arange(draws), x] += s
            logit = lp[i] + s * y
            post = np.exp(logit - logit.max(axis=1, keepdims=True))
            post /= post.sum(axis=1, keepdims=True)
            best = best_windows(post)
            est[i], se[i] = best.mean(axis=0), best.std(axis=0, ddof=1) / math.sqrt(draws)
        zero = [j for j, r in enumerate(radii) if r == 0]
        if zero:
            exact = np.asarray(bayes_success_revealed(mu=m, p=rows)).reshape(-1)
            est[:, zero], se[:, zero] = exact[:, None], 0.0
    shape = p.shape[:-1] + (len(radii),)
    return est.reshape(shape), se.reshape(shape)


def max_bayes_gain_binary(*, mu) -> tuple[float, float]:
    """The largest expected gain over the prior's guess that any attack can have on one binary
    record at a μ-GDP release (others revealed, :func:`bayes_success_revealed`), over every prior
    (p, 1 − p): returns (gain, the maximising p). The gain is symmetric in p ↔ 1 − p; at p = ½ it is
    Φ(μ/2) − ½."""
    m = _check_mu(mu)
    if m == 0:
        return 0.0, 0.5
    if math.isinf(m):
        return 0.5, 0.5
    grid = np.linspace(0.5, 0.999, 500)
    gains = bayes_success_revealed(mu=m, p=np.stack([grid, 1 - grid], axis=1)) - grid
    i = int(np.argmax(gains))
    return float(gains[i]), float(grid[i])
