"""End-to-end: thudi2022 at tiny scale into a temp dir; outputs exist and match the library."""

import json

import numpy as np
import pandas as pd
import pytest

from privrisk.bounds import membership as mb
from privrisk.claims import COLUMNS

pytestmark = pytest.mark.slow


def test_thudi_tiny_end_to_end(tmp_path, pipeline):
    pipeline(tmp_path, "thudi2022")
    res = tmp_path / "results" / "thudi2022"
    for fig in ["fig1", "fig2", "fig3", "fig4a", "fig4b", "fig5", "fig6", "fig7", "fig7_corrected"]:
        for ext in ("pdf", "png", "csv", "json"):
            assert (res / f"{fig}.{ext}").stat().st_size > 0, f"{fig}.{ext}"
    assert (res / "table1.md").exists() and (res / "table1.tex").exists()
    df = pd.read_csv(res / "fig3.csv")
    assert len(df) == 4 * 95  # the tiny override took effect
    for eps in (0.1, 1, 2, 5):
        s = df[df.series == f"Pos. acc. bound, ε = {eps:g}"]
        np.testing.assert_allclose(s.y, mb.positive_accuracy_upper(eps, s.x), rtol=1e-12)
    prov = json.loads((res / "fig3.json").read_text())
    assert prov["scale"] == "tiny" and prov["paper"] == "thudi2022" and "numpy" in prov["packages"]
    claims = pd.read_csv(res / "claims.csv")
    assert list(claims.columns) == COLUMNS
    assert "erlingsson_eps2" in set(claims.claim_id)
    assert claims.loc[claims.claim_id == "erlingsson_eps2", "status"].item() == "differs"
