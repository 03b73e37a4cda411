"""DP-SGD's privacy-loss distribution: one Poisson-subsampled Gaussian step on dp-accounting's grid
(computed in numpy), its composition by dp-accounting, and the composed PLD read in numpy (δ(ε),
ε(δ), the trade-off curve), with the discretisation rule that states its ε error."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .adjacency import Adjacency
from .limits import _COARSEST, _FINEST, MAX_GRID_POINTS, PLD_RELATIVE_ERROR


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
