"""xu2022 with its skin-lesion half end to end at tiny scale: the output contract of every figure,
stand-in data named in provenance, model AUCs in the step records, and skin claims in the ledger."""

import json

import pytest

from tests.conftest import assert_contract

SKIN = ("fig1b", "fig1c", "fig2b", "fig4a", "fig4b", "fig7", "fig8")


@pytest.mark.slow
def test_tiny_pipeline_xu2022_skin(pipeline, tmp_path):
    pipeline(tmp_path, "xu2022")
    ledger = assert_contract(tmp_path, "xu2022")
    res = tmp_path / "results/xu2022"
    for fig in SKIN:
        prov = json.loads((res / f"{fig}.json").read_text())
        assert prov["data_sources"] == {"skin lesions (DermaMNIST)": "standin"}
    for model in ("skin_jsgan", "skin_jsgan_corrupted", "skin_classifier"):
        rec = json.loads((res / "intermediate" / f"{model}_record.json").read_text())
        assert rec["device"] == "cpu" and rec["auc"] and rec["data_source"] == "standin"
    skin = ledger[ledger.figure.isin(SKIN)]
    assert set(skin.claim_id) >= {
        "fig1b_discriminator_gg_nn",
        "fig2b_hybrid_gt_each_1d",
        "fig4b_corrupted_gt_clean",
        "fig7_nondecreasing_in_synthetic_size",
        "fig8_whitebox_gt_blackbox",
    }
    assert set(skin.data) == {"standin"}
