"""swanberg2025 Figures 4-7: the Theorem 3.5 bound code, the bound vs the attack in simulation,
the per-record outcomes of one condition, and a run on a real-format FIRE file."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from privrisk.bounds.reconstruction import beta_multi
from privrisk.contract import verdicts as V
from privrisk.models import baynet as bnm
from privrisk.papers.swanberg2025 import claims_marginals as cm
from privrisk.papers.swanberg2025 import steps_marginals as sm


def test_bound_reproduces_the_sex_example():
    # spec §4(b): p* = 0.56 for every record at ε = 1 gives β = 0.7758 and 71 / 78 / 84.
    assert beta_multi(epsilon=1.0, p=0.56) == pytest.approx(0.7758, abs=5e-5)
    assert sm.bound_quantiles(1.0, 1e-5, np.full(100, 0.56)).tolist() == [71, 78, 84]
    assert sm.bound_quantiles(1.0, 1e-5, np.full(100, 0.58)).tolist() == [72, 79, 85]


def test_bound_pure_dp_equals_binomial_quantiles_and_edges():
    for eps, p in [(0.5, 0.3), (2.0, 0.1), (4.0, 0.02)]:
        beta = beta_multi(epsilon=eps, p=p)
        got = sm.bound_quantiles(eps, 1e-12, np.full(60, p), levels=(0.05, 0.5, 0.95))
        assert got.tolist() == [int(stats.binom.ppf(c, 60, beta)) for c in (0.05, 0.5, 0.95)]
    assert sm.bound_quantiles(math.inf, 1e-5, np.full(100, 0.01)).tolist() == [100, 100, 100]
    assert sm.bound_quantiles(3.0, 1e-5, np.zeros(50)).tolist() == [0, 0, 0]
    # Poisson-binomial with unequal p: compare against Monte Carlo quantiles.
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.9, 100)
    s = (rng.random((200_000, 100)) < beta_multi(epsilon=1.0, p=p)).sum(axis=1)
    assert sm.bound_quantiles(1.0, 0.0 + 1e-15, p, levels=(0.5,))[0] == int(
        np.quantile(s, 0.5, method="inverted_cdf")
    )


def test_delta_term_only_raises_the_bound():
    p = np.full(100, 0.3)
    lo = sm.bound_quantiles(1.0, 1e-12, p)
    hi = sm.bound_quantiles(1.0, 1e-2, p)  # n δ = 1
    assert (hi >= lo).all() and hi[2] > lo[2]


def _tiny_net(seed=0):
    rng = np.random.default_rng(seed)
    doms = [3, 2, 3, 2, 3]
    parents = [(), (0,), (0, 1), (2,), (1, 3)]
    cpts = [
        rng.dirichlet(np.full(doms[v], 0.8), size=tuple(doms[p] for p in parents[v]))
        for v in range(5)
    ]
    return bnm.BayesNet(doms, parents, cpts, list(range(5)))


FIXED = {0.0: ("adam", 0.1, 60), 1.0: ("adam", 0.1, 60)}


def _draws(bn, unknown, eps, *, n=30, draws=4, seed=3, kind="target"):
    return sm.make_draws(
        bn, unknown, eps, delta=1e-5, n=n, draws=draws, seed=seed, tag="t", kind=kind
    )


def test_bound_is_not_beaten_by_the_attack_beyond_sampling_error():
    """Thm 3.5 at confidence c: Pr[successes > v_UB(c)] <= 1 - c (+ n δ), over fresh data and noise."""
    bn = _tiny_net()
    runs, n, eps = 60, 25, 2.0
    dr = _draws(bn, [2], eps, n=n, draws=runs, seed=0, kind="sim")
    out = sm.outcome_rows(dr, sm.attack_draws(dr, FIXED, domains=bn.domains))
    exceed = {lam: np.zeros(3) for lam in FIXED}
    for _, g in out.groupby("draw"):
        q = sm.bound_quantiles(eps, 1e-5, g["p_star"].to_numpy())
        for lam in FIXED:
            exceed[lam] += g[f"attack_l{lam:g}_ok"].sum() > q
    for lam, e in exceed.items():
        rate = e / runs
        for c, rr in zip((0.05, 0.5, 0.95), rate, strict=True):
            # binomial sampling error of the exceedance rate: 3 standard deviations
            assert rr <= (1 - c) + 3 * math.sqrt(c * (1 - c) / runs) + 1e-9, (lam, c, rr)


def test_draws_outcomes_and_determinism():
    bn = _tiny_net(1)
    a_dr, b_dr = _draws(bn, [1, 4], 1.0), _draws(bn, [1, 4], 1.0)
    a = sm.outcome_rows(a_dr, sm.attack_draws(a_dr, FIXED, domains=bn.domains))
    b = sm.outcome_rows(b_dr, sm.attack_draws(b_dr, FIXED, domains=bn.domains))
    pd.testing.assert_frame_equal(a, b)
    assert a["draw"].nunique() == 4 and len(a) == 4 * 30
    # the draws are different samples, and the target draws do not depend on the columns attacked
    assert not np.array_equal(a_dr.records[0], a_dr.records[1])
    np.testing.assert_array_equal(_draws(bn, [2], 3.0).records, a_dr.records)
    assert not np.array_equal(_draws(bn, [1, 4], 1.0, kind="shadow").records, a_dr.records)
    recs = a_dr.records[2]
    z, p = bnm.conditional_map(bn, recs, [1, 4])
    np.testing.assert_array_equal(a[a.draw == 2]["prior_ok"], (z == recs[:, [1, 4]]).all(1))
    np.testing.assert_allclose(a[a.draw == 2]["p_star"], p)
    assert (a["m"] == 9).all()  # C(5,3) - C(3,3)
    # L1 windows: E = max covers the whole domain
    dr = _draws(bn, [2], 1.0)
    w = sm.outcome_rows(dr, sm.attack_draws(dr, FIXED, domains=bn.domains), radii=range(3))
    assert w[w.radius == 2][["prior_ok", "attack_l0_ok"]].all().all()
    assert np.allclose(w[w.radius == 2]["p_star"], 1.0)
    # prior success is monotone in E
    assert (w.groupby("radius")["prior_ok"].sum().diff().dropna() >= 0).all()


def test_shadow_tuning_detects_a_mistuned_attack():
    """A deliberately mis-tuned setting (SGD with a step far too small to leave the prior) loses
    on the shadow draws, is not chosen, and also loses on the target draws."""
    bn = _tiny_net(2)
    grid = [("adam", 0.1), ("sgd", 1e-4)]
    shadow = [_draws(bn, [2], math.inf, n=40, draws=4, kind="shadow")]
    table, chosen = sm.tune(shadow, grid, [0.0], [20, 80], domains=bn.domains)
    assert chosen[0.0][0] == "adam"
    bad = table[(table.optimiser == "sgd")]
    assert (
        bad["minus_chosen"] + 2 * bad["minus_chosen_se"] < 0
    ).all()  # loses beyond 2 paired s.e.
    target = _draws(bn, [2], math.inf, n=40, draws=4)
    good = sm.outcome_rows(target, sm.attack_draws(target, {0.0: chosen[0.0]}, domains=bn.domains))
    mis = sm.outcome_rows(
        target, sm.attack_draws(target, {0.0: ("sgd", 1e-4, 80)}, domains=bn.domains)
    )
    assert good["attack_l0_ok"].sum() > mis["attack_l0_ok"].sum()
    assert table["chosen"].sum() == 1 and set(table.steps) == {20, 80}


def _rows(gap_fn, *, draws=10, n=50, x="A", seed=0, ceiling=True):
    """Per-record outcome rows of one condition whose attack keeps or loses the prior's hits."""
    rng = np.random.default_rng(seed)
    rows = []
    for draw in range(draws):
        for rec in range(n):
            prior = rng.random() < 0.6
            att = gap_fn(prior, rng)
            rows.append(
                {
                    "x": x,
                    "epsilon": 1.0,
                    "draw": draw,
                    "record": rec,
                    "m": 3,
                    "sigma_count": 1.0,
                    "ambiguous": False,
                    "p_star": 0.6,
                    "prior_ok": prior,
                    "attack_l0_ok": att,
                    **(
                        {"ceiling_ok": prior or rng.random() < 0.05, "ceiling_bound": 0.65}
                        if ceiling
                        else {}
                    ),
                }
            )
    return pd.DataFrame(rows)


