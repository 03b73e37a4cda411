"""Skin-lesion figure functions on synthetic queries whose answer is known: each claim is
qualitative-ok where it must hold, qualitative-fails where it must fail, and uninformative when
there is no signal (null-only queries or a model AUC below the minimum)."""

import json

import numpy as np
import pytest

from privrisk.papers.xu2022 import skin_figures as sf
from privrisk.papers.xu2022 import skin_risk_figures as sr

EST = {
    "p": 0.5,
    "points_per_bin": 24,
    "max_bins": 100,
    "confidence": 0.95,
    "trials": 1,
    "min_auc": 0.7,
}
N_IN, N_OUT = 1500, 4500


def write(tmp_path, auc=0.9, **arrays):
    member = np.r_[np.ones(N_IN, bool), np.zeros(N_OUT, bool)]
    path = tmp_path / "m_queries.npz"
    np.savez(path, member=member, **arrays)
    (tmp_path / "m_record.json").write_text(
        json.dumps(
            {
                "auc": {"q": auc},
                "data_source": "standin",
                "n": len(member),
                "n_train": N_IN,
                "image_size": 16,
            }
        )
    )
    return {"queries": str(path)}


def shifted(rng, mu, n_in=N_IN, n_out=N_OUT, sd=1.0):
    return np.r_[rng.normal(mu, sd, n_in), rng.normal(0, 1, n_out)]


def gan_queries(rng, d_shift, nn_shifts):
    """D(z) with members shifted up; NN distances (one column per size) with members shifted down."""
    return {
        "d": shifted(rng, d_shift),
        "nn": np.stack([-shifted(rng, s) for s in nn_shifts], 1),
        "nn_sizes": np.array([10, 100, 1000][: len(nn_shifts)]),
    }


def params(**kw):
    return {"seed": 0, "est": EST, "n_synthetic": 100, **kw}


def status(res, cid=None):
    return (
        {c.claim_id: c.status for c in res.claims}
        if cid is None
        else {c.claim_id: c.status for c in res.claims}[cid]
    )


def test_fig1b_ok_fails_and_uninformative(tmp_path):
    rng = np.random.default_rng(0)
    res = sf.fig1b(params(), write(tmp_path, **gan_queries(rng, 3, [0, 0])))
    assert status(res, "fig1b_discriminator_gg_nn") == "qualitative-ok"
    d = res.data.set_index(["series", "x"])
    plotted = res.data[res.data.series != sf.EXCESS]
    assert (plotted.lo >= 0).all() and (plotted.hi <= 1).all()
    assert d.loc[(sf.EST, "discriminator D(z) (model access)"), "y"] == pytest.approx(
        0.866, abs=0.05
    )  # TV at μ = 3
    assert status(sf.fig1b(params(), write(tmp_path, **gan_queries(rng, 0, [3, 3])))) == {
        "fig1b_discriminator_gg_nn": "qualitative-fails"
    }
    assert (
        status(
            sf.fig1b(params(), write(tmp_path, **gan_queries(rng, 0, [0, 0]))),
            "fig1b_discriminator_gg_nn",
        )
        == "uninformative"
    )
    low = sf.fig1b(params(), write(tmp_path, auc=0.6, **gan_queries(rng, 3, [0, 0])))
    assert low.claims[0].status == "uninformative" and "AUC 0.600 < 0.7" in low.claims[0].note


