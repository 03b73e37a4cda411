"""The guarantee a card explains: parsed, validated and accounted under both adjacencies.

A guarantee is given one way: pure ε; (ε, δ); μ-GDP; a Gaussian mechanism (σ, sensitivity Δ,
i.e. μ = Δ/σ); or DP-SGD (noise multiplier, Poisson sampling rate, steps, δ), which is accounted
through :func:`privrisk.accounting.dpsgd_pld` (dp-accounting's PLD on an adaptive grid, with a
stated ε error; the RDP accountant's ε is recorded beside it).

The adjacency the guarantee is stated for matters, because the papers' bounds are stated for
different ones: membership asks whether the target is in the data (the card uses the stated
adjacency, and says what "member" means under it), while attribute inference and reconstruction
(Pankova & Laud; Swanberg et al.; MMC; ReRo) compare the target's true value with another value
in the same slot, i.e. replace-one. :class:`Privacy` holds the guarantee under one adjacency;
:class:`Guarantee` holds both views. Converting add/remove to replace-one uses group privacy for
a group of two (ε → 2ε, δ → (1 + e^ε)δ, μ → 2μ) and, for DP-SGD, dp-accounting's REPLACE_ONE
accounting of the Poisson-subsampled Gaussian, which is tighter than doubling.

The adjacency is a :class:`privrisk.accounting.Adjacency`. dp-accounting is imported only for
DP-SGD (it costs ~0.1 s of start-up); no torch anywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from privrisk import accounting
from privrisk.bounds import tradeoff

from .inputs import BadInput, integer, number, read_pairs

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


@dataclass(frozen=True)
class Privacy:
    """The guarantee under one adjacency, in the forms the rows need.

    ``epsilon``/``delta``: an (ε, δ) pair that holds (δ = 0 and ``pure`` for pure ε-DP);
    ``mu``: set when the guarantee is exactly μ-GDP; ``advantage``: the f-DP advantage
    max_α (1 − α − f(α)); ``profile``: the privacy profile (ε_i, δ(ε_i)) on a dense grid up to
    where δ < 10⁻¹² (μ-GDP and DP-SGD; every pair is a valid guarantee), computed on first use
    by ``profile_source`` (dp-accounting's δ(ε) costs ~0.1 s per call).
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

    @property
    def has_profile(self) -> bool:
        """True when the whole privacy profile δ(ε) is known (μ-GDP, DP-SGD), not one pair."""
        return self.profile_source is not None

    @cached_property
    def profile(self) -> tuple[np.ndarray, np.ndarray] | None:
        return None if self.profile_source is None else self.profile_source()

    def success_from_baseline(self, kappa: float) -> float:
        """1 − f(κ) (Kulynych et al. 2025) with this adjacency's trade-off function f."""
        if self.mu is not None:
            return float(tradeoff.success_from_baseline_gdp(kappa, mu=self.mu))
        if self.has_profile:
            eps, deltas = self.profile
            return float(tradeoff.success_from_baseline_profile(kappa, epsilons=eps, deltas=deltas))
        return float(
            tradeoff.success_from_baseline_approx(
                kappa, epsilon=self.epsilon, delta=min(self.delta, _BELOW_ONE)
            )
        )


_BELOW_ONE = float(np.nextafter(1.0, 0.0))


@dataclass(frozen=True)
class Guarantee:
    kind: str
    stated: dict
    adjacency: str
    adjacency_default: bool
    as_stated: Privacy
    replace_one: Privacy
    rdp_epsilon: float | None = None

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


def adjacency_of(value, kind: str) -> tuple[str, bool]:
    if value is None:
        # DP-SGD ε is reported for add/remove by opacus and dp-accounting; the other guarantees
        # are read as replace-one, the adjacency of Swanberg et al. and Pankova & Laud.
        return (ADD_REMOVE if kind == "dpsgd" else REPLACE_ONE), True
    try:
        return Adjacency.parse(value), False
    except ValueError:
        raise BadInput(
            "adjacency", f"must be one of {', '.join(ADJACENCIES)}, got {value!r}"
        ) from None


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
    how = acct.method
    if acct.interval > 0:
        how += (
            f", discretisation {acct.interval:.2g}; ε error ≤ {acct.error:.2g} "
            f"({100 * acct.relative_error:.2g} %, on the safe side)"
        )

    def profile():
        grid = profile_grid(acct.epsilon_for_delta(1e-12))
        return grid, np.clip(acct.delta_for_epsilon(grid), 0.0, _BELOW_ONE)

    return Privacy(
        adjacency=acct.adjacency,
        epsilon=float(acct.epsilon),
        delta=acct.delta,
        pure=False,
        advantage=float(acct.tv),  # total variation = δ(0)
        accounting=how,
        profile_source=profile,
        epsilon_error=acct.error,
    )


#: points of a privacy-profile grid: one vectorised δ(ε) call (dp-accounting's costs ~0.1 s
#: per call whatever the number of ε, so the grid is made once per guarantee)
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
    adj, adj_default = adjacency_of(adjacency, way)
    what = f"{adj} adjacency" + (" (default)" if adj_default else "")

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
        return Guarantee(kind, stated, adj, adj_default, as_stated, ro)

    if way in ("zcdp", "rdp", "profile"):
        return _curve_guarantee(way, given, delta, adj, adj_default, what)

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
        return Guarantee(way, stated, adj, adj_default, as_stated, ro)

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
    rdp_eps = (
        None
        if q == 1
        else accounting.dpsgd_rdp_epsilon(noise_multiplier=nm, sample_rate=q, steps=t, delta=d)
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
        stated,
        adj,
        adj_default,
        views[adj],
        views[REPLACE_ONE],
        rdp_epsilon=rdp_eps if adj == ADD_REMOVE else None,
    )


# --- guarantees given as a curve: zCDP, an RDP curve, a privacy profile -------------------------


def _profile_privacy(adjacency, epsilons, deltas, delta: float, how: str, name: str) -> Privacy:
    """A guarantee known through pairs (ε_i, δ_i), each valid: ε at the card's δ is the smallest
    ε_i with δ_i <= δ; the advantage the smallest over the pairs of (e^ε − 1 + 2δ)/(e^ε + 1)."""
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
    return Privacy(
        adjacency=adjacency,
        epsilon=eps,
        delta=delta,
        pure=False,
        advantage=adv,
        accounting=how,
        profile_source=lambda: (e, d),
    )


def _curve_guarantee(way, given, delta, adj, adj_default, what) -> Guarantee:
    d = DEFAULT_DELTA if delta is None else _delta(delta, required_positive=KINDS[way])
    stated: dict = {}
    if way == "profile":
        pairs = read_pairs("profile", given["profile"], what="ε and δ(ε)")
        e = np.array([p[0] for p in pairs])
        dl = np.array([p[1] for p in pairs])
        bad = np.nonzero((e < 0) | (dl < 0) | (dl > 1))[0]
        if bad.size:
            i = int(bad[0])
            raise BadInput(
                "profile", f"pair {i + 1}: ε must be >= 0 and δ in [0, 1], got {pairs[i]}"
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
        stated = {"profile": Path(str(given["profile"])).name}
        how = f"{len(pairs)} (ε, δ) pairs from the file, {what}"
    else:
        if way == "zcdp":
            r = number("rho", given["rho"], lo=0)
            _not_huge("rho", r, MAX_RHO)
            orders, values = accounting.zcdp_rdp(rho=r)
            stated = {"rho": r}
            how = f"ρα at every order α (Bun & Steinke 2016), {what}"
        else:
            pairs = read_pairs("rdp", given["rdp"], what="order α and RDP ε_α")
            orders = np.array([p[0] for p in pairs])
            values = np.array([p[1] for p in pairs])
            if np.any(orders <= 1) or np.any(values < 0):
                raise BadInput("rdp", "orders must be > 1 and RDP values >= 0")
            stated = {"rdp": Path(str(given["rdp"])).name}
            how = f"{len(pairs)} RDP orders from the file, {what}"
        top = accounting.rdp_epsilon(orders=orders, rdp=values, delta=1e-12)
        if not top <= accounting.MAX_RDP_EPSILON:
            raise BadInput(way if way == "rdp" else "rho", f"ε at δ = 1e-12 is {top:.3g}: above "
                           f"{accounting.MAX_RDP_EPSILON:g}, no meaningful protection")  # fmt: skip
        e = profile_grid(top)
        dl = np.asarray(accounting.rdp_delta(orders=orders, rdp=values, epsilon=e), dtype=float)
        how += "; (ε, δ) by Canonne, Kamath & Steinke's conversion at each order"
        eps_exact = accounting.rdp_epsilon(orders=orders, rdp=values, delta=d)
        e, dl = np.r_[e, eps_exact], np.r_[dl, d]  # the card's own pair, exact
    stated |= {"delta": d} if delta is not None else {}
    as_stated = _profile_privacy(adj, e, dl, d, how, way)
    if adj == REPLACE_ONE:
        ro = as_stated
    else:
        e2, d2 = accounting.group_of_two(epsilons=e, deltas=dl)
        ro = _profile_privacy(REPLACE_ONE, e2, d2, d, "group privacy from add/remove: "
                              "(2ε, (1 + e^ε)δ) for each pair", way)  # fmt: skip
    return Guarantee(way, stated, adj, adj_default, as_stated, ro)
