"""Lowy, Li, Liu, Koike-Akino, Parsons & Wang, "Why does differential privacy with large ε
defend against practical membership inference attacks?" (arXiv 2402.09540).

Every figure plots, against one swept parameter, the trial-averaged ratios ε̃(X)/ε and
ε̃(X)/ε(X), where ε is the DP parameter, ε(X) the DP parameter restricted to neighbouring
subsets of the population X, and ε̃(X) the practical-membership-privacy (PMP) parameter
(spec: ../shared/spec/lowy2024.md).

- ``fig1``–``fig3``: the exponential mechanism (geometric-median loss over m unit candidates),
  ε̃(X) exact by Proposition 9 over all C(12, 6) = 924 halves of a 12-point population.
- ``fig4``–``fig6``: the Gaussian mechanism for the mean of n = 100 points (|X| = 200),
  Balle–Wang calibration and Proposition 12's bound. The paper does not say which DP parameter
  it holds fixed, so each figure exists in both readings (spec §3.2.4): ``fig4`` fixes ε(X)
  (the literal axis label) and ``fig4_global`` the global ε (the reading consistent with the
  text); ``fig5``/``fig6`` fix the global ε = 5 (the spec's default) and ``fig5_epsX``/
  ``fig6_epsX`` fix ε(X) = 5.

The only randomness is the synthetic data (as in the paper); every grid point of a figure
reuses the same draws (common random numbers), so the curves are smooth in the swept value.
"""

from __future__ import annotations

import logging
import zlib

import numpy as np
import pandas as pd
from scipy import stats

from .. import plotting
from ..bounds import pmp
from ..claims import numeric_claim, qualitative_claim
from ..figure import FigureResult
from ..mechanisms import exponential as em
from ..mechanisms import gaussian as gm

PAPER = "lowy2024"
log = logging.getLogger(__name__)

RATIO = "ε̃(X)/ε"
RATIO_X = "ε̃(X)/ε(X)"
PARAM_SERIES = {"eps": "ε (DP, global)", "eps_x": "ε(X) (DP within X)", "eps_tilde": "ε̃(X) (PMP)"}
AXIS = {
    "sigma": "data standard deviation σ",
    "clip": "clip threshold C (ℓ2 norm)",
    "d": "data dimension d",
    "eps": "DP parameter (see caption)",
}
DATA_SOURCES = {"synthetic Gaussian population (drawn as in the paper)": "analytic"}


# ---------------------------------------------------------------------------------------------
# shared helpers


def _rng(params, figure: str) -> np.random.Generator:
    """One generator per figure: the global seed and the figure name (stable across runs)."""
    return np.random.default_rng([int(params["seed"]), zlib.crc32(figure.encode())])


def _need(params, key: str, figure: str):
    if params.get(key) is None:
        raise ValueError(f"lowy2024.{figure}.{key} is required unless it is the swept parameter")
    return params[key]


def safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num/den with x/∞ = 0 and 0/0 = NaN (no privacy loss at all: the ratio is undefined)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(np.isinf(den), 0.0, num / den)
    return np.where((den == 0) & (num == 0), np.nan, out)


def summarise(values: np.ndarray) -> tuple[float, float, float, int]:
    """Mean, standard deviation, standard error over trials (NaN trials dropped), count."""
    v = np.asarray(values, float)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return np.nan, np.nan, np.nan, 0
    std = float(v.std(ddof=1)) if v.size > 1 else 0.0
    return float(v.mean()), std, std / np.sqrt(v.size), int(v.size)


def _tidy(xs, per_point: list[dict[str, np.ndarray]]) -> pd.DataFrame:
    """Tidy table: the two ratios (panel 'ratios') and ε, ε(X), ε̃(X) (panel 'parameters')."""
    rows = []
    for x, trip in zip(xs, per_point, strict=True):
        series = {
            RATIO: ("ratios", safe_ratio(trip["eps_tilde"], trip["eps"])),
            RATIO_X: ("ratios", safe_ratio(trip["eps_tilde"], trip["eps_x"])),
            **{label: ("parameters", trip[k]) for k, label in PARAM_SERIES.items()},
        }
        for name, (panel, vals) in series.items():
            mean, std, se, count = summarise(vals)
            rows.append({"panel": panel, "series": name, "x": x, "y": mean, "lo": mean - se,
                         "hi": mean + se, "std": std, "n_trials": count})
    return pd.DataFrame(rows)


