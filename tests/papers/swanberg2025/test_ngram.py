"""swanberg2025 Figure 3: canary draws, the training step, the attack vs the bounds, the figure and claims."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from privrisk import accounting
from privrisk.bounds import reconstruction as rb
from privrisk.contract import verdicts as V
from privrisk.estimators.intervals import clopper_pearson
from privrisk.papers.swanberg2025 import claims_ngram as cn
from privrisk.papers.swanberg2025 import figures_ngram as fig
from privrisk.papers.swanberg2025 import steps_ngram as steps
from privrisk.priors import scaled_prior

torch.set_num_threads(1)


def _params(**kw):
    p = dict(
        seed=0,
        password_s=1.1,
        enron={"source": "standin", "path": "nope"},
        pii_sequences=100,
        epsilons=[1, 4, 10, ".inf"],
        delta=1e-5,
        adjacency="replace_one",
        prior_names=["uniform", "password", "pii"],
        vocab=10,
        prefix=[3, 1, 4, 1, 5, 9, 2, 6],
        embedding_dim=8,
        hidden=16,
        trials=400,
        tune_trials=40,
        grid={"clip": [1.0], "lr": [0.01, 0.1, 1.0, 3.0], "steps": [1, 4]},
        chunk_models=5000,
    )
    p.update(kw)
    return p


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("ngram")
    out = {"npz": str(d / "runs.npz"), "tuning": str(d / "tuning.csv")}
    steps.train_step(_params(), {}, out)
    return out, fig.summarise(out["npz"], 1e-5)


def test_canary_digits_follow_the_prior():
    prior = scaled_prior("password")[None]
    draws = steps._draw(np.random.default_rng(0), prior, np.zeros(100_000, dtype=int))
    counts = np.bincount(draws, minlength=10)
    assert stats.chisquare(counts, prior[0] * counts.sum()).pvalue > 1e-3


def test_clopper_pearson_matches_scipy():
    k, n = np.array([0, 3, 50, 100]), np.array([100, 100, 100, 100])
    lo, hi = clopper_pearson(k, n, confidence=0.95)
    for i in range(4):
        ci = stats.binomtest(int(k[i]), int(n[i])).proportion_ci(0.95, method="exact")
        assert lo[i] == pytest.approx(ci.low, abs=1e-12) and hi[i] == pytest.approx(
            ci.high, abs=1e-12
        )


def test_attack_never_clearly_exceeds_our_bound(run):
    _, df = run
    assert len(df) == 12  # 4 ε × 3 priors
    # one-sided 99.9 % CP lower limit of the accuracy must not exceed Cor 3.4's expected-success bound
    lo, _ = clopper_pearson(df["correct"], df["n"], confidence=0.998)
    assert np.all(lo <= df["bound_cor34_at_guess"] + 1e-12), df[
        ["epsilon", "prior", "accuracy", "bound_cor34_at_guess"]
    ]


def test_attack_uses_the_prior_and_is_exact_without_noise(run):
    _, df = run
    inf = df[np.isinf(df["epsilon"])]
    assert np.all(inf["accuracy"] >= 0.97)
    # the model starts from the prior: on the password prior the attack is at least about the max prior
    pw = df[(df["prior"] == "password") & np.isfinite(df["epsilon"])]
    _, hi = clopper_pearson(pw["correct"], pw["n"], confidence=0.998)
    assert np.all(hi >= pw["baseline"])


def test_uniform_attack_respects_mmc_with_the_calibrated_mu(run):
    """MMC with G_μ (μ = gdp_mu(ε, δ)) is a valid bound for the uniform canary: the trained attack
    must not clearly exceed it (a σ calibrated too small would eventually let it)."""
    _, df = run
    u = df[(df["prior"] == "uniform") & np.isfinite(df["epsilon"])]
    lo, _ = clopper_pearson(u["correct"], u["n"], confidence=0.998)
    mmc = [rb.mmc_gdp(mu=accounting.gdp_mu(epsilon=e, delta=1e-5), K=10) for e in u["epsilon"]]
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
            assert sig[i] == pytest.approx(
                2 * math.sqrt(row["steps"]) / accounting.gdp_mu(epsilon=row["epsilon"], delta=1e-5)
            )


def test_deterministic(tmp_path):
    p = _params(trials=20, tune_trials=5, epsilons=[2], prior_names=["password"])
    outs = []
    for k in range(2):
        o = {"npz": str(tmp_path / f"r{k}.npz"), "tuning": str(tmp_path / f"t{k}.csv")}
        steps.train_step(p, {}, o)
        outs.append(np.load(o["npz"])["guess"])
    np.testing.assert_array_equal(*outs)


def test_bad_config_names_the_key():
    with pytest.raises(ValueError, match="epsilons"):
        steps._epsilons([0])
    with pytest.raises(ValueError, match="prior_names"):
        steps.priors(_params(prior_names=["bogus"]))
    np.testing.assert_array_equal(steps._epsilons({"min": 1, "max": 3, "n_points": 3}), [1, 2, 3])


FIG3 = {
    "seed": 0,
    "delta": 1e-5,
    "confidence": 0.95,
    "tolerance": 0.04,
    "margin": 0.02,
    "substantial_gain": 0.1,
}


def test_fig3_result_and_claims(run):
    out, df = run
    r = fig.fig3(FIG3, {"npz": out["npz"]})
    assert {"series", "x", "y", "lo", "hi"} <= set(r.data.columns)
    ids = {c.claim_id: c for c in r.claims}
    # 1/10 and the password prior's top mass are our own priors' values: derived, never reproduced
    for cid in ("fig3_uniform_baseline", "fig3_password_eps1_is_prior_mass"):
        assert ids[cid].status == "derived" and "agrees: True" in ids[cid].note
    assert ids["fig3_pii_eps1"].status == "standin"
    # a property of the paper's Enron + GPT-2 prior, tested on the stand-in: standin with the verdict
    assert ids["fig3_pii_eps10_barely"].status == "standin"
    assert "on the stand-in the statement is" in ids["fig3_pii_eps10_barely"].note
    assert ids["fig3_attack_below_bound"].status == "qualitative-ok"
    assert r.data_sources["pii_names"] == "standin"
    # one gain row per prior (multiplicity over ε inside the verdict), none per point
    assert {c for c in ids if c.startswith("fig3_gain")} == {
        "fig3_gain_uniform",
        "fig3_gain_password",
        "fig3_gain_pii",
    }
    assert "Bonferroni" in ids["fig3_gain_uniform"].note
    assert r.extra["threads"]["torch_threads"] >= 1 and r.extra["threads"]["cpu"]
    assert "pii_top_mass: null" in r.extra["pii_prior_choice"]


def test_paired_baseline_is_the_max_prior_guess_on_the_same_canaries(run):
    out, df = run
    z = np.load(out["npz"])
    for c in range(len(z["cond_eps"])):
        sel = z["run_cond"] == c
        prior = z["prior_mats"][z["cond_prior"][c]]
        mode = int(np.argmax(prior))
        row = df.iloc[c]
        hit = (z["guess"][sel] == z["target"][sel]).astype(float)
        if row["prior"] == "uniform":  # every guess succeeds with probability exactly 1/K
            assert row["gain_baseline"] == "exact" and prior.max() == pytest.approx(0.1)
            d = hit - prior.max()
        else:
            assert row["gain_baseline"] == "paired"
            d = hit - (z["target"][sel] == mode)
        assert row["gain"] == pytest.approx(d.mean())
        assert row["gain_se"] == pytest.approx(d.std(ddof=1) / math.sqrt(sel.sum()))
        assert row["maxprior_correct"] == pytest.approx(np.mean(z["target"][sel] == mode))


def test_crn_tuning_gives_identical_results_to_identical_settings_and_paired_se():
    """Common random numbers: two grid points with the same hyperparameters see the same canaries
    and the same noise, so their losses agree exactly (paired difference 0, s.e. 0); the chosen
    point's margin over the runner-up comes with its paired standard error."""
    p = _params(epsilons=[2.0], prior_names=["password"])
    prior = scaled_prior("password", 10)[None]
    combos = np.array([[1.0, 0.1, 4], [1.0, 0.1, 4], [1.0, 3.0, 4], [1.0, 0.01, 1]])
    agg = steps.tune_crn(prior, np.array([2.0]), combos, 300, p, 0, torch.float32)
    assert agg.loc[0, "mean_loss"] == agg.loc[1, "mean_loss"]
    assert agg["chosen"].sum() == 1
    best = agg[agg.chosen].iloc[0]
    twin = agg[(agg.lr == best.lr) & (agg.steps == best.steps) & ~agg.chosen]
    if len(twin):  # the chosen point's twin trains the same models: not the runner-up
        assert twin["same_as_chosen"].all() and best.gap_runner_up > 0
    assert np.isfinite(agg["loss_minus_chosen_se"]).all() and (agg["loss_minus_chosen"] >= 0).all()


