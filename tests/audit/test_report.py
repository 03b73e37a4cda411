"""The report (JSON round trip, schema, top-level fields), the command, and the verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import privrisk
from privrisk.audit import AuditReport, audit, command, forms
from privrisk.audit import family as fam
from privrisk.contract.verdicts import Verdict

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples" / "audit"


def _gauss(mu, n, seed=0, groups=None):
    rng = np.random.default_rng(seed)
    cols = {
        "score": np.r_[rng.normal(mu, 1, n), rng.normal(0, 1, n)],
        "member": np.r_[np.ones(n), np.zeros(n)],
    }
    if groups:
        cols["group"] = np.r_[np.arange(n) % groups, np.arange(n) % groups].astype(str)
    return cols


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"epsilon": 1}, {"mu": 1, "delta": 1e-5}, {"epsilon": 0.2}],
)
def test_json_round_trip(kwargs):
    r = audit(_gauss(1.0, 400, groups=2), **kwargs)
    back = AuditReport.from_json(r.to_json())
    assert back == r
    d = json.loads(r.to_json())
    for key in (
        "schema",
        "epsilon_lower",
        "delta",
        "mu_lower",
        "confidence",
        "n_members",
        "n_nonmembers",
        "verdict",
        "p_value",
        "inputs",
    ):
        assert key in d
    assert d["schema"] == "privrisk.audit/3"
    assert d["n_members"] == 400 and len(d["groups"]) == 2


def test_schema_is_checked():
    d = json.loads(audit(_gauss(1.0, 100)).to_json())
    d["schema"] = "privrisk.audit/0"
    with pytest.raises(ValueError, match="schema"):
        AuditReport.from_dict(d)


def test_privrisk_audit_is_callable_lazily():
    r = privrisk.audit(_gauss(2.0, 200), mu=0.2)
    assert r.verdict == "refuted"
    assert isinstance(r.verdict_object, Verdict) and r.verdict_object.holds is False


def test_verdicts_refuted_consistent_uninformative():
    strong = _gauss(2.0, 5000)
    assert audit(strong, mu=1).verdict == "refuted"
    r = audit(strong, mu=4)
    assert r.verdict == "consistent" and r.design["can_refute"] and r.canaries_needed is None
    # 12 + 12 canaries: even perfectly separated scores cannot refute μ = 1.5 — whatever they are
    small = _gauss(2.0, 12, seed=3)
    r = audit(small, mu=1.5)
    assert r.verdict == "uninformative" and not r.design["can_refute"]
    assert r.design["best_outcome_lower"] <= 1.5 < r.form["claimed"] + 1e-12
    assert audit(_gauss(0.0, 12, seed=4), mu=1.5).canaries_needed == r.canaries_needed
    # the number it names decides: perfectly separated scores of that design refute the claim
    n = -(-r.canaries_needed // 2)  # the plan counts both sides together
    perfect = {"score": np.r_[np.ones(n), np.zeros(n)], "member": np.r_[np.ones(n), np.zeros(n)]}
    assert audit(perfect, mu=1.5).verdict == "refuted"
    m = int(n * 0.98)
    fewer = {"score": np.r_[np.ones(m), np.zeros(m)], "member": np.r_[np.ones(m), np.zeros(m)]}
    assert audit(fewer, mu=1.5).verdict == "uninformative"


def test_claim_at_the_truth_is_refuted_in_at_most_alpha_of_trials():
    """The verdict's own validity: Gaussian canaries at exactly the claimed μ."""
    rng = np.random.default_rng(9)
    trials, n, mu = 200, 300, 1.0
    m = rng.standard_normal((trials, n)) + mu
    x = rng.standard_normal((trials, n))
    t, f = fam.evidence(m, x).bounds(0.05)
    form = forms.Form("mu", "μ", mu, 0.0, None, fam.mu_of)
    assert np.mean(form.refuted(t, f)) <= 0.05


def test_dpsgd_claim_goes_through_explains_parser():
    r = audit(_gauss(0.3, 300), noise_multiplier=1.1, sample_rate=0.01, steps=1000, delta=1e-5)
    assert "DP-SGD" in r.claim and "add-remove" in r.claim
    assert r.delta == 1e-5