def _value(data: pd.DataFrame, series: str, x) -> float:
    sel = data[(data.series == series) & np.isclose(data.x.astype(float), float(x))]
    if sel.empty:
        raise KeyError(f"no {series!r} point at x = {x}; the claim needs it in the grid")
    return float(sel.y.iloc[0])


def trend(x, y, sign: int) -> tuple[bool, bool]:
    """(overall trend holds, strictly monotone) for sign = +1 (increasing) or −1 (decreasing).

    "Overall" means the last grid value is beyond the first in that direction and the Spearman
    rank correlation with x is at least 0.8 in absolute value; one criterion for every
    "the ratios increase/decrease with …" claim, so that a plateau within noise does not count
    as a reversal while a real reversal does.
    """
    y = np.asarray(y, float)
    rho = stats.spearmanr(np.asarray(x, float), y).statistic
    overall = bool(sign * (y[-1] - y[0]) > 0 and sign * rho >= 0.8)
    return overall, bool(np.all(sign * np.diff(y) > 0))


def _curve(data: pd.DataFrame, series: str) -> np.ndarray:
    return data[data.series == series].sort_values("x").y.to_numpy()


def _plot(data: pd.DataFrame, *, xlabel: str, title: str, logx: bool) -> plotting.Figure:
    fig, (ax, bx) = plotting.subplots(1, 2, width=4.4, height=3.4)
    for i, name in enumerate((RATIO, RATIO_X)):
        d = data[data.series == name].sort_values("x")
        ax.plot(d.x, d.y, color=plotting.color(i), linestyle=plotting.linestyle(i),
                marker=plotting.marker(i), markersize=4, label=name)
        ax.fill_between(d.x.astype(float), d.lo, d.hi, color=plotting.color(i), alpha=0.2,
                        linewidth=0)
    ax.set(xlabel=xlabel, ylabel="ratio (mean over trials, ±1 s.e.)", title=title)
    ax.set_ylim(bottom=0)
    ax.legend()
    for i, name in enumerate(PARAM_SERIES.values()):
        d = data[data.series == name].sort_values("x")
        y = np.where(np.isfinite(d.y) & (d.y > 0), d.y, np.nan)
        bx.plot(d.x, y, color=plotting.color(i + 2), linestyle=plotting.linestyle(i),
                marker=plotting.marker(i + 2), markersize=4, label=name)
    bx.set(xlabel=xlabel, ylabel="privacy parameter (mean over trials)", yscale="log",
           title="The three parameters")
    bx.legend()
    if logx:
        ax.set_xscale("log")
        bx.set_xscale("log")
    return fig


# ---------------------------------------------------------------------------------------------
# exponential mechanism (Figures 1-3)


def exp_sweep(params, figure: str) -> tuple[list, list[dict[str, np.ndarray]]]:
    """(ε, ε(X), ε̃(X)) for every trial at every grid point of an exponential-mechanism figure."""
    sweep, values = params["sweep"], list(params["values"])
    n, m, t = params["n"], params["m"], params["trials"]
    d_max = int(max(values)) if sweep == "d" else int(_need(params, "d", figure))
    rng = _rng(params, figure)
    w_raw = rng.standard_normal((t, m, d_max))
    z = rng.standard_normal((t, 2 * n, d_max))
    outliers = em.outlier_mask(rng, t, 2 * n, params["n_outliers"])
    membership = pmp.subsets(2 * n, n)
    out = []
    for v in values:
        cfg = {k: params.get(k) for k in ("sigma", "clip", "d")} | {sweep: v}
        d = int(cfg["d"]) if sweep == "d" else d_max
        for k in ("sigma", "clip"):
            if cfg[k] is None:
                _need(params, k, figure)
        w = w_raw[..., :d] / np.linalg.norm(w_raw[..., :d], axis=-1, keepdims=True)
        x = em.population(w[:, 0], z[..., :d], cfg["sigma"], cfg["clip"], outliers,
                          params["outlier_scale"])
        out.append(em.eps_triple(w, x, n=n, clip=cfg["clip"], eps_x=params["eps_x"],
                                 membership=membership))
        log.info("%s: %s = %g done (%d trials)", figure, sweep, v, t)
    return values, out


