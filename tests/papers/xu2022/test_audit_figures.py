"""xu2022 audit_dpcgan on synthetic query files whose answer is known: the figure's ε̂ and μ̂ are the
membership audit's with one canary set per run, both query layouts (one run, runs stacked) read
the same, null scores give ε̂ = 0, a DP model whose scores separate beyond its ε is reported as a
failure, and the control is found the largest."""

import numpy as np
import pytest

import privrisk.audit as A
from privrisk.contract.claims import to_frame
from privrisk.estimators import queries as Q
from privrisk.papers.xu2022 import figures_audit as FA

PARAMS = {"confidence": 0.95, "delta": 1e-5, "seed": 0}
N_IN, N_OUT = 60, 500


def write(path, shift: float, *, runs=3, seed=0, one_run_layout=False):
    """A queries file: members' logits N(shift, 1), hold-out N(0, 1), per run."""
    rng = np.random.default_rng(seed)
    member = np.stack([rng.permutation(np.r_[np.ones(N_IN), np.zeros(N_OUT)]) for _ in range(runs)])
    member = member.astype(bool)
    d = rng.normal(size=member.shape) + shift * member
    if one_run_layout:
        np.savez(path, member=member[0], q_d=d[0])
    else:
        Q.save(
            path,
            member=member,
            values={"d": d},
            record={
                "data_source": "standin",
                "runs": [{"accounting": {"epsilon_spent": 0.9}} for _ in range(runs)],
            },
        )
    return str(path)


def by_id(res):
    return to_frame(res.claims).set_index("claim_id")


def test_epsilon_and_mu_are_the_audit_per_run_and_the_control_is_largest(tmp_path):
    inputs = {
        "eps_1": write(tmp_path / "dpcgan_eps1_queries.npz", 0.0, seed=1),
        "eps_10": write(tmp_path / "dpcgan_eps10_queries.npz", 0.3, seed=2),
        "eps_inf": write(tmp_path / "dpcgan_epsinf_queries.npz", 3.0, seed=3),
    }
    res = FA.audit_dpcgan(PARAMS, inputs)
    audits = {r["epsilon"]: r for r in res.extra["audits"]}
    assert sorted(audits) == [1.0, 10.0, np.inf]
    # the figure's numbers are privrisk.audit's on (logit, member, group = run)
    with np.load(inputs["eps_inf"]) as z:
        m, d = z["member"], z["q_d"][..., 0]
    direct = A.audit(
        {
            "score": d.ravel(),
            "member": m.ravel().astype(int),
            "group": np.repeat([0, 1, 2], m.shape[1]),
        },
        epsilon=np.inf,
        delta=1e-5,
        adjacency="add-remove",
    )
    assert audits[np.inf]["epsilon_hat"] == pytest.approx(direct.epsilon_lower)
    assert audits[np.inf]["mu_hat"] == pytest.approx(direct.mu_lower)
    assert audits[np.inf]["runs"] == 3 and audits[np.inf]["n_members"] == 3 * N_IN
    assert max(audits[np.inf]["run_epsilon_hat"]) == audits[np.inf]["epsilon_hat"]
    # null scores: no leakage shown; members N(3, 1): a clearly positive bound
    assert audits[1.0]["epsilon_hat"] == 0
    assert audits[np.inf]["epsilon_hat"] > 1 and audits[np.inf]["mu_hat"] > 1.5
    assert audits[1.0]["epsilon_spent"] == pytest.approx(0.9)
    ledger = by_id(res)
    assert set(ledger.status) == {"derived"}
    assert "ε̂ ≤ ε holds" in ledger.loc["audit_dpcgan_eps1", "note"]
    assert ledger.loc["audit_dpcgan_epsinf", "note"].split(";")[1].strip().startswith("holds")
    assert {"series", "x", "y"} <= set(res.data.columns)


def test_a_model_leaking_beyond_its_epsilon_is_a_failure_and_the_weak_control_fails(tmp_path):
    inputs = {
        "eps_0p5": write(tmp_path / "dpcgan_eps0p5_queries.npz", 4.0, seed=4),
        "eps_inf": write(tmp_path / "dpcgan_epsinf_queries.npz", 0.0, seed=5),
    }
    ledger = by_id(FA.audit_dpcgan(PARAMS, inputs))
    row = ledger.loc["audit_dpcgan_eps0p5"]
    assert float(row.ours) > 0.5 and "FAILS" in row.note and "refuted" in row.note
    assert ledger.loc["audit_dpcgan_epsinf", "note"].split(";")[1].strip().startswith("fails")


def test_one_run_and_per_run_layouts_read_the_same(tmp_path):
    many = FA.scores(write(tmp_path / "a_queries.npz", 1.0, runs=2, seed=7))
    one = FA.scores(write(tmp_path / "b_queries.npz", 1.0, runs=2, seed=7, one_run_layout=True))
    assert len(many) == 2 and len(one) == 1
    np.testing.assert_array_equal(one[0][0], many[0][0])
    np.testing.assert_array_equal(one[0][1], many[0][1])
    np.savez(tmp_path / "bad_queries.npz", member=np.ones(3, bool))
    with pytest.raises(ValueError, match="needs arrays 'member' and 'q_d'"):
        FA.scores(tmp_path / "bad_queries.npz")
