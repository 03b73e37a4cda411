"""What does my ε mean? A risk card from the five papers' bounds, for any guarantee and prior.

>>> card = explain(epsilon=3, prior=0.1)
>>> round(card.row("reconstruction.beta").value, 2)
0.69

``explain(...)`` returns a :class:`RiskCard`: one row per threat model (membership, attribute
inference, reconstruction, and optionally the reverse question), each computed by the library
function the paper figures use, with the paper and theorem and one plain sentence of who the
attacker is. The command ``privrisk explain`` prints it (``--json``, ``--html FILE``).

This package sits beside the papers (``.importlinter``): it imports the concept and contract
layers, never a paper, the workflow or the CLI; and nothing below it imports it, so no rule's code
inputs include it.
"""

from __future__ import annotations

import sys
import types

from . import accounted, headline, reading, reverse, rows
from . import attacker as attacker_mod
from .card import Headline, RiskCard, Row, Section, Setting
from .guarantee import ADD_REMOVE, GUARANTEE_ARGS, REPLACE_ONE, Guarantee
from .inputs import BadInput
from .rows import num

__all__ = [
    "explain",
    "html",
    "Guarantee",
    "GUARANTEE_ARGS",
    "RiskCard",
    "Row",
    "Setting",
    "Headline",
    "Section",
    "BadInput",
    "ADD_REMOVE",
    "REPLACE_ONE",
]

_ATTACKER_ARGS = (
    "base_rate",
    "prior",
    "values",
    "priors",
    "prior_file",
    "targets",
    "attribute_range",
)

_ADJ_MEANING = {
    REPLACE_ONE: "two datasets differ in one record's value",
    ADD_REMOVE: "two datasets differ by one record added or removed",
}


#: the order in which a saved card records its inputs (that of explain's keywords before the
#: guarantee became one value: saved cards stay byte-identical)
_INPUT_ORDER = (
    *GUARANTEE_ARGS[:9],
    *_ATTACKER_ARGS,
    "max_risk",
    "pld_discretisation",
    "rho",
    "rdp",
    "profile",
    "accountant",
)


def _build(guarantee: Guarantee | None = None, **kw) -> tuple[RiskCard, object, object]:
    """The card and the accounted guarantee and the attacker (for the HTML page's curves)."""
    g_args = {k: kw.pop(k) for k in GUARANTEE_ARGS if k in kw}
    max_risk = kw.pop("max_risk", None)
    a_args = {k: kw.pop(k, None) for k in _ATTACKER_ARGS}
    if kw:
        raise TypeError(f"explain() got unexpected keyword arguments {sorted(kw)}")
    value = Guarantee.of(guarantee, **g_args)
    given = (value.to_args() if guarantee is not None else g_args) | a_args
    given["max_risk"] = max_risk
    target = reverse.parse_max_risk(max_risk) if max_risk is not None else None
    g = accounted.account(value)
    a = attacker_mod.parse(**a_args)
    card_rows, notes = rows.build(g, a)
    if target is not None:
        card_rows = (*card_rows, reverse.answer(g, a, *target))
    by_key = {r.key: r for r in card_rows}
    card = RiskCard(
        guarantee=g.description,
        settings=_settings(g, a),
        rows=card_rows,
        notes=notes,
        headline=headline.choose(g, by_key),
        inputs=_inputs({k: given[k] for k in _INPUT_ORDER if k in given}, g, a),
        reading=reading.sentence(g, a, by_key),
    )
    return card, g, a


def _inputs(given: dict, g, a) -> dict:
    """The arguments as a saved card records them: numbers and words as given, and what a file
    held (an RDP curve, a profile, per-target priors) as data, so that ``--load`` rebuilds the
    card from the card alone."""
    out = {}
    for k, v in given.items():
        if v is None:
            continue
        if k in ("rdp", "profile") and g.curve is not None:
            out[k] = g.curve.to_input()
        elif k == "prior_file" and a.prior_file is not None:
            out[k] = a.prior_file.to_input()
        else:
            out[k] = _jsonable(v)
    return out


