"""The operating point behind a bound: which test gave it, at what threshold, with what counts,
rates and levels, so that a reader can recompute the bound from these numbers alone.

Membership (:mod:`.family`): every bound is a maximum over the family's tests of a function of one
test's true-rate lower bound T and false-rate upper bound F; the test that attains it is the
operating point. T is a Clopper–Pearson lower bound (``count`` successes of ``n`` at one-sided
``level``: the ``level`` quantile of Beta(count, n − count + 1)); F the exact upper bound of an
order statistic (the ``1 − level`` quantile of Beta(k, n − k + 1)). Each comes either from the
test's own share of α or from a band checkpoint (a neighbouring order statistic at the band's
share), whichever is tighter, and the point says which. Then

    ε̂(δ) = ln((T − δ)/F)   or   ln((1 − δ − F)/(1 − T))   (``piece``),   μ̂ = Φ⁻¹(T) − Φ⁻¹(F).

One-run (Steinke et al.): the number of guesses k of the grid, the correct guesses v of r = k,
the two score thresholds and the level α/|grid| at which the binomial tail was compared;
f-DP one-run: the k top scores guessed "in", v correct, the threshold and the level.

These functions recompute the audit's own numbers from the same scores (they read the family's
design and bounds); they do not change any bound.
"""

from __future__ import annotations

import numpy as np
from scipy import special

import privrisk.audit.family as fam
import privrisk.audit.one_run as onerun

HIGH_TEST = "member above the k-th largest non-member score"
LOW_TEST = "non-member below the k-th smallest member score"


def _cp_lower(c, n, level) -> float:
    return float(special.betaincinv(c, n - c + 1, level)) if c > 0 else 0.0


def _order_upper(k, n, level) -> float:
    return float(special.betainccinv(k, n - k + 1, level))


def _high(ev: fam.Evidence, i: int, a: float) -> tuple[dict, dict]:
    d = ev.design
    k, n_m, n_n, tp = int(d.high[i]), d.n_members, d.n_nonmembers, int(ev.tp[0, i])
    share = float(d.high_share[i])
    cands_f = []
    if share > 0:
        cands_f.append({"order_statistic": k, "n": n_n, "level": a * share, "from": "test"})
    kb = int(d.band_n[np.searchsorted(d.band_n, k, side="left")])
    cands_f.append({"order_statistic": kb, "n": n_n, "level": a * d.band_n_share, "from": "band"})
    for c in cands_f:
        c["bound"] = _order_upper(c["order_statistic"], c["n"], c["level"])
    f = min(cands_f, key=lambda c: c["bound"])
    cands_t = []
    if share > 0:
        cands_t.append({"count": tp, "n": n_m, "level": a * share, "from": "test"})
    below = int(np.searchsorted(d.band_m, tp, side="right")) - 1
    if below >= 0:
        cb = int(d.band_m[below])
        cands_t.append({"count": cb, "n": n_m, "level": a * d.band_m_share, "from": "band"})
    for c in cands_t:
        c["bound"] = _cp_lower(c["count"], c["n"], c["level"])
    t = max(cands_t, key=lambda c: c["bound"]) if cands_t else {"bound": 0.0, "from": "none"}
    return t, f


def _low(ev: fam.Evidence, j: int, a: float) -> tuple[dict, dict]:
    d = ev.design
    k, n_m, n_n, tn = int(d.low[j]), d.n_members, d.n_nonmembers, int(ev.tn[0, j])
    level = a * float(d.low_share[j])
    t = {"count": tn, "n": n_n, "level": level, "from": "test", "bound": _cp_lower(tn, n_n, level)}
    f = {"order_statistic": k, "n": n_m, "level": level, "from": "test",
         "bound": _order_upper(k, n_m, level)}  # fmt: skip
    return t, f


