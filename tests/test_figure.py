"""privrisk.contract.figure: the output contract (files written atomically, nothing half-written)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrisk.contract import claims, figure, plotting


def _result(with_fig=True):
    fig, ax = plotting.subplots()
    ax.plot([0, 1], [0, 1])
    return figure.FigureResult(
        data=pd.DataFrame({"series": "s", "x": [0, 1], "y": [0.0, 1.0]}),
        caption="c",
        fig=fig if with_fig else None,
        table_md=None if with_fig else "| a |",
        claims=[
            claims.Ledger("p").numeric(
                figure="f", claim_id="c1", claim="x", paper_value=1.0, ours=1.0, tolerance=0.0
            )
        ],
        data_sources={"mnist": "standin"},
        seeds={"train": 3},
    )


def test_write_outputs_contract(tmp_path):
    written = figure.write_outputs(
        _result(),
        paper="p",
        figure="f",
        prefix=tmp_path / "f",
        claims_path=tmp_path / "claims" / "f.csv",
        params={"a": np.int64(2)},
        scale="tiny",
        wall_time_s=0.1,
    )
    names = sorted(p.name for p in written)
    assert names == ["f.csv", "f.csv", "f.json", "f.pdf", "f.png"]
    prov = json.loads((tmp_path / "f.json").read_text())
    assert prov["data_sources"] == {"mnist": "standin"} and prov["parameters"] == {"a": 2}
    assert prov["seeds"] == {"train": 3} and prov["scale"] == "tiny"
    assert not list(tmp_path.glob("*.tmp*"))
    df = pd.read_csv(tmp_path / "claims" / "f.csv")
    assert list(df.columns) == claims.COLUMNS and df.status.item() == "reproduced"


def test_table_outputs(tmp_path):
    written = figure.write_outputs(
        _result(with_fig=False),
        paper="p",
        figure="t",
        prefix=tmp_path / "t",
        claims_path=tmp_path / "c.csv",
        params={},
        scale="tiny",
        wall_time_s=0.0,
    )
    assert sorted(p.suffix for p in written) == [".csv", ".csv", ".json", ".md"]


def test_failed_figure_writes_nothing(tmp_path):
    def broken(params):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        figure.run_figure(
            broken,
            paper="p",
            figure="f",
            params={},
            prefix=tmp_path / "f",
            claims_path=tmp_path / "c.csv",
        )
    assert list(tmp_path.iterdir()) == []


def test_figure_result_validation():
    with pytest.raises(ValueError, match="lacks columns"):
        figure.FigureResult(data=pd.DataFrame({"x": [1]}), caption="c", table_md="t")
    with pytest.raises(ValueError, match="needs a figure"):
        figure.FigureResult(data=pd.DataFrame({"series": [], "x": [], "y": []}), caption="c")


def test_resolve_needs_module_and_function():
    assert figure.resolve("privrisk.contract.claims:check") is claims.check
    with pytest.raises(ValueError, match="module:function"):
        figure.resolve("privrisk.contract.claims.check")


@pytest.mark.parametrize("fails_at", ["json", "claims", "rename"])
def test_a_failed_write_leaves_no_temporary_file_and_no_partial_set(
    tmp_path, monkeypatch, fails_at
):
    """A figure whose outputs cannot all be written (a value JSON cannot hold, a full disk at the
    claims rows, a rename refused) leaves nothing: no `<fig>.tmp.pdf/.png`, no new file."""
    result = _result()
    if fails_at == "json":
        result.extra = {"unserialisable": object()}
    elif fails_at == "claims":

        def full(*args, **kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(figure, "to_frame", lambda rows: type("F", (), {"to_csv": full})())
    else:
        real = Path.replace

        def refuse(self, target):
            if str(target).endswith(".json"):
                raise PermissionError(13, "Permission denied")
            return real(self, target)

        monkeypatch.setattr(Path, "replace", refuse)
    with pytest.raises((TypeError, OSError)):
        figure.write_outputs(
            result,
            paper="p",
            figure="f",
            prefix=tmp_path / "f",
            claims_path=tmp_path / "claims" / "f.csv",
            params={},
            scale="tiny",
            wall_time_s=0.0,
        )
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert not [p for p in left if ".tmp" in p], left
    if fails_at != "rename":  # (a refused rename of the record comes after the others' renames)
        assert left == [], left
