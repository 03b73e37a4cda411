"""swanberg2025 audit_fig3 on synthetic Figure 3 npz files whose answer is known: the figure's ε̂ is
the reconstruction audit's (Theorem 3.5) at the cell's hits and the prior's largest mass, hits at
the blind rate give ε̂ = 0, hits beyond what the accountant's ε allows make the row say so, and the
no-noise models are found the strongest."""

import math

import numpy as np
import pandas as pd
import pytest

from privrisk.audit import reconstruction as rec
from privrisk.contract.claims import to_frame
from privrisk.papers.swanberg2025 import figures_audit as FA
from privrisk.priors import scaled_prior

DELTA = 1e-5


def write_npz(path, hits: dict[tuple[float, str], int], *, n=200, seed=0):
    """A Figure 3 npz with ``n`` models per (ε, prior) cell of which exactly ``hits[cell]`` guess
    the canary's digit."""
    eps = np.array(sorted({e for e, _ in hits}))
    names = list(dict.fromkeys(p for _, p in hits))
    mats = np.stack([scaled_prior(p, 10, s=1.1) for p in names])
    cond_eps = np.repeat(np.arange(len(eps)), len(names))
    cond_prior = np.tile(np.arange(len(names)), len(eps))
    rng = np.random.default_rng(seed)
    run_cond, target, guess = [], [], []
    for c, (ei, pi) in enumerate(zip(cond_eps, cond_prior, strict=True)):
        k = hits[(float(eps[ei]), names[pi])]
        t = rng.integers(0, 10, n)
        g = np.where(np.arange(n) < k, t, (t + 1) % 10)
        run_cond += [c] * n
        target.append(t)
        guess.append(g)
    np.savez(
        path,
        epsilons=eps,
        priors=np.array(names),
        prior_mats=mats,
        cond_eps=cond_eps,
        cond_prior=cond_prior,
        run_cond=np.array(run_cond),
        target=np.concatenate(target),
        guess=np.concatenate(guess),
        delta=DELTA,
        adjacency="replace_one",
        pii_source="analytic",
    )
    return str(path)


def by_id(res):
    return to_frame(res.claims).set_index("claim_id")


def test_epsilon_hat_is_theorem_3_5_at_the_hits_and_blind_success(tmp_path):
    hits = {(1.0, "uniform"): 20, (8.0, "uniform"): 60, (math.inf, "uniform"): 200}
    hits |= {(1.0, "password"): 80, (8.0, "password"): 110, (math.inf, "password"): 200}
    res = FA.audit_fig3({"confidence": 0.95}, {"npz": write_npz(tmp_path / "r.npz", hits)})
    audits = pd.DataFrame(res.extra["audits"])
    for (e, name), k in hits.items():
        row = audits[(audits.prior == name) & (audits.epsilon == e)].iloc[0]
        blind = scaled_prior(name, 10, s=1.1).max()
        assert row.hits == k and row.n == 200 and row.blind == pytest.approx(blind)
        want = rec.epsilon_lower(k, np.full(200, blind), delta=DELTA, confidence=0.95)
        assert row.epsilon_hat == pytest.approx(want, abs=1e-9)  # bisections of 2⁻⁴⁰ precision
    # at the blind rate (uniform: 20 of 200 = 0.1) no leakage is shown
    assert audits[(audits.prior == "uniform") & (audits.epsilon == 1.0)].epsilon_hat.item() == 0
    ledger = by_id(res)
    assert set(ledger.status) == {"derived"}
    assert ledger.loc["audit_fig3_uniform_eps8", "paper_value"] == 8.0
    assert "ε̂ ≤ ε holds" in ledger.loc["audit_fig3_uniform_eps8", "note"]
    assert ledger.loc["audit_fig3_uniform_epsinf", "note"].split(";")[1].strip().startswith("holds")
    df = res.data
    assert {"series", "x", "y"} <= set(df.columns)
    assert len(df[df.series == "uniform audited epsilon_hat"]) == 3