def test_ge_prior_says_fails_ok_and_uninformative():
    """'attack ≥ prior' is non-inferiority of the paired attack − prior within the margin."""
    losing = _rows(lambda prior, rng: prior and rng.random() < 0.6)  # loses ~40 % of the hits
    summ = cm.summarise(losing, 1e-5, [0.0])
    assert summ["draws"].iloc[0] == 10 and summ["gap_l0"].iloc[0] < -5
    claim = cm.ge_prior("figX", summ, [0.0], "columns", "standin", margin=2)
    assert claim.status == "qualitative-fails" and "ceiling (exact posterior) − prior" in claim.note
    same = _rows(lambda prior, rng: prior)  # identical to the prior: gap exactly 0, se 0
    tie = cm.ge_prior(
        "figX", cm.summarise(same, 1e-5, [0.0]), [0.0], "columns", "standin", margin=2
    )
    # a tie in every draw of a count of records (step 1): the tie decides at least what a near-tie
    # one record off decides (privrisk.contract.verdicts.ties); that is well inside the margin of
    # 2 records, so it holds (the old exact bound let one differing draw be n records off)
    assert tie.status == "qualitative-ok" and "zero variance" in tie.note
    better = _rows(lambda prior, rng: prior or rng.random() < 0.3)  # keeps every hit, adds some
    ok = cm.ge_prior(
        "figX", cm.summarise(better, 1e-5, [0.0]), [0.0], "columns", "standin", margin=2
    )
    assert ok.status == "qualitative-ok" and ok.to_decide == ""
    # per-draw gaps −4, 0, −1 twice: mean −1.7 ± 0.7, straddling the margin −2
    noisy = _rows(lambda prior, rng: prior, draws=6)
    for draw, lost in ((0, 4), (2, 1), (3, 4), (5, 1)):
        hits = noisy.index[(noisy.draw == draw) & noisy.prior_ok][:lost]
        noisy.loc[hits, "attack_l0_ok"] = False
    vague = cm.ge_prior(
        "figX", cm.summarise(noisy, 1e-5, [0.0]), [0.0], "columns", "standin", margin=2
    )
    assert vague.status == "uninformative" and vague.to_decide.endswith(" draws")
    assert int(vague.to_decide.split()[0]) > 6


