"""A guarantee accounted: its (ε, δ), privacy profile and trade-off curve under both adjacencies.

:func:`account` turns a :class:`~privrisk.explain.guarantee.Guarantee` (the value, parsed and
checked once) into an :class:`Accounted`: the guarantee under the adjacency it is stated for and
under replace-one, each a :class:`Privacy`. DP-SGD is accounted through
:func:`privrisk.accounting.dpsgd_pld` (a PLD on an adaptive grid, with a stated ε error; the RDP
accountant's ε recorded beside it) or, with ``accountant="rdp"``, through its RDP curve; ρ-zCDP
and RDP curves through Canonne, Kamath & Steinke's conversion at each order; a privacy profile
by its pairs.

The adjacency the guarantee is stated for matters, because the papers' bounds are stated for
different ones: membership asks whether the target is in the data (the card uses the stated
adjacency, and says what "member" means under it), while attribute inference and reconstruction
(Pankova & Laud; Swanberg et al.; MMC; ReRo) compare the target's true value with another value
in the same slot, i.e. replace-one. :class:`Privacy` holds the guarantee under one adjacency;
:class:`Accounted` holds both views. Converting add/remove to replace-one uses group privacy for
a group of two (ε → 2ε, δ → (1 + e^ε)δ, μ → 2μ) and, for DP-SGD's PLD, the replace-one accounting
of the Poisson-subsampled Gaussian, which is tighter than doubling.

Which adjacency a guarantee is read under, and why, is stated on every card
(:attr:`Accounted.adjacency_source`): given (``--adjacency``); stated in the curve's file (a line
``# adjacency: add-remove``); or the default of the form. A curve from a file whose adjacency is
not stated is read as add/remove, the safe reading (opacus and TF Privacy report add/remove RDP;
reading such a curve as replace-one would understate every reconstruction bound).

dp-accounting is imported only for DP-SGD (it costs ~0.1 s of start-up); no torch anywhere.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from privrisk import accounting
from privrisk.bounds import tradeoff

from .guarantee import (
    ADD_REMOVE,
    KINDS,
    REPLACE_ONE,
    Guarantee,
    membership_accuracy,
)
from .inputs import BadInput, Curve


@dataclass(frozen=True)
class Privacy:
    """The guarantee under one adjacency, in the forms the rows need.

    ``epsilon``/``delta``: an (ε, δ) pair that holds (δ = 0 and ``pure`` for pure ε-DP);
    ``mu``: set when the guarantee is exactly μ-GDP; ``advantage``: the f-DP advantage
    max_α (1 − α − f(α)); ``profile``: the privacy profile (ε_i, δ(ε_i)) on a dense grid up to
    where δ < 10⁻¹² (μ-GDP, DP-SGD, curves; every pair is a valid guarantee), computed on first
    use by ``profile_source``; ``tpr_source``: an upper bound on the power of a test at size α
    read off the guarantee directly (the PLD's own trade-off curve, or the RDP orders'), used
    where it is tighter than the profile's; ``delta_source``: δ(x) of the guarantee itself at any
    x >= 0 (μ-GDP, the PLD), where the profile pairs only bound it.
    """

    adjacency: str
    epsilon: float
    delta: float
    pure: bool
    advantage: float
    mu: float | None = None
    accounting: str = ""
    profile_source: object = field(default=None, compare=False, repr=False)
    #: a bound on how far ``epsilon`` may exceed the exact ε (DP-SGD's PLD; 0 where exact)
    epsilon_error: float = 0.0
    tpr_source: object = field(default=None, compare=False, repr=False)
    delta_source: object = field(default=None, compare=False, repr=False)
    #: the same guarantee accounted at the PLD's coarser grid 2Δ (its rows' stated errors), or None
    coarse: Privacy | None = field(default=None, compare=False, repr=False)
    #: how far the PLD's mass is from 1 (a law's is 1): the rows it feeds may be off by this much
    mass_error: float = 0.0

    @property
    def has_profile(self) -> bool:
        """True when the whole privacy profile δ(ε) is known (μ-GDP, DP-SGD, curves)."""
        return self.profile_source is not None

    @cached_property
    def profile(self) -> tuple[np.ndarray, np.ndarray] | None:
        return None if self.profile_source is None else self.profile_source()

    def tpr(self, alpha):
        """An upper bound on the true-positive rate of any test at false-positive rate α:
        1 − f(α), the smallest of the bounds known for this guarantee. Vectorised."""
        a = np.asarray(alpha, dtype=float)
        if self.mu is not None:
            out = np.asarray(tradeoff.success_from_baseline_gdp(a, mu=self.mu))
        elif self.has_profile:
            eps, deltas = self.profile
            out = np.asarray(tradeoff.success_from_baseline_profile(a, epsilons=eps, deltas=deltas))
        else:
            out = np.asarray(
                tradeoff.success_from_baseline_approx(
                    a, epsilon=self.epsilon, delta=min(self.delta, _BELOW_ONE)
                )
            )
        if self.tpr_source is not None:
            out = np.minimum(out, np.asarray(self.tpr_source(a)))
        out = np.clip(out, a, 1.0)  # never below the coin that flags a fraction α
        return out if out.ndim else float(out)

    def success_from_baseline(self, kappa: float) -> float:
        """1 − f(κ) (Kulynych et al. 2025) with this adjacency's trade-off function f.

        Kept per guarantee and κ (a root search on an RDP curve or a PLD: milliseconds, asked
        for again by every card and explorer point that reads the same κ of the same guarantee);
        keyed by κ's repr, so that −0.0 and 0.0 are not one key."""
        kept = self.__dict__.setdefault("_success_from_baseline", {})
        key = repr(kappa)
        if key not in kept:
            kept[key] = float(self.tpr(kappa))
        return kept[key]

    def delta_at(self, x):
        """An upper bound on δ(x) for x >= 0 (vectorised): the guarantee's own where it is known
        (μ-GDP, the PLD), else the smallest over its (ε_i, δ_i) pairs of what each implies,
        δ_i + (1 − δ_i)(e^{ε_i} − e^x)_+ / (1 + e^{ε_i}) (the profile of f_{ε_i, δ_i})."""
        x = np.asarray(x, dtype=float)
        if self.mu is not None:
            return accounting.gaussian_delta(epsilon=x, mu=self.mu)
        if self.delta_source is not None:
            return self.delta_source(x)
        if self.has_profile:
            e, d = self.profile
        else:
            e, d = np.array([self.epsilon]), np.array([self.delta])
        out = np.min(_pair_delta(x[..., None], e, d), axis=-1)
        return out if out.ndim else float(out)

    def membership_accuracy(self, base_rate: float) -> float:
        """:func:`membership_accuracy` of this guarantee."""
        return membership_accuracy(self, base_rate)