def test_hits_beyond_the_accountant_are_reported_as_a_failure(tmp_path):
    """150 of 200 uniform digits at ε = 0.5 is beyond any attacker (Thm 3.5 allows ≈ 15 %): the
    row must say ε̂ > ε, and a model weaker than a DP one at ε = ∞ fails the control row."""
    hits = {(0.5, "uniform"): 150, (math.inf, "uniform"): 30}
    res = FA.audit_fig3({"confidence": 0.95}, {"npz": write_npz(tmp_path / "r.npz", hits)})
    ledger = by_id(res)
    row = ledger.loc["audit_fig3_uniform_eps0p5"]
    assert float(row.ours) > 0.5 and "FAILS" in row.note
    assert "refuted" in row.note
    assert ledger.loc["audit_fig3_uniform_epsinf", "note"].split(";")[1].strip().startswith("fails")


def test_models_are_read_per_condition():
    z = {
        "epsilons": np.array([1.0, np.inf]),
        "priors": np.array(["uniform", "password"]),
        "prior_mats": np.stack([np.full(10, 0.1), scaled_prior("password", 10, s=1.1)]),
        "cond_eps": np.array([0, 0, 1, 1]),
        "cond_prior": np.array([0, 1, 0, 1]),
        "run_cond": np.array([0, 1, 2, 3, 3]),
        "target": np.array([1, 2, 3, 4, 5]),
        "guess": np.array([1, 0, 3, 4, 0]),
    }
    m = FA.runs(z)
    assert m.epsilon.tolist() == [1.0, 1.0, np.inf, np.inf, np.inf]
    assert m.prior.tolist() == ["uniform", "password", "uniform", "password", "password"]
    assert m.hit.tolist() == [1, 0, 1, 1, 0]
    assert m.blind.iloc[0] == pytest.approx(0.1)
    assert m.blind.iloc[1] == pytest.approx(z["prior_mats"][1].max())


NGRAM = {"prefix": [3, 1, 4, 1, 5, 9, 2, 6], "embedding_dim": 8, "hidden": 32, "seed": 0}


def fig3_like(path, noise):
    """A Figure 3 npz for the membership step: two conditions (uniform prior) with one step of
    clip 5, lr 3 and the given noise multipliers."""
    eps = np.array([1.0, np.inf])
    np.savez(
        path,
        epsilons=eps,
        priors=np.array(["uniform"]),
        prior_mats=np.full((1, 10), 0.1),
        cond_eps=np.array([0, 1]),
        cond_prior=np.array([0, 0]),
        clip=np.array([5.0, 5.0]),
        lr=np.array([3.0, 3.0]),
        steps=np.array([1, 1]),
        noise_multiplier=np.asarray(noise, float),
        delta=DELTA,
        adjacency="replace_one",
        pii_source="analytic",
    )
    return str(path)


def test_membership_step_trains_half_on_the_canary_and_the_figure_audits_it(tmp_path):
    from privrisk.papers.swanberg2025 import steps_audit

    src = fig3_like(tmp_path / "fig3.npz", [1e6, 0.0])  # ε = 1 cell: pure noise; ∞: no noise
    out = tmp_path / "membership.npz"
    steps_audit.membership_step({**NGRAM, "trials": 50}, {"npz": src}, {"npz": str(out)})
    with np.load(out) as z:
        cond, member, canary, on, score = (
            z[k] for k in ("cond", "member", "canary", "trained_on", "score")
        )
    assert np.bincount(cond).tolist() == [100, 100] and member.sum() == 100
    assert (on[member] == canary[member]).all() and (on[~member] != canary[~member]).all()
    no_noise = cond == 1
    # without noise a model that saw the canary gives it more mass than one that saw another digit
    assert score[no_noise & member].min() > score[no_noise & ~member].max()
    # a scale-free check of the noise: with σ = 10^6 the scores carry no membership signal
    res = FA.audit_fig3(
        {"confidence": 0.95},
        {
            "npz": write_npz(
                tmp_path / "r.npz", {(1.0, "uniform"): 20, (math.inf, "uniform"): 200}
            ),
            "membership": str(out),
        },
    )
    mem = pd.DataFrame(res.extra["membership_audits"]).set_index("epsilon")
    assert mem.loc[1.0, "epsilon_hat"] == 0 and mem.loc[np.inf, "epsilon_hat"] > 1
    ledger = by_id(res)
    assert "ε̂ ≤ ε holds" in ledger.loc["audit_fig3_uniform_eps1_membership", "note"]
    assert (res.data.series == "uniform membership audit epsilon_hat").sum() == 2