def _exp_extra(values, trips):
    return {
        "per_point": [
            {"x": v, "mean_eps": float(np.mean(tr["eps"])), "mean_eps_tilde": float(np.mean(tr["eps_tilde"])),
             "mean_success_bound": float(np.mean(pmp.success_bound(tr["eps_tilde"]))),
             "max_two_sided_minus_one_sided": float(np.max(tr["eps_tilde"] - tr["eps_tilde_one_sided"]))}
            for v, tr in zip(values, trips, strict=True)
        ],
        "conventions": ("β = ε(X)/(2Δ_ℓ(X)) with the X-restricted sensitivity; ε = 2βΔ_ℓ with "
                        "Δ_ℓ = (C+1)/n (C >= 1) or 2C/n; ε̃(X) two-sided Proposition 9 (spec §3.1.3)"),
    }


def _exp_caption(fig_no, what, params, fixed_text):
    return (f"Figure {fig_no}. Exponential mechanism (geometric-median loss ℓ(w, D) = mean ‖w − x‖ "
            f"over m = {params['m']} unit-norm candidates), population X of 2n = {2 * params['n']} "
            f"points drawn N(w₁, σ²I) and clipped to norm C{fixed_text}; D is a uniformly random half "
            f"of X. Left: {what}, averaged over T = {params['trials']} data draws (bands ±1 s.e.): "
            "ε̃(X)/ε (practical-attacker PMP parameter over the worst-case DP parameter) and "
            "ε̃(X)/ε(X) (over the DP parameter restricted to X, isolating the attacker's uncertainty). "
            "ε̃(X) is exact (Proposition 9, all 924 halves enumerated). Right: the mean parameters. "
            "The mechanism is calibrated so that its nominal guarantee with the X-restricted "
            f"sensitivity is ε(X) = {params['eps_x']:g}; ε uses the global sensitivity (C+1)/n.")


def _claim(fig, cid, text, paper_value, ours, tol, **kw):
    return numeric_claim(paper=PAPER, figure=fig, claim_id=cid, claim=text,
                         paper_value=paper_value, ours=ours, tolerance=tol, **kw)


def _text_claims() -> list:
    """Numbers quoted outside the figures: the intro's success rates and Proposition 5."""
    lp3, mem3 = pmp.sum_mod_mechanism(3)
    lp6, mem6 = pmp.sum_mod_mechanism(6)
    prop5 = float(pmp.pmp_epsilon(lp3, mem3))
    prop5_dp = float(pmp.dp_epsilon_restricted(lp3, mem3))
    n6 = float(pmp.pmp_epsilon(lp6, mem6))
    return [
        _claim("intro", "success_eps0.1", "ε-DP bounds MIA success by 1/(1+e^-ε): ≈ 52.5 % at ε = 0.1",
               0.525, pmp.success_bound(0.1), 5e-4),
        _claim("intro", "success_eps7", "ε >= 7 allows MIA success >= 0.999 (1/(1+e^-7))",
               0.999, pmp.success_bound(7.0), 1e-3),
        _claim("prop5", "prop5_ln2", "Prop. 5(b): A(D) = ΣD mod 6 on X = {0..5}, n = 3, is ln 2-PMP",
               float(np.log(2)), prop5, 1e-12,
               note=f"exact enumeration; its DP parameter within X is {prop5_dp:g} (not DP)"),
        qualitative_claim(
            paper=PAPER, figure="prop5", claim_id="prop5_n6",
            claim="For n = 6 the construction extends to ε <= ln(40/37) ≈ 0.078",
            holds=bool(n6 <= np.log(40 / 37) + 1e-12),
            ours=f"ΣD mod 12 on X = {{0..11}}: ε̃ = ln(38/37) = {n6:.4f}",
            note="the paper's exact n = 6 construction is not given; the obvious extension is tighter"),
    ]


