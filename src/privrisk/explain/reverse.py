"""The reverse question: the most privacy loss that keeps a chosen risk below a target.

For a guarantee given as ε or (ε, δ) it is the largest ε (δ fixed); for μ-GDP the largest μ; for
a Gaussian mechanism the smallest σ (sensitivity fixed); for DP-SGD the smallest noise multiplier
(sampling rate, steps and δ fixed). Every bound on the card grows with the privacy loss, so the
answer is found by bisection on the very row function the card shows (no separate formula to
drift from it); the tests check it against the closed forms where the papers give one
(Thudi et al.'s ε for an accuracy, Pankova & Laud's ε for an advantage, Swanberg et al.'s
ε_protect, riskcal's noise calibration for an advantage).
"""

from __future__ import annotations

import math

from privrisk import accounting

from .accounted import Accounted, parse, privacy_of_account
from .attacker import Attacker
from .card import Row
from .guarantee import REPLACE_ONE, Adjacency
from .inputs import BadInput
from .rows import ROWS, VIEW, num, prob

#: risks the reverse question can target (ε_protect is already an answer of this kind)
REVERSIBLE = tuple(k for k in ROWS if k != "reconstruction.epsilon_protect")

#: the searched parameter per kind: (name, +1 if a larger value means more privacy loss)
PARAMETER = {
    "epsilon": ("epsilon", +1),
    "epsilon-delta": ("epsilon", +1),
    "gdp": ("mu", +1),
    "gaussian": ("sigma", -1),
    "dpsgd": ("noise_multiplier", -1),
    "zcdp": ("rho", +1),
}
_WORDS = {
    "epsilon": "largest ε",
    "mu": "largest μ",
    "sigma": "smallest σ",
    "noise_multiplier": "smallest noise multiplier",
    "rho": "largest ρ",
}


_SYMBOLS = {
    "epsilon": "ε",
    "mu": "μ",
    "sigma": "σ",
    "noise_multiplier": "noise multiplier",
    "rho": "ρ",
}


def parse_max_risk(value) -> tuple[str, float]:
    """``"KEY=VALUE"`` (or a (key, value) pair) → (key, target), BadInput naming max_risk."""
    if isinstance(value, str):
        key, sep, target = value.partition("=")
        if not sep:
            raise BadInput(
                "max_risk", f"expected KEY=VALUE (e.g. reconstruction.beta=0.5), got {value!r}"
            )
    else:
        try:
            key, target = value
        except (TypeError, ValueError):
            raise BadInput("max_risk", f"expected KEY=VALUE, got {value!r}") from None
    key = str(key).strip()
    if key not in REVERSIBLE:
        raise BadInput("max_risk", f"unknown risk {key!r}; one of: {', '.join(REVERSIBLE)}")
    try:
        t = float(target)
    except (TypeError, ValueError):
        raise BadInput(
            "max_risk", f"the target of {key} must be a number, got {target!r}"
        ) from None
    if math.isnan(t) or t < 0 or (key != "reconstruction.quantiles" and t > 1):
        what = "a count >= 0" if key == "reconstruction.quantiles" else "a probability in [0, 1]"
        raise BadInput("max_risk", f"the target of {key} must be {what}, got {target!r}")
    return key, t


def base_arguments(g: Accounted) -> dict:
    """The parsed guarantee as arguments of :func:`.accounted.parse` (numbers, not the text the
    user typed: ``--steps 6e3`` is 6000 here), with its adjacency made explicit."""
    args = {k: v for k, v in g.stated.items() if k in _PARSE_ARGS}
    args["adjacency"] = str(g.adjacency)
    return args


_PARSE_ARGS = (
    "epsilon", "delta", "mu", "sigma", "sensitivity", "noise_multiplier", "sample_rate", "steps",
    "rho", "accountant",
)  # fmt: skip