def _pair_delta(x, eps, delta):
    """δ(x) implied by an (ε, δ) pair: δ + (1 − δ)·max(0, e^ε − e^x)/(1 + e^ε), in a form that
    does not overflow (ε = ∞ gives 1)."""
    with np.errstate(over="ignore", invalid="ignore"):
        rr = np.where(
            x < eps,
            -np.expm1(np.minimum(x - eps, 0.0)) / (1.0 + np.exp(-np.minimum(eps, 700.0))),
            0.0,
        )
    rr = np.where(np.isinf(eps), 1.0, rr)
    return delta + (1 - delta) * rr


_BELOW_ONE = float(np.nextafter(1.0, 0.0))

#: where the adjacency came from, in the card's words
_SOURCES = ("given", "file", "default")


@dataclass(frozen=True)
class Accounted:
    """A :class:`~privrisk.explain.guarantee.Guarantee` accounted: ``as_stated`` under its own
    adjacency, ``replace_one`` under replace-one (the same object when they coincide)."""

    kind: str
    stated: dict
    adjacency: str
    adjacency_default: bool
    as_stated: Privacy
    replace_one: Privacy
    rdp_epsilon: float | None = None
    #: "given" (--adjacency), "file" (the curve's own line) or "default" (the form's default)
    adjacency_source: str = "default"
    #: the curve a guarantee was read from, as data (a saved card records it)
    curve: Curve | None = None
    #: DP-SGD's accountant ("pld" or "rdp"); None for the other forms
    accountant: str | None = None
    #: the guarantee this accounts (None for a view made by hand, as the reverse search's)
    value: Guarantee | None = field(default=None, compare=False, repr=False)

    @property
    def description(self) -> str:
        parts = ", ".join(f"{_SYMBOL.get(k, k)} = {_fmt(v)}" for k, v in self.stated.items())
        return f"{KINDS[self.kind]}: {parts}"