def _jsonable(v):
    if isinstance(v, str | int | float | bool):
        return v
    if isinstance(v, dict):
        return v
    try:
        return [float(x) for x in v]
    except (TypeError, ValueError):
        return str(v)


def explain(
    guarantee: Guarantee | None = None,
    *,
    base_rate=None,
    prior=None,
    values=None,
    priors=None,
    prior_file=None,
    targets=None,
    attribute_range=None,
    max_risk=None,
    **guarantee_args,
) -> RiskCard:
    """The risk card of a DP guarantee against the papers' attackers.

    The guarantee is a :class:`Guarantee`, or its fields as keyword arguments
    (:data:`GUARANTEE_ARGS`, e.g. ``explain(epsilon=3, prior=0.1)``).

    Args:
        guarantee: the guarantee as one value (then none of its fields as keywords).
        epsilon, delta: pure ε, or (ε, δ) (δ in [0, 1)).
        mu: μ-GDP (δ, default 10⁻⁵, only sets where the (ε, δ) rows read it).
        sigma, sensitivity: a Gaussian mechanism N(0, σ²) on a query of sensitivity Δ (default 1).
        noise_multiplier, sample_rate, steps, delta: DP-SGD (Poisson sampling), accounted with
            dp-accounting's PLD accountant (the RDP accountant's ε recorded beside it).
        adjacency: ``"replace-one"`` or ``"add-remove"``: the neighbouring relation the guarantee
            is stated for (default add-remove for DP-SGD, as opacus reports it, else replace-one).
        base_rate: fraction of candidates that are members (membership; default 0.5).
        prior / values / priors / prior_file: the attacker's prior success for one secret (a
            probability in (0, 1]), K equally likely values, or per-target priors (a sequence or a
            file with one number per line). Default: 2 equally likely values.
        targets: number of targets in one run (default 100; per-target priors set it).
        attribute_range: the attribute's range in units of the precision a guess needs (±1 unit;
            default 20).
        max_risk: ``"KEY=VALUE"``: add the reverse question for that row (e.g.
            ``"reconstruction.beta=0.5"``).
        pld_discretisation: DP-SGD only: the PLD grid (default: adaptive, with a stated error).
        rho: ρ-zCDP (converted through its RDP curve ρα; δ as for μ).
        rdp: a file of RDP orders α and values ε_α (two columns), e.g. from TF Privacy / opacus;
            a line ``# adjacency: replace-one`` states its adjacency (else add/remove is assumed,
            the safe reading). Or the data a saved card recorded.
        profile: a file of privacy-profile pairs ε, δ(ε) (two columns), each a valid guarantee
            (the same adjacency line and default).
        accountant: DP-SGD only: ``"pld"`` (default; tight, with a stated error) or ``"rdp"``
            (its RDP curve, ``accounting.dpsgd_rdp``: milliseconds at any number of steps,
            looser). Either is ``accounting.dpsgd_epsilon``, the ε training records.

    Returns:
        RiskCard.

    Raises:
        BadInput: one clear message naming the argument (``.argument``).
    """
    attacker = dict(base_rate=base_rate, prior=prior, values=values, priors=priors,
                    prior_file=prior_file, targets=targets, attribute_range=attribute_range)  # fmt: skip
    return _build(guarantee, max_risk=max_risk, **attacker, **guarantee_args)[0]


def html(
    sections: tuple[Section, ...] = (), guarantee: Guarantee | None = None, **kwargs
) -> tuple[RiskCard, str]:
    """The card and its self-contained HTML page: the plain reading, the headline, the risk
    explorer (one slider per knob, over grids computed here) and the table; ``sections`` (e.g. an
    audit's, :mod:`.audit_section`) are added to the card before it is drawn."""
    from . import explorer, render

    card, g, a = _build(guarantee, **kwargs)
    for s in sections:
        card = card.with_section(s)
    data = explorer.data(card, g, a)
    return card, render.html_page(card, data, plotly_js=_plotly_js())