def membership(members, nonmembers, *, delta: float = 0.0, confidence: float = 0.95,
               groups: int = 1) -> dict:  # fmt: skip
    """The operating points of ``epsilon_lower`` (at ``delta``) and ``mu_lower`` of one canary
    set (``groups``: how many sets share α, Bonferroni, as the audit does)."""
    m_asc = np.sort(np.asarray(members, float))
    x_asc = np.sort(np.asarray(nonmembers, float))
    ev = fam.evidence_sorted(m_asc, x_asc)
    a = (1 - confidence) / groups
    d = ev.design
    k_high = d.high.size
    points = [_high(ev, i, a) for i in range(k_high)] + [_low(ev, j, a) for j in range(d.low.size)]
    t = np.array([p[0]["bound"] for p in points])
    f = np.array([p[1]["bound"] for p in points])
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.log(np.maximum(t - delta, 0.0)) - np.log(f)
        down = np.log(np.maximum(1.0 - delta - f, 0.0)) - np.log1p(-t)
        mu = special.ndtri(t) - special.ndtri(f)
    up, down, mu = (np.where(np.isnan(v), -np.inf, v) for v in (up, down, mu))

    def point(idx: int, value: float, piece: str) -> dict:
        tb, fb = points[idx]
        high = idx < k_high
        k = int(d.high[idx]) if high else int(d.low[idx - k_high])
        threshold = float(x_asc[x_asc.size - k]) if high else float(m_asc[k - 1])
        n_t, n_f = (d.n_members, d.n_nonmembers) if high else (d.n_nonmembers, d.n_members)
        hits = int(ev.tp[0, idx]) if high else int(ev.tn[0, idx - k_high])
        wrong = int(np.sum(x_asc > threshold)) if high else int(np.sum(m_asc < threshold))
        return {
            "value": float(max(value, 0.0)),
            "piece": piece,
            "test": HIGH_TEST if high else LOW_TEST,
            "k": k,
            "threshold": threshold,
            "true_positives": hits, "n_true": n_t, "tpr": hits / n_t,
            "false_positives": wrong, "n_false": n_f, "fpr": wrong / n_f,
            "tpr_lower": tb, "fpr_upper": fb,
            "confidence": confidence, "groups": groups, "delta": delta,
        }  # fmt: skip

    iu, idn, im = int(np.argmax(up)), int(np.argmax(down)), int(np.argmax(mu))
    if up[iu] >= down[idn]:
        eps = point(iu, up[iu], "ln((T - delta) / F)")
    else:
        eps = point(idn, down[idn], "ln((1 - delta - F) / (1 - T))")
    return {"epsilon_lower": eps, "mu_lower": point(im, mu[im], "ndtri(T) - ndtri(F)")}


def one_run_steinke(scores, included, *, epsilon: float, delta: float = 0.0,
                    confidence: float = 0.95, guesses: int | None = None) -> dict:  # fmt: skip
    """The operating point of a Steinke et al. one-run bound ``epsilon`` (the audit's ε̂): the k
    of the grid whose p-value at ε̂ is smallest, its v correct of r = k, the score thresholds and
    the level α/|grid| its p-value is compared with."""
    s, inc = np.asarray(scores, float), np.asarray(included, bool)
    m = s.size
    ks = onerun.guess_grid(m, guesses)
    v = onerun.correct_guesses(s, inc, ks)[0]
    p = onerun.p_value(m, ks, v, epsilon=epsilon, delta=delta)
    b = int(np.argmin(p))
    k = int(ks[b])
    desc = np.sort(s)[::-1]
    k_in, k_out = (k + 1) // 2, k // 2
    return {
        "value": float(epsilon), "guesses": k, "guessed_in": k_in, "guessed_out": k_out,
        "correct": int(v[b]), "r": k, "m": m,
        "threshold_in": float(desc[k_in - 1]),
        "threshold_out": float(desc[m - k_out]) if k_out else None,
        "level": (1 - confidence) / ks.size, "p_at_value": float(p[b]),
        "grid": [int(x) for x in ks], "delta": delta, "confidence": confidence,
    }  # fmt: skip


def one_run_fdp(scores, included, *, mu: float, confidence: float = 0.95,
                guesses: int | None = None) -> dict:  # fmt: skip
    """The operating point of an f-DP one-run bound ``mu`` (the audit's μ̂): the k of the grid
    whose test refutes μ-GDP just below μ̂ (every k that does, the largest v/k first)."""
    s, inc = np.asarray(scores, float), np.asarray(included, bool)
    m = s.size
    ks = onerun.fdp_grid(m, guesses)
    v = onerun.top_correct(s, inc, ks)
    level = (1 - confidence) / ks.size
    below = mu * (1 - 1e-9)
    ok = [i for i in range(ks.size)
          if onerun.fdp_refutes(m, int(ks[i]), int(v[i]), mu=below, level=level)]  # fmt: skip
    b = max(ok, key=lambda i: v[i] / ks[i]) if ok else int(np.argmax(v / ks))
    desc = np.sort(s)[::-1]
    return {
        "value": float(mu), "guesses": int(ks[b]), "correct": int(v[b]), "m": m,
        "threshold_in": float(desc[int(ks[b]) - 1]), "level": level,
        "grid": [int(x) for x in ks], "confidence": confidence,
    }  # fmt: skip
