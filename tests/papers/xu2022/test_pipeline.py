"""xu2022 end to end at tiny scale: the output contract, data sources and the claims ledger."""

import json

import numpy as np
import pytest

from tests.conftest import assert_contract


@pytest.mark.slow
def test_tiny_pipeline_xu2022(pipeline, tmp_path):
    pipeline(tmp_path, "xu2022")
    ledger = assert_contract(tmp_path, "xu2022")
    prov = json.loads((tmp_path / "results/xu2022/fig1a.json").read_text())
    assert prov["data_sources"] == {"CIFAR-10": "standin"}
    claims = (tmp_path / "results/xu2022/claims.csv").read_text()
    assert "bound_eps2" in claims and "reproduced" in claims
    data = ledger.groupby("figure")["data"].agg(set).to_dict()
    assert data["fig1a"] == {"standin"} and data["fig2a"] == {"bundled-real"}
    assert data["fig3"] == {"bundled-real", "standin"} and data["fig5"] == {
        "bundled-real",
        "analytic",
    }
    bounds = ledger[ledger.claim_id.str.startswith("bound_")]
    assert set(bounds.status) == {"reproduced"} and set(bounds.data) == {"analytic"}
    q = np.load(tmp_path / "results/xu2022/intermediate/mnist_wgangp_queries.npz")
    assert q["scores"].shape == (5000, 1) and q["member"].sum() == 500
    rec = json.loads(
        (tmp_path / "results/xu2022/intermediate/cifar10_wgangp_record.json").read_text()
    )
    assert rec["data_source"] == "standin" and rec["n"] == 300
    # every model's membership signal is on record, and reaches the figures' provenance
    for m in ("mnist_wgangp", "cifar10_wgangp", "mnist_privgan", "dpcgan_eps2", "dpcgan_epsinf"):
        r = json.loads((tmp_path / f"results/xu2022/intermediate/{m}_record.json").read_text())
        assert 0 <= r["auc"]["d0"] <= 1 and r["device"] in ("cpu", "cuda")
    assert "d0" in prov["auc"] and prov["model_record"]["auc"] == prov["auc"]
    # tiny models do not leak: no claim about them may be qualitative-ok
    assert not ledger[
        ledger.figure.isin(["fig1a", "fig2a", "fig3"]) & (ledger.status == "qualitative-ok")
    ].shape[0]
