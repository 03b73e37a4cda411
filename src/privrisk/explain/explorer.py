"""The risk explorer: the data behind the HTML page's sliders, one panel per knob the CLI has.

Every number is made here, in Python, by the card's own row functions (:data:`.rows.ROWS`) on
guarantees and attackers parsed by :func:`.guarantee.parse` and :func:`.attacker.parse` — the
page's JavaScript only looks values up and moves a marker; no bound is re-implemented in
JavaScript. Each panel moves one knob over a fine grid (the others held at the user's setting)
and holds, at every grid point, the followed rows' values and texts as the card prints them, the
plain-language reading of :mod:`.reading`, and the command that prints the same card: so a
slider's readout equals ``privrisk explain`` at the value it shows, by construction.

The knobs: the guarantee's own (ε and δ; μ; σ and the sensitivity; ρ; DP-SGD's noise multiplier,
sampling rate, steps and δ; a curve file's δ) and the attacker's (base rate, prior, targets,
attribute range). DP-SGD's guarantee knobs are swept with the RDP accountant (``--accountant
rdp``), milliseconds per point at any number of steps, where the card's PLD costs up to a second
per point at 10⁶ steps; the page says so, and the card itself keeps the PLD.
"""

from __future__ import annotations

import functools
import math
import shlex
from dataclasses import dataclass

import numpy as np

from .accounted import Accounted
from .accounted import parse as parse_guarantee
from .attacker import MAX_TARGETS
from .attacker import parse as parse_attacker
from .inputs import BadInput
from .reading import sentence
from .rows import ROWS, num

#: the rows each kind of knob moves (the reading's rows are computed at every point too)
GUARANTEE_SERIES = (
    "membership.tpr_at_fpr_0.01",
    "membership.advantage_fdp",
    "membership.positive_accuracy",
    "membership.mace",
    "reconstruction.beta",
    "reconstruction.baseline_fdp",
    "attribute.precise",
)
ATTACKER_SERIES = {
    "base_rate": ("membership.positive_accuracy", "membership.mace"),
    "prior": ("reconstruction.beta", "reconstruction.baseline_fdp", "reconstruction.advantage"),
    "targets": ("reconstruction.quantiles",),
    "attribute_range": ("attribute.precise",),
}
READING_ROWS = ("membership.advantage_fdp", "reconstruction.beta", "reconstruction.baseline_fdp")
#: δ moves few rows: those read from the (ε, δ) pair, not from the whole privacy curve (for a
#: DP-SGD run, μ-GDP, zCDP, a curve file, every row above is δ-free: its δ slider once moved
#: nothing). The δ panel follows these and the rows above, and keeps only those δ moves.
DELTA_SERIES = (*GUARANTEE_SERIES, "membership.advantage_eps_delta")
#: the numbers δ moves that are no probability (not plotted; shown in the panel's table): the
#: guarantee's ε at δ, and for DP-SGD the last-iterate heuristic's ε at δ
DELTA_READOUTS = {
    "epsilon_at_delta": "ε at this δ (the guarantee as an (ε, δ) pair)",
    "last_iterate": "ε at this δ if only the last iterate is released (heuristic)",
}
#: the last-iterate heuristic's δ(ε) is computed at this many ε and read back at each δ of the
#: slider by interpolation (its exact ε costs 0.05 s per δ at 10⁶ steps: 3 s for the slider)
LAST_ITERATE_POINTS = 96
#: kept for callers of the earlier explorer: the rows against the guarantee's knob
SERIES = GUARANTEE_SERIES


@dataclass(frozen=True)
class Knob:
    """One slider: the argument it sets, its symbol, how its grid is spaced, and how many points
    (fewer where a point is dearer)."""

    name: str
    symbol: str
    scale: str  # "linear", "log" or "integer"
    points: int
    part: str  # "guarantee" or "attacker"


