"""The panel of estimators on the same scores (issue 48, item 3): each method validated on null
files, the same numbers as each method's own audit, any importer's file, the command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privrisk import accounting
from privrisk.audit import AuditInputError, audit
from privrisk.audit import panel as pn
from privrisk.audit.command import main


def _one_run(rng, m=400, mu=0.0):
    inc = rng.random(m) < 0.5
    return {"score": rng.normal(mu * inc, 1), "member": inc.astype(int)}


def test_every_method_finds_no_leakage_on_null_files_beyond_the_level():
    """100 null files (scores independent of membership, each canary in with probability ½: both
    designs' assumptions hold): each method reports a positive bound in at most 5 %."""
    rng = np.random.default_rng(4803)
    positive = dict.fromkeys(pn.METHODS, 0)
    files = 100
    for _ in range(files):
        for r in pn.panel(_one_run(rng)).rows:
            rep = r.report
            positive[r.method] += bool((rep.epsilon_lower or 0) > 0 or (rep.mu_lower or 0) > 0)
    assert all(v <= 0.05 * files for v in positive.values()), positive


def test_bounds_stay_below_a_true_gaussian_mechanism():
    """Canaries scored N(μ·included, 1) independently (μ-GDP each, both designs valid): no
    method's μ̂ above μ or ε̂ (δ = 10⁻⁵) above the Gaussian's ε in more than 5 % of 40 files."""
    rng = np.random.default_rng(4804)
    mu, files = 1.5, 40
    truth = accounting.gaussian_epsilon(delta=1e-5, mu=mu)
    over = dict.fromkeys(pn.METHODS, 0)
    for _ in range(files):
        for r in pn.panel(_one_run(rng, 1000, mu), delta=1e-5).rows:
            rep = r.report
            over[r.method] += bool(rep.epsilon_lower > truth or (rep.mu_lower or 0) > mu)
    assert all(v <= 0.05 * files for v in over.values()), over


def test_each_row_is_that_methods_own_audit():
    cols = _one_run(np.random.default_rng(1), 1000, 2.0)
    p = pn.panel(cols, epsilon=2, delta=1e-5)
    assert [r.method for r in p.rows] == ["threshold", "steinke", "fdp"]
    own = {
        "threshold": audit(cols, epsilon=2, delta=1e-5),
        "steinke": audit(cols, one_run=True, epsilon=2, delta=1e-5),
        "fdp": audit(cols, one_run=True, one_run_method="fdp", epsilon=2, delta=1e-5),
    }
    for r in p.rows:
        assert r.report == own[r.method]
        assert r.assumptions == pn.METHODS[r.method][2]
    assert pn.panel(cols, methods="fdp,steinke,fdp").rows[0].method == "fdp"
    assert [r.method for r in pn.panel(cols, methods="fdp,steinke").rows] == ["fdp", "steinke"]


def test_a_method_whose_precondition_fails_is_listed_not_run():
    rng = np.random.default_rng(2)
    n = 300
    cols = {"score": rng.normal(0, 1, 2 * n), "member": np.r_[np.ones(n), np.zeros(n)],
            "group": np.arange(2 * n) % 2}  # fmt: skip
    p = pn.panel(cols)
    assert p.rows[0].report is not None
    assert all("one canary set" in r.not_run for r in p.rows[1:])
    text = pn.text(p)
    assert "steinke    not run:" in text and "assumes: one training run" in text
    with pytest.raises(AuditInputError, match="one canary set"):  # no method can run: an error
        pn.panel(cols, methods="steinke,fdp")


def test_any_importers_file(tmp_path):
    """An ML Privacy Meter file (one target model: the threshold row says so), a reconstruction
    file (its one test)."""
    rng = np.random.default_rng(3)
    inc = rng.random(600) < 0.5
    s = rng.normal(1.0 * inc, 1)
    path = tmp_path / "attack_result_0.npz"
    np.savez(path, scores=s, memberships=inc, fpr=np.r_[0.0, 1], tpr=np.r_[0.0, 1])
    p = pn.panel(path, delta=1e-5)
    assert p.inputs["importer"] == "ml-privacy-meter" and p.inputs["file"] == str(path)
    assert all(r.report.inputs["sha256"] == p.inputs["sha256"] for r in p.rows)
    assert any("one trained model" in a for a in p.rows[0].report.assumptions)
    assert p.rows[1].report == audit(path, one_run=True, delta=1e-5)  # as if run on the file
    assert p.rows[0].report == audit(path, delta=1e-5)
    rec = tmp_path / "rec.csv"
    rec.write_text("hit,prior\n" + "\n".join(f"{int(h)},0.3" for h in rng.random(100) < 0.6))
    q = pn.panel(rec, epsilon=0.5)
    assert [r.method for r in q.rows] == ["reconstruction"]
    assert q.rows[0].report.verdict == audit(rec, epsilon=0.5).verdict


def test_the_command(tmp_path, capsys):
    path = tmp_path / "one_run.csv"
    cols = _one_run(np.random.default_rng(4), 500, 2.0)
    path.write_text("score,member\n" + "\n".join(
        f"{a:.17g},{b}" for a, b in zip(cols["score"], cols["member"], strict=True)))  # fmt: skip
    out = tmp_path / "panel.json"
    assert main([str(path), "--methods", "all", "--mu", "1", "--json", "--out", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d == json.loads(out.read_text())
    assert d["schema"] == "privrisk.audit-panel/1"
    assert [m["method"] for m in d["methods"]] == ["threshold", "steinke", "fdp"]
    assert all("operating_point" in m["report"] for m in d["methods"])
    assert main([str(path), "--methods", "threshold,fdp", "--mu", "1"]) == 0
    text = capsys.readouterr().out
    assert "in the claim's form" in text and "steinke" not in text.split("\n\n")[1]
    for bad, what in ((["--methods", "bayes"], "--methods: must be"),
                      (["--methods", "all", "--one-run"], "not with --one-run")):  # fmt: skip
        assert main([str(path), *bad]) == 2
        err = capsys.readouterr().err
        assert what in err and err.count("\n") == 1