_SYMBOL = {
    "epsilon": "ε",
    "delta": "δ",
    "mu": "μ",
    "sigma": "σ",
    "sensitivity": "Δ",
    "noise_multiplier": "noise multiplier",
    "sample_rate": "sampling rate",
    "steps": "steps",
    "rho": "ρ",
    "rdp": "file",
    "profile": "file",
    "accountant": "accountant",
}


def _fmt(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    v = float(v)
    if math.isinf(v):
        return "∞"
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
        return f"{v:.3g}"
    return f"{v:.6g}"


# --- accounting ----------------------------------------------------------------------------


def _approx(adjacency: str, epsilon: float, delta: float, how: str) -> Privacy:
    return Privacy(
        adjacency=adjacency,
        epsilon=epsilon,
        delta=delta,
        pure=delta == 0,
        advantage=float(tradeoff.advantage_approx(epsilon=epsilon, delta=min(delta, _BELOW_ONE))),
        accounting=how,
    )


def _gdp(adjacency: str, mu: float, delta: float, how: str) -> Privacy:
    eps = accounting.gaussian_epsilon(delta=delta, mu=mu)

    def profile():
        grid = profile_grid(accounting.gaussian_epsilon(delta=1e-12, mu=mu))
        return grid, np.clip(accounting.gaussian_delta(epsilon=grid, mu=mu), 0.0, _BELOW_ONE)

    return Privacy(
        adjacency=adjacency,
        epsilon=float(eps),
        delta=delta,
        pure=False,
        advantage=float(tradeoff.advantage_gdp(mu=mu)),
        mu=mu,
        profile_source=profile,
        accounting=how + f"; ε at δ = {_fmt(delta)} from μ (Balle–Wang, exact)",
    )


def dpsgd_privacy(
    *,
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    delta: float,
    adjacency: str,
    interval: float | None = None,
    rdp_add_remove: float | None = None,
) -> Privacy:
    """DP-SGD through :func:`privrisk.accounting.dpsgd_pld` (adaptive PLD, stated ε error);
    an accounting limit becomes BadInput naming the argument."""
    try:
        acct = accounting.dpsgd_pld(
            noise_multiplier=noise_multiplier,
            sample_rate=sample_rate,
            steps=steps,
            delta=delta,
            adjacency=adjacency,
            interval=interval,
            rdp_epsilon=rdp_add_remove,
        )
    except accounting.AccountingLimit as err:
        raise BadInput(err.argument, err.message) from None
    return privacy_of_account(acct)


def privacy_of_account(acct: accounting.PldAccount) -> Privacy:
    """The card's view of a DP-SGD account: its ε, the PLD's own trade-off curve and δ(x), the
    privacy profile on a grid, and the same at the coarser grid 2Δ (for the rows' stated errors)."""
    how = acct.method
    if acct.interval > 0:
        # the mass is stated against the check's tolerance, not as its rounding noise (which
        # differs between CPUs' FFTs, and a saved card must rebuild to the same text anywhere)
        mass = (
            f"within {MASS_TOLERANCE:.0e} of 1"
            if acct.mass_error <= MASS_TOLERANCE
            else f"off by {acct.mass_error:.2g}, which the rows' stated errors include"
        )
        how += (
            f", discretisation {acct.interval:.2g}; ε error ≤ {acct.error:.2g} "
            f"({100 * acct.relative_error:.2g} %, on the safe side); PLD mass {mass} (checked)"
        )

    def profile():
        grid = profile_grid(acct.epsilon_for_delta(1e-12))
        return grid, np.clip(acct.delta_for_epsilon(grid), 0.0, _BELOW_ONE)

    coarse = acct.coarse
    return Privacy(
        adjacency=acct.adjacency,
        epsilon=float(acct.epsilon),
        delta=acct.delta,
        pure=False,
        advantage=float(acct.tv),  # total variation = δ(0)
        accounting=how,
        profile_source=profile,
        epsilon_error=acct.error,
        tpr_source=acct.tpr_for_fpr,
        delta_source=acct.delta_for_epsilon,
        coarse=None if coarse is None else privacy_of_account(coarse),
        mass_error=acct.mass_error,
    )


#: how far from 1 a composed PLD's mass may be before the card states it as an error of its own
MASS_TOLERANCE = 1e-9

#: points of a privacy-profile grid: one vectorised δ(ε) call per guarantee
PROFILE_POINTS = 2001


def profile_grid(top: float) -> np.ndarray:
    """ε from 0 to ``top`` (where δ < 10⁻¹²); only ε = 0 when δ is already negligible there."""
    top = float(top)
    if top <= 0:
        return np.zeros(1)
    return np.linspace(0.0, top if math.isfinite(top) else 50.0, PROFILE_POINTS)


def parse(**args) -> Accounted:
    """:func:`account` of the :class:`Guarantee` of the keyword arguments (its fields)."""
    return account(Guarantee(**args))


#: how many accounted guarantees :func:`account` keeps (the latest used): a DP-SGD PLD costs up to
#: a second, and one session asks for the same guarantee again and again (a card and its HTML
#: page, one card per prior or base rate, the explorer's point at the user's own setting); few,
#: as a DP-SGD one holds its PLDs (about 4–15 MB from 600 to 10⁵ steps)
ACCOUNTED_KEPT = 4


def account(g: Guarantee) -> Accounted:
    """The guarantee accounted under its stated adjacency and replace-one. The value is already
    checked; what can still fail is what only accounting finds (a curve with no pair at the card's
    δ, DP-SGD with too little noise to account): BadInput naming the argument.

    Accounting is a pure function of the value, so the last :data:`ACCOUNTED_KEPT` are kept and
    returned again (the same immutable object) for a value with the same fields; keyed by the
    value's repr too, which tells apart what == does not (ε = −0.0 prints "−0", ε = 0.0 "0")."""
    return _account_kept(repr(g), g)


@functools.lru_cache(maxsize=ACCOUNTED_KEPT)
def _account_kept(key: str, g: Guarantee) -> Accounted:
    return _account(g)


def _account(g: Guarantee) -> Accounted:
    way = g.way
    adj, source = g.resolved_adjacency
    if way in ("rdp", "profile"):
        return _curve_guarantee(g, adj, source)
    what = f"{adj} adjacency" + (" (default)" if source == "default" else "")
    delta = g.delta

    if way == "epsilon":
        eps = g.epsilon
        d = 0.0 if delta is None else delta
        as_stated = _approx(adj, eps, d, f"as given, {what}")
        if adj == REPLACE_ONE:
            ro = as_stated
        else:
            # group privacy for the two add/remove steps that make one replacement
            d_ro = (1 + math.exp(min(eps, 700))) * d if d > 0 else 0.0
            ro = _approx(
                REPLACE_ONE,
                2 * eps,
                min(d_ro, _BELOW_ONE),
                "group privacy from add/remove: 2ε" + (", (1 + e^ε)δ" if d > 0 else ""),
            )
        return Accounted(g.kind, g.stated, adj, source == "default", as_stated, ro,
                         adjacency_source=source, value=g)  # fmt: skip

    if way == "zcdp":
        return _zcdp_guarantee(g, adj, source, what)

    if way in ("gdp", "gaussian"):
        d = g.delta_or_default
        if way == "gdp":
            m = g.mu
            how = f"as given, {what}"
        else:
            m = g.sensitivity_or_default / g.sigma
            how = f"μ = Δ/σ = {_fmt(m)} ({what}; sensitivity for that adjacency)"
        as_stated = _gdp(adj, m, d, how)
        ro = (
            as_stated
            if adj == REPLACE_ONE
            else _gdp(REPLACE_ONE, 2 * m, d, "μ → 2μ (group privacy)")
        )
        return Accounted(way, g.stated, adj, source == "default", as_stated, ro,
                         adjacency_source=source, value=g)  # fmt: skip

    # DP-SGD
    nm, q, t, d = g.noise_multiplier, g.sample_rate, g.steps, g.delta
    if g.accountant == "rdp" and q < 1:
        return _dpsgd_rdp_guarantee(g, adj, source)
    # full batch is exactly μ-GDP for either accountant (accounting.dpsgd_epsilon): the PLD path's
    # closed form
    rdp_eps = (
        None
        if q == 1
        else accounting.dpsgd_epsilon(
            noise_multiplier=nm, sample_rate=q, steps=t, delta=d, accountant="rdp"
        )
    )
    views = {
        view: dpsgd_privacy(
            noise_multiplier=nm,
            sample_rate=q,
            steps=t,
            delta=d,
            adjacency=view,
            interval=g.pld_discretisation,
            rdp_add_remove=rdp_eps,
        )
        for view in {adj, REPLACE_ONE}
    }
    return Accounted(
        "dpsgd",
        g.stated,
        adj,
        source == "default",
        views[adj],
        views[REPLACE_ONE],
        rdp_epsilon=rdp_eps if adj == ADD_REMOVE else None,
        adjacency_source=source,
        accountant=g.accountant or "pld",
        value=g,
    )


# --- guarantees given as a curve: zCDP, an RDP curve, a privacy profile; DP-SGD by RDP ----------


def _profile_privacy(
    adjacency, epsilons, deltas, delta: float, how: str, name: str, rdp=None
) -> Privacy:
    """A guarantee known through pairs (ε_i, δ_i), each valid: ε at the card's δ is the smallest
    ε_i with δ_i <= δ; the advantage the smallest over the pairs of (e^ε − 1 + 2δ)/(e^ε + 1).
    With ``rdp`` (orders, values), the RDP orders' own trade-off curve and advantage
    (:func:`privrisk.bounds.tradeoff.tradeoff_rdp`) are used where they are tighter."""
    e = np.asarray(epsilons, dtype=float)
    d = np.clip(np.asarray(deltas, dtype=float), 0.0, _BELOW_ONE)
    eps = accounting.profile_epsilon(epsilons=e, deltas=d, delta=delta)
    if math.isinf(eps):
        raise BadInput(
            name,
            f"no pair of the {KINDS.get(name, name)} reaches δ <= {delta:.3g}; give a larger "
            f"--delta (its smallest δ is {float(d.min()):.3g})",
        )
    adv = float(np.min(tradeoff.advantage_approx(epsilon=e, delta=d)))
    tpr_source = None
    if rdp is not None:
        orders, values = rdp
        adv = min(adv, tradeoff.advantage_rdp(orders=orders, rdp=values))

        def tpr_source(a, orders=orders, values=values):
            return 1.0 - np.asarray(tradeoff.tradeoff_rdp(a, orders=orders, rdp=values))

        how += "; trade-off curve also from each RDP order directly (Zhu et al. 2022)"
    return Privacy(
        adjacency=adjacency,
        epsilon=eps,
        delta=delta,
        pure=False,
        advantage=adv,
        accounting=how,
        profile_source=lambda: (e, d),
        tpr_source=tpr_source,
    )


def _rdp_profile(orders, values, delta: float):
    """The (ε, δ) pairs of an RDP curve on the profile grid, plus the card's own pair exactly."""
    top = accounting.rdp_epsilon(orders=orders, rdp=values, delta=1e-12)
    e = profile_grid(top)
    dl = np.asarray(accounting.rdp_delta(orders=orders, rdp=values, epsilon=e), dtype=float)
    eps_exact = accounting.rdp_epsilon(orders=orders, rdp=values, delta=delta)
    return np.r_[e, eps_exact], np.r_[dl, delta], top


def _rdp_views(orders, values, d, adj, how, name, ro_rdp=None, kl=None):
    """The two views of a guarantee given by an RDP curve for the stated adjacency; the
    replace-one view of an add/remove curve is ``ro_rdp`` (another RDP curve) when one is known,
    else group privacy for each (ε, δ) pair."""
    e, dl, top = _rdp_profile(orders, values, d)
    if not top <= accounting.MAX_RDP_EPSILON:
        raise BadInput(name, f"ε at δ = 1e-12 is {top:.3g}: above "
                       f"{accounting.MAX_RDP_EPSILON:g}, no meaningful protection")  # fmt: skip
    how += "; (ε, δ) by Canonne, Kamath & Steinke's conversion at each order"

    def direct(o, v, scale=1.0):  # the orders for the direct conversion, with KL where known
        return (o, v) if kl is None else (np.r_[1.0, o], np.r_[scale * kl, v])

    as_stated = _profile_privacy(adj, e, dl, d, how, name, rdp=direct(orders, values))
    if adj == REPLACE_ONE:
        return as_stated, as_stated
    if ro_rdp is not None:
        o2, v2, how2 = ro_rdp
        e2, d2, _ = _rdp_profile(o2, v2, d)
        return as_stated, _profile_privacy(
            REPLACE_ONE, e2, d2, d, how2, name, rdp=direct(o2, v2, scale=4.0)
        )
    # group privacy multiplies δ by 1 + e^ε: the pairs must reach far enough along the curve that
    # some (2ε, (1 + e^ε)δ) lies below the card's δ (a curve whose ε at δ = 1e-12 is 20 needs them)
    eg, dg = _group_reach(orders, values, e, dl, d)
    e2, d2 = accounting.group_of_two(epsilons=eg, deltas=dg)
    ro = _profile_privacy(REPLACE_ONE, e2, d2, d, "group privacy from add/remove: "
                          "(2ε, (1 + e^ε)δ) for each pair", name)  # fmt: skip
    return as_stated, ro


def _group_reach(orders, values, e, dl, delta: float):
    """The pairs ``(e, dl)`` extended along the RDP curve until (1 + e^ε)·δ(ε) is below both the
    card's δ and 10⁻¹² (or ε reaches :data:`~privrisk.accounting.MAX_RDP_EPSILON`, where the
    replace-one view may then honestly have no pair at the card's δ)."""
    target = min(delta, 1e-12)
    top = float(e[-1]) if len(e) else 0.0
    if (1 + math.exp(min(top, 700.0))) * float(np.min(dl)) <= target:
        return e, dl
    hi = max(top, 1.0)
    while hi < accounting.MAX_RDP_EPSILON:
        hi = min(2 * hi, accounting.MAX_RDP_EPSILON)
        reach = float(accounting.rdp_delta(orders=orders, rdp=values, epsilon=np.array([hi]))[0])
        if (1 + math.exp(min(hi, 700.0))) * reach <= target:
            break
    extra = profile_grid(hi)
    extra = extra[extra > top]
    dx = np.asarray(accounting.rdp_delta(orders=orders, rdp=values, epsilon=extra), dtype=float)
    return np.r_[e, extra], np.r_[dl, dx]


def _zcdp_guarantee(g: Guarantee, adj, source, what) -> Accounted:
    d, r = g.delta_or_default, g.rho
    orders, values = accounting.zcdp_rdp(rho=r)
    how = f"ρα at every order α (Bun & Steinke 2016), {what}"
    # a replacement is two add/remove steps: 4ρ-zCDP (Bun & Steinke 2016, Prop. 1.9, k = 2)
    ro_rdp = (orders, 4 * values, "4ρ-zCDP by group privacy from add/remove (Bun & Steinke)")
    # zCDP bounds every order above 1, so its limit too: KL <= ρ (order 1)
    as_stated, ro = _rdp_views(orders, values, d, adj, how, "rho", ro_rdp=ro_rdp, kl=r)
    return Accounted("zcdp", g.stated, adj, source == "default", as_stated, ro,
                     adjacency_source=source, value=g)  # fmt: skip


def _dpsgd_rdp_guarantee(g: Guarantee, adj, source) -> Accounted:
    """DP-SGD through its RDP curve (:func:`privrisk.accounting.dpsgd_rdp`, add/remove):
    milliseconds at any number of steps, looser than the PLD. Replace-one through group privacy
    for each (ε, δ) pair, as for an add/remove RDP file. Each view's ε at the card's δ is
    :func:`privrisk.accounting.dpsgd_epsilon` of its adjacency (its pair is added to the profile,
    whose other pairs are the same conversions on a grid, so none is below it)."""
    nm, q, t = g.noise_multiplier, g.sample_rate, g.steps
    orders, values = accounting.dpsgd_rdp(noise_multiplier=nm, sample_rate=q, steps=t)
    fractional = (
        "series" if accounting.rdp.fractional_by_series(noise_multiplier=nm) else "quadrature"
    )
    how = (
        "RDP of the Poisson-subsampled Gaussian at orders 1.1–1024 (add-remove; integer orders in "
        f"closed form, fractional ones by {fractional})"
    )
    d = g.delta
    e, dl, top = _rdp_profile(orders, values, d)
    if not top <= accounting.MAX_RDP_EPSILON:
        raise BadInput(
            "noise_multiplier",
            f"too little noise to account: the RDP curve gives ε = {top:.3g} at δ = 1e-12, "
            f"above the limit {accounting.MAX_RDP_EPSILON:g} (no meaningful protection)",
        )

    def epsilon(adjacency):
        return accounting.dpsgd_epsilon(
            noise_multiplier=nm, sample_rate=q, steps=t, delta=d, adjacency=adjacency,
            accountant="rdp",
        )  # fmt: skip

    how += "; (ε, δ) by Canonne, Kamath & Steinke's conversion at each order"
    e, dl = np.r_[e, epsilon(ADD_REMOVE)], np.r_[dl, d]
    ar = _profile_privacy(ADD_REMOVE, e, dl, d, how, "noise_multiplier", rdp=(orders, values))
    e2, d2 = accounting.group_of_two(epsilons=e, deltas=dl)
    e2, d2 = np.r_[e2, epsilon(REPLACE_ONE)], np.r_[d2, d]
    ro = _profile_privacy(REPLACE_ONE, e2, d2, d, "group privacy from the add/remove RDP "
                          "curve: (2ε, (1 + e^ε)δ) for each pair", "noise_multiplier")  # fmt: skip
    as_stated = ar if adj == ADD_REMOVE else ro
    return Accounted(
        "dpsgd",
        g.stated,
        adj,
        source == "default",
        as_stated,
        ro,
        adjacency_source=source,
        accountant="rdp",
        value=g,
    )


def _curve_guarantee(g: Guarantee, adj, source) -> Accounted:
    way, c, d = g.way, g.curve, g.delta_or_default
    what = (
        f"{adj} adjacency"
        + (
            {
                "given": "",
                "file": " (stated in the file)",
                "default": " (assumed: the safe reading)",
            }[source]
        )
    )
    e = np.array([p[0] for p in c.pairs])
    dl = np.array([p[1] for p in c.pairs])
    if way == "profile":
        order = np.argsort(e)
        e, dl = e[order], dl[order]
        how = f"{len(c.pairs)} (ε, δ) pairs from the file, {what}"
        as_stated = _profile_privacy(adj, e, dl, d, how, way)
        if adj == REPLACE_ONE:
            ro = as_stated
        else:
            e2, d2 = accounting.group_of_two(epsilons=e, deltas=dl)
            ro = _profile_privacy(REPLACE_ONE, e2, d2, d, "group privacy from add/remove: "
                                  "(2ε, (1 + e^ε)δ) for each pair", way)  # fmt: skip
    else:
        how = f"{len(c.pairs)} RDP orders from the file, {what}"
        as_stated, ro = _rdp_views(e, dl, d, adj, how, "rdp")
    return Accounted(way, g.stated, adj, source == "default", as_stated, ro,
                     adjacency_source=source, curve=c, value=g)  # fmt: skip
