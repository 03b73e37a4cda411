"""xu2022 end to end at tiny scale: the output contract of all twelve figures, data sources,
every model's runs on record, and the claims ledger (tiny models do not leak: no comparison may
come out qualitative-ok)."""

import json

import pytest

from privrisk.estimators import queries as Q
from tests.conftest import assert_contract

SKIN = ("fig1b", "fig1c", "fig2b", "fig4a", "fig4b", "fig7", "fig8")


@pytest.mark.slow
def test_tiny_pipeline_xu2022(pipeline, tmp_path):
    pipeline(tmp_path, "xu2022")
    ledger = assert_contract(tmp_path, "xu2022")
    res = tmp_path / "results/xu2022"
    prov = json.loads((res / "fig1a.json").read_text())
    assert prov["data_sources"] == {"CIFAR-10": "standin"} and "stand-in" in prov["caption"]
    for fig in SKIN:
        prov = json.loads((res / f"{fig}.json").read_text())
        assert prov["data_sources"] == {"skin lesions (DermaMNIST)": "standin"}
        assert "stand-in" in prov["caption"], fig
    data = ledger.groupby("figure")["data"].agg(set).to_dict()
    assert data["fig1a"] == {"standin"} and data["fig2a"] == {"bundled-real"}
    assert data["fig3"] == {"bundled-real", "standin"}
    assert data["fig5"] == {"bundled-real", "analytic"}
    # the project's audit of every DP-cGAN: derived rows, no ε̂ above its accountant's ε
    audit = ledger[ledger.figure == "audit_dpcgan"]
    assert set(audit.status) == {"derived"} and len(audit) >= 2
    eps, eps_hat = audit.paper_value.astype(float), audit.ours.astype(float)
    assert (eps_hat[eps < float("inf")] <= eps[eps < float("inf")]).all()
    bounds = ledger[ledger.claim_id.str.startswith("bound_")]
    assert set(bounds.status) == {"reproduced"} and set(bounds.data) == {"analytic"}
    qs = Q.load(res / "intermediate/mnist_wgangp_queries.npz")
    assert qs.values["d"].shape == (1, 5000, 1) and qs.member.sum() == 500
    skin = Q.load(res / "intermediate/skin_jsgan_queries.npz")
    assert skin.runs == 2 and skin.values["nn"].shape == (2, 400, 3)
    for m in (
        "mnist_wgangp",
        "cifar10_wgangp",
        "mnist_privgan",
        "dpcgan_eps2",
        "dpcgan_epsinf",
        "skin_classifier",
    ):
        rec = json.loads((res / f"intermediate/{m}_record.json").read_text())
        assert rec["device"] in ("cpu", "cuda") and "torch_threads" in rec and rec["runs"]
        assert all(0 <= a <= 1 for r in rec["runs"] for a in r["auc"].values())
    assert (
        not ledger[ledger.status == "qualitative-ok"]
        .figure.isin(["fig1a", "fig2a", "fig3", "fig1b", "fig2b", "fig8"])
        .any()
    )
