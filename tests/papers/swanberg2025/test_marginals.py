"""swanberg2025 Figures 4-7: the Theorem 3.5 bound code, the bound vs the attack in simulation,
the per-record outcomes of one condition, and a run on a real-format FIRE file."""

import json
import math

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from privrisk.bounds.reconstruction import beta_multi
from privrisk.models import baynet as bnm
from privrisk.papers.swanberg2025 import marginals_steps as sm

ATTACK = {"steps": 60, "lr": 0.1, "prior_weights": [0.0, 1.0]}


def test_bound_reproduces_the_sex_example():
    # spec §4(b): p* = 0.56 for every record at ε = 1 gives β = 0.7758 and 71 / 78 / 84.
    assert beta_multi(1.0, 0.56) == pytest.approx(0.7758, abs=5e-5)
    assert sm.bound_quantiles(1.0, 1e-5, np.full(100, 0.56)).tolist() == [71, 78, 84]
    assert sm.bound_quantiles(1.0, 1e-5, np.full(100, 0.58)).tolist() == [72, 79, 85]


def test_bound_pure_dp_equals_binomial_quantiles_and_edges():
    for eps, p in [(0.5, 0.3), (2.0, 0.1), (4.0, 0.02)]:
        beta = beta_multi(eps, p)
        got = sm.bound_quantiles(eps, 1e-12, np.full(60, p), levels=(0.05, 0.5, 0.95))
        assert got.tolist() == [int(stats.binom.ppf(c, 60, beta)) for c in (0.05, 0.5, 0.95)]
    assert sm.bound_quantiles(math.inf, 1e-5, np.full(100, 0.01)).tolist() == [100, 100, 100]
    assert sm.bound_quantiles(3.0, 1e-5, np.zeros(50)).tolist() == [0, 0, 0]
    # Poisson-binomial with unequal p: compare against Monte Carlo quantiles.
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.9, 100)
    s = (rng.random((200_000, 100)) < beta_multi(1.0, p)).sum(axis=1)
    assert sm.bound_quantiles(1.0, 0.0 + 1e-15, p, levels=(0.5,))[0] == int(np.quantile(s, 0.5, method="inverted_cdf"))


def test_delta_term_only_raises_the_bound():
    p = np.full(100, 0.3)
    lo = sm.bound_quantiles(1.0, 1e-12, p)
    hi = sm.bound_quantiles(1.0, 1e-2, p)  # n δ = 1
    assert (hi >= lo).all() and hi[2] > lo[2]


def _tiny_net(seed=0):
    rng = np.random.default_rng(seed)
    doms = [3, 2, 3, 2, 3]
    parents = [(), (0,), (0, 1), (2,), (1, 3)]
    cpts = [rng.dirichlet(np.full(doms[v], 0.8), size=tuple(doms[p] for p in parents[v])) for v in range(5)]
    return bnm.BayesNet(doms, parents, cpts, list(range(5)))


def test_bound_is_not_beaten_by_the_attack_beyond_sampling_error():
    """Thm 3.5 at confidence c: Pr[successes > v_UB(c)] <= 1 - c (+ n δ), over fresh data and noise."""
    torch.manual_seed(0)
    bn = _tiny_net()
    runs, n, eps = 60, 25, 2.0
    exceed = {lam: np.zeros(3) for lam in ATTACK["prior_weights"]}
    for r in range(runs):
        recs = bn.sample(n, np.random.default_rng(100 + r))
        out = sm.run_condition(bn, recs, [2], eps, delta=1e-5, attack=ATTACK, seed=r, tag="sim")
        q = sm.bound_quantiles(eps, 1e-5, out["p_star"].to_numpy())
        for lam in ATTACK["prior_weights"]:
            exceed[lam] += out[f"attack_l{lam:g}_ok"].sum() > q
    for lam, e in exceed.items():
        rate = e / runs
        for c, rr in zip((0.05, 0.5, 0.95), rate, strict=True):
            # binomial sampling error of the exceedance rate: 3 standard deviations
            assert rr <= (1 - c) + 3 * math.sqrt(c * (1 - c) / runs) + 1e-9, (lam, c, rr)


