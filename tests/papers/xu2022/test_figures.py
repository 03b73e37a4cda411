"""xu2022 figure functions on synthetic query files whose true advantage is known."""

import numpy as np
import pytest

from privrisk.papers.xu2022 import figures


def write_queries(path, s_in, s_out):
    s = np.r_[s_in, s_out].reshape(len(s_in) + len(s_out), -1)
    member = np.r_[np.ones(len(s_in), bool), np.zeros(len(s_out), bool)]
    np.savez(path, scores=s, member=member)
    return str(path)


PARAMS = {"p": 0.5, "bins": 100, "confidence": 0.95, "trials": 2, "seed": 0}


def test_fig1a_recovers_gaussian_tv(tmp_path):
    rng = np.random.default_rng(0)
    q = write_queries(tmp_path / "m_queries.npz", rng.normal(2, 1, 5000), rng.normal(0, 1, 45_000))
    res = figures.fig1a(PARAMS, {"queries": q})
    d = res.data.set_index(["series", "x"])["y"]
    tv = 0.682689  # spec §6, μ = 2
    assert d[("optimal adversary (MACE estimate)", "continuous query (KDE)")] == pytest.approx(tv, abs=0.03)
    assert d[("optimal adversary (MACE estimate)", "discrete query (100 bins)")] == pytest.approx(tv, abs=0.05)
    assert d[("heuristic (Hayes et al. threshold)", "continuous query (KDE)")] == pytest.approx(tv, abs=0.03)
    assert d[("null baseline (exchangeable split)", "continuous query (KDE)")] < 0.05
    assert res.data_sources == {"CIFAR-10": "standin"}  # no record file → named as stand-in


def test_fig3_gaussian_p01(tmp_path):
    rng = np.random.default_rng(1)
    inputs = {k: write_queries(tmp_path / f"{k}_queries.npz", rng.normal(2, 1, 4000), rng.normal(0, 1, 36_000))
              for k in ("mnist", "cifar10")}
    res = figures.fig3(PARAMS | {"p": 0.1, "split": 0.5}, inputs)
    opt = res.data[res.data.series.str.startswith("optimal")].set_index(["dataset", "metric"])["y"]
    assert opt[("MNIST", "acc")] == pytest.approx((1 + 0.859879) / 2, abs=0.015)  # Bayes ACC (spec §6)
    assert opt[("MNIST", "am")] == pytest.approx(0.8413, abs=0.02)  # Φ(1): threshold at η = p
    assert all(c.status == "qualitative-ok" for c in res.claims)


def test_fig5_fig6_bounds_and_claims(tmp_path):
    rng = np.random.default_rng(2)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    inputs = {f"eps_{e:g}": write_queries(tmp_path / f"e{e:g}_queries.npz", sig(rng.normal(0.2, 1, 2000)),
                                          sig(rng.normal(0, 1, 8000))) for e in (2, 10)}
    res5 = figures.fig5(PARAMS, inputs)
    ids = {c.claim_id: c.status for c in res5.claims}
    assert ids["bound_eps1_p05"] == "reproduced" and ids["fig5_estimate_below_bound"] == "qualitative-ok"
    res6 = figures.fig6(PARAMS | {"trials": 1}, inputs)
    ids6 = {c.claim_id: c.status for c in res6.claims}
    assert ids6["bound_eps2"] == ids6["bound_eps10"] == "reproduced"
    assert set(res6.data.epsilon) == {2.0, 10.0}
    assert (res6.data.lo <= res6.data.y + 1e-12).all() and (res6.data.y <= res6.data.hi + 1e-12).all()