def fig1(params) -> FigureResult:
    """Exponential mechanism: ratios vs the data standard deviation σ (d = 1)."""
    values, trips = exp_sweep(params, "fig1")
    data = _tidy(values, trips)
    fig = _plot(data, xlabel=AXIS["sigma"], logx=True,
                title=f"Exp. mechanism, d = {params['d']}, ε(X) = {params['eps_x']:g}")
    r, rx = _curve(data, RATIO), _curve(data, RATIO_X)
    xs = np.asarray(values, float)
    claims = list(_text_claims())
    s1 = float(params["claim_sigma"])
    et1 = _value(data, PARAM_SERIES["eps_tilde"], s1)
    plateau = float(rx[0] * params["eps_x"])
    why = ("unresolved (spec §3.1.3): our curve passes 0.075 / ε ≈ 28.5 near σ ≈ 0.6–0.7, not at σ = 1; "
           "candidate causes are the paper's unstated T, σ grid or global sensitivity")
    claims += [
        _claim("fig1", "fig1_ratio_sigma1", "At σ = 1, ε̃(X)/ε ≈ 0.075", 0.075,
               _value(data, RATIO, s1), 0.0075, note_if_differs=why),
        _claim("fig1", "fig1_eps_sigma1", "At σ = 1 (ε(X) = 5), ε ≈ 28.5", 28.5,
               _value(data, PARAM_SERIES["eps"], s1), 1.5, note_if_differs=why),
        _claim("fig1", "fig1_eps_tilde_sigma1", "At σ = 1, ε̃(X) ≈ 2.14", 2.14, et1, 0.1,
               note_if_differs=(f"ours {et1:.3f} at σ = 1; the small-σ plateau is ε̃ = {plateau:.3f} "
                                "(spec §8.5 expects 2.05–2.11 there)")),
        qualitative_claim(
            paper=PAPER, figure="fig1", claim_id="fig1_small_sigma",
            claim="For σ < 0.1 the PMP parameter approaches 0 (at fixed ε: ε̃(X)/ε -> 0)",
            holds=bool(np.all(r[xs < 0.1] < 0.1 * _value(data, RATIO, s1)) and np.all(np.diff(r[xs <= 0.1]) > 0)),
            ours="; ".join(f"σ={x:g}: {y:.4f}" for x, y in zip(xs[xs <= 0.1], r[xs <= 0.1], strict=True))),
        qualitative_claim(
            paper=PAPER, figure="fig1", claim_id="fig1_ratio_increases",
            claim="ε̃(X)/ε increases with σ (grid up to σ = 1)",
            holds=trend(xs[xs <= 1], r[xs <= 1], +1)[0],
            ours=(f"{r[0]:.4f} at σ = {xs[0]:g} -> {r[xs <= 1][-1]:.4f} at σ = 1 (strictly monotone: "
                  f"{trend(xs[xs <= 1], r[xs <= 1], +1)[1]}); {r[-1]:.4f} at σ = {xs[-1]:g}")),
        qualitative_claim(
            paper=PAPER, figure="fig1", claim_id="fig1_ratioX_flat",
            claim="ε̃(X)/ε(X) does not depend significantly on σ (σ <= 1, relative range < 10 %)",
            holds=bool(np.ptp(rx[xs <= 1]) / np.mean(rx[xs <= 1]) < 0.1),
            ours=f"range {rx[xs <= 1].min():.3f}–{rx[xs <= 1].max():.3f} for σ <= 1; {rx[-1]:.3f} at σ = {xs[-1]:g}"),
    ]
    return FigureResult(
        data=data, fig=fig, claims=claims, data_sources=DATA_SOURCES,
        seeds={"seed": int(params["seed"])},
        caption=_exp_caption(1, "the ratios against the data standard deviation σ", params,
                             f" (d = {params['d']}, C = {params['clip']:g})"),
        extra=_exp_extra(values, trips),
    )