def test_fig1c_held_out_optimal_vs_heuristic(tmp_path):
    rng = np.random.default_rng(1)
    tails = np.r_[
        rng.normal(-3, 0.5, N_IN // 2), rng.normal(3, 0.5, N_IN // 2), rng.normal(0, 1, N_OUT)
    ]
    q = gan_queries(rng, 0, [0, 0]) | {"d": tails}
    res = sf.fig1c(params(), write(tmp_path, **q))
    assert status(res) == {
        "fig1c_optimal_ge_hayes": "qualitative-ok",
        "fig1c_optimal_ge_hilprecht": "uninformative",
    }
    # a histogram with one point per bin over-fits its half; the threshold does not
    sparse = params(est=EST | {"points_per_bin": 0.01, "max_bins": 2000})
    res2 = sf.fig1c(sparse, write(tmp_path, **gan_queries(rng, 0.8, [0, 0])))
    assert status(res2, "fig1c_optimal_ge_hayes") == "qualitative-fails"


def test_fig2b_hybrid(tmp_path):
    rng = np.random.default_rng(2)
    res = sf.fig2b(params(gan="jsgan"), write(tmp_path, **gan_queries(rng, 1.2, [1.2, 1.2])))
    assert status(res, "fig2b_hybrid_gt_each_1d") == "qualitative-ok"
    # members on the even tenths of fine cells of D: 1-d bins (100) see it, 10 × 10 cells do not
    fine = lambda n, odd: (2 * rng.integers(0, 50, n) + odd + rng.uniform(0.2, 0.8, n)) / 100  # noqa: E731
    q = gan_queries(rng, 0, [0, 0]) | {"d": np.r_[fine(N_IN, 0), fine(N_OUT, 1)]}
    est = EST | {"points_per_bin": 2 * N_IN / 100}
    assert (
        status(
            sf.fig2b(params(gan="jsgan", est=est), write(tmp_path, **q)), "fig2b_hybrid_gt_each_1d"
        )
        == "qualitative-fails"
    )
    assert (
        status(
            sf.fig2b(params(gan="jsgan"), write(tmp_path, **gan_queries(rng, 0, [0, 0]))),
            "fig2b_hybrid_gt_each_1d",
        )
        == "uninformative"
    )


def test_fig7_monotone_in_size(tmp_path):
    rng = np.random.default_rng(3)
    res = sf.fig7(params(), write(tmp_path, **gan_queries(rng, 0, [0.2, 1, 2])))
    assert status(res, "fig7_nondecreasing_in_synthetic_size") == "qualitative-ok"
    assert sorted(res.data.x.unique()) == [10, 100, 1000]
    assert (
        status(
            sf.fig7(params(), write(tmp_path, **gan_queries(rng, 0, [2, 1, 0.2]))),
            "fig7_nondecreasing_in_synthetic_size",
        )
        == "qualitative-fails"
    )
    assert (
        status(
            sf.fig7(params(), write(tmp_path, **gan_queries(rng, 0, [0, 0, 0]))),
            "fig7_nondecreasing_in_synthetic_size",
        )
        == "uninformative"
    )


def corrupted_queries(rng, corrupted_d, clean_d):
    member = np.r_[np.ones(N_IN, bool), np.zeros(N_OUT, bool)]
    corrupted = np.zeros(N_IN + N_OUT, bool)
    corrupted[: N_IN // 10] = True
    d = np.r_[corrupted_d(N_IN // 10), clean_d(N_IN - N_IN // 10), rng.normal(0, 1, N_OUT)]
    return {
        "d": d,
        "corrupted": corrupted & member,
        "train_idx": np.arange(N_IN),
        "train_images": rng.integers(0, 256, (N_IN, 8, 8, 3), dtype=np.uint8),
    }


def test_fig4_corrupted_vs_clean(tmp_path):
    rng = np.random.default_rng(4)
    q = corrupted_queries(rng, lambda n: rng.normal(6, 0.5, n), lambda n: rng.normal(0.1, 1, n))
    res = sr.fig4b({"seed": 0, "est": EST}, write(tmp_path, **q))
    g = res.extra["groups"]
    assert g["corrupted"]["mean"] > 0.95 and g["clean"]["mean"] < 0.5
    assert status(res, "fig4b_corrupted_gt_clean") == "qualitative-ok"
    grid = sr.fig4a({"seed": 0, "est": EST, "examples": 3}, write(tmp_path, **q))
    assert list(grid.data.series) == ["corrupted"] * 3 + ["clean"] * 3 and grid.claims == []
    axes = grid.fig.axes
    assert [bool(a.images) for a in axes] == [True] * 6
    # fewer corrupted images than asked for: the clean row still starts in the first column
    few = dict(q, corrupted=q["corrupted"] & (np.arange(len(q["d"])) < 2))
    grid2 = sr.fig4a({"seed": 0, "est": EST, "examples": 3}, write(tmp_path, **few))
    assert [bool(a.images) for a in grid2.fig.axes] == [True, True, False, True, True, True]
    # corrupted images where members and hold-out balance, clean ones far out: the claim must fail
    q2 = corrupted_queries(rng, lambda n: rng.normal(1.5, 0.2, n), lambda n: rng.normal(3, 1, n))
    assert (
        status(sr.fig4b({"seed": 0, "est": EST}, write(tmp_path, **q2)), "fig4b_corrupted_gt_clean")
        == "qualitative-fails"
    )
    q3 = corrupted_queries(rng, lambda n: rng.normal(6, 0.5, n), lambda n: rng.normal(0.1, 1, n))
    assert (
        status(
            sr.fig4b({"seed": 0, "est": EST}, write(tmp_path, auc=0.55, **q3)),
            "fig4b_corrupted_gt_clean",
        )
        == "uninformative"
    )


def test_fig8_white_vs_black(tmp_path):
    rng = np.random.default_rng(5)
    white = np.c_[shifted(rng, 2), shifted(rng, 0)]
    res = sr.fig8({"seed": 0, "est": EST}, write(tmp_path, white=white, black=shifted(rng, 0)))
    assert status(res, "fig8_whitebox_gt_blackbox") == "qualitative-ok"
    res2 = sr.fig8(
        {"seed": 0, "est": EST},
        write(tmp_path, white=np.c_[shifted(rng, 0), shifted(rng, 0)], black=shifted(rng, 2)),
    )
    assert status(res2, "fig8_whitebox_gt_blackbox") == "qualitative-fails"
    res3 = sr.fig8(
        {"seed": 0, "est": EST},
        write(tmp_path, white=np.c_[shifted(rng, 0), shifted(rng, 0)], black=shifted(rng, 0)),
    )
    assert status(res3, "fig8_whitebox_gt_blackbox") == "uninformative"
    assert all(c.data == "standin" and "stand-in" in c.note for c in res.claims + res2.claims)