def test_summary_pairs_the_methods_and_uses_standard_errors():
    rows = _rows(lambda prior, rng: prior and rng.random() < 0.9)
    per = cm.per_draw(rows, 1e-5, [0.0])
    summ = cm.summarise(rows, 1e-5, [0.0]).iloc[0]
    d = per["attack_l0"] - per["prior"]
    assert summ["gap_l0"] == pytest.approx(d.mean())
    assert summ["gap_l0_se"] == pytest.approx(d.std(ddof=1) / np.sqrt(10))
    assert summ["attack_l0_se"] == pytest.approx(per["attack_l0"].std(ddof=1) / np.sqrt(10))
    sh = per["ceiling"] - per["attack_l0"]
    assert summ["shortfall_l0"] == pytest.approx(sh.mean())
    assert summ["revealed"] == pytest.approx(0.65 * 50)


def test_ceiling_row_is_derived_and_reports_a_shortfall():
    rows = _rows(lambda prior, rng: prior and rng.random() < 0.7)
    summ = cm.summarise(rows, 1e-5, [0.0])
    c = cm.ceiling_vs_attack("figX", summ, [0.0], "standin")
    assert c.status == "derived" and c.data == "standin"
    assert (
        "finding: the paper's attack falls short of the informed attacker's ceiling beyond noise at A"
        in c.note
    )
    assert c.ours == pytest.approx(summ["shortfall_l0"].iloc[0])


def test_standin_routing_of_properties_of_the_papers_data():
    verdict = cm.V.greater(cm.Estimate(1.0, se=0.1))
    s = cm.standin_or_judged(
        figure="f", claim_id="c", claim="x", verdict=verdict, ours="o", data="standin"
    )
    assert s.status == "standin" and "qualitative-ok" not in s.status and "ok" in s.note
    r = cm.standin_or_judged(
        figure="f", claim_id="c", claim="x", verdict=verdict, ours="o", data="real"
    )
    assert r.status == "qualitative-ok" and r.data == "real"


def test_sex_gain_of_nine_records_differs_from_what_any_attack_can_gain():
    c = cm.sex_gain_possible(
        "fig4a", epsilon=1.0, delta=1e-5, n=100, m=105, sex=None, sd=float("nan")
    )
    assert c.status == "differs" and c.data == "analytic"
    assert c.ours == pytest.approx(5.33, abs=0.01) and c.paper_value == 9.0
    assert "no attack can gain 9 records" in c.note