def _plotly_js() -> str:
    """plotly.js as bundled with the plotly package (embedded: the page needs no network)."""
    try:
        from plotly.offline import get_plotlyjs
    except ImportError:
        raise BadInput(
            "html", "needs the plotly package (pip install plotly) to draw the explorer"
        ) from None
    return get_plotlyjs()


def adjacency_reason(g) -> str:
    """Why the card reads the guarantee under its adjacency, by where the adjacency came from."""
    if g.adjacency_source == "given":
        return "(given)"
    if g.adjacency_source == "file":
        return f"(stated in the file {g.curve.name})"
    if g.kind == "dpsgd":
        return (
            "(default for DP-SGD, as opacus and dp-accounting report its ε; set with --adjacency)"
        )
    if g.kind in ("rdp", "profile"):
        return (
            "(assumed: the file does not say, and add/remove is the safe reading, as opacus and TF "
            "Privacy report RDP; if the curve is for replace-one, give --adjacency replace-one or "
            "a line '# adjacency: replace-one' in the file, and the reconstruction bounds shrink)"
        )
    return (
        "(default: the adjacency of Swanberg et al. and Pankova & Laud; if the guarantee is for "
        "add/remove, give --adjacency add-remove, and the reconstruction bounds grow)"
    )


def _settings(g, a) -> tuple[Setting, ...]:
    s, r = g.as_stated, g.replace_one
    out = [
        Setting("guarantee", "guarantee", g.description),
        Setting(
            "adjacency",
            "adjacency",
            f"{g.adjacency}: {_ADJ_MEANING[g.adjacency]} {adjacency_reason(g)}",
            default=g.adjacency_default,
        ),
    ]
    eps_text = f"ε = {num(s.epsilon)}" + (f" at δ = {s.delta:.3g}" if s.delta > 0 else "")
    if g.rdp_epsilon is not None:
        eps_text += f" (RDP accountant: ε = {num(g.rdp_epsilon)})"
    out.append(Setting("epsilon", "accounted", f"{eps_text}; {s.accounting}", value=s.epsilon))
    if s.mu is not None:
        out.append(Setting("mu", "μ-GDP", f"μ = {num(s.mu)}", value=s.mu))
    if g.adjacency != REPLACE_ONE:
        r_text = f"ε = {num(r.epsilon)}" + (f" at δ = {r.delta:.3g}" if r.delta > 0 else "")
        out.append(
            Setting(
                "epsilon_replace_one",
                "as replace-one",
                f"{r_text}; {r.accounting} (for attribute and reconstruction rows)",
                value=r.epsilon,
            )
        )
    d = set(a.defaults)
    out += [
        Setting(
            "base_rate",
            "membership base rate",
            f"{a.base_rate:g} of candidates are members"
            + (" (default)" if "base_rate" in d else ""),
            value=a.base_rate,
            default="base_rate" in d,
        ),
        Setting(
            "prior",
            "prior success, one secret",
            f"{a.prior:.4g} ({a.prior_from})" + (" (default)" if "prior" in d else ""),
            value=a.prior,
            default="prior" in d,
        ),
        Setting(
            "targets",
            "targets in one run",
            f"{a.targets:,}" + (" (default)" if "targets" in d else ""),
            value=float(a.targets),
            default="targets" in d,
        ),
        Setting(
            "attribute_range",
            "attribute range",
            f"{a.attribute_range:g} precision units, guess within ±1"
            + (" (default)" if "attribute_range" in d else ""),
            value=a.attribute_range,
            default="attribute_range" in d,
        ),
    ]
    return tuple(out)


class _CallableModule(types.ModuleType):
    """Lets ``privrisk.explain(...)`` call :func:`explain`: the package and the function share the
    name, and once the package is imported the attribute ``privrisk.explain`` is the module."""

    def __call__(self, guarantee: Guarantee | None = None, **kwargs) -> RiskCard:
        return explain(guarantee, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