KNOBS = {
    "epsilon": Knob("epsilon", "ε", "linear", 121, "guarantee"),
    "delta": Knob("delta", "δ", "log", 61, "guarantee"),
    "mu": Knob("mu", "μ", "linear", 121, "guarantee"),
    "sigma": Knob("sigma", "σ", "log", 121, "guarantee"),
    "sensitivity": Knob("sensitivity", "sensitivity Δ", "log", 81, "guarantee"),
    "rho": Knob("rho", "ρ", "linear", 61, "guarantee"),
    "noise_multiplier": Knob("noise_multiplier", "noise multiplier", "log", 41, "guarantee"),
    "sample_rate": Knob("sample_rate", "sampling rate", "log", 41, "guarantee"),
    "steps": Knob("steps", "steps", "integer", 41, "guarantee"),
    "base_rate": Knob("base_rate", "membership base rate", "linear", 81, "attacker"),
    "prior": Knob("prior", "prior success of one guess", "log", 81, "attacker"),
    "targets": Knob("targets", "targets in one run", "integer", 41, "attacker"),
    "attribute_range": Knob("attribute_range", "attribute range (units)", "log", 61, "attacker"),
}
#: the guarantee's knobs per kind of guarantee, in the order the page shows them
GUARANTEE_KNOBS = {
    "epsilon": ("epsilon", "delta"),
    "epsilon-delta": ("epsilon", "delta"),
    "gdp": ("mu", "delta"),
    "gaussian": ("sigma", "sensitivity", "delta"),
    "zcdp": ("rho", "delta"),
    "dpsgd": ("noise_multiplier", "sample_rate", "steps", "delta"),
    "rdp": ("delta",),
    "profile": ("delta",),
}
ATTACKER_KNOBS = ("base_rate", "prior", "targets", "attribute_range")


def _round(x: float) -> float:
    """A grid value as the command line spells it (6 significant digits), so the command shown
    for a point parses to the very float the point was computed at."""
    return float(f"{x:.6g}")


def grid(knob: Knob, user: float, kind: str) -> np.ndarray:
    """The knob's grid around the user's value (which is on it, exactly)."""
    n = knob.points
    finite = math.isfinite(user)
    u = user if finite else 0.0
    if knob.name == "epsilon":
        xs = np.linspace(0.0, max(2.0 * u, 6.0) if finite else 20.0, n)
    elif knob.name == "mu":
        xs = np.linspace(0.0, max(2.0 * u, 3.0) if finite else 10.0, n)
    elif knob.name == "rho":
        xs = np.linspace(0.0, max(2.0 * u, 1.0), n)
    elif knob.name == "delta":
        lo = 1e-12
        hi = 0.1 if kind in ("epsilon", "epsilon-delta") else 0.5
        xs = np.geomspace(lo, hi, n)
        if kind in ("epsilon", "epsilon-delta"):
            xs = np.r_[0.0, xs]  # δ = 0 is pure ε-DP
    elif knob.name == "sample_rate":
        xs = np.geomspace(u / 10, min(1.0, 10 * u), n)
    elif knob.name == "steps":
        top = min(10 * u, 1e7)  # the accounting's limit
        xs = np.unique(np.round(np.geomspace(max(1.0, u / 10), max(top, 2.0), n)))
    elif knob.name == "base_rate":
        xs = np.linspace(0.01, 0.99, n)
    elif knob.name == "prior":
        xs = np.geomspace(1e-4, 1.0, n)
    elif knob.name == "targets":
        xs = np.unique(np.round(np.geomspace(1, max(min(10 * u, MAX_TARGETS), 1000), n)))
    elif knob.name == "attribute_range":
        xs = np.geomspace(2.5, max(10 * u, 200.0), n)
    else:  # sigma, sensitivity, noise multiplier: a factor 3 (σ: 10) either way, log-spaced
        f = 10.0 if knob.name in ("sigma", "sensitivity") else 3.0
        xs = np.geomspace(u / f, u * f, n)
    xs = np.array([_round(x) for x in xs])
    if finite:
        xs = np.unique(np.r_[xs, user])
    return xs


@dataclass
class _Base:
    """The user's setting as arguments (numbers as parsed), from which each point changes one."""

    guarantee: dict
    attacker: dict
    command: dict  # the same as the command line spells it


