"""The guarantee a card explains: parsed, validated and accounted under both adjacencies.

A guarantee is given one way: pure ε; (ε, δ); μ-GDP; a Gaussian mechanism (σ, sensitivity Δ,
i.e. μ = Δ/σ); DP-SGD (noise multiplier, Poisson sampling rate, steps, δ), accounted through
:func:`privrisk.accounting.dpsgd_pld` (a PLD on an adaptive grid, with a stated ε error; the RDP
accountant's ε recorded beside it) or, with ``accountant="rdp"``, through its RDP curve; ρ-zCDP;
an RDP curve; or a privacy profile (both from a file, or the data a saved card recorded).

The adjacency the guarantee is stated for matters, because the papers' bounds are stated for
different ones: membership asks whether the target is in the data (the card uses the stated
adjacency, and says what "member" means under it), while attribute inference and reconstruction
(Pankova & Laud; Swanberg et al.; MMC; ReRo) compare the target's true value with another value
in the same slot, i.e. replace-one. :class:`Privacy` holds the guarantee under one adjacency;
:class:`Guarantee` holds both views. Converting add/remove to replace-one uses group privacy for
a group of two (ε → 2ε, δ → (1 + e^ε)δ, μ → 2μ) and, for DP-SGD's PLD, the replace-one accounting
of the Poisson-subsampled Gaussian, which is tighter than doubling.

Which adjacency a guarantee is read under, and why, is stated on every card
(:attr:`Guarantee.adjacency_source`): given (``--adjacency``); stated in the curve's file (a line
``# adjacency: add-remove``); or the default of the form. A curve from a file whose adjacency is
not stated is read as add/remove, the safe reading (opacus and TF Privacy report add/remove RDP;
reading such a curve as replace-one would understate every reconstruction bound).

The adjacency is a :class:`privrisk.accounting.Adjacency`. dp-accounting is imported only for
DP-SGD (it costs ~0.1 s of start-up); no torch anywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from privrisk import accounting
from privrisk.bounds import tradeoff

from .inputs import BadInput, Curve, curve, integer, number

Adjacency = accounting.Adjacency
REPLACE_ONE = Adjacency.REPLACE_ONE
ADD_REMOVE = Adjacency.ADD_REMOVE
ADJACENCIES = (REPLACE_ONE, ADD_REMOVE)

#: δ at which a GDP / Gaussian guarantee is also read as (ε, δ) when the user gives none
DEFAULT_DELTA = 1e-5
#: above these every bound on the card is 1 to double precision (e^{−ε} underflows, erf(μ/2√2)
#: rounds to 1): a larger finite value is refused and ∞ (which the card handles) suggested
MAX_EPSILON = 1000.0
MAX_MU = 100.0
MAX_RHO = 1e4

KINDS = {
    "epsilon": "pure ε-DP",
    "epsilon-delta": "(ε, δ)-DP",
    "gdp": "μ-GDP",
    "gaussian": "Gaussian mechanism",
    "dpsgd": "DP-SGD",
    "zcdp": "ρ-zCDP",
    "rdp": "RDP curve",
    "profile": "privacy profile",
}

#: the ways of giving a guarantee, by the arguments that select them
WAYS = {
    "epsilon": ("epsilon",),
    "gdp": ("mu",),
    "gaussian": ("sigma", "sensitivity"),
    "dpsgd": ("noise_multiplier", "sample_rate", "steps"),
    "zcdp": ("rho",),
    "rdp": ("rdp",),
    "profile": ("profile",),
}
_WAYS_TEXT = (
    "--epsilon [--delta]; --mu; --sigma [--sensitivity]; "
    "--noise-multiplier --sample-rate --steps --delta; --rho; --rdp FILE; --profile FILE"
)
#: DP-SGD's accountants: the card's PLD (default) and the RDP curve (fast at any number of steps)
ACCOUNTANTS = accounting.DPSGD_ACCOUNTANTS


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
        """1 − f(κ) (Kulynych et al. 2025) with this adjacency's trade-off function f."""
        return float(self.tpr(kappa))

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


def membership_accuracy(privacy: Privacy, base_rate: float) -> float:
    """The most accurate membership guess when a fraction ``base_rate`` b of candidates are
    members: max over tests of b·TPR + (1 − b)(1 − FPR) = max(b, 1 − b) + min(b, 1 − b)·δ(x)
    with x = |log(b / (1 − b))| (the hockey-stick divergence at the odds of the base rate, read
    both ways round as the neighbouring relation is symmetric). For pure ε-DP it is
    max(b, 1 − b, e^ε/(1 + e^ε)): Mace's Adv_p = 2·accuracy − 1 is max(|2b − 1|, tanh(ε/2))."""
    b = float(base_rate)
    x = abs(math.log(b) - math.log1p(-b))
    return max(b, 1 - b) + min(b, 1 - b) * float(privacy.delta_at(x))


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
class Guarantee:
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