def test_fig6_most_significant_few_columns_fails_without_a_gain_at_one_column():
    params = {"margin": 5, "n_records": 50, "marginals_attack": {"delta": 1e-5}}

    def claims_of(attack_at):
        frames = [_rows(attack_at(k), x=k, seed=k) for k in range(1, 8)]
        rows = pd.concat(frames, ignore_index=True)
        per = cm.per_draw(rows, 1e-5, [0.0])
        summ = cm.summarise(rows, 1e-5, [0.0])
        return {
            c.claim_id: c
            for c in cm.multi_claims(
                "fig6b", summ, per, [0.0], dataset="fire", data="standin", params=params
            )
        }

    # the attack makes the prior's guesses in every draw: the tie of a count (step 1) decides as
    # a near-tie one record off: equal to the prior within the margin beyond 5 columns, and not
    # "attack > prior" at d' = 1, which it cannot decide
    ids = claims_of(lambda k: lambda prior, rng: prior)
    assert ids["fig6b_beyond5_attack_equals_prior"].status == "qualitative-ok"
    assert ids["fig6b_most_significant_few_columns"].status == "uninformative"
    assert "zero variance" in ids["fig6b_most_significant_few_columns"].note
    assert ids["fire_bound_flat_1_to_3"].status == "standin"

    # at d' = 1 it loses 30 % of the prior's hits; beyond, it differs from the prior by a few
    # records either way: equal to the prior beyond 5, and not most significant at d' = 1
    def attack_at(k):
        if k == 1:
            return lambda prior, rng: prior and rng.random() < 0.7
        return lambda prior, rng: prior != (rng.random() < 0.02)

    ids = claims_of(attack_at)
    assert ids["fig6b_beyond5_attack_equals_prior"].status == "qualitative-ok"
    assert ids["fig6b_most_significant_few_columns"].status == "qualitative-fails"


def test_ambiguous_records():
    x = np.array([[0, 1, 0], [0, 1, 1], [0, 1, 1], [1, 0, 0]])
    np.testing.assert_array_equal(sm.ambiguous_records(x, [2]), [True, True, True, False])
    np.testing.assert_array_equal(sm.ambiguous_records(x, [0]), [False, False, False, False])


@pytest.mark.slow
def test_real_file_in_data_raw_is_used(tmp_path, pipeline):
    """With a FIRE CSV under data/raw/ (source auto) the same targets use it and say so."""
    rng = np.random.default_rng(0)
    n = 3000
    ctype = rng.choice(
        ["Medical Incident", "Alarms", "Structure Fire", "Outside Fire"],
        n,
        p=[0.7, 0.15, 0.1, 0.05],
    )
    als = np.where(ctype == "Medical Incident", rng.random(n) < 0.8, rng.random(n) < 0.1)
    station = rng.choice([f"{i:02d}" for i in range(1, 13)], n)
    df = pd.DataFrame(
        {
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
        }
    )
    raw = tmp_path / "data" / "raw" / "fire"
    raw.mkdir(parents=True)
    df.to_csv(raw / "Fire_Department_Calls_for_Service.csv", index=False)
    override = tmp_path / "real.yaml"
    override.write_text(
        "swanberg2025:\n  data:\n    fire: {source: auto, path: "
        "data/raw/fire/Fire_Department_Calls_for_Service.csv, raw_rows: 2000, standin_size: 3000}\n"
    )
    pipeline(
        tmp_path,
        "results/swanberg2025/fig4b.pdf",
        "results/swanberg2025/fig7b.pdf",
        configfiles=("config/config.yaml", "config/tiny.yaml", str(override)),
    )
    res = tmp_path / "results" / "swanberg2025"
    for fig in ("fig4b", "fig7b"):
        prov = json.loads((res / f"{fig}.json").read_text())
        # placed by hand: real data no checksummed preparation vouches for
        assert prov["data_sources"] == {"FIRE": "real-unverified"}
        (world,) = prov["dataset"]["worlds"]  # real data is one world
        assert world["info"]["rows_used"] == 2000  # extra keys sit at the top level
    # Zipcode of Incident has 12 codes in this file, so E runs over 0..11
    assert sorted(pd.read_csv(res / "fig7b.csv").x.unique()) == list(range(12))
    claims = pd.read_csv(res / "claims" / "fig4b.csv")
    assert "standin" not in set(claims.status)