def _base(card, g: Accounted, a) -> _Base:
    from .reverse import base_arguments

    if g.kind in ("rdp", "profile"):
        gargs = {g.kind: g.curve.to_input(), "adjacency": str(g.adjacency)}
        if "delta" in g.stated:
            gargs["delta"] = g.stated["delta"]
    else:
        gargs = base_arguments(g)
    if "pld_discretisation" in card.inputs:
        gargs["pld_discretisation"] = card.inputs["pld_discretisation"]
    aargs = {}
    if "base_rate" not in a.defaults:
        aargs["base_rate"] = a.base_rate
    if "attribute_range" not in a.defaults:
        aargs["attribute_range"] = a.attribute_range
    if a.prior_file is not None:
        aargs["prior_file"] = a.prior_file.to_input()
    elif len(set(a.priors)) > 1:
        aargs["priors"] = list(a.priors)
    else:
        if a.values is not None and "prior" not in a.defaults:
            aargs["values"] = a.values
        elif "prior" not in a.defaults:
            aargs["prior"] = a.prior
        if "targets" not in a.defaults:
            aargs["targets"] = a.targets
    command = {k: v for k, v in card.inputs.items() if k != "max_risk"}
    return _Base(gargs, aargs, command)


def _spell(value) -> str:
    if isinstance(value, dict):  # a file's data: the command names the file
        return str(value.get("name", "FILE"))
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.6g}"
    return str(value)


def command_line(args: dict) -> str:
    parts = ["privrisk explain"]
    for k, v in args.items():
        if v is None:
            continue
        if isinstance(v, list):
            v = ",".join(f"{x:g}" for x in v)
        parts.append(f"--{k.replace('_', '-')} {shlex.quote(_spell(v))}")
    return " ".join(parts)


def _point(knob: Knob, x: float, base: _Base, g: Accounted, a, keys) -> dict | None:
    """The followed rows, the reading and the command at one grid point; None if the point is
    outside what the card takes (e.g. a noise multiplier too small to account)."""
    value = int(x) if knob.scale == "integer" else float(x)
    gx, ax = g, a
    command = dict(base.command)
    try:
        if knob.part == "guarantee":
            args = dict(base.guarantee) | {knob.name: value}
            if "deployment" in command:  # a moved guarantee is no longer the deployment's
                command = {k: v for k, v in command.items() if k not in ("deployment", "periods")}
                command = dict(base.guarantee) | command
            if g.kind == "dpsgd":
                args["accountant"] = "rdp"
                args.pop("pld_discretisation", None)
                command["accountant"] = "rdp"
                command.pop("pld_discretisation", None)
            gx = parse_guarantee(**args)
            command[knob.name] = value
        else:
            args = dict(base.attacker)
            if knob.name == "prior":
                for k in ("prior", "values", "priors", "prior_file"):
                    args.pop(k, None)
                    command.pop(k, None)
                if a.targets != 100 or "targets" not in a.defaults:
                    args["targets"] = a.targets
                    command["targets"] = a.targets
            if knob.name == "targets":
                for k in ("priors", "prior_file", "values"):
                    if k in args:
                        args.pop(k)
                        command.pop(k, None)
                        args["prior"] = a.prior
                        command["prior"] = a.prior
            args[knob.name] = value
            command[knob.name] = value
            ax = parse_attacker(**args)
    except BadInput:
        return None
    needed = dict.fromkeys((*keys, *READING_ROWS))
    rows = {k: ROWS[k](gx, ax) for k in needed}
    out = {
        "values": {k: _value(rows[k], ax) for k in keys},
        "text": {k: rows[k].text for k in keys},
        "baseline": _baseline(rows[keys[0]], ax),
        "reading": sentence(gx, ax, rows),
        "command": command_line(command),
    }
    if knob.name == "delta":
        out["epsilon_at_delta"] = _epsilon_text(gx)
    return out


def _epsilon_text(g: Accounted) -> str:
    """The guarantee's ε at its δ, as the DP-SGD card's accountant line prints it."""
    eps = g.as_stated.epsilon
    return f"ε ≤ {'∞' if math.isinf(eps) else num(eps)} at δ = {g.as_stated.delta:g}"


def _value(row, a) -> float | None:
    """The number a curve plots: the row's value, or for a count the fraction of the targets."""
    v = row.value
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if row.key == "reconstruction.quantiles":
        return float(v) / a.targets
    return float(v)


def _baseline(row, a) -> float | None:
    b = row.baseline
    if b is None:
        return None
    if row.key == "reconstruction.quantiles":
        return float(b) / a.targets
    return float(b)


def _user_value(knob: Knob, g: Accounted, a) -> float:
    if knob.part == "guarantee":
        if knob.name == "delta" and "delta" not in g.stated:
            return {"epsilon": 0.0}.get(g.kind, g.as_stated.delta)
        if knob.name == "sensitivity" and "sensitivity" not in g.stated:
            return 1.0
        return float(g.stated[knob.name])
    return float({"base_rate": a.base_rate, "prior": a.prior, "targets": a.targets,
                  "attribute_range": a.attribute_range}[knob.name])  # fmt: skip