# --- validation ----------------------------------------------------------------------------


def _delta(value, *, required_positive: str | None = None) -> float:
    d = number("delta", value)
    if not 0 <= d < 1:
        raise BadInput("delta", f"must be in [0, 1), got {value!r}")
    if required_positive and d == 0:
        raise BadInput("delta", f"must be > 0 for {required_positive} (ε is infinite at δ = 0)")
    return d


def adjacency_of(value, kind: str, file_adjacency: str | None = None) -> tuple[str, bool]:
    """(the adjacency, True when the card chose it): see :func:`resolve_adjacency`."""
    adj, source = resolve_adjacency(value, kind, file_adjacency)
    return adj, source == "default"


def resolve_adjacency(value, kind: str, file_adjacency: str | None = None) -> tuple[str, str]:
    """The adjacency and where it came from ("given", "file", "default").

    Defaults: add/remove for DP-SGD (opacus and dp-accounting report its ε so) and for curves from
    a file that does not state one (the safe reading: opacus and TF Privacy report add/remove RDP,
    and an add/remove curve read as replace-one would understate the reconstruction rows);
    replace-one for ε, (ε, δ), μ, σ and ρ, the adjacency of Swanberg et al. and Pankova & Laud.
    A given adjacency that contradicts the file's is refused."""
    if value is not None:
        try:
            adj = Adjacency.parse(value)
        except ValueError:
            raise BadInput(
                "adjacency", f"must be one of {', '.join(ADJACENCIES)}, got {value!r}"
            ) from None
        if file_adjacency is not None and Adjacency.parse(file_adjacency) is not adj:
            raise BadInput(
                "adjacency",
                f"{adj} contradicts the file, which says its curve is for {file_adjacency}",
            )
        return adj, "given"
    if file_adjacency is not None:
        return Adjacency.parse(file_adjacency), "file"
    if kind in ("dpsgd", "rdp", "profile"):
        return ADD_REMOVE, "default"
    return REPLACE_ONE, "default"


def which_way(given: dict) -> str:
    """The one way the guarantee is given; BadInput naming the arguments if none or several."""
    ways = [w for w, names in WAYS.items() if any(given.get(n) is not None for n in names)]
    if len(ways) > 1:
        names = [
            "--" + n.replace("_", "-") for w in ways for n in WAYS[w] if given.get(n) is not None
        ]
        second = next(n for n in WAYS[ways[1]] if given.get(n) is not None)
        raise BadInput(
            second,
            f"the guarantee is given more than one way ({' and '.join(names)}); give exactly one "
            f"of: {_WAYS_TEXT}",
        )
    if not ways:
        raise BadInput(
            "epsilon",
            f"no guarantee given; give one of: {_WAYS_TEXT}",
        )
    return ways[0]


def _not_huge(name: str, x: float, limit: float) -> None:
    if math.isfinite(x) and x > limit:
        raise BadInput(
            name,
            f"{x:.3g} is above {limit:g}, where every bound on the card is already 1 to double "
            "precision; give --epsilon inf for no privacy",
        )


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


