"""The risk explorer: the data behind the HTML page's interactive curves.

Every number is made here, in Python, by the card's own row functions (:data:`.rows.ROWS`) on
guarantees parsed by :func:`.guarantee.parse` — the page's JavaScript only looks values up in
these precomputed grids and moves a marker; no bound is re-implemented in JavaScript. Two grids:

- **the user's knob**: ε (pure or (ε, δ)), μ (μ-GDP), σ (Gaussian mechanism), ρ (zCDP) or the
  noise multiplier (DP-SGD, the other parameters held), with the user's own value on the grid;
- **the prior**: the attacker's prior success for one secret, from 10⁻⁴ to 1, with the user's own
  prior on the grid, at the user's guarantee; the "prior alone" line is y = prior.

Guarantees given as a file (RDP curve, privacy profile) have no knob: only the prior grid.
"""

from __future__ import annotations

import math

import numpy as np

from privrisk import accounting

from .attacker import parse as parse_attacker
from .guarantee import parse as parse_guarantee
from .inputs import BadInput
from .rows import ROWS, prob

#: the knob per kind of guarantee: (argument, symbol, grid kind)
KNOBS = {
    "epsilon": ("epsilon", "ε", "linear"),
    "epsilon-delta": ("epsilon", "ε", "linear"),
    "gdp": ("mu", "μ", "linear"),
    "gaussian": ("sigma", "σ", "log"),
    "zcdp": ("rho", "ρ", "linear"),
    "dpsgd": ("noise_multiplier", "noise multiplier", "log"),
}
#: grid points (DP-SGD's are fewer: each is a PLD accounting)
POINTS = {"dpsgd": 9}
DEFAULT_POINTS = 41
PRIOR_POINTS = 41

#: the rows the explorer follows (probabilities; the 95 % count is in the card's table)
SERIES = (
    "membership.tpr_at_fpr_0.01",
    "membership.advantage_fdp",
    "membership.positive_accuracy",
    "reconstruction.beta",
    "reconstruction.baseline_fdp",
    "attribute.precise",
)
#: the rows that depend on the prior (the curves against the prior)
PRIOR_SERIES = ("reconstruction.beta", "reconstruction.baseline_fdp", "reconstruction.mmc")


def knob_grid(kind: str, user: float) -> np.ndarray:
    _, _, scale = KNOBS[kind]
    n = POINTS.get(kind, DEFAULT_POINTS)
    if scale == "log":
        grid = user * np.geomspace(1 / 3, 3, n)
    else:
        top = max(2.0 * user, {"epsilon": 6.0, "epsilon-delta": 6.0, "gdp": 3.0}.get(kind, 1.0))
        grid = np.linspace(0.0, top, n)
    return np.unique(np.r_[grid, user])


def prior_grid(user: float) -> np.ndarray:
    return np.unique(np.r_[np.geomspace(1e-4, 1.0, PRIOR_POINTS), user])


def _values(g, a, keys) -> dict[str, float | None]:
    out = {}
    for k in keys:
        v = ROWS[k](g, a).value
        out[k] = None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
    return out


def _series_out(xs, columns: dict[str, list]) -> dict:
    return {
        "x": [float(x) for x in xs],
        "xtext": [f"{x:.4g}" for x in xs],
        "values": columns,
        "text": {k: [prob(v) if v is not None else "n/a" for v in vs] for k, vs in columns.items()},
    }


def data(card, g, a, g_args: dict, a_args: dict) -> dict:
    """The page's data: the two grids with every followed row's value (and its text as the card
    prints it), the user's index on each, and the row labels."""
    out: dict = {"labels": {r.key: r.label for r in card.rows}}
    keys = [k for k in SERIES if card.row(k).value is not None]
    if g.kind in KNOBS:
        name, symbol, scale = KNOBS[g.kind]
        user = float(g.stated[name])
        xs = knob_grid(g.kind, user)
        cols: dict[str, list] = {k: [] for k in keys}
        kept = []
        for x in xs:
            try:
                gx = parse_guarantee(**(g_args | {name: float(x)}))
            except BadInput:  # e.g. a noise multiplier too small to account
                continue
            vals = _values(gx, a, keys)
            kept.append(x)
            for k in keys:
                cols[k].append(vals[k])
        out["knob"] = _series_out(kept, cols) | {
            "name": name,
            "symbol": symbol,
            "scale": scale,
            "user": int(np.argmin(np.abs(np.asarray(kept) - user))),
        }
    # MMC needs a prior 1/K: not a curve over every prior
    p_keys = [k for k in PRIOR_SERIES if k != "reconstruction.mmc"]
    ps = prior_grid(a.prior)
    cols = {k: [] for k in p_keys}
    base = {k: v for k, v in a_args.items() if k not in ("prior", "values", "priors", "prior_file")}
    for p in ps:
        ap = parse_attacker(**(base | {"prior": float(p)}))
        vals = _values(g, ap, p_keys)
        for k in p_keys:
            cols[k].append(vals[k])
    out["prior"] = _series_out(ps, cols) | {"user": int(np.argmin(np.abs(ps - a.prior)))}
    out["prior_alone"] = a.prior
    return out


def knob_note(kind: str) -> str:
    if kind == "dpsgd":
        return (
            "each point of the noise-multiplier grid is a full PLD accounting "
            f"(stated error ≤ {100 * accounting.PLD_RELATIVE_ERROR:g} %)"
        )
    return ""