def _summary(points):
    """A summary with one row per point: (x, gap, gap_se) of the paper's attack."""
    rows = []
    for x, gap, se in points:
        rows.append(
            {
                "x": x,
                "draws": 10,
                "gap_l0": gap,
                "gap_l0_se": se,
                "ceiling_gap": np.nan,
                "revealed_gap": np.nan,
                "shortfall_l0": np.nan,
                "shortfall_l0_se": np.nan,
            }
        )
    return pd.DataFrame(rows)


def test_ge_prior_corrects_for_multiplicity_over_the_points():
    """One of ten window sizes 2.1 s.e. below −margin: not a failure once Bonferroni over the ten
    is applied (it was one in the former per-point rule); 8 s.e. below is (t with 9 df at the
    robust Bonferroni level is ≈ 6.5 s.e.)."""
    pts = [(e, 0.0, 0.3) for e in range(9)]
    near = cm.ge_prior(
        "fig7a", _summary(pts + [(9, -2 - 2.1 * 0.3, 0.3)]), [0.0], "E", "standin", margin=2
    )
    assert near.status == "uninformative" and "Bonferroni over 10" in near.note
    far = cm.ge_prior(
        "fig7a", _summary(pts + [(9, -2 - 8 * 0.3, 0.3)]), [0.0], "E", "standin", margin=2
    )
    assert far.status == "qualitative-fails"


def test_fig4a_bound_statement_is_standin_on_standin_data_and_judged_on_real():
    frames = [_rows(lambda prior, rng: prior, x=c, seed=i) for i, c in enumerate(("AGEP", "SEX"))]
    rows = pd.concat(frames, ignore_index=True)
    # the records' prior success varies from draw to draw (a constant bound would be a
    # zero-variance sample, which decides nothing)
    rows["p_star"] = 0.6 + 0.02 * (rows["draw"] % 3)
    per, summ = cm.per_draw(rows, 1e-5, [0.0]), cm.summarise(rows, 1e-5, [0.0])
    params = {
        "margin": 2,
        "tolerance": 5,
        "epsilon": 1.0,
        "n_records": 50,
        "marginals_attack": {"delta": 1e-5},
    }
    for data, status in (("standin", "standin"), ("real", "qualitative-fails")):
        ids = {
            c.claim_id: c
            for c in cm.columns_claims(
                "fig4a", summ, per, [0.0], dataset="acs", data=data, params=params
            )
        }
        # p* = 0.6 for all 50 records: the 95 % bound is far below 80 for SEX, so it fails on real data
        assert ids["bound95_ge80_except_agep_schl"].status == status
        assert ids["sex_gain_possible"].status == "differs"


def test_fig7_consistently_better_is_a_superiority_test():
    """'consistently better than the prior' holds only when attack − prior > 0 at every E."""
    better = [(e, 3.0, 0.3) for e in range(5)]
    ok = cm.gt_prior("fig7a", _summary(better), [0.0], "E", "standin")
    assert ok.claim_id == "fig7a_attack_gt_prior" and ok.status == "qualitative-ok"
    # within the old non-inferiority margin but not better: undecided, with the draws to decide
    level = [(e, 0.3, 0.3) for e in range(5)]
    und = cm.gt_prior("fig7a", _summary(level), [0.0], "E", "standin")
    assert und.status == "uninformative" and und.to_decide.endswith(" draws")
    worse = [(e, 3.0, 0.3) for e in range(4)] + [(4, -5.0, 0.3)]
    assert cm.gt_prior("fig7a", _summary(worse), [0.0], "E", "standin").status == (
        "qualitative-fails"
    )


