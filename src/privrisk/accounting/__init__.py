"""Privacy accounting shared by every paper.

- The Gaussian mechanism's exact (ε, δ) curve (Balle & Wang 2018, "analytic Gaussian"), which is
  the same as μ-GDP's dual (Dong, Roth & Su 2019): a Gaussian mechanism with sensitivity Δ and
  noise σ is μ-GDP with μ = Δ/σ and (ε, δ(ε))-DP for every ε with
  δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).
- Calibration: the smallest σ (largest μ) that meets a target (ε, δ).
- DP-SGD (Poisson-subsampled Gaussian, many steps): one ε function, :func:`dpsgd_epsilon`
  (adjacency and accountant explicit: ``rdp``, the project's own RDP curve :func:`dpsgd_rdp`, or
  ``pld``, :func:`dpsgd_pld`, a privacy-loss distribution with a stated error), and its inverse
  :func:`dpsgd_noise_multiplier`. Training calibrates with the inverse and records the ε; the risk
  card reports the same function. opacus and dp-accounting are cross-checks in the tests only.
- :class:`Adjacency`, the neighbouring relation (modelled on dp_accounting's
  ``NeighboringRelation``), one spelling for training, config and the risk card.

Neighbouring relation: the Gaussian formulas take the sensitivity Δ as given; the caller states
whether Δ is for add/remove or replace-one adjacency (replace-one can double it) and records that
choice as an :class:`Adjacency`.

Every public function takes its arguments keyword-only, so that ``gaussian_delta(epsilon=…, mu=…)``
and ``gaussian_epsilon(delta=…, mu=…)`` cannot be swapped.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import optimize, special


class Adjacency(enum.StrEnum):
    """Which datasets are neighbours (dp_accounting's ``NeighboringRelation`` is the model).

    ``ADD_REMOVE``: one record added or removed (opacus and dp-accounting report DP-SGD's ε for
    it); ``REPLACE_ONE``: one record's value replaced by another (Swanberg et al., Pankova & Laud;
    a clipped gradient can move by 2C). The value is the spelling the card prints; :meth:`parse`
    also takes the config files' ``replace_one`` / ``add_remove`` and a few aliases.
    """

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"

    @classmethod
    def parse(cls, value) -> Adjacency:
        """The adjacency named by ``value`` (an Adjacency or a string); ValueError otherwise."""
        if isinstance(value, cls):
            return value
        v = str(value).strip().lower().replace("_", "-").replace("/", "-").replace(" ", "-")
        v = _ADJACENCY_ALIASES.get(v, v)
        try:
            return cls(v)
        except ValueError:
            raise ValueError(
                f"adjacency must be one of {', '.join(a.value for a in cls)}, got {value!r}"
            ) from None

    @property
    def config_name(self) -> str:
        """The spelling of the config files (``replace_one`` / ``add_remove``)."""
        return self.value.replace("-", "_")

    def neighboring_relation(self):
        """dp_accounting's NeighboringRelation for this adjacency."""
        import dp_accounting

        rel = dp_accounting.NeighboringRelation
        return rel.ADD_OR_REMOVE_ONE if self is Adjacency.ADD_REMOVE else rel.REPLACE_ONE


_ADJACENCY_ALIASES = {
    "replace": "replace-one",
    "substitute": "replace-one",
    "add-or-remove": "add-remove",
    "add-or-remove-one": "add-remove",
    "add-remove-one": "add-remove",
}


def _log_ndtr(x):
    return special.log_ndtr(x)


def gaussian_delta(*, epsilon, mu):
    """δ(ε) of μ-GDP (= Gaussian mechanism with Δ/σ = μ). Vectorised; exact at the edges.

    Computed as Φ(a) − e^ε Φ(b) with a = −ε/μ + μ/2, b = −ε/μ − μ/2, in log space so large ε
    and small μ neither overflow nor lose all digits. μ = 0 gives δ = 0; ε = ∞ gives 0.
    """
    eps = np.asarray(epsilon, dtype=float)
    mu = np.asarray(mu, dtype=float)
    if np.any(mu < 0) or np.any(eps < 0):
        raise ValueError("epsilon and mu must be non-negative")
    eps, mu = np.broadcast_arrays(eps, mu)
    out = np.zeros(eps.shape)
    ok = (mu > 0) & np.isfinite(eps)
    inf_mu = np.isinf(mu) & np.isfinite(eps)
    out[inf_mu] = 1.0
    ok &= ~np.isinf(mu)
    if np.any(ok):
        e, m = eps[ok], mu[ok]
        la = _log_ndtr(-e / m + m / 2)
        lb = e + _log_ndtr(-e / m - m / 2)
        # Φ(a) − e^ε Φ(b) = Φ(a) (1 − exp(lb − la)); lb <= la always holds for this pair.
        out[ok] = np.exp(la) * -np.expm1(np.minimum(lb - la, 0.0))
    return out if out.ndim else float(out)


def gaussian_epsilon(*, delta: float, mu: float) -> float:
    """Smallest ε with δ(ε) <= delta for μ-GDP (∞ if δ = 0 and μ > 0; 0 if μ = 0)."""
    _check_delta(delta, allow_zero=True)
    if mu < 0:
        raise ValueError("mu must be non-negative")
    if mu == 0:
        return 0.0
    if delta == 0 or math.isinf(mu):
        return math.inf
    if gaussian_delta(epsilon=0.0, mu=mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(epsilon=hi, mu=mu) > delta:
        hi *= 2
    return optimize.brentq(
        lambda e: gaussian_delta(epsilon=e, mu=mu) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12
    )


def gdp_mu(*, epsilon: float, delta: float) -> float:
    """Largest μ such that μ-GDP implies (ε, δ)-DP. ε = ∞ gives ∞ (no noise)."""
    _check_delta(delta, allow_zero=False)
    if epsilon < 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon}")
    if math.isinf(epsilon):
        return math.inf
    # δ(ε; μ) increases in μ; bracket then solve in log μ.
    lo, hi = 1e-8, 1.0
    while gaussian_delta(epsilon=epsilon, mu=hi) < delta:
        hi *= 2
        if hi > 1e6:
            return math.inf
    # δ(0; μ) ≈ 0.4 μ, so at ε ≈ 0 and tiny δ the root lies below 1e-8: widen the bracket.
    while gaussian_delta(epsilon=epsilon, mu=lo) > delta:
        lo *= 1e-4
        if lo < 1e-300:
            return 0.0
    f = lambda lm: gaussian_delta(epsilon=epsilon, mu=math.exp(lm)) - delta  # noqa: E731
    return math.exp(optimize.brentq(f, math.log(lo), math.log(hi), xtol=1e-13, rtol=1e-13))


def gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ for which N(0, σ²) noise on a Δ-sensitive query is (ε, δ)-DP (Balle–Wang)."""
    if sensitivity < 0:
        raise ValueError("sensitivity must be >= 0")
    mu = gdp_mu(epsilon=epsilon, delta=delta)
    if math.isinf(mu) or sensitivity == 0:
        return 0.0
    return sensitivity / mu if mu > 0 else math.inf


def classic_gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Dwork–Roth's σ = Δ √(2 ln(1.25/δ)) / ε (valid for ε < 1; looser than Balle–Wang)."""
    _check_delta(delta, allow_zero=False)
    if epsilon <= 0:
        raise ValueError("epsilon must be > 0")
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def gaussian_hockey_stick_mc(
    *, epsilon: float, mu: float, n: int = 2_000_000, seed: int = 0
) -> float:
    """Monte-Carlo estimate of δ(ε) = E_P[(1 − e^{ε − L})_+], L the privacy loss of N(μ,1) vs N(0,1).

    An independent check of :func:`gaussian_delta` (used in tests).
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) + mu
    loss = mu * x - mu**2 / 2
    return float(np.mean(np.maximum(0.0, 1.0 - np.exp(epsilon - loss))))


#: DP-SGD's accountants: ``pld`` (:func:`dpsgd_pld`, tight, with a stated error; the card's
#: default) and ``rdp`` (:func:`dpsgd_rdp` and :func:`rdp_epsilon`, milliseconds at any number of
#: steps; training's)
DPSGD_ACCOUNTANTS = ("pld", "rdp")
#: per-step L2 sensitivity of DP-SGD in units of the clipping norm C: a record added or removed
#: moves the clipped sum by C, a record replaced by 2C (its clipped gradient can flip sides)
DPSGD_SENSITIVITY = {Adjacency.ADD_REMOVE: 1.0, Adjacency.REPLACE_ONE: 2.0}


def dpsgd_epsilon(
    *,
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    delta: float,
    adjacency: Adjacency | str = "add-remove",
    accountant: str = "rdp",
) -> float:
    """ε of DP-SGD at δ: ``steps`` Poisson-sampled steps (rate ``sample_rate``) of the Gaussian
    mechanism with noise ``noise_multiplier``·C on a sum clipped to C. The one ε function of the
    project: training calibrates its noise with its inverse (:func:`dpsgd_noise_multiplier`) and
    the risk card reports it.

    - Sample rate 1 (full batch), either accountant: exactly μ-GDP with μ = s√T/σ, s the
      sensitivity (:data:`DPSGD_SENSITIVITY`: 1 add/remove, 2 replace-one); ε by Balle–Wang.
    - ``rdp``, add/remove: the RDP curve :func:`dpsgd_rdp` at :data:`DPSGD_RDP_ORDERS`, converted by
      :func:`rdp_epsilon` (Canonne, Kamath & Steinke; the conversion opacus and dp-accounting use).
      Equal to opacus' RDP accountant where its best order is one of its own (it has fewer
      orders) and to dp-accounting's where its best order is an integer (its fractional orders
      sum the series' terms in absolute value, an over-estimate); never above either.
    - ``rdp``, replace-one: group privacy for two records applied to each order's (ε, δ)
      conversion of the add/remove curve, 2ε at (1 + e^ε)δ (:func:`group_of_two_epsilon`; the
      libraries have no replace-one RDP of Poisson sampling).
    - ``pld``: :func:`dpsgd_pld`'s ε (dp-accounting's PLD for the adjacency; for add/remove the
      smaller of it and the RDP ε above).

    ``noise_multiplier`` 0 is no noise: ε = ∞.
    """
    adjacency = Adjacency.parse(adjacency)
    _check_delta(delta, allow_zero=False)
    _check_accountant(accountant)
    if noise_multiplier == 0:
        return math.inf
    check_dpsgd(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps)
    if sample_rate == 1.0:
        mu = DPSGD_SENSITIVITY[adjacency] * math.sqrt(steps) / noise_multiplier
        return gaussian_epsilon(delta=delta, mu=mu)
    if accountant == "pld":
        return dpsgd_pld(
            noise_multiplier=noise_multiplier,
            sample_rate=sample_rate,
            steps=steps,
            delta=delta,
            adjacency=adjacency,
        ).epsilon
    orders, rdp = dpsgd_rdp(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps)
    if adjacency is Adjacency.ADD_REMOVE:
        return rdp_epsilon(orders=orders, rdp=rdp, delta=delta)
    return group_of_two_epsilon(orders=orders, rdp=rdp, delta=delta)


def dpsgd_noise_multiplier(
    *,
    epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    adjacency: Adjacency | str = "add-remove",
    accountant: str = "rdp",
    epsilon_tolerance: float = 0.001,
) -> float:
    """The noise multiplier σ at which :func:`dpsgd_epsilon` (same adjacency and accountant) is at
    most ``epsilon`` and within ``epsilon_tolerance`` of it: its inverse, so a run calibrated here
    reports the ε it was calibrated for. ε = ∞ gives 0 (no noise).

    Full batch (sample rate 1) is the closed form s√T/μ(ε, δ). Otherwise bisection on σ, bracketed
    and halved as opacus' ``get_noise_multiplier`` does (σ = 20, 40, … until ε is below target,
    then halving [0, σ] until ε is within the tolerance below it): where the two ε functions agree,
    so do the σ's, and a calibration made with opacus is reproduced.
    """
    adjacency = Adjacency.parse(adjacency)
    _check_delta(delta, allow_zero=False)
    _check_accountant(accountant)
    if not epsilon >= 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon}")
    if not epsilon_tolerance > 0:
        raise ValueError(f"epsilon_tolerance must be > 0, got {epsilon_tolerance}")
    check_dpsgd(noise_multiplier=1.0, sample_rate=sample_rate, steps=steps)
    if math.isinf(epsilon):
        return 0.0
    if sample_rate == 1.0:
        mu = gdp_mu(epsilon=epsilon, delta=delta)
        return DPSGD_SENSITIVITY[adjacency] * math.sqrt(steps) / mu

    def eps(sigma):
        try:
            return _eps(sigma)
        except AccountingLimit as err:  # too little noise for the PLD to account: above any ε
            if err.argument == "noise_multiplier":
                return math.inf
            raise

    def _eps(sigma):
        return dpsgd_epsilon(
            noise_multiplier=sigma,
            sample_rate=sample_rate,
            steps=steps,
            delta=delta,
            adjacency=adjacency,
            accountant=accountant,
        )

    low, high, eps_high = 0.0, 10.0, math.inf
    while eps_high > epsilon:
        high *= 2
        if high > _MAX_NOISE_MULTIPLIER:
            raise ValueError(
                f"epsilon: {epsilon:g} at δ = {delta:g} needs a noise multiplier above "
                f"{_MAX_NOISE_MULTIPLIER:g}"
            )
        eps_high = eps(high)
    while epsilon - eps_high > epsilon_tolerance:
        mid = (low + high) / 2
        e = eps(mid)
        if e < epsilon:
            high, eps_high = mid, e
        else:
            low = mid
    return high


#: the largest noise multiplier :func:`dpsgd_noise_multiplier` tries (opacus' ``MAX_SIGMA``)
_MAX_NOISE_MULTIPLIER = 1e6


def _check_accountant(accountant: str) -> None:
    if accountant not in DPSGD_ACCOUNTANTS:
        raise ValueError(
            f"accountant must be one of {', '.join(DPSGD_ACCOUNTANTS)}, got {accountant!r}"
        )


def _check_delta(delta: float, *, allow_zero: bool) -> None:
    if not (0 <= delta < 1) or (delta == 0 and not allow_zero):
        raise ValueError(f"delta must be in {'[0' if allow_zero else '(0'}, 1), got {delta}")


# --- DP-SGD through the privacy-loss distribution, with a stated error ------------------------

#: the most steps the PLD accounting takes (above it a card would take minutes): refused beyond
MAX_STEPS = 10_000_000
#: the largest RDP ε the PLD accounting takes: beyond it the run has essentially no noise and
#: the privacy-loss grid would not fit in memory
MAX_RDP_EPSILON = 500.0
#: the most points of the composed PLD's grid (predicted before it is built; ~0.5 GB of arrays)
MAX_GRID_POINTS = 20_000_000
#: the relative ε error :func:`dpsgd_pld` aims for by default (its stated bound, see there)
PLD_RELATIVE_ERROR = 5e-3
#: the finest and coarsest discretisation intervals the adaptive rule uses
_FINEST, _COARSEST = 1e-7, 1e-2


class AccountingLimit(ValueError):
    """A DP-SGD run outside what :func:`dpsgd_pld` accounts; ``argument`` names the input."""

    def __init__(self, argument: str, message: str):
        self.argument = argument
        self.message = message
        super().__init__(f"{argument}: {message}")


@contextlib.contextmanager
def quiet_absl():
    """dp-accounting logs through absl (WARNING lines about RDP orders it drops, a warning per
    fractional order at large sampling rates): not the user's to act on, since the orders it keeps
    still give an upper bound. Silenced below ERROR for the duration."""
    import logging

    log = logging.getLogger("absl")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def pld_grid_points(*, rdp_epsilon: float, interval: float) -> float:
    """A generous prediction of the composed PLD's grid size: its support spans about
    10 + 8·ε_RDP in privacy loss (measured: 5 to 22 at ε_RDP 0.8 to 3.2, 168 at 110)."""
    return (10.0 + 8.0 * rdp_epsilon) / interval


def pld_interval(*, rdp_epsilon: float, steps: int, relative_error: float = PLD_RELATIVE_ERROR):
    """The first discretisation interval the adaptive rule tries.

    dp-accounting's connect-the-dots PLD converges in the interval Δ at second order: the excess
    of ε is about c·T·Δ² with c between 0.2 and 2.5 over sampling rates 10⁻⁴–10⁻² and T up to
    10⁶ (measured). The stated error (ε at 2Δ minus ε at Δ, about 3c·T·Δ²) then meets
    ``relative_error``·ε at Δ = √(relative_error·ε / (3T)) when c ≈ 1; the loop in
    :func:`dpsgd_pld` halves Δ where it does not.
    """
    eps = rdp_epsilon if math.isfinite(rdp_epsilon) else 1.0
    iv = math.sqrt(relative_error * max(eps, 1e-3) / (3.0 * steps))
    iv = min(max(iv, _FINEST), _COARSEST)
    # never a grid that does not fit: coarser is still an upper bound, with a larger stated error
    return max(iv, pld_grid_points(rdp_epsilon=eps, interval=1.0) / MAX_GRID_POINTS)


# --- the privacy-loss distribution of one Poisson-subsampled Gaussian step, and its read-outs ----


#: the directions of one step's privacy loss, as dp-accounting names its PMFs: ``remove`` is
#: M(D) against M(D minus the record), ``add`` M(D) against M(D plus the record) (both under the
#: add/remove relation), ``replace`` the replace-one pair (symmetric)
DIRECTIONS = ("remove", "add", "replace")


def _log_mix(z, s, q, sign):
    """log of (1 − q)·Φ(z) + q·Φ(z + sign·s), from log Φ (scipy's log_ndtr): exact far in the
    tails, where the cdf is below 10⁻³⁰⁰ or within 10⁻¹⁶ of 1."""
    return np.logaddexp(
        np.log1p(-q) + special.log_ndtr(z), math.log(q) + special.log_ndtr(z + sign * s)
    )


def subsampled_gaussian_pmf(
    *, noise_multiplier: float, sample_rate: float, direction: str, interval: float
):
    """dp-accounting's pessimistic connect-the-dots PLD of one Poisson-subsampled Gaussian step
    (sensitivity 1, noise ``noise_multiplier``), on the same grid, computed in numpy.

    Returns ``(lower_loss, probs, infinity_mass)``: the losses are ``(lower_loss + i)·interval``.

    The same algorithm as dp-accounting's (Doroshenko et al. 2022, Algorithm 1, fixed gap): the
    mass at each grid point comes from second differences of the hockey-stick divergence δ(ε) at
    the grid points, and dp-accounting's ``connect_dots_bounds`` gives the grid. Two differences:
    the cut-off x(ε) of each ε is in closed form for every direction (dp-accounting solves for it
    point by point in Python: 1.8 s of the 5 s a 10⁶-step card took), and the second differences
    below ε = 0 are taken of R(ε) = δ(ε) − (1 − e^ε) = e^ε·S_lower(x) − S_upper(x) (S the survival
    functions, from log Φ), not of δ: the 1 − e^ε part adds nothing inside the grid, and δ ≈ 1
    there keeps only about 10⁻¹⁶/Δ of each mass. dp-accounting's add direction carries about
    10⁻⁸ too much mass per step there (at Δ = 10⁻⁴), so a 10⁶-step composition weighs 1.01; this
    one's mass is 1 to about 10⁻¹².
    """
    from dp_accounting.pld import privacy_loss_mechanism as plm

    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    sig, q = float(noise_multiplier), float(sample_rate)
    if not (sig > 0 and 0 < q < 1 and interval > 0):
        raise ValueError("needs noise_multiplier > 0, 0 < sample_rate < 1 and interval > 0")
    kind = {
        "remove": plm.AdjacencyType.REMOVE,
        "add": plm.AdjacencyType.ADD,
        "replace": plm.AdjacencyType.REPLACE,
    }[direction]
    bounds = plm.GaussianPrivacyLoss(
        sig, sensitivity=1, pessimistic_estimate=True, log_mass_truncation_bound=-50,
        sampling_prob=q, adjacency_type=kind,
    ).connect_dots_bounds()  # fmt: skip
    lo = math.floor(bounds.epsilon_lower / interval)
    hi = math.ceil(bounds.epsilon_upper / interval)
    eps = np.arange(lo, hi + 1) * interval
    if eps.size < 2:
        raise ValueError("the grid has fewer than two points: use a finer interval")
    s = 1.0 / sig
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # x(ε): the cut-off with privacy loss ε (loss decreasing in x); z = x/σ
        if direction == "remove":  # loss log(1 − q + q·e^{(−2x − 1)/2σ²})
            ok = eps > math.log1p(-q)
            arg = np.log(np.where(ok, np.expm1(eps) + q, 1.0)) - math.log(q)
            x = -(sig**2) * arg - 0.5
        elif direction == "add":  # loss −log(1 − q + q·e^{(2x − 1)/2σ²})
            ok = eps < -math.log1p(-q)
            arg = np.log(np.where(ok, np.expm1(-eps) + q, 1.0)) - math.log(q)
            x = sig**2 * arg + 0.5
        else:  # the root w = e^{x/σ²} of e^ε q a w² + (1 − q)(e^ε − 1) w − q a = 0, a = e^{−1/2σ²}
            ok = np.ones(eps.shape, bool)
            la = -0.5 * s**2
            A = np.exp(eps + math.log(q) + la)
            B = (1 - q) * np.expm1(eps)
            C = q * math.exp(la)
            root = np.sqrt(B**2 + 4 * A * C)
            w = np.where(B > 0, 2 * C / (B + root), (root - B) / (2 * A))
            x = sig**2 * np.log(w)
        z = x / sig
        # log cdf and log survival of the upper (numerator) and lower (denominator) laws at x
        if direction == "add":
            lu, lsu = special.log_ndtr(z), special.log_ndtr(-z)
        else:
            lu, lsu = _log_mix(z, s, q, +1), _log_mix(-z, s, q, -1)
        if direction == "remove":
            ll, lsl = special.log_ndtr(z), special.log_ndtr(-z)
        else:
            ll, lsl = _log_mix(z, s, q, -1), _log_mix(-z, s, q, +1)
        delta = np.exp(lu) * -np.expm1(np.minimum(eps + ll - lu, 0.0))
        rem = np.exp(lsu) * np.expm1(np.maximum(eps + lsl - lsu, 0.0))
    # outside the loss's range: δ = 1 − e^ε below it (remove), 0 above it (add)
    delta = np.where(ok, delta, -np.expm1(eps) if direction == "remove" else 0.0)
    rem = np.where(ok, rem, 0.0 if direction == "remove" else np.expm1(eps))
    delta = np.minimum.accumulate(np.clip(delta, 0.0, 1.0))
    e_d = math.expm1(interval)
    d_delta = np.diff(delta)  # δ_{i+1} − δ_i, precise where δ is small (ε >= 0)
    d_rem = np.diff(rem)  # the same difference from R, precise where δ ≈ 1 − e^ε (ε < 0)
    probs = np.empty(eps.size)
    inner = slice(1, eps.size - 1)
    from_delta = (d_delta[1:] - (1 + e_d) * d_delta[:-1]) / e_d
    from_rem = (d_rem[1:] - (1 + e_d) * d_rem[:-1]) / e_d
    probs[inner] = np.where(eps[inner] < 0, from_rem, from_delta)
    probs[0] = -rem[0] + d_rem[0] / e_d if eps[0] < 0 else (1 - delta[0]) + d_delta[0] / e_d
    probs[-1] = d_delta[-1] / math.expm1(-interval)
    probs = np.clip(probs, 0.0, None)
    inf = float(delta[-1])
    # rounding leaves the mass within ~10⁻¹² of 1 (its relative error per mass); scaled back to 1 so
    # that 10⁶ compositions do not multiply it. Moving it to +∞ instead would add T·10⁻¹³ to every
    # δ(ε), a fifth of δ = 10⁻⁶ at T = 10⁶.
    mass = math.fsum(probs) + inf
    if abs(mass - 1.0) < 1e-9:
        probs, inf = probs / mass, inf / mass
    return lo, probs, inf


def _dense(lower_loss, probs, infinity_mass, interval):
    from dp_accounting.pld import pld_pmf

    return pld_pmf.DensePLDPmf(interval, lower_loss, probs, infinity_mass, True)


def subsampled_gaussian_pld(
    *, noise_multiplier: float, sample_rate: float, adjacency: Adjacency, interval: float
):
    """One step as a dp-accounting ``PrivacyLossDistribution`` (its composition is used as is),
    built by :func:`subsampled_gaussian_pmf`."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    def pmf(direction):
        return _dense(
            *subsampled_gaussian_pmf(
                noise_multiplier=noise_multiplier,
                sample_rate=sample_rate,
                direction=direction,
                interval=interval,
            ),
            interval,
        )

    if Adjacency.parse(adjacency) is Adjacency.REPLACE_ONE:
        return pld_lib.PrivacyLossDistribution(pmf("replace"))
    return pld_lib.PrivacyLossDistribution(pmf("remove"), pmf("add"))


class LossDistribution:
    """One direction of a composed PLD, read in numpy: its losses l_k (ascending), their masses
    p_k under the upper law P, and the mass at +∞. The lower law Q has mass p_k·e^{−l_k} at l_k and
    the rest, 1 − Σ_k p_k e^{−l_k}, where P has none.

    ``delta(ε)``: the hockey-stick divergence Σ_k p_k (1 − e^{ε − l_k})_+ + p_∞ for any real ε;
    ``tpr(α)``: the most power of a test of Q against P at size α (Neyman–Pearson: reject Q at the
    largest losses first), i.e. 1 − T(Q, P)(α) of the discretised pair, which dominates the true
    one (a pessimistic PLD's δ(ε) is above the true δ(ε) for every ε, and T is determined by δ);
    ``mass``: Σ p_k + p_∞, which is 1 for a law (checked by the caller).
    """

    def __init__(self, pmf):
        dense = pmf.to_dense_pmf()
        probs = np.clip(np.asarray(dense._probs, dtype=float), 0.0, None)
        self.losses = (dense._lower_loss + np.arange(probs.size)) * dense._discretization
        self.probs = probs
        self.inf = float(dense._infinity_mass)
        with np.errstate(divide="ignore", over="ignore"):
            lower = np.where(probs > 0, np.exp(np.log(probs) - self.losses), 0.0)
        # suffix sums: U[k] = Σ_{j >= k} p_j, L[k] = Σ_{j >= k} p_j e^{−l_j} (small terms first)
        self._U = np.append(np.cumsum(probs[::-1])[::-1], 0.0)
        self._L = np.append(np.cumsum(lower[::-1])[::-1], 0.0)

    @property
    def mass(self) -> float:
        return float(self._U[0] + self.inf)

    def delta(self, epsilons):
        e = np.asarray(epsilons, dtype=float)
        k = np.searchsorted(self.losses, e, side="right")  # terms with l > ε
        with np.errstate(over="ignore", invalid="ignore"):
            out = self.inf + self._U[k] - np.exp(e) * self._L[k]
        out = np.where(np.isposinf(e), self.inf, out)
        out = np.clip(out, 0.0, 1.0)
        return out if out.ndim else float(out)

    def epsilon(self, delta: float) -> float:
        """The smallest ε with delta(ε) <= δ (∞ if the mass at +∞ exceeds δ); may be negative."""
        if self.inf > delta:
            return math.inf
        at = self.delta(self.losses)  # δ at each loss (right-continuous: terms above it)
        k = int(np.searchsorted(-at, -delta, side="left"))  # first loss with δ(l_k) <= δ
        if k >= self.losses.size:
            return float(self.losses[-1])
        num = self.inf + self._U[k] - delta
        if self._L[k] <= 0 or num <= 0:
            return float(self.losses[k])
        eps = math.log(num / self._L[k])
        lo = self.losses[k - 1] if k > 0 else -math.inf
        return float(min(max(eps, lo), self.losses[k]))

    def tpr(self, alphas):
        a = np.clip(np.asarray(alphas, dtype=float), 0.0, 1.0)
        k = np.searchsorted(-self._L, -a, side="left")  # first k with L[k] <= α
        k = np.minimum(k, self.losses.size)
        part = np.where(k > 0, (a - self._L[k]) * np.exp(self.losses[np.maximum(k - 1, 0)]), 0.0)
        # the fraction of the bin below k is at most its whole mass
        part = np.minimum(part, np.where(k > 0, self.probs[np.maximum(k - 1, 0)], 0.0))
        out = np.minimum(1.0, self.inf + self._U[k] + part)
        return out if out.ndim else float(out)


@dataclass(frozen=True)
class PldAccount:
    """ε of a DP-SGD run at δ, how it was obtained, and how far above the exact ε it may be.

    ``epsilon`` is an upper bound on the exact ε (the pessimistic connect-the-dots PLD dominates
    the true privacy loss, and the RDP ε is an upper bound too: the smaller of the two is
    reported). ``error``: the stated bound on ε − ε_exact, the change of the PLD's ε between the
    intervals 2Δ and Δ (about three times the actual excess at second-order convergence; the tests
    check it against dp-accounting at a 16× finer grid). ``tv``: δ(0), the total variation.
    ``mass_error``: the largest |mass − 1| of the composed PLD's directions (a law's mass is 1; the
    rows read from the PLD are off by at most this much on its account). ``delta_for_epsilon``:
    δ(ε) of the same PLD, vectorised (the privacy profile); ``tpr_for_fpr``: the most power of a
    test at a given size, either way round (the trade-off curve, read off the PLD itself).
    """

    epsilon: float
    delta: float
    adjacency: Adjacency
    pld_epsilon: float
    rdp_epsilon: float | None
    interval: float
    error: float
    tv: float
    method: str
    _pld: object = field(default=None, compare=False, repr=False)
    mass_error: float = 0.0
    #: the same read-outs at the interval 2Δ (the stated errors of the rows compare the two)
    coarse: PldAccount | None = field(default=None, compare=False, repr=False)

    @property
    def relative_error(self) -> float:
        return self.error / self.epsilon if self.epsilon > 0 else 0.0

    def delta_for_epsilon(self, epsilons):
        """δ(ε) of the same PLD, for one ε or an array (clipped to [0, 1])."""
        return self._pld.get_delta_for_epsilon(epsilons)

    def epsilon_for_delta(self, delta: float) -> float:
        return float(self._pld.get_epsilon_for_delta(delta))

    def tpr_for_fpr(self, alphas):
        """max over the two directions of the most power at size α: 1 − f(α) of the PLD."""
        return self._pld.tpr(alphas)


class _ComposedPld:
    """A composed dp-accounting PLD read in numpy (:class:`LossDistribution` per direction)."""

    def __init__(self, pld):
        self.views = [LossDistribution(pld._pmf_remove)]
        if not pld._symmetric:
            self.views.append(LossDistribution(pld._pmf_add))

    @property
    def mass_error(self) -> float:
        return max(abs(v.mass - 1.0) for v in self.views)

    def get_delta_for_epsilon(self, epsilons):
        out = np.maximum.reduce([np.asarray(v.delta(epsilons)) for v in self.views])
        return out if out.ndim else float(out)

    def get_epsilon_for_delta(self, delta: float) -> float:
        return max(v.epsilon(delta) for v in self.views)

    def tpr(self, alphas):
        out = np.maximum.reduce([np.asarray(v.tpr(alphas)) for v in self.views])
        return out if out.ndim else float(out)


def _pld(noise_multiplier, sample_rate, steps, adjacency: Adjacency, interval: float):
    """The composed PLD of ``steps`` steps, read in numpy (:class:`_ComposedPld`)."""
    one = subsampled_gaussian_pld(
        noise_multiplier=noise_multiplier,
        sample_rate=sample_rate,
        adjacency=adjacency,
        interval=interval,
    )
    return _ComposedPld(one.self_compose(steps))


def check_dpsgd(*, noise_multiplier: float, sample_rate: float, steps: int) -> None:
    """AccountingLimit naming the input when a run lies outside what :func:`dpsgd_pld` takes."""
    if not (noise_multiplier > 0 and math.isfinite(noise_multiplier)):
        raise AccountingLimit("noise_multiplier", f"must be > 0 and finite, got {noise_multiplier}")
    if not 0 < sample_rate <= 1:
        raise AccountingLimit("sample_rate", f"must be in (0, 1], got {sample_rate}")
    if int(steps) != steps or steps < 1:
        raise AccountingLimit("steps", f"must be a whole number >= 1, got {steps}")
    if steps > MAX_STEPS and sample_rate < 1:
        raise AccountingLimit(
            "steps",
            f"at most {MAX_STEPS:,} steps are accounted (the PLD's documented limit; beyond it "
            f"the accounting takes minutes), got {steps:.3g}",
        )


def dpsgd_pld(
    *,
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    delta: float,
    adjacency: Adjacency | str = Adjacency.ADD_REMOVE,
    interval: float | None = None,
    relative_error: float = PLD_RELATIVE_ERROR,
    rdp_epsilon: float | None = None,
) -> PldAccount:
    """ε of DP-SGD (Poisson sampling, ``steps`` Gaussian steps) at δ, with a stated error.

    Adaptive discretisation: starting from :func:`pld_interval`, the PLD is built at 2Δ and Δ and
    Δ halved until the change of ε between them (the stated ``error``) is at most
    ``relative_error``·ε, or the grid would exceed :data:`MAX_GRID_POINTS` (the ε stays an upper
    bound; the card states the larger error). A given ``interval`` is used as is (its error is
    still stated). Full-batch runs (sample rate 1) are exactly μ-GDP with μ = √T/σ (add/remove;
    2√T/σ replace-one) and use the closed form, with no error and no step limit.

    One step's PLD is :func:`subsampled_gaussian_pmf` (dp-accounting's algorithm and grid, in
    numpy), composed by dp-accounting; the composed PLD's mass is checked (``mass_error``).

    For add/remove the reported ε is min(PLD ε, RDP ε): both are upper bounds, and the RDP one is
    ``rdp_epsilon`` (computed when not given). Limits (AccountingLimit naming the input): at most
    :data:`MAX_STEPS` steps, RDP ε at most :data:`MAX_RDP_EPSILON`, a given interval whose grid
    would exceed :data:`MAX_GRID_POINTS`.
    """
    adjacency = Adjacency.parse(adjacency)
    _check_delta(delta, allow_zero=False)
    check_dpsgd(noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps)
    steps = int(steps)
    if sample_rate == 1.0:
        return _full_batch(noise_multiplier, steps, delta, adjacency)
    if rdp_epsilon is None:
        rdp_epsilon = dpsgd_epsilon(
            noise_multiplier=noise_multiplier,
            sample_rate=sample_rate,
            steps=steps,
            delta=delta,
            accountant="rdp",
        )
    if not rdp_epsilon <= MAX_RDP_EPSILON:
        raise AccountingLimit(
            "noise_multiplier",
            f"too little noise to account: the RDP accountant gives ε = {rdp_epsilon:.3g} at "
            f"δ = {delta:.2g}, above the limit {MAX_RDP_EPSILON:g} (no meaningful protection)",
        )
    # replace-one ε is at most about twice add/remove's
    scale = rdp_epsilon * (1.0 if adjacency is Adjacency.ADD_REMOVE else 2.0)
    given = interval is not None
    if given:
        points = pld_grid_points(rdp_epsilon=scale, interval=interval)
        if points > MAX_GRID_POINTS:
            raise AccountingLimit(
                "pld_discretisation",
                f"{interval:g} would need a grid of about {points:.2g} points (at most "
                f"{MAX_GRID_POINTS:.0e}); use at least "
                f"{pld_grid_points(rdp_epsilon=scale, interval=1.0) / MAX_GRID_POINTS:.2g}",
            )
        iv = float(interval)
    else:
        iv = pld_interval(rdp_epsilon=scale, steps=steps, relative_error=relative_error)

    def eps_at(width):
        p = _pld(noise_multiplier, sample_rate, steps, adjacency, width)
        return p, max(float(p.get_epsilon_for_delta(delta)), 0.0)

    coarse_pld, coarse_eps = eps_at(2 * iv)
    pld, eps = eps_at(iv)
    while not given:
        if abs(coarse_eps - eps) <= relative_error * eps:
            break
        finer = iv / 2
        if finer < _FINEST or pld_grid_points(rdp_epsilon=scale, interval=finer) > MAX_GRID_POINTS:
            break
        coarse_pld, coarse_eps, iv = pld, eps, finer
        pld, eps = eps_at(iv)
    error = abs(coarse_eps - eps)
    pld_eps = eps
    how = f"dp-accounting PLD ({adjacency}, Poisson sampling, connect-the-dots, pessimistic)"
    rdp = None
    if adjacency is Adjacency.ADD_REMOVE:
        rdp = rdp_epsilon
        if rdp < eps:
            eps, error = rdp, 0.0
            how = "RDP (below the PLD's ε at this grid)"

    def account(p, e, width, err):
        return PldAccount(
            epsilon=e,
            delta=delta,
            adjacency=adjacency,
            pld_epsilon=pld_eps,
            rdp_epsilon=rdp,
            interval=width,
            error=err,
            tv=float(p.get_delta_for_epsilon(0.0)),
            method=how,
            _pld=p,
            mass_error=p.mass_error,
        )

    coarse = account(coarse_pld, max(coarse_eps, eps), 2 * iv, error)
    return replace(account(pld, eps, iv, error), coarse=coarse)


class _GaussianPld:
    """The exact privacy profile of μ-GDP, shaped like :class:`_ComposedPld` for
    :class:`PldAccount`."""

    mass_error = 0.0

    def __init__(self, mu: float):
        self.mu = mu

    def get_delta_for_epsilon(self, epsilons):
        return gaussian_delta(epsilon=np.asarray(epsilons, float), mu=self.mu)

    def get_epsilon_for_delta(self, delta):
        return gaussian_epsilon(delta=delta, mu=self.mu)

    def tpr(self, alphas):
        a = np.clip(np.asarray(alphas, dtype=float), 0.0, 1.0)
        out = special.ndtr(self.mu - special.ndtri(1 - a))  # 1 − G_μ(α)
        return out if out.ndim else float(out)


def _full_batch(noise_multiplier, steps, delta, adjacency: Adjacency) -> PldAccount:
    mu = (1.0 if adjacency is Adjacency.ADD_REMOVE else 2.0) * math.sqrt(steps) / noise_multiplier
    eps = gaussian_epsilon(delta=delta, mu=mu)
    return PldAccount(
        epsilon=eps,
        delta=delta,
        adjacency=adjacency,
        pld_epsilon=eps,
        rdp_epsilon=None,
        interval=0.0,
        error=0.0,
        tv=float(gaussian_delta(epsilon=0.0, mu=mu)),
        method=f"exact: full batch is μ-GDP with μ = {mu:.4g} ({adjacency})",
        _pld=_GaussianPld(mu),
    )


# --- RDP curves, zCDP and privacy profiles ------------------------------------------------------

#: orders at which a zCDP guarantee (RDP ρα at every α > 1) is converted
ZCDP_ORDERS = np.r_[np.linspace(1.01, 2.0, 100), np.geomspace(2.0, 1e5, 400)[1:]]


def _rdp_arrays(orders, rdp):
    a = np.asarray(orders, dtype=float).ravel()
    r = np.asarray(rdp, dtype=float).ravel()
    if a.shape != r.shape or a.size == 0:
        raise ValueError("orders and rdp must be non-empty and of the same length")
    if np.any(np.isnan(a)) or np.any(a <= 1):
        raise ValueError("RDP orders must be > 1")
    if np.any(np.isnan(r)) or np.any(r < 0):
        raise ValueError("RDP values must be >= 0")
    return a, r


def _lower_envelope(intercepts, slopes):
    """The lines y = c_i − s_i·x (s_i > 0) that attain min_i at some x, in order of x, and the x
    where each next one takes over (the convex-hull trick: O(k log k) once, then any number of x
    by bisection, instead of k evaluations per x)."""
    order = np.lexsort((intercepts, slopes))  # by slope, then intercept
    c, m = intercepts[order], slopes[order]
    keep_c: list[float] = []
    keep_m: list[float] = []
    starts: list[float] = []
    for ci, mi in zip(c, m, strict=True):
        if keep_m and mi == keep_m[-1]:
            continue  # same slope, larger intercept: never lower
        while keep_m:
            x = (ci - keep_c[-1]) / (mi - keep_m[-1])  # where the new, steeper line crosses
            if len(starts) > 1 and x <= starts[-1]:
                keep_c.pop(), keep_m.pop(), starts.pop()
                continue
            starts.append(x)
            break
        else:
            starts.append(-math.inf)
        keep_c.append(ci)
        keep_m.append(mi)
    return np.array(keep_c), np.array(keep_m), np.array(starts)


def rdp_delta(*, orders, rdp, epsilon):
    """δ(ε) implied by an RDP curve (order α, RDP ε_α), vectorised over ε: the smaller of
    Canonne, Kamath & Steinke's conversion exp((α − 1)(ε_α − ε + log(1 − 1/α)) − log α) over the
    orders α > 1.01 and the KL bound √(1 − exp(−ε_α)) — dp-accounting's ``compute_delta``, in
    numpy. Orders <= 1 are refused; ∞ values are allowed (that order gives no bound), and so is the
    order ∞, pure DP, whose profile is exact: (e^{ε_∞} − e^ε)/(1 + e^{ε_∞}) below ε_∞.

    log δ of each order is a line in ε, so the minimum over hundreds of orders is their lower
    envelope, found once and read at every ε by bisection."""
    a, r = _rdp_arrays(orders, rdp)
    eps = np.asarray(epsilon, dtype=float)
    finite = np.isfinite(a) & np.isfinite(r)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        kl = np.where(r == 0, -np.inf, 0.5 * np.log1p(-np.exp(-r)))
        log_d = np.full(eps.shape, float(np.min(kl[np.isfinite(r)], initial=0.0)))
        lines = finite & (a > 1.01)
        if np.any(lines):
            al, rl = a[lines], r[lines]
            # (α − 1)(ε_α − ε + log(1 − 1/α)) − log α = c − (α − 1)·ε
            c = (al - 1) * (rl + np.log1p(-1 / al)) - np.log(al)
            ce, me, starts = _lower_envelope(c, al - 1)
            i = np.clip(np.searchsorted(starts, eps, side="right") - 1, 0, ce.size - 1)
            log_d = np.minimum(log_d, ce[i] - me[i] * eps)
        for rp in r[np.isinf(a) & np.isfinite(r)]:  # order ∞: pure rp-DP
            pure = np.where(
                eps < rp,
                rp + np.log(-np.expm1(np.minimum(eps - rp, 0.0))) - np.logaddexp(0.0, rp),
                -np.inf,
            )
            log_d = np.minimum(log_d, pure)
    out = np.minimum(1.0, np.exp(log_d))
    return out if out.ndim else float(out)


def rdp_epsilon(*, orders, rdp, delta: float) -> float:
    """Smallest ε with :func:`rdp_delta` <= δ, in closed form: each order's δ falls with ε, so it
    is the smallest over the orders of where each reaches δ (0 if the KL bound already does)."""
    _check_delta(delta, allow_zero=False)
    a, r = _rdp_arrays(orders, rdp)
    ok = np.isfinite(r)
    if not np.any(ok):
        return math.inf
    log_delta = math.log(delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(r == 0, -np.inf, 0.5 * np.log1p(-np.exp(-r)))
    if np.min(kl[ok]) <= log_delta:
        return 0.0
    best = math.inf
    lines = ok & np.isfinite(a) & (a > 1.01)
    if np.any(lines):
        al, rl = a[lines], r[lines]
        best = float(np.min(rl + np.log1p(-1 / al) - (log_delta + np.log(al)) / (al - 1)))
    for rp in r[np.isinf(a) & ok]:  # pure rp-DP: (e^rp − e^ε)/(1 + e^rp) = δ
        arg = -math.expm1(math.log(delta) + math.log1p(math.exp(-rp)))  # 1 − δ(1 + e^−rp)
        best = min(best, rp + math.log(arg) if arg > 0 else 0.0)
    return max(0.0, best)


def group_of_two_epsilon(*, orders, rdp, delta: float) -> float:
    """Replace-one ε at δ of an add/remove RDP curve, by group privacy for two records applied to
    each order's (ε, δ) conversion: the smallest 2x over the orders with (1 + e^x)·δ_α(x) <= δ,
    δ_α(x) the order's bound of :func:`rdp_delta` (its KL bound included), x >= 0. Exactly what
    :func:`group_of_two` gives for the pairs of the curve's profile, without a grid: the card's
    replace-one view of an RDP curve takes its pairs from there.

    Per order, log((1 + e^x)·δ_α(x)) = log(1 + e^x) + c_α − (α − 1)x is convex in x, so its
    smallest root is found by bisection on [0, x*], x* its minimum (∞ for α >= 2: it decreases).
    """
    _check_delta(delta, allow_zero=False)
    a, r = _rdp_arrays(orders, rdp)
    ok = np.isfinite(r)
    if not np.any(ok):
        return math.inf
    log_delta = math.log(delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(r == 0, -np.inf, 0.5 * np.log1p(-np.exp(-r)))
    if math.log(2.0) + float(np.min(kl[ok])) <= log_delta:  # x = 0 already: (1 + e^0)·KL <= δ
        return 0.0
    lines = ok & np.isfinite(a) & (a > 1.01)
    if not np.any(lines):
        return math.inf
    al, rl = a[lines], r[lines]
    c = (al - 1) * (rl + np.log1p(-1 / al)) - np.log(al) - log_delta

    def f(x):  # log((1 + e^x) δ_α(x) / δ), per order
        return np.logaddexp(0.0, x) + c - (al - 1) * x

    with np.errstate(divide="ignore", invalid="ignore"):
        x_min = np.where(al >= 2, np.inf, np.log(al - 1) - np.log(2 - al))  # where f' = 0
    x_min = np.maximum(x_min, 0.0)
    hi = np.where(np.isfinite(x_min), x_min, 1.0)
    grow = np.isinf(x_min)
    while np.any(grow & (f(hi) > 0) & (hi < 1e4)):  # α >= 2: f decreases (α = 2: to c_α)
        hi = np.where(grow & (f(hi) > 0), 2 * hi, hi)
    feasible = f(hi) <= 0
    if not np.any(feasible):
        return math.inf
    lo = np.zeros_like(hi)
    done = f(lo) <= 0
    for _ in range(200):
        mid = (lo + hi) / 2
        below = f(mid) <= 0
        hi, lo = np.where(below, mid, hi), np.where(below, lo, mid)
        if np.all((hi - lo) <= 1e-13 * np.maximum(hi, 1.0)):
            break
    x = np.where(done, 0.0, hi)
    return float(2 * np.min(x[feasible]))


#: the orders of :func:`dpsgd_rdp`: dp-accounting's default orders (1.1 to 10.9 in steps of 0.1, the
#: integers 11 to 63, 128, 256, 512, 1024), which contain opacus' (the same without 11 and beyond
#: 63), and every integer from 2 to 256. A superset of both libraries' grids, so the ε is at most
#: theirs, and equal wherever their best order is one of theirs.
DPSGD_RDP_ORDERS = np.unique(
    np.r_[1 + np.arange(1, 100) / 10, np.arange(2, 257), 512, 1024].astype(float)
)


@functools.lru_cache(maxsize=4)
def _log_binomials(orders: tuple):
    """log C(α, k) for k = 0..max α (−∞ beyond α), with k and α as broadcastable arrays."""
    a = np.asarray(orders, dtype=float)
    k = np.arange(int(a.max()) + 1, dtype=float)[None, :]
    al = a[:, None]
    with np.errstate(invalid="ignore"):
        table = special.gammaln(al + 1) - special.gammaln(k + 1) - special.gammaln(al - k + 1)
    return np.where(k <= al, table, -np.inf), k, al


def _log_a_integer(orders, sig: float, q: float):
    """log A_α = log Σ_k C(α, k)(1 − q)^{α−k} q^k e^{(k² − k)/2σ²} at integer orders α >= 2
    (orders up to 256 in one table, larger ones in another: a few rows need the long sums)."""
    orders = np.asarray(orders, dtype=float)
    out = np.empty(orders.size)
    for part in (orders <= 256, orders > 256):
        if not np.any(part):
            continue
        log_binom, k, al = _log_binomials(tuple(orders[part]))
        with np.errstate(divide="ignore", invalid="ignore"):
            rest = np.where(al - k > 0, (al - k) * math.log1p(-q) if q < 1 else -np.inf, 0.0)
            log_terms = log_binom + rest + k * math.log(q) + (k * k - k) / (2 * sig * sig)
        out[part] = special.logsumexp(log_terms, axis=1)
    return out


def _log_a_fractional(orders, sig: float, q: float):
    """log A_α = log E_{z ~ N(0, σ²)}[(1 − q + q·e^{(2z − 1)/2σ²})^α] at any orders α > 1, by the
    trapezoid rule in u = z/σ (Mironov, Talwar & Zhang 2019, Section 3.3, define A_α; they and the
    libraries sum an alternating series for fractional α).

    The integrand is exp(−u²/2 + α·ℓ(u)) with ℓ(u) = log(1 − q + q·e^{(2σu − 1)/2σ²}) convex and of
    slope at most 1/σ: its mass lies in u ∈ [−15, α/σ + 15] (to e^−112) and its log-curvature is at most
    1 + α/(4σ²), so a step of 0.05/√(1 + α/(4σ²)) resolves it (the trapezoid rule converges
    geometrically for such integrands; the tests compare dp-accounting's series to 10⁻¹⁰). The
    same sum of φ alone normalises it, and where A_α − 1 is tiny (small q) it is summed as
    E[expm1(α·ℓ)] so that log A_α keeps its relative digits.
    """
    a = np.asarray(orders, dtype=float)
    top = float(a.max())
    h = 0.05 / math.sqrt(1.0 + top / (4 * sig * sig))  # one grid for every order: the finest
    u = np.arange(-15.0, top / sig + 15.0 + h, h)
    log_phi = -0.5 * u * u
    ell = np.logaddexp(math.log1p(-q), math.log(q) + (2 * sig * u - 1) / (2 * sig * sig))
    norm = special.logsumexp(log_phi)
    w = np.exp(log_phi - norm)
    log_a = np.empty(a.size)
    rows = max(1, 2_000_000 // u.size)  # orders at a time: at most ~16 MB per array
    for start in range(0, a.size, rows):
        part = slice(start, start + rows)
        t = a[part, None] * ell[None, :]
        la = special.logsumexp(log_phi[None, :] + t, axis=1) - norm
        small = la < 1e-2  # A_α close to 1: sum A_α − 1 directly
        if np.any(small):
            la[small] = np.log1p(np.sum(w * np.expm1(np.minimum(t[small], 700.0)), axis=1))
        log_a[part] = la
    return log_a


def dpsgd_rdp(
    *, noise_multiplier: float, sample_rate: float, steps: int, orders=DPSGD_RDP_ORDERS
) -> tuple[np.ndarray, np.ndarray]:
    """The RDP curve (add/remove) of ``steps`` Poisson-subsampled Gaussian steps: ε_α = T/(α − 1)·
    log A_α (Mironov, Talwar & Zhang 2019), the composition multiplying by T. Integer orders in
    closed form, vectorised: A_α = Σ_k C(α, k)(1 − q)^{α−k} q^k e^{(k² − k)/2σ²} (their Theorem 9,
    the sum the libraries evaluate order by order); fractional orders by quadrature
    (:func:`_log_a_fractional`). Sample rate 1 is the Gaussian mechanism: ε_α = Tα/2σ².
    Milliseconds for any number of steps."""
    a = np.asarray(orders, dtype=float).ravel()
    if np.any(~np.isfinite(a)) or np.any(a <= 1):
        raise ValueError("dpsgd_rdp takes finite orders > 1")
    sig, q = float(noise_multiplier), float(sample_rate)
    if not (sig > 0 and 0 < q <= 1):
        raise ValueError("needs noise_multiplier > 0 and 0 < sample_rate <= 1")
    if q == 1.0:
        return a, steps * a / (2 * sig * sig)
    return a, steps * _one_step_rdp(sig, q, tuple(a))


@functools.lru_cache(maxsize=64)
def _one_step_rdp(sig: float, q: float, orders: tuple) -> np.ndarray:
    """One step's RDP at the orders (cached: the card and a calibration ask for it repeatedly)."""
    a = np.asarray(orders)
    log_a = np.empty(a.size)
    whole = a == np.floor(a)
    if np.any(whole):
        log_a[whole] = _log_a_integer(a[whole], sig, q)
    if np.any(~whole):
        log_a[~whole] = _log_a_fractional(a[~whole], sig, q)
    out = np.maximum(log_a, 0.0) / (a - 1)
    out.flags.writeable = False
    return out


def zcdp_rdp(*, rho: float) -> tuple[np.ndarray, np.ndarray]:
    """ρ-zCDP as an RDP curve: ε_α = ρα at the orders :data:`ZCDP_ORDERS` (Bun & Steinke 2016)."""
    if not (rho >= 0 and math.isfinite(rho)):
        raise ValueError(f"rho must be >= 0 and finite, got {rho}")
    return ZCDP_ORDERS, rho * ZCDP_ORDERS


def profile_epsilon(*, epsilons, deltas, delta: float) -> float:
    """The smallest ε_i of a privacy profile's pairs (ε_i, δ_i) with δ_i <= δ (∞ if none)."""
    e = np.asarray(epsilons, dtype=float)
    d = np.asarray(deltas, dtype=float)
    ok = d <= delta
    return float(np.min(e[ok])) if np.any(ok) else math.inf


def group_of_two(*, epsilons, deltas) -> tuple[np.ndarray, np.ndarray]:
    """Add/remove pairs (ε, δ) as replace-one pairs by group privacy: (2ε, (1 + e^ε)δ), δ <= 1."""
    e = np.asarray(epsilons, dtype=float)
    d = np.asarray(deltas, dtype=float)
    with np.errstate(over="ignore"):
        d2 = np.minimum(1.0, (1 + np.exp(np.minimum(e, 700))) * d)
    return 2 * e, d2
