"""Bug fixtures (privrisk.audit.fixtures / canaries): the buggy DP-SGD's closed forms, its honest
path against the project's trainer, one bug refuted and its control consistent (fast), and the
whole table (slow)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import privrisk.audit.canaries as cn
import privrisk.audit.fixtures as fx
from privrisk.training import dpsgd

EMPTY = (np.zeros((0, 3)), np.zeros(0))


def _canary_update(impl, *, canary="dirac", replace=False, included=True, data=EMPTY):
    """The canary coordinate's privatised gradient sum at step 0, noise off."""
    impl = cn.Implementation(**{**impl.__dict__, "noise_multiplier": 0.0})
    tr = cn.train(impl, data, np.array([[included]]), canary=canary, replace=replace,
                  rng=np.random.default_rng(0))  # fmt: skip
    return tr.noisy[0, 0, data[0].shape[1] :]


def test_sensitivity_closed_forms():
    base = cn.Implementation(noise_multiplier=1.0, steps=1, clip=2.0)
    # per-example clipping: the canary moves its coordinate by exactly C (opacus' factor)
    assert _canary_update(base)[0] == pytest.approx(-2.0, rel=1e-6)
    # replace-one: the opposite canary moves it by +C, a distance of 2C
    assert _canary_update(base, replace=True, included=False)[0] == pytest.approx(2.0, rel=1e-6)
    # add/remove, canary out: nothing
    assert _canary_update(base, included=False)[0] == 0.0
    # clipping skipped: the raw Dirac gradient G = 100 C
    none = cn.Implementation(noise_multiplier=1.0, steps=1, clip=2.0, clipping="none")
    assert _canary_update(none)[0] == -cn.DIRAC_GRADIENT * 2.0
    # the input canary: logistic gradient a·(sigmoid(0) − 1) = −a/2 before clipping
    assert _canary_update(none, canary="input")[0] == pytest.approx(-cn.INPUT_AMPLITUDE)
    # noise std: σC, or σ when C is forgotten
    assert base.std == 2.0 and cn.Implementation(1.0, 1, clip=2.0, noise_std="sigma").std == 1.0


def test_batch_clipping_displaces_the_rest_of_the_batch():
    """Clipping the batch as one vector: with the canary (G = 100 C) the rest of the batch nearly
    vanishes, without it the rest has norm C: the difference has norm near √2 C, not C."""
    rng = np.random.default_rng(1)
    data = cn.dataset(rng, 50, 4)
    impl = cn.Implementation(noise_multiplier=0.0, steps=1, clipping="batch")
    with_c = cn.train(impl, data, np.array([[True]]), canary="dirac", replace=False, rng=rng)
    without = cn.train(impl, data, np.array([[False]]), canary="dirac", replace=False, rng=rng)
    diff = with_c.noisy[0, 0] - without.noisy[0, 0]
    assert np.linalg.norm(with_c.noisy[0, 0]) == pytest.approx(1.0, rel=1e-5)
    assert np.linalg.norm(without.noisy[0, 0]) == pytest.approx(1.0, rel=1e-5)
    # closed form: the rest of the batch b (at w = 0, p = ½) and the canary -G e_j, clipped as
    # one vector, against b/‖b‖
    x, y = data
    r = np.linalg.norm(((0.5 - y)[:, None] * x).sum(0))
    g = cn.DIRAC_GRADIENT
    want = math.hypot(r / math.hypot(r, g) - 1, g / math.hypot(r, g))
    assert np.linalg.norm(diff) == pytest.approx(want, rel=1e-6)
    assert 1.3 < want < math.sqrt(2)  # per-example clipping: exactly 1


@pytest.mark.parametrize("canary", cn.CANARIES)
def test_honest_path_is_the_projects_trainer(canary):
    """Per-example clipping, full batch, one canary per model: the same parameters as
    training.dpsgd.batched_dpsgd (swanberg2025's trainer) on the same noise, to rounding."""
    m, steps, sigma, clip, lr = 6, 4, 0.7, 1.5, 0.05
    included = np.array([[True], [False]] * 3)
    impl = cn.Implementation(sigma, steps, clip=clip, lr=lr)
    tr = cn.train(impl, (np.zeros((0, 0)), np.zeros(0)), included, canary=canary, replace=False,
                  rng=np.random.default_rng(5))  # fmt: skip
    draws = np.random.default_rng(5).normal(size=(steps, m, 1))
    mask = torch.as_tensor(included[:, 0], dtype=torch.float64)
    a = cn.INPUT_AMPLITUDE * clip

    def loss(p):
        if canary == "dirac":
            return -cn.DIRAC_GRADIENT * clip * p["w"][:, 0] * mask
        return torch.nn.functional.softplus(-a * p["w"][:, 0]) * mask

    ref = dpsgd.batched_dpsgd(
        {"w": torch.zeros(m, 1, dtype=torch.float64)}, loss, steps=steps, lr=lr, clip=clip,
        noise_multiplier=sigma, noise_fn=lambda t, name, shape: torch.as_tensor(draws[t]),
    )["w"].numpy()  # fmt: skip
    np.testing.assert_allclose(tr.final, ref, rtol=1e-6, atol=1e-9)