def fig2(params) -> FigureResult:
    """Exponential mechanism: ratios vs the clip threshold C, with 2 outliers (×100)."""
    values, trips = exp_sweep(params, "fig2")
    data = _tidy(values, trips)
    fig = _plot(data, xlabel=AXIS["clip"], logx=True,
                title=f"Exp. mechanism, {params['n_outliers']} outliers, ε(X) = {params['eps_x']:g}")
    c = float(params["claim_clip"])
    r, rx = _value(data, RATIO, c), _value(data, RATIO_X, c)
    et = _value(data, PARAM_SERIES["eps_tilde"], c)
    eps = _value(data, PARAM_SERIES["eps"], c)
    rc, rxc = _curve(data, RATIO), _curve(data, RATIO_X)
    claims = [
        qualitative_claim(
            paper=PAPER, figure="fig2", claim_id="fig2_ratios_C50",
            claim="At C = 50 both ratios are less than 0.0123",
            holds=bool(max(r, rx) < 0.0123), ours=f"ε̃/ε = {r:.5f}, ε̃/ε(X) = {rx:.5f}"),
        _claim("fig2", "fig2_eps_tilde_C50", "At C = 50 a 10-DP (ε(X) = 10) mechanism is 0.123-PMP",
               0.123, et, 0.006),
        _claim("fig2", "fig2_success_C50", "… so practical MIAs succeed with probability <= 1/(1+e^-0.123) ≈ 0.53",
               0.53, pmp.success_bound(et), 0.005),
        _claim("fig2", "fig2_eps_C50", "With extreme outliers ε ≈ ε(X) (= 10) at C = 50", 10.0, eps, 0.5),
        qualitative_claim(
            paper=PAPER, figure="fig2", claim_id="fig2_ratios_shrink",
            claim="Both ratios shrink as the clip threshold C increases",
            holds=trend(values, rc, -1)[0] and trend(values, rxc, -1)[0],
            ours=(f"ε̃/ε {rc[0]:.3f} -> {rc[-1]:.4f}, ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.4f} over "
                  f"C = {values[0]:g}..{values[-1]:g} (strictly monotone: "
                  f"{trend(values, rc, -1)[1] and trend(values, rxc, -1)[1]})")),
        qualitative_claim(
            paper=PAPER, figure="contrib", claim_id="eps_over_75",
            claim="For certain subpopulations the ε-DP exponential mechanism is ε/75-PMP "
                  "(e.g. 7.5-DP -> 0.1-PMP -> success <= 52.5 %)",
            holds=bool(np.nanmin(rc) <= 1 / 75),
            ours=f"smallest ε̃/ε on the Figure 2 grid: {np.nanmin(rc):.4f} (1/75 = {1 / 75:.4f})"),
    ]
    return FigureResult(
        data=data, fig=fig, claims=claims, data_sources=DATA_SOURCES,
        seeds={"seed": int(params["seed"])},
        caption=_exp_caption(2, "the ratios against the clip threshold C", params,
                             f" (d = {params['d']}, σ = {params['sigma']:g}; {params['n_outliers']} "
                             f"random points multiplied by {params['outlier_scale']:g} before clipping)"),
        extra=_exp_extra(values, trips),
    )


def fig3(params) -> FigureResult:
    """Exponential mechanism: ratios vs the data dimension d."""
    values, trips = exp_sweep(params, "fig3")
    data = _tidy(values, trips)
    fig = _plot(data, xlabel=AXIS["d"], logx=True,
                title=f"Exp. mechanism, σ = {params['sigma']:g}, ε(X) = {params['eps_x']:g}")
    rc, rxc = _curve(data, RATIO), _curve(data, RATIO_X)
    dd = np.asarray(values, float)
    (ok_r, mono_r), (ok_rx, mono_rx) = trend(dd, rc, -1), trend(dd, rxc, -1)
    claims = [qualitative_claim(
        paper=PAPER, figure="fig3", claim_id="fig3_ratios_decrease_d",
        claim="The ratios become smaller as the dimension d increases",
        holds=ok_r and ok_rx,
        ours=(f"ε̃/ε {rc[0]:.3f} -> {rc[-1]:.4f} (strictly monotone: {mono_r}); ε̃/ε(X) {rxc[0]:.3f} -> "
              f"{rxc[-1]:.4f} (strictly monotone: {mono_rx}) over d = {values[0]}..{values[-1]}"),
        note=("" if mono_r and mono_rx else
              "overall decreasing; not strictly monotone on our grid (clipping binds once √d ≈ C)"))]
    return FigureResult(
        data=data, fig=fig, claims=claims, data_sources=DATA_SOURCES,
        seeds={"seed": int(params["seed"])},
        caption=_exp_caption(3, "the ratios against the data dimension d", params,
                             f" (σ = {params['sigma']:g}, C = {params['clip']:g}: the paper does not "
                             "state C for this figure, we assume Figure 1's)"),
        extra=_exp_extra(values, trips),
    )


# ---------------------------------------------------------------------------------------------
# Gaussian mechanism (Figures 4-6)