def _row(prior, eps, gain, se, accuracy=0.3, baseline=0.3):
    return {
        "epsilon": eps,
        "prior": prior,
        "n": 2000,
        "accuracy": accuracy,
        "baseline": baseline,
        "lo": accuracy - 0.02,
        "hi": accuracy + 0.02,
        "gain": gain,
        "gain_se": se,
        "bound_cor34_at_guess": 0.9,
        "mmc_gdp": 0.5,
        "clip": 1.0,
        "lr": 0.1,
        "steps": 4,
        "tune_gap": 0.01,
        "tune_gap_se": 0.002,
        "tune_separated": True,
    }


def test_gain_rows_say_ok_fails_and_uninformative_on_paired_gains():
    """Non-inferiority within the margin (0.02) at every ε, Bonferroni over ε for a failure."""
    df = pd.DataFrame(
        [
            _row("password", 0.5, 0.001, 0.001),
            _row("password", 1.0, 0.01, 0.004),
            _row("uniform", 1.0, -0.08, 0.01),  # clearly below even at the Bonferroni level
            _row("uniform", 2.0, 0.03, 0.01),
            _row("pii", 1.0, -0.02, 0.01),  # interval straddles −0.02
            _row("pii", 2.0, 0.05, 0.01),
        ]
    )
    status = {c.claim_id: c.status for c in cn.fig3_claims(df, FIG3, "standin")}
    assert status["fig3_gain_password"] == "qualitative-ok"
    assert status["fig3_gain_uniform"] == "qualitative-fails"
    assert status["fig3_gain_pii"] == "uninformative"
    # a point where the attack never differs from the mode guess (0 ± 0): a model's difference
    # moves in whole successes (step 1), so the tie decides at least what a near-tie one model off
    # decides (privrisk.contract.verdicts.ties): at 2000 models that is inside the 0.02 margin;
    # at 50 models one model off is already 0.02 away, so it is undecided, with a finite plan
    df.loc[0, ["gain", "gain_se"]] = 0.0
    rows = {c.claim_id: c for c in cn.fig3_claims(df, FIG3, "standin")}
    assert rows["fig3_gain_password"].status == "qualitative-ok"
    assert "zero variance" in rows["fig3_gain_password"].note
    df.loc[0, "n"] = 50
    few = {c.claim_id: c for c in cn.fig3_claims(df, FIG3, "standin")}["fig3_gain_password"]
    assert few.status == "uninformative" and " models (at every point" in few.to_decide
    planned = int(few.to_decide.split()[0])
    assert 50 < planned < 2000
    df.loc[0, "n"] = planned
    assert {c.claim_id: c for c in cn.fig3_claims(df, FIG3, "standin")}[
        "fig3_gain_password"
    ].status == "qualitative-ok"
    # an accuracy of 0 or 1 still has an uncertainty (Agresti–Coull), not a zero-variance one
    assert cn.accuracy(_row("u", 1.0, 0, 0.01, accuracy=0.0)).se > 0