def test_statistics():
    tr = cn.Trace(noisy=-np.arange(12.0).reshape(4, 1, 3), data_dir=np.zeros((4, 1, 2)),
                  final=np.array([[0.0, 0.0, 0.5]]))  # fmt: skip
    kw = {"d_data": 2, "clip": 1.0, "noise_multiplier": 1.0}
    # the canary coordinate's updates are 2, 5, 8, 11
    assert cn.scores(tr, statistic="sum", **kw)[0, 0] == 26.0
    ell = np.array([2, 5, 8, 11]) - 0.5
    assert cn.scores(tr, statistic="poisson-lr", **kw)[0, 0] == pytest.approx(ell.sum())
    want = np.log(0.5 + 0.5 * np.exp(ell)).sum()
    assert cn.scores(tr, statistic="poisson-lr", sample_rate=0.5, **kw)[0, 0] == pytest.approx(want)
    want = sum(np.log(np.exp(ell[i : i + 2]).mean()) for i in (0, 2))
    assert cn.scores(tr, statistic="shuffle-lr", sample_rate=0.5, **kw)[0, 0] == pytest.approx(want)
    assert cn.scores(tr, statistic="logit", **kw)[0, 0] == 0.5 * cn.INPUT_AMPLITUDE


def test_bad_arguments():
    with pytest.raises(ValueError, match="sampler"):
        cn.Implementation(1.0, 1, sampler="fixed")
    with pytest.raises(ValueError, match="shuffle"):
        cn.Implementation(1.0, 7, sampler="shuffle", sample_rate=0.2)
    with pytest.raises(ValueError, match="statistic"):
        cn.scores(cn.Trace(np.zeros((1, 1, 1)), np.zeros((1, 1, 0)), np.zeros((1, 1))),
                  statistic="max", d_data=0, clip=1, noise_multiplier=1)  # fmt: skip


def test_tiny_fixture_bug_refuted_control_consistent():
    """(d) noise std σ instead of σC with C = 3 (true μ three times the claim), 200 runs a side:
    the bug refuted, its control consistent (the fast tier's fixture)."""
    d = next(f for f in fx.fixtures() if f.key == "d")
    bug = fx.membership_audit(d, "bug", "dirac", models=200)
    ctl = fx.membership_audit(d, "control", "dirac", models=200)
    assert bug.verdict == "refuted" and bug.lower > bug.claimed
    assert ctl.verdict == "consistent" and ctl.lower <= ctl.claimed


def test_write_docs(tmp_path):
    p = tmp_path / "audit.md"
    p.write_text(f"intro\n{fx.DOC_BEGIN}\nold\n{fx.DOC_END}\nafter\n")
    fx.write_docs(p, "| new |")
    assert p.read_text() == f"intro\n{fx.DOC_BEGIN}\n| new |\n{fx.DOC_END}\nafter\n"
    p.write_text("no markers\n")
    with pytest.raises(ValueError, match="needs exactly one"):
        fx.write_docs(p, "x")
    assert p.read_text() == "no markers\n"


@pytest.mark.slow
def test_every_bug_refuted_every_control_consistent():
    rows = fx.run_all()
    assert [(r["fixture"], r["arm"], r["verdict"]) for r in rows] == [
        (r["fixture"], r["arm"], r["expected"]) for r in rows
    ]
    # a valid audit never refutes an honest control, whatever the method
    for r in rows:
        if r["arm"] == "control":
            assert all(x.verdict != "refuted" for x in r["results"]), r


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", fx.OWN_EPSILONS)
def test_own_dpsgd_never_refuted(epsilon):
    out = fx.own_dpsgd(epsilon)
    for x in out["results"]:
        assert x.verdict != "refuted", x
        assert x.epsilon_lower <= epsilon
        assert x.mu_lower is None or x.mu_lower <= out["mu"]


def test_summary_counts_the_table():
    def row(arm, verdicts):
        res = [fx.Result("m", "d", v) for v in verdicts]
        return {"arm": arm, "fixture": "a", "verdict": verdicts[0], "results": res}

    rows = [
        row("bug", ["refuted", "consistent", "refuted", None]),
        row("control", ["consistent", "consistent", "refuted", None]),
    ]
    assert fx.summary(rows) == (
        "Bugs refuted by the primary audit: 1 of 1; honest controls refuted by any audit: 1 of 3 "
        "audits. Bugs each audit refutes: membership, white-box Dirac: 1 of 1; membership, "
        "black-box input: 0 of 1 (not (a)); one-run Steinke, white-box Dirac: 1 of 1; one-run "
        "f-DP, white-box Dirac: 0 of 0."
    )