def test_run_condition_outcomes_and_determinism():
    bn = _tiny_net(1)
    recs = bn.sample(30, np.random.default_rng(5))
    a = sm.run_condition(bn, recs, [1, 4], 1.0, delta=1e-5, attack=ATTACK, seed=3, tag="t")
    b = sm.run_condition(bn, recs, [1, 4], 1.0, delta=1e-5, attack=ATTACK, seed=3, tag="t")
    pd.testing.assert_frame_equal(a, b)
    z, p = bnm.conditional_map(bn, recs, [1, 4])
    np.testing.assert_array_equal(a["prior_ok"], (z == recs[:, [1, 4]]).all(1))
    np.testing.assert_allclose(a["p_star"], p)
    assert (a["m"] == 9).all()  # C(5,3) - C(3,3)
    # L1 windows: E = max covers the whole domain
    w = sm.run_condition(bn, recs, [2], 1.0, delta=1e-5, attack=ATTACK, seed=3, tag="t", radii=range(3))
    assert w[w.radius == 2][["prior_ok", "attack_l0_ok"]].all().all()
    assert np.allclose(w[w.radius == 2]["p_star"], 1.0)
    # prior success is monotone in E
    assert (w.groupby("radius")["prior_ok"].sum().diff().dropna() >= 0).all()


def test_ambiguous_records():
    x = np.array([[0, 1, 0], [0, 1, 1], [0, 1, 1], [1, 0, 0]])
    np.testing.assert_array_equal(sm.ambiguous_records(x, [2]), [True, True, True, False])
    np.testing.assert_array_equal(sm.ambiguous_records(x, [0]), [False, False, False, False])


@pytest.mark.slow
def test_real_file_in_data_raw_is_used(tmp_path, pipeline):
    """With a FIRE CSV under data/raw/ (source auto) the same targets use it and say so."""
    rng = np.random.default_rng(0)
    n = 3000
    ctype = rng.choice(["Medical Incident", "Alarms", "Structure Fire", "Outside Fire"], n, p=[0.7, 0.15, 0.1, 0.05])
    als = np.where(ctype == "Medical Incident", rng.random(n) < 0.8, rng.random(n) < 0.1)
    station = rng.choice([f"{i:02d}" for i in range(1, 13)], n)
    df = pd.DataFrame({
        "Call Number": np.arange(n),
        "Call Type": ctype,
        "Call Final Disposition": rng.choice(["Code 2 Transport", "Fire", "Other"], n),
        "City": rng.choice(["San Francisco", "Presidio"], n, p=[0.95, 0.05]),
        "Zipcode of Incident": [f"941{int(s):02d}" for s in station],
        "Battalion": [f"B{(int(s) - 1) // 3 + 1:02d}" for s in station],
        "Station Area": station,
        "Priority": rng.choice(["2", "3", "E"], n),
        "ALS Unit": np.where(als, "True", "False"),
        "Call Type Group": rng.choice(["Alarm", "Fire", "Potentially Life-Threatening"], n),
        "Number of Alarms": rng.choice(["1", "2"], n, p=[0.98, 0.02]),
    })
    raw = tmp_path / "data" / "raw" / "fire"
    raw.mkdir(parents=True)
    df.to_csv(raw / "Fire_Department_Calls_for_Service.csv", index=False)
    override = tmp_path / "real.yaml"
    override.write_text(
        "swanberg2025:\n  data:\n    fire: {source: auto, path: "
        "data/raw/fire/Fire_Department_Calls_for_Service.csv, raw_rows: 2000, standin_size: 3000}\n")
    pipeline(tmp_path, "results/swanberg2025/fig4b.pdf", "results/swanberg2025/fig7b.pdf",
             configfiles=("config/config.yaml", "config/tiny.yaml", str(override)))
    res = tmp_path / "results" / "swanberg2025"
    for fig in ("fig4b", "fig7b"):
        prov = json.loads((res / f"{fig}.json").read_text())
        assert prov["data_sources"] == {"FIRE": "real"}
        assert prov["dataset"]["info"]["rows_used"] == 2000  # extra keys sit at the top level
    # Zipcode of Incident has 12 codes in this file, so E runs over 0..11
    assert sorted(pd.read_csv(res / "fig7b.csv").x.unique()) == list(range(12))
    claims = pd.read_csv(res / "claims" / "fig4b.csv")
    assert "standin" not in set(claims.status)
