"""One guarantee value: every form a DP guarantee is given in, parsed and validated once.

:class:`Guarantee` is what ``privrisk explain`` (the card), ``privrisk audit`` (the claim) and
anything that records a guarantee (a saved card, a list of published deployments) hold. It is
given exactly one way:

* pure ε, or (ε, δ) (``epsilon``, ``delta``);
* μ-GDP (``mu``), or a Gaussian mechanism (``sigma``, ``sensitivity`` Δ: μ = Δ/σ);
* DP-SGD (``noise_multiplier``, ``sample_rate``, ``steps``, ``delta``; Poisson sampling), with
  its ``accountant`` (``pld``, the default, or ``rdp``) and the PLD's ``pld_discretisation``;
* ρ-zCDP (``rho``);
* an RDP curve (``rdp``) or a privacy profile (``profile``): a file of two columns, the data a
  saved card recorded, or a :class:`~privrisk.explain.inputs.Curve`;

and, for any form, the ``adjacency`` it is stated for (:class:`privrisk.accounting.Adjacency`;
None: the form's default, :func:`resolve_adjacency`). δ is the δ of the (ε, δ) form, the δ at
which DP-SGD's ε is reported, and for μ, σ, ρ and the curves only where the card reads (ε, δ)
(default :data:`DEFAULT_DELTA`).

Like dp-accounting's ``DpEvent``, the value only says what was claimed; accounting it (ε at δ,
the privacy profile, the trade-off curve under each adjacency) is
:func:`privrisk.explain.accounted.account`. The fields are the keyword arguments of
:func:`privrisk.explain.explain` and :func:`privrisk.audit.audit` and, with ``--`` and ``-`` for
``_``, the options of both commands (:data:`GUARANTEE_ARGS`, read off the fields).

>>> Guarantee(epsilon="3").kind
'epsilon'
>>> Guarantee(noise_multiplier=1.1, sample_rate=0.01, steps=600, delta=1e-5).stated
{'noise_multiplier': 1.1, 'sample_rate': 0.01, 'steps': 600, 'delta': 1e-05}

Each field is checked when the value is made; a bad one raises
:class:`~privrisk.explain.inputs.BadInput` naming it (``.argument``), with one line of message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from privrisk import accounting

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
#: what each curve file holds, in the words of its errors
_CURVE_WHAT = {"rdp": "order α and RDP ε_α", "profile": "ε and δ(ε)"}


@dataclass(frozen=True)
class Guarantee:
    """A DP guarantee as claimed, in one of its forms (see the module). Every field is optional;
    exactly one form must be given. Numbers may be given as strings (a command line's); the value
    holds them parsed (floats, ``steps`` an int, ``adjacency`` an :class:`Adjacency`, a curve a
    :class:`Curve`), so two spellings of one guarantee are equal."""

    epsilon: float | None = None
    delta: float | None = None
    mu: float | None = None
    sigma: float | None = None
    sensitivity: float | None = None
    noise_multiplier: float | None = None
    sample_rate: float | None = None
    steps: int | None = None
    adjacency: Adjacency | None = None
    rho: float | None = None
    rdp: Curve | None = None
    profile: Curve | None = None
    accountant: str | None = None
    pld_discretisation: float | None = None

    def __post_init__(self):
        for name, value in _validated(self).items():
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, guarantee: Guarantee | None = None, **args) -> Guarantee:
        """``guarantee``, or the one made of the keyword arguments (None values dropped); a
        TypeError for an argument that is not a field (as a function's unknown keyword)."""
        unknown = sorted(set(args) - set(GUARANTEE_ARGS))
        if unknown:
            raise TypeError(f"unexpected guarantee arguments {unknown}")
        given = {k: v for k, v in args.items() if v is not None}
        if guarantee is not None:
            if given:
                other = "--" + next(iter(given)).replace("_", "-")
                raise BadInput(next(iter(given)), f"the guarantee is given already; drop {other}")
            return guarantee
        return cls(**given)

    @property
    def way(self) -> str:
        """The form it is given in (a key of :data:`WAYS`)."""
        return which_way(self.given())

    @property
    def kind(self) -> str:
        """A key of :data:`KINDS`: the form, with pure ε and (ε, δ) told apart."""
        way = self.way
        if way == "epsilon":
            return "epsilon" if not self.delta else "epsilon-delta"
        return way

    @property
    def curve(self) -> Curve | None:
        """The curve of an RDP or profile guarantee (None for the other forms)."""
        return self.rdp if self.rdp is not None else self.profile

    @property
    def resolved_adjacency(self) -> tuple[Adjacency, str]:
        """The adjacency it is read under and where that came from: "given", "file" (the curve's
        own line) or "default" (:func:`resolve_adjacency`)."""
        c = self.curve
        return resolve_adjacency(self.adjacency, self.way, None if c is None else c.adjacency)

    @property
    def delta_or_default(self) -> float:
        """δ as given, or :data:`DEFAULT_DELTA` (0 for pure ε)."""
        if self.delta is not None:
            return self.delta
        return 0.0 if self.way == "epsilon" else DEFAULT_DELTA

    @property
    def stated(self) -> dict:
        """The guarantee's own numbers, as the card states them (a curve by its name)."""
        way = self.way
        if way == "epsilon":
            return {"epsilon": self.epsilon} | ({"delta": self.delta} if self.delta else {})
        if way == "dpsgd":
            out = {k: getattr(self, k) for k in ("noise_multiplier", "sample_rate", "steps")}
            out["delta"] = self.delta
            return out | ({"accountant": "rdp"} if self.accountant == "rdp" else {})
        if way == "gaussian":
            out = {"sigma": self.sigma, "sensitivity": self.sensitivity_or_default}
        elif way in ("rdp", "profile"):
            out = {way: self.curve.name}
        else:
            out = {WAYS[way][0]: getattr(self, WAYS[way][0])}  # μ or ρ
        return out | ({"delta": self.delta} if self.delta is not None else {})

    @property
    def sensitivity_or_default(self) -> float:
        return 1.0 if self.sensitivity is None else self.sensitivity

    def given(self) -> dict:
        """The fields that are set, by name (the value as keyword arguments)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: v for k, v in values.items() if v is not None}

    def to_args(self) -> dict:
        """The set fields as JSON data (a curve as :meth:`Curve.to_input`, the adjacency as its
        name); ``Guarantee(**g.to_args()) == g``."""
        out = {}
        for k, v in self.given().items():
            if isinstance(v, Curve):
                v = v.to_input()
            elif isinstance(v, Adjacency):
                v = str(v)
            elif isinstance(v, float) and not math.isfinite(v):
                v = "inf"
            out[k] = v
        return out


#: the keyword arguments (and, as ``--flag-name``, the options) that state a guarantee
GUARANTEE_ARGS = tuple(f.name for f in fields(Guarantee))


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


def _validated(g: Guarantee) -> dict:
    """The fields of ``g`` parsed and checked, in the order whose first failure names the field
    a user should fix first (the form, then the options of the form, then each number)."""
    given = g.given()
    way = which_way(given)
    pld_discretisation, accountant = g.pld_discretisation, g.accountant
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
    out: dict = {}
    if way in ("rdp", "profile"):
        c = curve(way, given[way], what=_CURVE_WHAT[way])
        out[way] = c
        resolve_adjacency(g.adjacency, way, c.adjacency)
        if g.delta is not None:
            out["delta"] = _delta(g.delta, required_positive=KINDS[way])
        _check_curve(way, c)
    else:
        resolve_adjacency(g.adjacency, way)
    if g.adjacency is not None:
        out["adjacency"] = Adjacency.parse(g.adjacency)
    if way == "epsilon":
        out["epsilon"] = number("epsilon", g.epsilon, lo=0, inf_ok=True)
        _not_huge("epsilon", out["epsilon"], MAX_EPSILON)
        if g.delta is not None:
            out["delta"] = _delta(g.delta)
    elif way == "zcdp":
        if g.delta is not None:
            out["delta"] = _delta(g.delta, required_positive=KINDS["zcdp"])
        out["rho"] = number("rho", g.rho, lo=0)
        _not_huge("rho", out["rho"], MAX_RHO)
    elif way in ("gdp", "gaussian"):
        name = "a μ-GDP guarantee" if way == "gdp" else "a Gaussian mechanism"
        if g.delta is not None:
            out["delta"] = _delta(g.delta, required_positive=name)
        if way == "gdp":
            out["mu"] = number("mu", g.mu, lo=0, inf_ok=True)
            _not_huge("mu", out["mu"], MAX_MU)
        else:
            out |= _gaussian(g)
    elif way == "dpsgd":
        out |= _dpsgd(g)
    return out


def _gaussian(g: Guarantee) -> dict:
    if g.sigma is None:
        raise BadInput("sigma", "--sensitivity needs --sigma (the Gaussian noise's std)")
    s = number("sigma", g.sigma, lo=0, lo_open=True)
    out = {"sigma": s}
    if g.sensitivity is not None:
        out["sensitivity"] = number("sensitivity", g.sensitivity, lo=0)
    m = out.get("sensitivity", 1.0) / s
    if m > MAX_MU:
        raise BadInput(
            "sigma",
            f"μ = Δ/σ = {m:.3g} is above {MAX_MU:g}: no noise to speak of (every bound "
            "is 1 to double precision); give --epsilon inf for no privacy",
        )
    return out


def _dpsgd(g: Guarantee) -> dict:
    names = ("noise_multiplier", "sample_rate", "steps")
    missing = [n for n in names if getattr(g, n) is None]
    if missing:
        raise BadInput(
            missing[0],
            "DP-SGD needs --noise-multiplier, --sample-rate, --steps and --delta "
            f"(missing {', '.join('--' + n.replace('_', '-') for n in missing)})",
        )
    if g.delta is None:
        raise BadInput("delta", "DP-SGD needs --delta (the δ at which ε is reported)")
    out = {
        "noise_multiplier": number("noise_multiplier", g.noise_multiplier, lo=0, lo_open=True),
        "sample_rate": number("sample_rate", g.sample_rate, lo=0, lo_open=True, hi=1),
        "steps": integer("steps", g.steps, lo=1),
        "delta": _delta(g.delta, required_positive="DP-SGD"),
    }
    if g.pld_discretisation is not None:
        out["pld_discretisation"] = number(
            "pld_discretisation", g.pld_discretisation, lo=0, lo_open=True, hi=1
        )
    try:
        accounting.check_dpsgd(**{n: out[n] for n in names})
    except accounting.AccountingLimit as err:
        raise BadInput(err.argument, err.message) from None
    return out


def _check_curve(way: str, c: Curve) -> None:
    """A profile's pairs are valid (ε >= 0, δ in [0, 1]) and δ does not grow with ε; an RDP
    curve's orders are > 1, its values >= 0 and not all ∞."""
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
        return
    if np.any(e <= 1) or np.any(dl < 0):
        raise BadInput("rdp", "orders must be > 1 and RDP values >= 0")
    if not np.any(np.isfinite(dl)):
        raise BadInput("rdp", "every RDP value is ∞: the curve bounds nothing")


def membership_accuracy(privacy, base_rate: float) -> float:
    """The most accurate membership guess when a fraction ``base_rate`` b of candidates are
    members: max over tests of b·TPR + (1 − b)(1 − FPR) = max(b, 1 − b) + min(b, 1 − b)·δ(x)
    with x = |log(b / (1 − b))| (the hockey-stick divergence at the odds of the base rate, read
    both ways round as the neighbouring relation is symmetric). For pure ε-DP it is
    max(b, 1 − b, e^ε/(1 + e^ε)): Mace's Adv_p = 2·accuracy − 1 is max(|2b − 1|, tanh(ε/2)).
    ``privacy``: a :class:`privrisk.explain.accounted.Privacy` (its δ(x))."""
    b = float(base_rate)
    x = abs(math.log(b) - math.log1p(-b))
    return max(b, 1 - b) + min(b, 1 - b) * float(privacy.delta_at(x))
