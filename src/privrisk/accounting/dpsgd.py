"""DP-SGD's one ε function, :func:`dpsgd_epsilon` (adjacency and accountant explicit: ``rdp``,
the RDP curve :func:`~privrisk.accounting.dpsgd_rdp`, or ``pld``, :func:`dpsgd_pld`, a
privacy-loss distribution with a stated error), and its inverse :func:`dpsgd_noise_multiplier`.
Training calibrates with the inverse and records the ε; the risk card reports the same function."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy import special

from .adjacency import Adjacency
from .calibration import CalibrationLimit, calibrate
from .conversions import group_of_two_epsilon, rdp_epsilon
from .gaussian import gaussian_delta, gaussian_epsilon, gdp_mu
from .limits import (
    _FINEST,
    MAX_GRID_POINTS,
    MAX_RDP_EPSILON,
    PLD_RELATIVE_ERROR,
    AccountingLimit,
    _check_accountant,
    _check_delta,
    check_dpsgd,
)
from .pld import PldAccount, _pld, pld_grid_points, pld_interval
from .rdp import dpsgd_rdp

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

    Full batch (sample rate 1) is the closed form s√T/μ(ε, δ). Otherwise
    :func:`~privrisk.accounting.calibration.calibrate`: bisection on σ, bracketed and halved as
    opacus' ``get_noise_multiplier`` does (σ = 20, 40, … until ε is below target, then halving
    [0, σ] until ε is within the tolerance below it): where the two ε functions agree, so do the
    σ's, and a calibration made with opacus is reproduced.
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

    try:
        return calibrate(eps, epsilon, tolerance=epsilon_tolerance, limit=_MAX_NOISE_MULTIPLIER)
    except CalibrationLimit:
        raise ValueError(
            f"epsilon: {epsilon:g} at δ = {delta:g} needs a noise multiplier above "
            f"{_MAX_NOISE_MULTIPLIER:g}"
        ) from None


#: the largest noise multiplier :func:`dpsgd_noise_multiplier` tries (opacus' ``MAX_SIGMA``)
_MAX_NOISE_MULTIPLIER = 1e6


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