def panel(card, knob: Knob, g: Accounted, a, base: _Base) -> dict | None:
    """One slider's data; None when every row it moves is n/a for this guarantee."""
    keys = GUARANTEE_SERIES if knob.part == "guarantee" else ATTACKER_SERIES[knob.name]
    if knob.name == "delta":
        keys = DELTA_SERIES
    keys = tuple(k for k in keys if card.row(k).value is not None) or ()
    if not keys:
        return None
    user = _user_value(knob, g, a)
    xs = grid(knob, user, g.kind)
    points, kept = [], []
    for x in xs:
        p = _point(knob, x, base, g, a, keys)
        if p is not None:
            points.append(p)
            kept.append(float(x))
    user_row = {
        "values": {k: _value(card.row(k), a) for k in keys},
        "text": {k: card.row(k).text for k in keys},
        "baseline": _baseline(card.row(keys[0]), a),
        "reading": card.reading,
        "command": command_line({k: v for k, v in card.inputs.items() if k != "max_risk"}),
    }
    if knob.name == "delta":
        user_row["epsilon_at_delta"] = _epsilon_text(g)
    if math.isfinite(user):
        at = int(np.argmin(np.abs(np.asarray(kept) - user)))
        if g.kind == "dpsgd" and knob.part == "guarantee":
            pass  # the RDP sweep's own point: the card (PLD) is shown beside it
        else:
            points[at] = user_row  # the card itself, to the last digit
        xs_out = kept
    else:  # ε = ∞ or μ = ∞: the curve over finite values, then the user's point at the end
        points.append(user_row)
        xs_out = [*kept, None]
        at = len(points) - 1
    extra, extra_text, extra_card = [], {}, {}
    if knob.name == "delta":
        keys = tuple(k for k in keys if _moves([p["values"][k] for p in points]))
        extra_text["epsilon_at_delta"] = [p["epsilon_at_delta"] for p in points]
        extra_card["epsilon_at_delta"] = _epsilon_text(g)
        section = next((s for s in card.sections if s.key == "dpsgd"), None)
        if section is not None:
            row = next(r for r in section.rows if r.key == "dpsgd.last_iterate")
            texts = _last_iterate_texts(g, xs_out)
            if row.value is not None and texts is not None:
                extra_text["last_iterate"] = texts
                extra_card["last_iterate"] = row.text
        extra = [k for k in extra_text if _moves_text(extra_text[k]) or not keys]
        if not keys and not extra:
            return None  # δ moves nothing on this card: no slider that would move nothing
    return {
        "name": knob.name,
        "symbol": knob.symbol,
        "scale": "log" if knob.scale in ("log",) or knob.name == "targets" else "linear",
        "x": xs_out,
        "xtext": [("∞" if x is None else f"{x:.6g}") for x in xs_out],
        "user": at,
        "keys": list(keys),
        "labels": {k: card.row(k).label for k in keys},
        "values": {k: [p["values"][k] for p in points] for k in keys},
        "text": {k: [p["text"][k] for p in points] for k in keys},
        "baseline": [p["baseline"] for p in points],
        "reading": [p["reading"] for p in points],
        "command": [p["command"] for p in points],
        "card": {k: card.row(k).text for k in keys},
        "note": _note(knob, g, a, moved=keys),
        "extra": extra,
        "extra_labels": {k: DELTA_READOUTS[k] for k in extra},
        "extra_text": {k: extra_text[k] for k in extra},
        "extra_card": {k: extra_card[k] for k in extra},
    }


def _moves_text(texts: list[str]) -> bool:
    """Whether a readout's number (its text before " at δ = …") differs along the slider."""
    return len({t.split(" at δ")[0] for t in texts}) > 1


def _moves(values: list) -> bool:
    """Whether a row's values differ along the slider (to the digits the card prints)."""
    return len({None if v is None else float(f"{v:.6g}") for v in values}) > 1