def parse(
    *,
    epsilon=None,
    delta=None,
    mu=None,
    sigma=None,
    sensitivity=None,
    noise_multiplier=None,
    sample_rate=None,
    steps=None,
    adjacency=None,
    pld_discretisation=None,
    rho=None,
    rdp=None,
    profile=None,
    accountant=None,
) -> Guarantee:
    """Validate the guarantee and account it under the stated adjacency and replace-one."""
    given = {
        "epsilon": epsilon,
        "mu": mu,
        "sigma": sigma,
        "sensitivity": sensitivity,
        "noise_multiplier": noise_multiplier,
        "sample_rate": sample_rate,
        "steps": steps,
        "rho": rho,
        "rdp": rdp,
        "profile": profile,
    }
    way = which_way(given)
    if pld_discretisation is not None and way != "dpsgd":
        raise BadInput(
            "pld_discretisation",
            "applies only to a DP-SGD guarantee (--noise-multiplier --sample-rate --steps); "
            "the other guarantees are accounted exactly",
        )
    if accountant is not None:
        if way != "dpsgd":
            raise BadInput("accountant", "applies only to a DP-SGD guarantee (pld or rdp)")
        if accountant not in ACCOUNTANTS:
            raise BadInput(
                "accountant", f"must be one of {', '.join(ACCOUNTANTS)}, got {accountant!r}"
            )
        if accountant == "rdp" and pld_discretisation is not None:
            raise BadInput("pld_discretisation", "applies only to the PLD accountant")

    if way in ("rdp", "profile"):
        what_file = "order α and RDP ε_α" if way == "rdp" else "ε and δ(ε)"
        c = curve(way, given[way], what=what_file)
        adj, source = resolve_adjacency(adjacency, way, c.adjacency)
        return _curve_guarantee(way, c, delta, adj, source)
    adj, source = resolve_adjacency(adjacency, way)
    what = f"{adj} adjacency" + (" (default)" if source == "default" else "")

    if way == "epsilon":
        eps = number("epsilon", epsilon, lo=0, inf_ok=True)
        _not_huge("epsilon", eps, MAX_EPSILON)
        d = 0.0 if delta is None else _delta(delta)
        kind = "epsilon" if d == 0 else "epsilon-delta"
        stated = {"epsilon": eps} | ({"delta": d} if d > 0 else {})
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
        return Guarantee(kind, stated, adj, source == "default", as_stated, ro,
                         adjacency_source=source)  # fmt: skip

    if way == "zcdp":
        return _zcdp_guarantee(rho, delta, adj, source, what)

    if way in ("gdp", "gaussian"):
        name = "a μ-GDP guarantee" if way == "gdp" else "a Gaussian mechanism"
        d = DEFAULT_DELTA if delta is None else _delta(delta, required_positive=name)
        if way == "gdp":
            m = number("mu", mu, lo=0, inf_ok=True)
            _not_huge("mu", m, MAX_MU)
            stated = {"mu": m}
            how = f"as given, {what}"
        else:
            if sigma is None:
                raise BadInput("sigma", "--sensitivity needs --sigma (the Gaussian noise's std)")
            s = number("sigma", sigma, lo=0, lo_open=True)
            sens = 1.0 if sensitivity is None else number("sensitivity", sensitivity, lo=0)
            m = sens / s
            if m > MAX_MU:
                raise BadInput(
                    "sigma",
                    f"μ = Δ/σ = {m:.3g} is above {MAX_MU:g}: no noise to speak of (every bound "
                    "is 1 to double precision); give --epsilon inf for no privacy",
                )
            stated = {"sigma": s, "sensitivity": sens}
            how = f"μ = Δ/σ = {_fmt(m)} ({what}; sensitivity for that adjacency)"
        stated |= {"delta": d} if delta is not None else {}
        as_stated = _gdp(adj, m, d, how)
        ro = (
            as_stated
            if adj == REPLACE_ONE
            else _gdp(REPLACE_ONE, 2 * m, d, "μ → 2μ (group privacy)")
        )
        return Guarantee(way, stated, adj, source == "default", as_stated, ro,
                         adjacency_source=source)  # fmt: skip

    # DP-SGD
    missing = [n for n in ("noise_multiplier", "sample_rate", "steps") if given[n] is None]
    if missing:
        raise BadInput(
            missing[0],
            "DP-SGD needs --noise-multiplier, --sample-rate, --steps and --delta "
            f"(missing {', '.join('--' + n.replace('_', '-') for n in missing)})",
        )
    if delta is None:
        raise BadInput("delta", "DP-SGD needs --delta (the δ at which ε is reported)")
    nm = number("noise_multiplier", noise_multiplier, lo=0, lo_open=True)
    q = number("sample_rate", sample_rate, lo=0, lo_open=True, hi=1)
    t = integer("steps", steps, lo=1)
    d = _delta(delta, required_positive="DP-SGD")
    stated = {"noise_multiplier": nm, "sample_rate": q, "steps": t, "delta": d}
    interval = None
    if pld_discretisation is not None:
        interval = number("pld_discretisation", pld_discretisation, lo=0, lo_open=True, hi=1)
    try:
        accounting.check_dpsgd(noise_multiplier=nm, sample_rate=q, steps=t)
    except accounting.AccountingLimit as err:
        raise BadInput(err.argument, err.message) from None
    if accountant == "rdp" and q < 1:
        return _dpsgd_rdp_guarantee(stated, adj, source)
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
            interval=interval,
            rdp_add_remove=rdp_eps,
        )
        for view in {adj, REPLACE_ONE}
    }
    return Guarantee(
        "dpsgd",
        stated | ({"accountant": "rdp"} if accountant == "rdp" else {}),
        adj,
        source == "default",
        views[adj],
        views[REPLACE_ONE],
        rdp_epsilon=rdp_eps if adj == ADD_REMOVE else None,
        adjacency_source=source,
        accountant=accountant or "pld",
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


def _zcdp_guarantee(rho, delta, adj, source, what) -> Guarantee:
    d = DEFAULT_DELTA if delta is None else _delta(delta, required_positive=KINDS["zcdp"])
    r = number("rho", rho, lo=0)
    _not_huge("rho", r, MAX_RHO)
    orders, values = accounting.zcdp_rdp(rho=r)
    how = f"ρα at every order α (Bun & Steinke 2016), {what}"
    # a replacement is two add/remove steps: 4ρ-zCDP (Bun & Steinke 2016, Prop. 1.9, k = 2)
    ro_rdp = (orders, 4 * values, "4ρ-zCDP by group privacy from add/remove (Bun & Steinke)")
    # zCDP bounds every order above 1, so its limit too: KL <= ρ (order 1)
    as_stated, ro = _rdp_views(orders, values, d, adj, how, "rho", ro_rdp=ro_rdp, kl=r)
    stated = {"rho": r} | ({"delta": d} if delta is not None else {})
    return Guarantee("zcdp", stated, adj, source == "default", as_stated, ro,
                     adjacency_source=source)  # fmt: skip


def _dpsgd_rdp_guarantee(stated: dict, adj, source) -> Guarantee:
    """DP-SGD through its RDP curve (:func:`privrisk.accounting.dpsgd_rdp`, add/remove):
    milliseconds at any number of steps, looser than the PLD. Replace-one through group privacy
    for each (ε, δ) pair, as for an add/remove RDP file. Each view's ε at the card's δ is
    :func:`privrisk.accounting.dpsgd_epsilon` of its adjacency (its pair is added to the profile,
    whose other pairs are the same conversions on a grid, so none is below it)."""
    nm, q, t = stated["noise_multiplier"], stated["sample_rate"], stated["steps"]
    orders, values = accounting.dpsgd_rdp(noise_multiplier=nm, sample_rate=q, steps=t)
    how = (
        "RDP of the Poisson-subsampled Gaussian at orders 1.1–1024 (add-remove; integer orders in "
        "closed form, fractional ones by quadrature)"
    )
    d = stated["delta"]
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
    return Guarantee(
        "dpsgd",
        stated | {"accountant": "rdp"},
        adj,
        source == "default",
        as_stated,
        ro,
        adjacency_source=source,
        accountant="rdp",
    )


def _curve_guarantee(way, c: Curve, delta, adj, source) -> Guarantee:
    d = DEFAULT_DELTA if delta is None else _delta(delta, required_positive=KINDS[way])
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
        bad = np.nonzero((e < 0) | (dl < 0) | (dl > 1))[0]
        if bad.size:
            i = int(bad[0])
            raise BadInput(
                "profile", f"pair {i + 1}: ε must be >= 0 and δ in [0, 1], got {c.pairs[i]}"
            )
        order = np.argsort(e)
        e, dl = e[order], dl[order]
        if np.any(np.diff(dl) > 1e-15):
            i = int(np.nonzero(np.diff(dl) > 1e-15)[0][0])
            raise BadInput(
                "profile",
                f"δ must not grow with ε (a privacy profile is non-increasing): δ({e[i]:g}) = "
                f"{dl[i]:g} < δ({e[i + 1]:g}) = {dl[i + 1]:g}",
            )
        how = f"{len(c.pairs)} (ε, δ) pairs from the file, {what}"
        as_stated = _profile_privacy(adj, e, dl, d, how, way)
        if adj == REPLACE_ONE:
            ro = as_stated
        else:
            e2, d2 = accounting.group_of_two(epsilons=e, deltas=dl)
            ro = _profile_privacy(REPLACE_ONE, e2, d2, d, "group privacy from add/remove: "
                                  "(2ε, (1 + e^ε)δ) for each pair", way)  # fmt: skip
    else:
        orders, values = e, dl
        if np.any(orders <= 1) or np.any(values < 0):
            raise BadInput("rdp", "orders must be > 1 and RDP values >= 0")
        if not np.any(np.isfinite(values)):
            raise BadInput("rdp", "every RDP value is ∞: the curve bounds nothing")
        how = f"{len(c.pairs)} RDP orders from the file, {what}"
        as_stated, ro = _rdp_views(orders, values, d, adj, how, "rdp")
    stated = {way: c.name} | ({"delta": d} if delta is not None else {})
    return Guarantee(way, stated, adj, source == "default", as_stated, ro,
                     adjacency_source=source, curve=c)  # fmt: skip