READING = {
    "restricted": "ε(X) held fixed (s calibrated with the X-restricted sensitivity Δ(X))",
    "global": "global ε held fixed (s calibrated with the global sensitivity 2C/n)",
}
COMPANION = {  # figure -> why this reading, and where the other one is
    "fig4": "the literal reading of the paper's x-axis label ε(X); the reading consistent with the "
            "paper's text (global ε fixed) is fig4_global",
    "fig4_global": "consistent with every statement in the paper's text, although its axis is "
                   "labelled ε(X); the literal reading (ε(X) fixed) is fig4",
    "fig5": "the default, as the text speaks of 'a DP parameter of ε = 5'; the ε(X)-fixed reading "
            "is fig5_epsX",
    "fig5_epsX": "the alternative reading; the default (global ε = 5 fixed) is fig5",
    "fig6": "the default (the caption lost the fixed value; ε = 5 assumed); the ε(X)-fixed reading "
            "is fig6_epsX",
    "fig6_epsX": "the alternative reading; the default (global ε = 5 fixed) is fig6",
}


def gauss_sweep(params, figure: str, *, fixed: str | None = None,
                only: list | None = None) -> tuple[list, list[dict[str, np.ndarray]]]:
    """(ε, ε(X), ε̃(X)) per trial at every grid point of a Gaussian-mechanism figure."""
    sweep, values = params["sweep"], list(params["values"] if only is None else only)
    fixed = params["fixed"] if fixed is None else fixed
    n, t = params["n"], params["trials"]
    d_max = int(max(params["values"])) if sweep == "d" else int(_need(params, "d", figure))
    rng = _rng(params, figure.split("_")[0])  # both readings of a figure share their data
    z = rng.standard_normal((t, 2 * n, d_max))
    outliers = em.outlier_mask(rng, t, 2 * n, params["n_outliers"])
    zero = np.zeros((t, d_max))
    out = []
    for v in values:
        cfg = {k: params.get(k) for k in ("sigma", "clip", "d", "value")}
        cfg["value" if sweep == "eps" else sweep] = v
        for k in ("sigma", "clip", "value"):
            if cfg[k] is None:
                _need(params, k, figure)
        d = int(cfg["d"]) if sweep == "d" else d_max
        x = em.population(zero[:, :d], z[..., :d], cfg["sigma"], cfg["clip"], outliers,
                          params["outlier_scale"])
        out.append(gm.eps_triple(x, n=n, clip=cfg["clip"], delta=params["delta"], fixed=fixed,
                                 value=cfg["value"]))
        log.info("%s: %s = %g done (%d trials, %s)", figure, sweep, v, t, fixed)
    return values, out


def _gauss_caption(fig_no, what, params, reading, setting, figure):
    return (f"Figure {fig_no}. Gaussian mechanism for the mean of n = {params['n']} points "
            f"(A(D) = mean(D) + N(0, s²I), δ = {params['delta']:g}); the population X has "
            f"2n = {2 * params['n']} points drawn N(0, σ²I) and clipped to norm C ({setting}); "
            f"D is a uniformly random half. Reading of the paper: {READING[reading]} "
            f"({COMPANION[figure]}). Left: {what}, "
            f"averaged over T = {params['trials']} data draws (bands ±1 s.e.). ε and ε(X) are exact "
            "(Balle–Wang); ε̃(X) is Proposition 12's upper bound on the PMP parameter (the paper's "
            "3-step approach). Right: the mean parameters (log scale).")


def _gauss_extra(params, values, trips, reading):
    return {
        "reading": READING[reading],
        "per_point": [
            {"x": v, "mean_s": float(np.mean(tr["s"])), "mean_eps": float(np.mean(tr["eps"])),
             "mean_eps_x": float(np.mean(tr["eps_x"])), "mean_eps_tilde": float(np.mean(tr["eps_tilde"])),
             "mean_success_bound": float(np.mean(pmp.success_bound(tr["eps_tilde"])))}
            for v, tr in zip(values, trips, strict=True)
        ],
    }


def _other(reading: str) -> str:
    return "global" if reading == "restricted" else "restricted"