def test_vacuous_and_saturated_points_are_left_out():
    """'Like the prior within 5 records' between an attack and a prior that each recover about 1
    record holds whatever the attack does: such a point decides nothing (left out, named); a point
    where every method recovers every record in every draw is left out of 'better at every E'."""
    summ = _summary([(6, 0.3, 0.2), (7, -0.2, 0.2)])
    summ = summ.assign(prior=[1.1, 0.9], prior_se=0.2, attack_l0=[1.4, 0.7], attack_l0_se=0.2)
    multi = cm.multi_claims(
        "fig6b",
        summ,
        pd.DataFrame(),
        [0.0],
        dataset="acs",
        data="standin",
        params={"margin": 5, "n_records": 100},
    )
    row = next(c for c in multi if c.claim_id == "fig6b_beyond5_attack_equals_prior")
    assert row.status == "uninformative" and "margin is larger than the levels" in row.note
    assert row.to_decide.startswith("never by more draws")
    # levels well above the margin: judged
    high = summ.assign(prior=[40.0, 41.0], attack_l0=[40.3, 40.8])
    judged = cm.multi_claims(
        "fig6b",
        high,
        pd.DataFrame(),
        [0.0],
        dataset="acs",
        data="standin",
        params={"margin": 5, "n_records": 100},
    )
    assert next(c for c in judged if "beyond5" in c.claim_id).status == "qualitative-ok"
    pts = _summary([(0, 3.0, 0.3), (1, 0.0, 0.0)]).assign(saturated=[False, True], records=100)
    better = cm.gt_prior("fig7a", pts, [0.0], "E", "standin")
    assert better.status == "qualitative-ok" and "left out (every method at the top" in better.note


def test_fig5_trend_takes_the_world_as_a_random_effect():
    """Fig 5's "the gain grows with ε" pairs the same draws across ε; the draws come from worlds
    (draw r in world r mod W), so each step is judged on the world means: its df are the worlds'
    (W − 1), not the draws' (issue 45). A world effect shared by a world's draws at every ε cancels
    in a step, one that differs between ε does not, and only the world means see it."""
    worlds, draws = 5, 30
    world_step = {0: 0.0, 1: 6.0, 2: -4.0, 3: 5.0, 4: -5.0}  # each world's own ε-step

    def frame(eps, x, boost):
        rows = _rows(lambda prior, rng: prior, draws=draws, x=x, seed=1)
        rows["epsilon"] = eps
        rows["world"] = rows["draw"] % worlds
        for draw in range(draws):
            extra = boost + world_step[draw % worlds] if eps > 1 else 0.0
            if extra > 0:  # the attack adds hits on records the prior missed
                misses = rows.index[(rows.draw == draw) & ~rows.prior_ok][: int(extra)]
                rows.loc[misses, "attack_l0_ok"] = True
            elif extra < 0:
                hits = rows.index[(rows.draw == draw) & rows.prior_ok][: int(-extra)]
                rows.loc[hits, "attack_l0_ok"] = False
        return rows

    rows = pd.concat([frame(1.0, 1.0, 0), frame(5.0, 5.0, 3)], ignore_index=True)
    summ = cm.summarise(rows, 1e-5, [0.0])
    per = cm.per_draw(rows, 1e-5, [0.0])
    (row,) = [
        c
        for c in cm.eps_claims("fig5a", summ, per, [0.0], data="standin",
                               params={"margin": 2, "n_records": 50})
        if c.claim_id == "fig5a_gap_grows_with_eps"
    ]  # fmt: skip
    assert f"(t, {worlds - 1} df)" in row.note and f"(t, {draws - 1} df)" not in row.note
    # the world means' spread (steps 3, 9, −1, 8, −2 records) leaves the trend undecided; the
    # draws as independent (29 df, the old rule) would have called it
    assert row.status == "uninformative"
    step = per.pivot(index="draw", columns="x")
    gaps = (step["attack_l0"] - step["prior"]).to_numpy(float)
    independent = V.monotone(gaps, [1.0, 5.0], margin=2, bounds=(-50, 50))
    assert independent.holds is True
    # the falsification control: the gain shrinks with ε in every world (by 7 to 9 records), and
    # the row fails
    world_step.update({0: 0.0, 1: 1.0, 2: -1.0, 3: 1.0, 4: -1.0})
    falling = pd.concat([frame(1.0, 1.0, 0), frame(5.0, 5.0, -8)], ignore_index=True)
    (row,) = [
        c
        for c in cm.eps_claims("fig5a", cm.summarise(falling, 1e-5, [0.0]),
                               cm.per_draw(falling, 1e-5, [0.0]), [0.0], data="standin",
                               params={"margin": 2, "n_records": 50})
        if c.claim_id == "fig5a_gap_grows_with_eps"
    ]  # fmt: skip
    assert row.status == "qualitative-fails", row.note
