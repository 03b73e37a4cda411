"""Attribute-guessing advantage bounds (Pankova & Laud, CSF 2022).

An ε-DP (or ε·d-private) release; the attacker's guess is "correct" on a set g(x) of prior mass
p = Pr_pre(g(x)); R = sup d(x, x') over the domain. All functions broadcast and use R = 1 by
default (results depend on ε only through ε·R).

Every function taking ε has it keyword-only, with the scalar threat-model parameters (p, R, M, x0,
radius, …): ``posterior_simplified(epsilon=1.0, p=0.1, R=2)``. Array data (``shell_probs``, the
point ``x``/``r``/``cdfs``, the releases ``y``) stays positional and first.
"""

from __future__ import annotations

import numpy as np
from scipy import integrate, special

from .core import sigmoid_shift


def _arr(x, name, lo=None, hi=None):
    a = np.asarray(x, float)
    if np.any(np.isnan(a)):
        raise ValueError(f"{name} is NaN")
    if lo is not None and np.any(a < lo):
        raise ValueError(f"{name} must be >= {lo}")
    if hi is not None and np.any(a > hi):
        raise ValueError(f"{name} must be <= {hi}")
    return a


def posterior_simplified(*, epsilon, p, R=1.0):
    """Simplified bound Pr_post <= 1 / (1 + e^{−εR} (1−p)/p) = σ(εR + logit p)."""
    eps = _arr(epsilon, "epsilon", 0)
    p = _arr(p, "p", 0, 1)
    return sigmoid_shift(eps * R, p)


def advantage_simplified(*, epsilon, p, R=1.0):
    """η(ε, p) = Pr_post bound − p."""
    return posterior_simplified(epsilon=epsilon, p=p, R=R) - np.asarray(p, float)


