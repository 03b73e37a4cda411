"""Privacy accounting shared by every paper: a thin face over one module per matter.

- :mod:`.adjacency`: :class:`Adjacency`, the neighbouring relation (modelled on dp_accounting's
  ``NeighboringRelation``), one spelling for training, config and the risk card.
- :mod:`.gaussian`: the Gaussian mechanism's exact (ε, δ) curve (Balle & Wang 2018, "analytic
  Gaussian"), the same as μ-GDP's dual (Dong, Roth & Su 2019): a Gaussian mechanism with
  sensitivity Δ and noise σ is μ-GDP with μ = Δ/σ and (ε, δ(ε))-DP for every ε with
  δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2); the smallest σ (largest μ) meeting a target (ε, δ).
- :mod:`.dpsgd`: DP-SGD (Poisson-subsampled Gaussian, many steps): one ε function,
  :func:`dpsgd_epsilon` (adjacency and accountant explicit: ``rdp``, the project's own RDP curve
  :func:`dpsgd_rdp` (:mod:`.rdp`), or ``pld``, :func:`dpsgd_pld`, a privacy-loss distribution
  with a stated error (:mod:`.pld`)), and its inverse :func:`dpsgd_noise_multiplier`
  (:mod:`.calibration`'s one bisection). Training calibrates with the inverse and records the ε;
  the risk card reports the same function. opacus and dp-accounting are cross-checks in the
  tests only.
- :mod:`.conversions` (RDP curves and privacy profiles to (ε, δ), group privacy), :mod:`.zcdp`,
  :mod:`.limits` (what the accounting takes, :class:`AccountingLimit`).

Neighbouring relation: the Gaussian formulas take the sensitivity Δ as given; the caller states
whether Δ is for add/remove or replace-one adjacency (replace-one can double it) and records that
choice as an :class:`Adjacency`.

Every public function takes its arguments keyword-only, so that ``gaussian_delta(epsilon=…, mu=…)``
and ``gaussian_epsilon(delta=…, mu=…)`` cannot be swapped.
"""

from __future__ import annotations

from .adjacency import Adjacency
from .calibration import CalibrationLimit, calibrate
from .conversions import (
    group_of_two,
    group_of_two_epsilon,
    profile_epsilon,
    rdp_delta,
    rdp_epsilon,
)
from .dpsgd import DPSGD_SENSITIVITY, dpsgd_epsilon, dpsgd_noise_multiplier, dpsgd_pld
from .gaussian import (
    classic_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_hockey_stick_mc,
    gaussian_sigma,
    gdp_mu,
)
from .limits import (
    DPSGD_ACCOUNTANTS,
    MAX_GRID_POINTS,
    MAX_RDP_EPSILON,
    MAX_STEPS,
    PLD_RELATIVE_ERROR,
    AccountingLimit,
    check_dpsgd,
    quiet_absl,
)
from .pld import (
    DIRECTIONS,
    LossDistribution,
    PldAccount,
    pld_grid_points,
    pld_interval,
    subsampled_gaussian_pld,
    subsampled_gaussian_pmf,
)
from .rdp import DPSGD_RDP_ORDERS, dpsgd_rdp
from .zcdp import ZCDP_ORDERS, zcdp_rdp

__all__ = [
    "Adjacency",
    "gaussian_delta",
    "gaussian_epsilon",
    "gdp_mu",
    "gaussian_sigma",
    "classic_gaussian_sigma",
    "gaussian_hockey_stick_mc",
    "DPSGD_ACCOUNTANTS",
    "DPSGD_SENSITIVITY",
    "dpsgd_epsilon",
    "dpsgd_noise_multiplier",
    "calibrate",
    "CalibrationLimit",
    "MAX_STEPS",
    "MAX_RDP_EPSILON",
    "MAX_GRID_POINTS",
    "PLD_RELATIVE_ERROR",
    "AccountingLimit",
    "quiet_absl",
    "pld_grid_points",
    "pld_interval",
    "DIRECTIONS",
    "subsampled_gaussian_pmf",
    "subsampled_gaussian_pld",
    "LossDistribution",
    "PldAccount",
    "check_dpsgd",
    "dpsgd_pld",
    "ZCDP_ORDERS",
    "rdp_delta",
    "rdp_epsilon",
    "group_of_two_epsilon",
    "DPSGD_RDP_ORDERS",
    "dpsgd_rdp",
    "zcdp_rdp",
    "profile_epsilon",
    "group_of_two",
]
