"""swanberg2025 Figure 3: lazy n-gram model, canary draws, the attack vs the bounds, end to end."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from privrisk import accounting
from privrisk.bounds import reconstruction as rb
from privrisk.models import ngram
from privrisk.papers.swanberg2025 import ngram as fig
from privrisk.priors import scaled_prior

torch.set_num_threads(1)


def _params(**kw):
    p = dict(seed=0, password_s=1.1, pii_source="standin", pii_sequences=100, epsilons=[1, 4, ".inf"], delta=1e-5,
             adjacency="replace_one", priors=["uniform", "password", "pii"], vocab=10, prefix=[3, 1, 4, 1, 5, 9, 2, 6],
             embedding_dim=8, hidden=16, n_models=400, n_tune_models=40,
             grid={"clip": [1.0], "lr": [0.01, 0.1, 1.0, 3.0], "steps": [1, 4]}, chunk_models=5000)
    p.update(kw)
    return p


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("ngram")
    out = {"npz": str(d / "runs.npz"), "tuning": str(d / "tuning.csv")}
    fig.train_step(_params(), {}, out, 1)
    return out, fig.summarise(out["npz"], 1e-5)


def test_model_starts_from_the_prior_and_features_are_shared():
    prior = np.stack([scaled_prior("password"), scaled_prior("uniform")])
    h, init = ngram.lazy_setup(prior, [3, 1, 4, 1, 5, 9, 2, 6], hidden=16, dtype=torch.float64)
    assert h.shape == (16,) and init["weight"].shape == (2, 10, 16)
    np.testing.assert_allclose(torch.softmax(ngram.lazy_logits(init, h), 1).numpy(), prior, rtol=1e-12)
    net = ngram.NGramMLP(hidden=16)
    with pytest.raises(ValueError, match="context"):
        net.features(torch.zeros(1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="positive"):
        ngram.lazy_setup(np.array([[1.0, 0.0]]), [1])


def test_canary_digits_follow_the_prior():
    prior = scaled_prior("password")[None]
    draws = fig._draw(np.random.default_rng(0), prior, np.zeros(100_000, dtype=int))
    counts = np.bincount(draws, minlength=10)
    assert stats.chisquare(counts, prior[0] * counts.sum()).pvalue > 1e-3


def test_clopper_pearson_matches_scipy():
    k, n = np.array([0, 3, 50, 100]), np.array([100, 100, 100, 100])
    lo, hi = fig.clopper_pearson(k, n, 0.95)
    for i in range(4):
        ci = stats.binomtest(int(k[i]), int(n[i])).proportion_ci(0.95, method="exact")
        assert lo[i] == pytest.approx(ci.low, abs=1e-12) and hi[i] == pytest.approx(ci.high, abs=1e-12)


def test_attack_never_clearly_exceeds_our_bound(run):
    _, df = run
    assert len(df) == 9
    # one-sided 99.9 % CP lower limit of the accuracy must not exceed Cor 3.4's expected-success bound
    lo, _ = fig.clopper_pearson(df["correct"], df["n"], 0.998)
    assert np.all(lo <= df["bound_cor34_at_guess"] + 1e-12), df[["epsilon", "prior", "accuracy", "bound_cor34_at_guess"]]


def test_attack_uses_the_prior_and_is_exact_without_noise(run):
    _, df = run
    inf = df[np.isinf(df["epsilon"])]
    assert np.all(inf["accuracy"] >= 0.97)
    # the model starts from the prior: on the password prior the attack is at least about the max prior
    pw = df[(df["prior"] == "password") & np.isfinite(df["epsilon"])]
    _, hi = fig.clopper_pearson(pw["correct"], pw["n"], 0.998)
    assert np.all(hi >= pw["baseline"])


def test_uniform_attack_respects_mmc_with_the_calibrated_mu(run):
    """MMC with G_μ (μ = gdp_mu(ε, δ)) is a valid bound for the uniform canary: the trained attack
    must not clearly exceed it (a σ calibrated too small would eventually let it)."""
    _, df = run
    u = df[(df["prior"] == "uniform") & np.isfinite(df["epsilon"])]
    lo, _ = fig.clopper_pearson(u["correct"], u["n"], 0.998)
    mmc = [rb.mmc_gdp(accounting.gdp_mu(e, 1e-5), 10) for e in u["epsilon"]]
    assert np.all(lo <= np.array(mmc) + 1e-12)
    assert np.allclose(u["mmc_gdp"], mmc)
    # and the attack does learn something at ε = 4 (the experiment is not vacuous)
    assert float(u.loc[u["epsilon"] == 4, "accuracy"].iloc[0]) > 0.13


def test_chosen_hyperparameters_minimise_tuning_loss(run):
    out, df = run
    tune = pd.read_csv(out["tuning"])
    for (_e, _p), g in tune.groupby(["epsilon", "prior"]):
        best = g.loc[g["mean_loss"].idxmin()]
        assert bool(best["chosen"]) and g["chosen"].sum() == 1
    z = np.load(out["npz"])
    sig = z["noise_multiplier"]
    for i, row in df.iterrows():
        if math.isfinite(row["epsilon"]):
            assert sig[i] == pytest.approx(2 * math.sqrt(row["steps"]) / accounting.gdp_mu(row["epsilon"], 1e-5))


def test_deterministic(tmp_path):
    p = _params(n_models=20, n_tune_models=5, epsilons=[2], priors=["password"])
    outs = []
    for k in range(2):
        o = {"npz": str(tmp_path / f"r{k}.npz"), "tuning": str(tmp_path / f"t{k}.csv")}
        fig.train_step(p, {}, o, 1)
        outs.append(np.load(o["npz"])["guess"])
    np.testing.assert_array_equal(*outs)


def test_bad_config_names_the_key():
    with pytest.raises(ValueError, match="epsilons"):
        fig._epsilons([0])
    with pytest.raises(ValueError, match="priors"):
        fig.priors(_params(priors=["bogus"]))


def test_fig3_result_and_claims(run):
    out, _ = run
    r = fig.fig3({"seed": 0, "delta": 1e-5, "confidence": 0.95, "claim_tolerance": 0.04}, {"npz": out["npz"]})
    assert {"series", "x", "y", "lo", "hi"} <= set(r.data.columns)
    ids = {c.claim_id: c for c in r.claims}
    assert ids["fig3_uniform_baseline"].status == "reproduced"
    assert ids["fig3_pii_eps1"].status == "standin"
    assert ids["fig3_attack_below_bound"].status == "qualitative-ok"
    assert r.data_sources["pii_names"] == "standin"


@pytest.mark.slow
def test_tiny_pipeline(tmp_path, pipeline):
    pipeline(tmp_path, "results/swanberg2025/fig3.csv")
    d = pd.read_csv(tmp_path / "results/swanberg2025/fig3.csv")
    assert set(d["prior"]) == {"uniform", "password", "pii"}
    assert (tmp_path / "results/swanberg2025/intermediate/fig3_ngram_runs.npz").exists()