def epsilon_for_advantage(eta, p, R=1.0, *, side="upper"):
    """Largest ε with advantage <= η under the simplified bound (slide "Computing ε").

    upper side (Pr_post − Pr_pre <= η): ε = (1/R) ln[(1−p)(p+η) / (p(1−p−η))], ∞ for η >= 1−p.
    lower side (Pr_pre − Pr_post <= η): the mirror image p ↔ 1−p.
    """
    eta = _arr(eta, "eta", 0, 1)
    p = _arr(p, "p", 0, 1)
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("p must be in (0, 1) (the prior of a non-trivial guess)")
    if side == "lower":
        p = 1 - p
    elif side != "upper":
        raise ValueError("side must be 'upper' or 'lower'")
    eta, p = np.broadcast_arrays(eta, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = (np.log1p(-p) + np.log(p + eta) - np.log(p) - np.log(1 - p - eta)) / R
    out = np.where(eta >= 1 - p, np.inf, val)
    out = np.where(eta == 0, 0.0, out)
    return out if out.ndim else float(out)


def worst_case_prior_fixed_eta(eta):
    """p minimising ε_max(η; p): p* = (1 − η)/2."""
    return (1 - _arr(eta, "eta", 0, 1)) / 2


def worst_case_epsilon(eta, R=1.0):
    """min_p ε_max(η; p) = (2/R) ln((1+η)/(1−η)) = (4/R) artanh η."""
    eta = _arr(eta, "eta", 0, 1)
    with np.errstate(divide="ignore"):
        return 4 * np.arctanh(eta) / R


def worst_case_prior_fixed_eps(*, epsilon, R=1.0):
    """p maximising η(ε; p): p* = 1 / (1 + e^{Rε/2})."""
    return special.expit(-_arr(epsilon, "epsilon", 0) * R / 2)


def worst_case_advantage(*, epsilon, R=1.0):
    """max_p η(ε; p) = tanh(Rε/4)."""
    return np.tanh(_arr(epsilon, "epsilon", 0) * R / 4)


# --- single attribute with precision r, uniform prior on an interval (bounded domain) ----------
# Units: d-units (|x − x'| / r), the interval is [0, M], the guess set g = [x0 − 1, x0 + 1].


def posterior_main_theorem_uniform(*, epsilon, M, x0=None, radius=1.0):
    """Main-theorem bound for a uniform prior on [0, M] and g = [x0−radius, x0+radius] ∩ [0, M].

    1 / (1 + ∫_{X∖g} f(x) / ∫_g e^{ε|x−x'|} f(x') dx' dx), evaluated by quadrature. ``radius`` is
    the guess's half-width in d-units (1 for the slides' unit ball; 1/α after rescaling d → d/α).
    """
    if x0 is None:
        x0 = M / 2
    lo, hi = max(0.0, x0 - radius), min(float(M), x0 + radius)

    def inner(x):  # ∫_g e^{ε|x−x'|} dx'/M for x outside g (closed form)
        if x < lo:
            return (np.exp(epsilon * (hi - x)) - np.exp(epsilon * (lo - x))) / epsilon / M
        return (np.exp(epsilon * (x - lo)) - np.exp(epsilon * (x - hi))) / epsilon / M

    def outer(x):
        return (1 / M) / inner(x)

    total = 0.0
    if lo > 0:
        total += integrate.quad(outer, 0, lo, limit=200)[0]
    if hi < M:
        total += integrate.quad(outer, hi, M, limit=200)[0]
    return 1 / (1 + total)


def posterior_shell_sum(shell_probs, *, epsilon, p_ball):
    """The slides' discrete shell sum: 1 / (1 + Σ_{a>=1} e^{−εa} P(shell_a) / P(B(x,1))).

    ``shell_probs[a-1]`` = Pr_pre(B(x, a+1) ∖ B(x, a)) for a = 1, 2, ...
    """
    eps = float(epsilon)
    shells = np.asarray(shell_probs, float)
    a = np.arange(1, len(shells) + 1)
    return 1 / (1 + np.sum(np.exp(-eps * a) * shells) / p_ball)


def uniform_shells(M, x0):
    """Pr of B(x0, 1) and of the shells B(x0, a+1)∖B(x0, a), a >= 1, for Uniform[0, M]."""

    def ball(a):
        return (min(M, x0 + a) - max(0.0, x0 - a)) / M

    n = int(np.ceil(M)) + 1
    shells = np.array([ball(a + 1) - ball(a) for a in range(1, n + 1)])
    return ball(1), shells


def laplace_event_posterior(*, epsilon, u: float, v: float, prior_u: float = 0.5):
    """Posterior of x = u after the event Y >= u, for Y = x + Laplace(1/ε) and a two-point prior
    on {u, v} (v < u). The Laplace mechanism is ε·d-private on all of ℝ, so this is a valid
    ε·d-private observation whatever the guess centre. P(Y >= u | u) = 1/2 and
    P(Y >= u | v) = e^{−ε(u−v)}/2 (scipy's Laplace survival function)."""
    from scipy import stats

    eps = _arr(epsilon, "epsilon", 0)
    with np.errstate(divide="ignore"):
        scale = np.where(eps > 0, 1.0 / np.where(eps > 0, eps, 1.0), np.inf)
    like_u = stats.laplace.sf(u, loc=u, scale=scale)
    like_v = np.where(
        np.isinf(scale),
        0.5,
        stats.laplace.sf(u, loc=v, scale=np.where(np.isinf(scale), 1.0, scale)),
    )
    return prior_u * like_u / (prior_u * like_u + (1 - prior_u) * like_v)


def two_point_counterexample(*, epsilon, gap=1e-3):
    """A prior where the slides' shell sum (nearest-point distance) is violated by a real mechanism.

    Prior: mass 1/2 at u = 1 − gap (inside g = [−1, 1] around x = 0, at its far edge, nearest-point
    distance to the guess centre ≈ 1) and 1/2 at v = −1 − gap (just outside g on the other side),
    2 d-units apart. The mechanism is Laplace(1/ε) noise on x (ε·d-private on all of ℝ, including
    the guess centre) and the attacker observes the event Y >= u: its posterior of u is
    σ(2ε) (:func:`laplace_event_posterior`), but the shell sum, which charges v only e^{−ε·1}
    (its shell index a = 1 around the guess centre), claims at most 1/(1 + e^{−ε}).

    Returns (attained posterior, shell-sum "bound", main-theorem bound).
    """
    eps = _arr(epsilon, "epsilon", 0)
    u, v = 1.0 - gap, -1.0 - gap
    attained = laplace_event_posterior(epsilon=eps, u=u, v=v)
    # v lies in shell a = 1 (distance 1+gap from x = 0); p_ball = 1/2, shell mass 1/2.
    shell_sum = 1 / (1 + np.exp(-eps * 1) * 0.5 / 0.5)
    # main theorem: 1/(1 + f(v)/(e^{ε d(v,u)} f(u))) = σ(ε d(u,v)) = σ(2ε) (tight).
    main = special.expit(eps * (u - v))
    return attained, shell_sum, main


def uniform_guess_prior(M, x0, radius=1.0):
    """Pr_pre(g) for g = [x0 − radius, x0 + radius] under Uniform[0, M]."""
    return (min(float(M), x0 + radius) - max(0.0, x0 - radius)) / M


# --- ε for a fixed advantage η ("window binary search", slide "Computing ε") ----------------------


def largest_epsilon_for_advantage(bound, p, eta, *, eps_start=0.5, eps_max=200.0, xtol=1e-12):
    """Largest ε with bound(ε) − p <= η, for a posterior bound increasing in ε with bound(0) = p.

    The slides' "window binary search over ε > 0": double a window [lo, hi] until the advantage at
    hi exceeds η, then root-find bound(ε) − p − η on it (Brent's method). Returns ∞ when even
    ``eps_max`` keeps the advantage <= η (e.g. η >= 1 − p for the simplified bound), 0 for η = 0.
    """
    from scipy import optimize

    if eta <= 0:
        return 0.0

    def f(e):  # bound(0) = p: the ε = 0 limit is not evaluated (a quadrature may divide by ε)
        return -eta if e == 0 else float(bound(e)) - p - eta

    lo, hi = 0.0, float(eps_start)
    while f(hi) <= 0:
        lo, hi = hi, 2 * hi
        if hi > eps_max:
            return (
                float("inf")
                if f(eps_max) <= 0
                else float(optimize.brentq(f, lo, eps_max, xtol=xtol))
            )
    return float(optimize.brentq(f, lo, hi, xtol=xtol, rtol=1e-14))


# --- AND / OR of two independent attributes (slides "Guessing AND / OR of attributes") -----------


def ball_prob_independent(a, x, r, cdfs):
    """Pr_pre(B(x, a)) for the scaled-L∞ metric d = max_i |x_i − x'_i|/r_i and independent
    attributes with CDFs F_i: ∏_i [F_i(x_i + a r_i) − F_i(x_i − a r_i)] (continuous F_i)."""
    a = np.asarray(a, float)
    out = np.ones_like(a)
    for xi, ri, F in zip(x, r, cdfs, strict=True):
        out = out * (F(xi + a * ri) - F(xi - a * ri))
    return out


def posterior_shell_sum_independent(x, r, cdfs, *, epsilon, n_shells):
    """The slides' AND bound (§2.11): the shell sum with shells B(x, a+1)∖B(x, a) around the point x,
    ball probabilities from the CDFs (:func:`ball_prob_independent`), a = 1..n_shells.

    Like the single-attribute shell sum it is an approximation, not a valid bound for every prior
    (:func:`two_point_counterexample`)."""
    a = np.arange(1, n_shells + 2, dtype=float)
    balls = ball_prob_independent(a, x, r, cdfs)
    p_ball = float(ball_prob_independent(np.array([1.0]), x, r, cdfs)[0])
    shells = np.diff(balls)
    eps = np.atleast_1d(np.asarray(epsilon, float))
    out = np.array([posterior_shell_sum(epsilon=e, shell_probs=shells, p_ball=p_ball) for e in eps])
    return out if np.ndim(epsilon) else float(out[0])


def posterior_or_union(*, epsilon, p1, R1, p2, R2):
    """The slides' OR bound (§2.12): Pr_post(g₁ ∪ g₂) <= Pr_post(g₁) + Pr_post(g₂), each from the
    single-attribute simplified bound (clipped at 1)."""
    return np.minimum(
        1.0,
        posterior_simplified(epsilon=epsilon, p=p1, R=R1)
        + posterior_simplified(epsilon=epsilon, p=p2, R=R2),
    )


def laplace_posterior_uniform(y, *, epsilon, M, radius=1.0):
    """Posterior Pr(X ∈ [y − radius, y + radius] | Y = y) for X ~ Uniform[0, M] and
    Y = X + Laplace(1/ε) (d-units; ε·d-private): the attacker guesses its release y."""
    eps = float(epsilon)
    y = np.asarray(y, float)

    def G(t):  # an antiderivative of e^{−ε|t−y|} in t
        return np.sign(t - y) * -np.expm1(-eps * np.abs(t - y)) / eps

    num = G(np.clip(y + radius, 0, M)) - G(np.clip(y - radius, 0, M))
    return num / (G(np.full_like(y, float(M))) - G(np.zeros_like(y)))
