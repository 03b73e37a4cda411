"""What every xu2022 figure does with a model's saved queries: load them with the model's
record, draw Experiment-2 samples, choose the bins from the sample size, measure the model's
membership signal (AUC) and turn values into plotted rows with error bars inside [0, 1]."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ...estimators import heldout, mace
from . import checks


def load(path):
    """(member queries, hold-out queries, the step's record) of one ``*_queries.npz``."""
    q = np.load(path)
    s, m = q["scores"], q["member"].astype(bool)
    rec_path = Path(path).with_name(Path(path).name.replace("_queries.npz", "_record.json"))
    rec = json.loads(rec_path.read_text()) if rec_path.is_file() else {}
    return s[m], s[~m], rec


def draws(s_in, s_out, p, rng, trials):
    """``trials`` Experiment-2 samples (members, non-members), without replacement, of at most
    as many points as the hold-out set has, so that the null baseline can be drawn at the same N."""
    for _ in range(trials):
        i, o = mace.experiment2(len(s_in), len(s_out), p, rng, n_max=len(s_out))
        yield s_in[i], s_out[o]


def bins(params, n_members: int, dim: int = 1) -> int:
    """Bins per dimension: the paper's ``bins`` (100), or fewer from ``points_per_bin``."""
    return heldout.bins_for(
        n_members, dim, max_bins=params["bins"], points_per_bin=params.get("points_per_bin")
    )


def signal(s_in, s_out, min_auc: float) -> tuple[dict[str, float], str]:
    """The model's member-vs-hold-out AUC per query dimension and the gate's verdict ('' = leaks)."""
    aucs = heldout.query_aucs(
        np.vstack([s_in, s_out]), np.r_[np.ones(len(s_in), bool), np.zeros(len(s_out), bool)]
    )
    return aucs, checks.auc_gate(aucs, min_auc)


def split_text(rec: dict, fallback: str = "a random training split") -> str:
    """The split actually used, e.g. '3.0 % (150 of 5,000 images)', from the step's record."""
    if "n" in rec and "n_train" in rec:
        return (
            f"{100 * rec['n_train'] / rec['n']:.1f} % ({rec['n_train']:,} of {rec['n']:,} images)"
        )
    return fallback


def row(series, x, vals, lo=None, hi=None, half=None, **kw) -> dict:
    """Mean over draws with an error bar: ± ``half`` or the mean of per-draw (lo, hi), clipped
    to [0, 1] (an advantage or a metric cannot leave it) and always containing y."""
    y = float(np.mean(vals))
    lo = y - half if half is not None else float(np.mean(lo))
    hi = y + half if half is not None else float(np.mean(hi))
    lo, hi = min(float(np.clip(lo, 0, 1)), y), max(float(np.clip(hi, 0, 1)), y)
    return {
        "series": series,
        "x": x,
        "y": y,
        "lo": lo,
        "hi": hi,
        "sd_over_draws": float(np.std(vals)),
        **kw,
    }


def source_note(sources: dict[str, str]) -> str:
    bad = [f"{k}: {v}" for k, v in sources.items() if v != "real"]
    return ("on " + ", ".join(bad) + " data, not the paper's") if bad else ""


def claim_kw(sources: dict[str, str], decision: dict) -> dict:
    """``holds``, ``data`` and ``note`` of a qualitative claim from a :mod:`.checks` decision."""
    (data,) = set(sources.values())
    note = "; ".join(x for x in (decision["note"], source_note(sources)) if x)
    if decision["holds"] is False and not note:
        note = "does not hold on real data"
    return {"holds": decision["holds"], "data": data, "note": note}
