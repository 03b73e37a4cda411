"""lowy2024 end to end at the tiny scale: every output of the contract and the claims ledger."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = pytest.mark.slow

FIGURES = ["fig1", "fig2", "fig3", "fig4", "fig4_global", "fig5", "fig5_epsX", "fig6", "fig6_epsX"]


def test_lowy2024_tiny_end_to_end(tmp_path, pipeline):
    pipeline(tmp_path, "lowy2024")
    out = tmp_path / "results" / "lowy2024"
    for fig in FIGURES:
        for ext in ("pdf", "png", "csv", "json"):
            assert (out / f"{fig}.{ext}").stat().st_size > 0, f"{fig}.{ext}"
        data = pd.read_csv(out / f"{fig}.csv")
        assert {"series", "x", "y", "lo", "hi"} <= set(data.columns)
        assert data.y.notna().all()
        prov = json.loads((out / f"{fig}.json").read_text())
        assert prov["scale"] == "tiny" and prov["parameters"]["trials"] == 3
    claims = pd.read_csv(out / "claims.csv")
    assert {"fig1_ratio_sigma1", "fig2_eps_tilde_C50", "fig5_eps_tilde_C100", "prop5_ln2"} <= set(claims.claim_id)
    assert set(claims.status) <= {"reproduced", "differs", "qualitative-ok", "qualitative-fails"}
    assert claims[claims.status.isin(["differs", "qualitative-fails"])].note.notna().all()