def _risk(base: dict, kind: str, a: Attacker, key: str, x: float, grid: dict) -> float:
    """The row's value when the searched parameter is x (privacy loss grows with x).

    DP-SGD (PLD): every step of the search, and the check of its answer, use one PLD
    discretisation ``grid["interval"]`` (the adaptive one at the user's own setting), so the risk
    the answer reports is the very value the search compared with the target. A noise multiplier
    too small to account (:class:`~privrisk.accounting.AccountingLimit`) counts as above any
    target."""
    name, sign = PARAMETER[kind]
    args = dict(base)
    if sign > 0:
        args[name] = x
    else:
        args[name] = math.inf if x == 0 else 1.0 / x
    if kind == "dpsgd" and args.get("accountant") != "rdp":
        # account only the view this row reads: each PLD costs ~0.05 s
        adjacency = Adjacency.parse(args["adjacency"])
        view = adjacency if VIEW[key] == "stated" else REPLACE_ONE
        if math.isinf(args[name]):
            return _extreme(key, a, 0.0)
        try:
            acct = accounting.dpsgd_pld(
                noise_multiplier=args["noise_multiplier"],
                sample_rate=args["sample_rate"],
                steps=args["steps"],
                delta=args["delta"],
                adjacency=view,
                interval=grid.get("interval"),
            )
        except accounting.AccountingLimit:
            return math.inf
        grid.setdefault("interval", acct.interval or None)
        privacy = privacy_of_account(acct)
        g = Accounted(kind, {}, adjacency, False, privacy, privacy)
    else:
        if kind == "dpsgd" and math.isinf(args[name]):
            return _extreme(key, a, 0.0)
        try:
            g = parse(**args)
        except BadInput:  # beyond the card's range (ε > 1000, μ > 100): the risk of no privacy
            return _extreme(key, a, math.inf)
    v = ROWS[key](g, a).value
    return math.nan if v is None else float(v)


def _extreme(key: str, a: Attacker, epsilon: float) -> float:
    """The risk with no privacy loss (ε = 0: infinite noise) or no privacy (ε = ∞: no noise)."""
    return float(ROWS[key](parse(epsilon=epsilon), a).value)


def answer(g: Accounted, a: Attacker, key: str, target: float) -> Row:
    if g.kind not in PARAMETER:
        raise BadInput(
            "max_risk",
            f"the reverse question needs a guarantee with one knob (ε, μ, σ, ρ, noise "
            f"multiplier); a {g.kind} file has none",
        )
    row = ROWS[key](g, a)
    if row.value is None:
        raise BadInput("max_risk", f"{key} does not apply to this guarantee: {row.note}")
    name, sign = PARAMETER[g.kind]
    words = _WORDS[name]
    stated = float(g.stated[name])
    x_user = stated if sign > 0 else (0.0 if math.isinf(stated) else 1.0 / stated)
    rel_tol = 1e-3 if g.kind == "dpsgd" else 1e-6

    grid: dict = {}
    base = base_arguments(g)
    if g.kind == "dpsgd":
        _risk(base, g.kind, a, key, x_user, grid)  # fixes the grid at the user's setting

    def risk(x):
        return _risk(base, g.kind, a, key, x, grid)

    at_zero = _extreme(key, a, 0.0)
    common = dict(
        key="reverse",
        group="reverse",
        label=f"{words} keeping {key} ≤ {target:g}",
        source=row.source,
        attacker=row.attacker,
        adjacency=g.adjacency,
        function=f"bisection on {row.function}",
    )
    if at_zero > target:
        return Row(
            value=None,
            text="none",
            note=f"even with no privacy loss this risk is {prob(at_zero)} > {target:g} "
            "(the attacker's prior alone exceeds the target)",
            **common,
        )
    # bracket [lo, hi]: risk(lo) <= target < risk(hi), growing or shrinking from the user's x
    lo, hi = 0.0, None
    x = x_user if 0 < x_user < math.inf else 1.0
    for _ in range(60):
        if risk(x) <= target:
            lo = x
            x *= 4
            if x > 1e6:
                break
        else:
            hi = x
            break
    if hi is None:
        if _extreme(key, a, math.inf) <= target:
            return Row(
                value=_param(math.inf, sign),
                text="any: even no privacy at all keeps the risk below the target",
                **common,
            )
        hi = x
    if lo == 0.0:
        lo = hi / 4
        while risk(lo) > target and lo > 1e-9:
            hi, lo = lo, lo / 4
    for _ in range(200):
        if hi - lo <= rel_tol * hi:
            break
        mid = 0.5 * (lo + hi)
        if risk(mid) <= target:
            lo = mid
        else:
            hi = mid
    best = _param(lo, sign)
    at = risk(lo)  # on the grid the search used: at <= target
    user = _param(x_user, sign)
    return Row(
        value=best,
        values=(best, at),
        text=f"{_SYMBOLS[name]} {'≤' if sign > 0 else '≥'} {num(best)} "
        f"(yours: {num(user)}; at it the risk is {prob(at) if at <= 1 else num(at)})",
        note="the other parameters of the guarantee held fixed",
        **common,
    )


def _param(x: float, sign: int) -> float:
    if sign > 0:
        return x
    return math.inf if x == 0 else 1.0 / x