def _last_iterate_texts(g: Accounted, deltas: list) -> list[str] | None:
    """The last-iterate heuristic's ε at each δ of the slider: its δ(ε) computed exactly at
    :data:`LAST_ITERATE_POINTS` values of ε, and ε read back at each δ by interpolation, linear
    in log δ between the two computed ε that bracket it (δ(ε) falls in ε); None if it cannot be
    computed here."""
    kw = {k: g.stated[k] for k in ("noise_multiplier", "sample_rate", "steps")}
    kw = {"noise_multiplier": float(kw["noise_multiplier"]),
          "sample_rate": float(kw["sample_rate"]), "steps": int(float(kw["steps"]))}  # fmt: skip
    texts = _last_iterate_texts_of(tuple(deltas), **kw)
    return None if texts is None else list(texts)


@functools.lru_cache(maxsize=8)
def _last_iterate_texts_of(deltas: tuple, **kw) -> tuple[str, ...] | None:
    """:func:`_last_iterate_texts` of one DP-SGD run (half a second: ~100 roots), kept for the
    next page of the same run (another prior or base rate moves none of these numbers)."""
    import privrisk.explain.atlas.last_iterate as last_iterate

    try:
        top = last_iterate.epsilon(min(d for d in deltas if d and d > 0), **kw)
        if not math.isfinite(top) or top <= 0:
            return None
        eps = np.r_[0.0, np.geomspace(top * 1e-3, top, LAST_ITERATE_POINTS - 1)]
        dlt = np.array([last_iterate.delta(float(e), **kw) for e in eps])
    except (ValueError, OverflowError, FloatingPointError):  # pragma: no cover - guard
        return None
    out = []
    for d in deltas:
        if d is None or d <= 0:
            out.append("n/a")
            continue
        if d >= dlt[0]:
            out.append(f"ε ≈ 0 at δ = {d:g}")
            continue
        j = int(np.searchsorted(-dlt, -d))  # first computed ε with δ(ε) <= d
        j = min(max(j, 1), len(eps) - 1)
        lo, hi = math.log(max(dlt[j - 1], 1e-300)), math.log(max(dlt[j], 1e-300))
        t = 0.0 if lo == hi else (lo - math.log(d)) / (lo - hi)
        e = eps[j - 1] + min(max(t, 0.0), 1.0) * (eps[j] - eps[j - 1])
        out.append(f"ε ≈ {num(e)} at δ = {d:g}")
    return tuple(out)


def _note(knob: Knob, g: Accounted, a, moved=()) -> str:
    if knob.name == "delta" and set(moved) <= {"membership.advantage_eps_delta"}:
        note = (
            "δ moves only what is read from the (ε, δ) pair: the ε this guarantee gives at each δ "
            "and the membership advantage from (ε, δ); the other bounds use the whole privacy "
            "curve, which does not depend on the δ you quote, so they are not on this slider."
        )
        if g.kind == "dpsgd":
            note += (
                " The ε at each δ is the RDP accountant's (--accountant rdp), looser than the "
                "card's PLD; the last-iterate ε is read off the heuristic's δ(ε), computed at "
                f"{LAST_ITERATE_POINTS} values of ε (interpolated in log δ between them); the "
                "card's own values are in the last column."
            )
        return note
    if g.kind == "dpsgd" and knob.part == "guarantee":
        return (
            "This slider recomputes DP-SGD with the RDP accountant (--accountant rdp: milliseconds "
            "per point at any number of steps), which is looser than the card's PLD; the card's "
            "own values at your setting are in the last column."
        )
    if knob.name == "targets":
        return (
            "The curve is the 95 % bound on the targets reconstructed, as a fraction of the "
            "targets; the dotted line is what the prior alone gives."
            + (" Each target has the largest prior of the file here." if a.prior_file else "")
        )
    if knob.name == "prior" and a.prior_file is not None:
        return "Every target has the prior the slider shows here, not the file's."
    return ""


def data(card, g: Accounted, a) -> dict:
    """The page's data: one panel per knob (see :func:`panel`), the user's reading, the labels."""
    base = _base(card, g, a)
    panels = []
    skipped = []
    for name in (*GUARANTEE_KNOBS.get(g.kind, ()), *ATTACKER_KNOBS):
        p = panel(card, KNOBS[name], g, a, base)
        if p is None:
            skipped.append(KNOBS[name].symbol)
        else:
            panels.append(p)
    return {
        "panels": panels,
        "skipped": skipped,
        "reading": card.reading,
        "labels": {r.key: r.label for r in card.rows},
    }