def _fig4(params, figure: str) -> FigureResult:
    reading = params["fixed"]
    values, trips = gauss_sweep(params, figure)
    data = _tidy(values, trips)
    xlabel = "restricted DP parameter ε(X) (fixed)" if reading == "restricted" else "DP parameter ε (fixed)"
    fig = _plot(data, xlabel=xlabel, logx=False,
                title=f"Gaussian mechanism, {'ε(X)' if reading == 'restricted' else 'global ε'} fixed")
    x10 = float(params["claim_value"])
    et10 = _value(data, PARAM_SERIES["eps_tilde"], x10)
    _, alt = gauss_sweep(params, figure, fixed=_other(reading), only=[x10])
    alt_et = float(np.mean(alt[0]["eps_tilde"]))
    rc, rxc = _curve(data, RATIO), _curve(data, RATIO_X)
    gap = rxc - rc  # the vertical distance between the two plotted curves
    (ok_r, mono_r), (ok_rx, mono_rx) = trend(values, rc, +1), trend(values, rxc, +1)
    other = "fig4_global" if reading == "restricted" else "fig4"
    claims = [
        qualitative_claim(
            paper=PAPER, figure=figure, claim_id=f"{figure}_eps_tilde_at_10",
            claim=f"At ε(X) = {x10:g}, ε̃(X) < 0.9", holds=bool(et10 < 0.9),
            ours=f"ε̃(X) = {et10:.3f} ({READING[reading]})",
            note=(f"with the other reading ({other}) ε̃(X) = {alt_et:.3f}; the paper does not say "
                  "which parameter is fixed (spec §3.2.4)") if et10 >= 0.9 else
                 f"the other reading ({other}) gives ε̃(X) = {alt_et:.3f}"),
        qualitative_claim(
            paper=PAPER, figure=figure, claim_id=f"{figure}_ratios_increase",
            claim="The ratios increase with the DP parameter on the x-axis",
            holds=ok_r and ok_rx,
            ours=(f"ε̃/ε {rc[0]:.4f} -> {rc[-1]:.4f} (strictly monotone: {mono_r}); "
                  f"ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.3f} (strictly monotone: {mono_rx})"),
            note="" if ok_r and ok_rx else f"not both increasing under this reading ({READING[reading]})"),
        qualitative_claim(
            paper=PAPER, figure=figure, claim_id=f"{figure}_gap",
            claim="There is a large gap between the two curves, especially when the DP parameter is large",
            holds=bool(gap[-1] > gap[0] and gap[-1] > 5 * rc[-1]),
            ours=(f"ε̃/ε(X) − ε̃/ε = {gap[0]:.3f} at x = {values[0]:g}, {gap[-1]:.3f} at x = {values[-1]:g} "
                  f"(ε̃/ε = {rc[-1]:.4f} there)")),
    ]
    setting = f"d = {params['d']}, σ = {params['sigma']:g}, C = {params['clip']:g}, no outliers"
    return FigureResult(
        data=data, fig=fig, claims=claims, data_sources=DATA_SOURCES,
        seeds={"seed": int(params["seed"])},
        caption=_gauss_caption("4" if reading == "restricted" else "4 (global-ε reading)",
                               f"the ratios against the fixed {'ε(X)' if reading == 'restricted' else 'ε'}",
                               params, reading, setting, figure),
        extra=_gauss_extra(params, values, trips, reading) | {"other_reading_eps_tilde_at_claim": alt_et},
    )


def fig4(params) -> FigureResult:
    """Gaussian mechanism: ratios vs ε(X) (literal caption reading: ε(X) fixed)."""
    return _fig4(params, "fig4")


def fig4_global(params) -> FigureResult:
    """Gaussian mechanism: ratios vs the global ε (the reading consistent with the text)."""
    return _fig4(params, "fig4_global")


