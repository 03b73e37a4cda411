"""privrisk.workflow (rule helpers), privrisk.figure (the output contract) and the claims ledger."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrisk import claims, figure, plotting, workflow
from tests.conftest import REPO


def test_figure_outputs_names():
    out = workflow.figure_outputs("k", "fig1")
    assert out == {"csv": "results/k/fig1.csv", "json": "results/k/fig1.json",
                   "claims": "results/k/claims/fig1.csv", "pdf": "results/k/fig1.pdf", "png": "results/k/fig1.png"}
    assert set(workflow.figure_outputs("k", "table1", table=True)) == {"csv", "json", "claims", "md", "tex"}


def test_paper_params_overlay():
    cfg = {"seed": 7, "k": {"common": {"a": 1, "b": 2}, "fig1": {"b": 3}}}
    assert workflow.paper_params(cfg, "k", "fig1") == {"a": 1, "b": 3, "seed": 7}
    assert workflow.paper_params(cfg, "k", "fig2") == {"a": 1, "b": 2, "seed": 7}


def test_code_inputs_follow_imports():
    files = {Path(f).relative_to(REPO).as_posix() for f in workflow.code_inputs("privrisk.papers.thudi2022:fig1")}
    assert "src/privrisk/papers/thudi2022.py" in files
    assert "src/privrisk/bounds/membership.py" in files
    assert "src/privrisk/plotting.py" in files
    assert "src/privrisk/bounds/attribute.py" not in files  # another paper's code


def _result(with_fig=True):
    fig, ax = plotting.subplots()
    ax.plot([0, 1], [0, 1])
    return figure.FigureResult(
        data=pd.DataFrame({"series": "s", "x": [0, 1], "y": [0.0, 1.0]}), caption="c",
        fig=fig if with_fig else None, table_md=None if with_fig else "| a |",
        claims=[claims.numeric_claim(paper="p", figure="f", claim_id="c1", claim="x", paper_value=1.0,
                                     ours=1.0, tolerance=0.0)],
        data_sources={"mnist": "standin"}, seeds={"train": 3})


def test_write_outputs_contract(tmp_path):
    written = figure.write_outputs(_result(), paper="p", figure="f", prefix=tmp_path / "f",
                                   claims_path=tmp_path / "claims" / "f.csv", params={"a": np.int64(2)},
                                   scale="tiny", wall_time_s=0.1)
    names = sorted(p.name for p in written)
    assert names == ["f.csv", "f.csv", "f.json", "f.pdf", "f.png"]
    prov = json.loads((tmp_path / "f.json").read_text())
    assert prov["data_sources"] == {"mnist": "standin"} and prov["parameters"] == {"a": 2}
    assert prov["seeds"] == {"train": 3} and prov["scale"] == "tiny"
    assert not list(tmp_path.glob("*.tmp*"))
    df = pd.read_csv(tmp_path / "claims" / "f.csv")
    assert list(df.columns) == claims.COLUMNS and df.status.item() == "reproduced"


def test_failed_figure_writes_nothing(tmp_path):
    def broken(params):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        figure.run_figure(broken, paper="p", figure="f", params={}, prefix=tmp_path / "f",
                          claims_path=tmp_path / "c.csv")
    assert list(tmp_path.iterdir()) == []


def test_figure_result_validation():
    with pytest.raises(ValueError, match="lacks columns"):
        figure.FigureResult(data=pd.DataFrame({"x": [1]}), caption="c", table_md="t")
    with pytest.raises(ValueError, match="needs a figure"):
        figure.FigureResult(data=pd.DataFrame({"series": [], "x": [], "y": []}), caption="c")


def test_claim_status_logic():
    ok = claims.numeric_claim(paper="p", figure="f", claim_id="a", claim="x", paper_value=0.5, ours=0.5004,
                              tolerance=1e-3)
    bad = claims.numeric_claim(paper="p", figure="f", claim_id="b", claim="x", paper_value=0.95, ours=0.93,
                               tolerance=1e-3, note_if_differs="erratum")
    st = claims.numeric_claim(paper="p", figure="f", claim_id="c", claim="x", paper_value=0.65, ours=0.6,
                              tolerance=0.05, standin=True, standin_note="stand-in ACS")
    assert (ok.status, bad.status, st.status) == ("reproduced", "differs", "standin")
    assert "erratum" in bad.note and "stand-in ACS" in st.note
    with pytest.raises(ValueError):
        claims.Claim("p", "f", "x", "c", 1, 1, 0, "fine")
    with pytest.raises(ValueError, match="needs a note"):
        claims.Claim("p", "f", "x", "c", 1, 2, 0, "differs")


def test_gather_and_markdown(tmp_path):
    a = [claims.qualitative_claim(paper="p", figure="f", claim_id="q", claim="c", holds=False, ours="no")]
    claims.write_claims(a, tmp_path / "a.csv")
    claims.write_claims([], tmp_path / "b.csv")
    df = claims.gather([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "all.csv")
    assert len(df) == 1 and df.status.item() == "qualitative-fails"
    md = claims.to_markdown(df)
    assert "qualitative-fails: 1" in md
    assert claims.main([str(tmp_path / "all.csv"), "--markdown", str(tmp_path / "c.md")]) == 0
    assert (tmp_path / "c.md").read_text() == md
