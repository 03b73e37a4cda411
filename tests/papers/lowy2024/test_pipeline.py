"""lowy2024 end to end at the tiny scale: every output of the contract and the claims ledger."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privrisk.pipeline import config, workflow
from tests.conftest import REPO, TINY, assert_contract

pytestmark = pytest.mark.slow


def test_lowy2024_tiny_end_to_end(tmp_path, pipeline):
    pipeline(tmp_path, "lowy2024")
    claims = assert_contract(tmp_path, "lowy2024")
    reg = workflow.load_registry("lowy2024", config.load(*[REPO / c for c in TINY]))
    for fig in reg.figures:
        out = workflow.figure_outputs("lowy2024", fig.name)
        data = pd.read_csv(tmp_path / out["csv"])
        assert {"series", "x", "y", "lo", "hi"} <= set(data.columns)
        assert data.y.notna().all()
        prov = json.loads((tmp_path / out["json"]).read_text())
        assert prov["scale"] == "tiny" and prov["parameters"]["trials"] == 3
    assert {"fig1_ratio_sigma1", "fig2_eps_tilde_C50", "fig5_eps_tilde_C100", "prop5_ln2"} <= set(
        claims.claim_id
    )
    assert set(claims.status) <= {
        "reproduced",
        "differs",
        "qualitative-ok",
        "qualitative-fails",
        "derived",
        "uninformative",
    }
    assert (claims[claims.status.isin(["differs", "qualitative-fails"])].note != "").all()