def test_mostly_not_below_baseline_rule():
    ok = pd.DataFrame([_row("u", e, 0.01, 0.004) for e in range(10)])
    assert cn.mostly_not_below(ok, margin=0.02).holds is True
    one_bad = ok.copy()
    one_bad.loc[0, "gain"] = -0.2  # one clearly-below point of ten is allowed ("mostly")
    assert cn.mostly_not_below(one_bad, margin=0.02).holds is True
    two_bad = one_bad.copy()
    two_bad.loc[1, "gain"] = -0.2
    assert cn.mostly_not_below(two_bad, margin=0.02).holds is False
    vague = ok.copy()
    vague["gain_se"] = 0.05  # nothing decided either way
    assert cn.mostly_not_below(vague, margin=0.02).holds is None


def _mostly_not_below_case():
    """24 points around the margin, 200 models each: the 'mostly' rule undecided, with its plan."""
    rng = np.random.default_rng(0)
    k, n0, sd, margin = 24, 200, 0.45, 0.02
    means = rng.uniform(-0.005, 0.03, k)
    df = pd.DataFrame([_row("u", e, m, sd / math.sqrt(n0)) for e, m in enumerate(means)])
    df["n"] = n0
    return rng, k, sd, margin, means, df, cn.mostly_not_below(df, margin=margin)


def test_mostly_not_below_is_planned_for_the_k_points_it_needs():
    """'Mostly' asks all but int(0.1 k) points to pass (22 of 24): the plan is priced for that,
    not for every point (which costs several times more); that the rule then holds in about POWER
    of repeated experiments is the slow test below (300 simulated experiments)."""
    _, _, _, margin, _, df, v = _mostly_not_below_case()
    assert v.holds is None and v.plan.finite and "22 of 24 points" in v.plan.why
    every = V.combine(
        [
            V.at_least(cn.gain(r), margin=margin).plan
            for _, r in df.iterrows()
            if V.at_least(cn.gain(r), margin=margin).holds is None
        ]
    )
    assert every.n > 1.5 * v.plan.n  # pricing every point overprices the rule
    n = int(v.plan.n)
    # and one model fewer than planned is below the promise by the planner's own model
    assert v.plan.power(np.array([n - 1.0]))[0] < V.POWER <= v.plan.power(np.array([float(n)]))[0]


@pytest.mark.slow  # 300 simulated experiments: ~20 s of CPU (the plan is checked in the fast tier)
def test_mostly_not_below_holds_in_about_power_of_experiments_at_the_planned_models():
    """At the planned models per point the rule holds in about POWER of repeated experiments
    whose truth is the observed effects."""
    rng, k, sd, margin, means, df, v = _mostly_not_below_case()
    n = int(v.plan.n)
    hits = 0
    reps = 300
    for _ in range(reps):
        sim = df.copy()
        sim["n"] = n
        s = sd * np.sqrt(rng.chisquare(n - 1, k) / (n - 1))
        sim["gain"] = rng.normal(means, sd / math.sqrt(n))
        sim["gain_se"] = s / math.sqrt(n)
        hits += cn.mostly_not_below(sim, margin=margin).holds is True
    slack = 3 * math.sqrt(V.POWER * (1 - V.POWER) / reps)
    assert V.POWER - slack <= hits / reps <= V.POWER + slack + 0.03, (n, hits / reps)