def _fig5(params, figure: str) -> FigureResult:
    reading = params["fixed"]
    values, trips = gauss_sweep(params, figure)
    data = _tidy(values, trips)
    fixed_name = "ε" if reading == "global" else "ε(X)"
    fig = _plot(data, xlabel=AXIS["clip"], logx=True,
                title=f"Gaussian mechanism, {params['n_outliers']} outliers, {fixed_name} = {params['value']:g}")
    c = float(params["claim_clip"])
    et = _value(data, PARAM_SERIES["eps_tilde"], c)
    rc, rxc = _curve(data, RATIO), _curve(data, RATIO_X)
    claims = []
    if reading == "global":
        claims.append(_claim(
            figure, f"{figure}_eps_tilde_C100", f"At C = {c:g} a DP parameter ε = {params['value']:g} "
            "translates into ε̃(X) = 1", 1.0, et, 0.1,
            note_if_differs=("unresolved (spec §3.2.4): Proposition 12's bound with Balle–Wang "
                             "calibration gives about twice the quoted value; 2δ, clipping before "
                             "scaling outliers and averaging over targets were tried in the spec and "
                             "do not give 1 either")))
    claims.append(qualitative_claim(
        paper=PAPER, figure=figure, claim_id=f"{figure}_ratios_shrink",
        claim="The ratios shrink as the clip threshold C increases",
        holds=trend(values, rc, -1)[0] and trend(values, rxc, -1)[0],
        ours=(f"ε̃/ε {rc[0]:.3f} -> {rc[-1]:.3f}; ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.3f} "
              f"over C = {values[0]:g}..{values[-1]:g}"),
        note=("" if trend(values, rxc, -1)[0] else
              "only ε̃/ε shrinks (ε grows with C); ε̃/ε(X) does not, because the worst-case target "
              "is an outlier whose distance to the others also grows with C")))
    setting = (f"d = {params['d']}, σ = {params['sigma']:g}; {params['n_outliers']} random points "
               f"multiplied by {params['outlier_scale']:g} before clipping")
    return FigureResult(
        data=data, fig=fig, claims=claims, data_sources=DATA_SOURCES,
        seeds={"seed": int(params["seed"])},
        caption=_gauss_caption("5" if reading == "global" else "5 (ε(X)-fixed reading)",
                               f"the ratios against C at {fixed_name} = {params['value']:g}",
                               params, reading, setting, figure),
        extra=_gauss_extra(params, values, trips, reading),
    )


def fig5(params) -> FigureResult:
    """Gaussian mechanism: ratios vs C with outliers, global ε = 5 fixed (spec's default)."""
    return _fig5(params, "fig5")


def fig5_epsX(params) -> FigureResult:  # noqa: N802 (figure names follow the output files)
    """Gaussian mechanism: ratios vs C with outliers, ε(X) = 5 fixed."""
    return _fig5(params, "fig5_epsX")


def _fig6(params, figure: str) -> FigureResult:
    reading = params["fixed"]
    values, trips = gauss_sweep(params, figure)
    data = _tidy(values, trips)
    fixed_name = "ε" if reading == "global" else "ε(X)"
    fig = _plot(data, xlabel=AXIS["d"], logx=True,
                title=f"Gaussian mechanism, {fixed_name} = {params['value']:g}")
    rc, rxc = _curve(data, RATIO), _curve(data, RATIO_X)
    ok = trend(values, rc, +1)[0] and trend(values, rxc, +1)[0]
    claims = [qualitative_claim(
        paper=PAPER, figure=figure, claim_id=f"{figure}_ratios_increase_d",
        claim="The ratios increase with the dimension d (the opposite of Figure 3)", holds=ok,
        ours=f"ε̃/ε {rc[0]:.4f} -> {rc[-1]:.4f}; ε̃/ε(X) {rxc[0]:.3f} -> {rxc[-1]:.3f} over d = {values[0]}..{values[-1]}",
        note="" if ok else "not increasing on our grid")]
    setting = f"σ = {params['sigma']:g}, C = {params['clip']:g}, no outliers"
    return FigureResult(
        data=data, fig=fig, claims=claims, data_sources=DATA_SOURCES,
        seeds={"seed": int(params["seed"])},
        caption=_gauss_caption("6" if reading == "global" else "6 (ε(X)-fixed reading)",
                               f"the ratios against d at {fixed_name} = {params['value']:g} (the "
                               "paper's caption lost the value; 5 is assumed)", params, reading, setting,
                               figure),
        extra=_gauss_extra(params, values, trips, reading),
    )


def fig6(params) -> FigureResult:
    """Gaussian mechanism: ratios vs d, global ε = 5 fixed (spec's default)."""
    return _fig6(params, "fig6")


def fig6_epsX(params) -> FigureResult:  # noqa: N802
    """Gaussian mechanism: ratios vs d, ε(X) = 5 fixed."""
    return _fig6(params, "fig6_epsX")