def test_every_form_of_guarantee_explain_takes_is_a_claim(tmp_path):
    """One list of guarantee options for both commands (issue 31): zCDP, an RDP curve and a
    privacy profile too. ρ-zCDP with ρ = μ²/2 is μ-GDP's curve's envelope, so scores from a
    2-GDP mechanism refute ρ = 0.5 (μ = 1); the consistent side is in test_one_test.py."""
    from privrisk.explain import GUARANTEE_ARGS
    from privrisk.explain.command import parser as explain_parser

    def options(ap):
        return {a.dest for a in ap._actions if a.dest in GUARANTEE_ARGS}

    assert options(command.parser()) == options(explain_parser()) == set(GUARANTEE_ARGS)
    strong = _gauss(2.0, 2000)
    assert audit(strong, rho=0.5).verdict == "refuted"
    alphas = np.arange(2, 65, dtype=float)
    rdp = tmp_path / "rdp.csv"  # the Gaussian mechanism's RDP curve at μ = 1: ε_α = α/2
    np.savetxt(rdp, np.c_[alphas, alphas / 2], delimiter=",")
    r = audit(strong, rdp=str(rdp))
    assert r.verdict == "refuted" and "RDP" in r.claim


def test_reconstruction_report():
    r = audit(EXAMPLES / "reconstruction.csv", epsilon=0.5)
    assert r.kind == "reconstruction" and r.n_targets == 40 and r.mu_lower is None
    assert r.verdict == "refuted" and 0 < r.epsilon_lower
    assert AuditReport.from_json(r.to_json()) == r


def test_one_run_report():
    r = audit(EXAMPLES / "one_run.csv", one_run=True, epsilon=1, delta=1e-5)
    assert r.kind == "one-run" and r.guesses is not None and r.correct <= r.guesses
    assert r.verdict == "refuted"
    assert AuditReport.from_json(r.to_json()) == r


@pytest.mark.parametrize("name", ["scores.csv", "reconstruction.csv", "one_run.csv"])
def test_example_files_run_as_the_docs_show(capsys, name):
    extra = ["--one-run"] if name == "one_run.csv" else []
    assert command.main([str(EXAMPLES / name), *extra, "--epsilon", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] in ("refuted", "consistent", "uninformative")


def test_cli_subcommand_writes_report(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "privrisk",
            "audit",
            str(EXAMPLES / "scores.csv"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "epsilon_lower" in proc.stdout
    assert AuditReport.from_json(out.read_text()).n_members == 30


def test_groups_share_the_error_budget():
    r = audit(_gauss(1.0, 600, groups=3))
    assert len(r.groups) == 3
    assert all(g.confidence == pytest.approx(1 - 0.05 / 3) for g in r.groups)
    assert r.epsilon_lower == max(g.epsilon_lower for g in r.groups)


def test_tpr_at_fpr_and_roc_band_cover_the_truth():
    from scipy import stats

    r = audit(_gauss(1.5, 20_000, seed=5))
    g = r.groups[0]
    for t in g.tpr_at_fpr:
        true = stats.norm.sf(stats.norm.isf(t.fpr_observed) - 1.5)
        assert t.tpr_lo <= true + 0.01 and t.tpr_hi >= true - 0.01
    roc = g.roc
    true = stats.norm.sf(stats.norm.isf(np.asarray(roc.fpr_hi)) - 1.5)
    assert np.all(np.asarray(roc.tpr_lo) <= true)
    assert np.all(np.diff(roc.fpr) >= 0)
    assert 0.8 < g.auc < 0.9  # Φ(1.5/√2) = 0.856


@pytest.mark.parametrize(
    "claim,verdict",
    [
        ({"epsilon": 0}, "refuted"),
        ({"epsilon": float("inf")}, "uninformative"),
        ({"mu": 0}, "refuted"),
        ({"mu": float("inf")}, "uninformative"),
        ({"epsilon": 0, "delta": 0.0}, "refuted"),
    ],
)
@pytest.mark.parametrize("name", ["scores.csv", "reconstruction.csv", "one_run.csv"])
def test_edge_claims_decide_without_nan(claim, verdict, name):
    r = audit(EXAMPLES / name, one_run=name == "one_run.csv", **claim)
    assert r.verdict == verdict
    if verdict == "uninformative":  # no design refutes an infinite claim: "never", not a number
        assert r.canaries_needed is None
    assert 0 <= r.p_value <= 1 and np.isfinite(r.epsilon_lower)
    assert AuditReport.from_json(r.to_json()) == r
