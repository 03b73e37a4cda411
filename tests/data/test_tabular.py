"""ACS and FIRE loaders on small files in the real formats, their errors, and the stand-ins."""

import numpy as np
import pandas as pd
import pytest

from privrisk.data import acs, fire
from privrisk.data.sources import DataUnavailable
from privrisk.data.tabular import DataFormatError


def _pums_frame(n=12, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"RT": "P", "SERIALNO": [f"2018GQ{i:07d}" for i in range(n)], "ST": 6})
    for col, vals in acs.VALUES.items():
        if col == "AGEP":
            df[col] = rng.integers(0, 100, n)
        else:
            df[col] = rng.choice([v for v in vals if v != -1], n)
    return df


def test_pums_csv_is_coded_like_folktables(tmp_path):
    df = _pums_frame()
    df.loc[0, ["AGEP", "SCHL", "MIG", "ANC"]] = [35, np.nan, np.nan, 8]
    df.loc[1, "AGEP"] = 99
    df.loc[2, "ST"] = 36  # another state: dropped
    path = tmp_path / "psam_p06.csv"
    df.to_csv(path, index=False)
    t = acs.load_pums_csv(path)
    assert t.source == "real" and t.columns == acs.COLUMNS and t.n_rows == len(df) - 1
    assert t.domains == [4, 9, 5, 18, 9, 2, 25, 2, 5, 5, 2, 5, 2, 3, 2, 10]  # acs-domain.json
    row0 = dict(zip(t.columns, t.codes[0], strict=True))
    assert row0["AGEP"] == 3  # 35 // 10
    assert row0["SCHL"] == 0 and row0["MIG"] == 0  # missing -> -1 -> first code
    assert row0["ANC"] == 4  # values 1, 2, 3, 4, 8
    assert dict(zip(t.columns, t.codes[1], strict=True))["AGEP"] == 9
    # Subsampling is seeded and keeps valid codes.
    a = acs.load_pums_csv(path, raw_rows=5, seed=1)
    b = acs.load_pums_csv(path, raw_rows=5, seed=1)
    assert a.n_rows == 5 and np.array_equal(a.codes, b.codes)


@pytest.mark.parametrize(
    "mutate, column",
    [
        (lambda d: d.drop(columns=["SCHL"]), "SCHL"),
        (lambda d: d.assign(SCHL=30), "SCHL"),
        (lambda d: d.assign(AGEP="abc"), "AGEP"),
        (lambda d: d.assign(RELP=1.5), "RELP"),
    ],
)
def test_pums_errors_name_file_and_column(tmp_path, mutate, column):
    path = tmp_path / "psam_p06.csv"
    mutate(_pums_frame()).to_csv(path, index=False)
    with pytest.raises(DataFormatError) as err:
        acs.load_pums_csv(path)
    assert str(path) in str(err.value) and column in str(err.value)


def test_corrupt_file_is_a_clear_error(tmp_path):
    path = tmp_path / "psam_p06.csv"
    path.write_bytes(b"\x00\xff\xfe garbage")
    with pytest.raises(DataFormatError, match="psam_p06.csv"):
        acs.load_pums_csv(path)


def _fire_frame(n=40, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"Call Number": np.arange(n), "Incident Number": np.arange(n) + 100})
    pools = {
        "Call Type": ["Medical Incident", "Structure Fire", "Alarms", "Traffic Collision"],
        "Call Final Disposition": ["Code 2 Transport", "Fire", "Other"],
        "City": ["San Francisco", "Treasure Isla", "Presidio"],
        "Zipcode of Incident": ["94102", "94103", "94110", "94124"],
        "Battalion": ["B01", "B02", "B10"],
        "Station Area": ["01", "03", "36", "10"],
        "Priority": ["2", "3", "E"],
        "ALS Unit": ["True", "False"],
        "Call Type Group": [
            "Potentially Life-Threatening",
            "Alarm",
            "Fire",
            "Non Life-threatening",
        ],
        "Number of Alarms": ["1", "2", "10"],
    }
    for col, pool in pools.items():
        df[col] = rng.choice(pool, n)
    return df


def test_fire_csv_codes_and_subsampling(tmp_path):
    df = _fire_frame()
    df.loc[3, "City"] = np.nan  # incomplete rows are dropped
    path = tmp_path / "fire.csv"
    df.to_csv(path, index=False)
    t = fire.load_fire_csv(path, raw_rows=None)
    assert t.columns == fire.COLUMNS and t.n_rows == len(df) - 1
    j = t.columns.index("Number of Alarms")
    alarms = df.drop(index=3)["Number of Alarms"].to_numpy()
    # numeric columns are ordered numerically, as pandas categories of numbers are: 1, 2, 10
    np.testing.assert_array_equal(
        t.codes[:, j], pd.Series(alarms).map({"1": 0, "2": 1, "10": 2}).to_numpy()
    )
    assert t.domains[t.columns.index("ALS Unit")] == 2
    sub = fire.load_fire_csv(path, raw_rows=10, seed=3)
    assert sub.n_rows == 10 and sub.info["rows_complete"] == len(df) - 1


def test_fire_errors_name_file_and_column(tmp_path):
    path = tmp_path / "fire.csv"
    _fire_frame().drop(columns=["Battalion"]).to_csv(path, index=False)
    with pytest.raises(DataFormatError) as err:
        fire.load_fire_csv(path)
    assert "fire.csv" in str(err.value) and "Battalion" in str(err.value)
    shifted = _fire_frame(n=400)
    shifted["Priority"] = [f"free text {i}" for i in range(400)]  # e.g. a column shifted by one
    shifted.to_csv(path, index=False)
    with pytest.raises(DataFormatError) as err:
        fire.load_fire_csv(path)
    assert "Priority" in str(err.value) and "fire.csv" in str(err.value)


def test_source_resolution(tmp_path):
    missing = tmp_path / "nope.csv"
    assert (
        acs.load({"source": "auto", "path": missing, "standin_size": 500}, seed=1).source
        == "standin"
    )
    assert (
        fire.load({"source": "standin", "path": missing, "standin_size": 500}, seed=1).source
        == "standin"
    )
    # a missing real file is DataUnavailable (naming the file and how to get it), not a format error
    with pytest.raises(DataUnavailable, match="nope.csv") as err:
        acs.load({"source": "real", "path": missing})
    assert "folktables" in str(err.value)
    with pytest.raises(DataUnavailable, match="nope.csv"):
        fire.load({"source": "real", "path": missing})
    path = tmp_path / "fire.csv"
    _fire_frame(n=120).to_csv(path, index=False)  # at least tabular.MIN_ROWS usable rows
    assert fire.load({"source": "auto", "path": path, "raw_rows": None}).source == "real-unverified"
    with pytest.raises(ValueError, match="source"):
        acs.load({"source": "bogus", "path": missing})
    # the stand-in is the module's own, seeded the same way
    np.testing.assert_array_equal(
        acs.load({"source": "standin", "path": missing, "standin_size": 300}, seed=2).codes,
        acs.standin(300, seed=2).codes,
    )
    with pytest.raises(DataUnavailable, match="nope.csv"):
        acs.load_pums_csv(missing)


@pytest.mark.parametrize("mod", [acs, fire])
def test_standins_have_the_real_schema_and_are_deterministic(mod):
    a, b = mod.standin(3000, seed=7), mod.standin(3000, seed=7)
    assert np.array_equal(a.codes, b.codes) and a.source == "standin"
    assert a.columns == mod.COLUMNS and a.domains == mod.DOMAINS
    assert (a.codes.max(axis=0) < np.asarray(a.domains)).all()
    assert not np.array_equal(a.codes, mod.standin(3000, seed=8).codes)


def test_published_marginals_are_turned_into_codes_as_documented():
    deciles = acs._age_deciles(acs.CA_PUBLISHED["age_groups"])
    # the 30s: half of 25-34 (14.13 %) and half of 35-44 (13.88 %); 0-9: 0-4 + 5-9
    assert deciles[3] == pytest.approx(14.13 / 2 + 13.88 / 2)
    assert deciles[0] == pytest.approx(5.30 + 5.57)
    assert sum(deciles) == pytest.approx(sum(acs.CA_PUBLISHED["age_groups"].values()))
    race = acs._race_codes(acs.CA_PUBLISHED["race"])
    assert len(race) == 9 and sum(race[2:5]) == pytest.approx(1.64)
    ct = fire._call_type_base()
    assert len(ct) == 31 and sum(ct) == pytest.approx(100.0)
    assert ct[2] / ct[3] == pytest.approx(5.9) and ct[2] + ct[3] == pytest.approx(10.3)


def test_standin_root_columns_follow_the_published_marginals():
    """Root columns are sampled from their base exactly: AGEP deciles, SEX and Call Type shares
    within 4 binomial standard errors of the published numbers."""
    t = acs.standin(20000, seed=1)
    col = {c: t.codes[:, j] for j, c in enumerate(t.columns)}
    se = 4 * np.sqrt(0.25 / t.n_rows)
    age = np.bincount(col["AGEP"], minlength=10) / t.n_rows
    want = np.asarray(acs._age_deciles(acs.CA_PUBLISHED["age_groups"]))
    np.testing.assert_allclose(age, want / want.sum(), atol=se)
    assert np.mean(col["SEX"] == 0) == pytest.approx(0.494, abs=se)
    schl = np.bincount(col["SCHL"], minlength=25) / t.n_rows
    assert schl.max() > 3 / 25  # hand-shaped, far from uniform
    f = fire.standin(20000, seed=1)
    ct = np.bincount(f.codes[:, f.columns.index("Call Type")], minlength=31) / f.n_rows
    assert ct[0] == pytest.approx(0.703, abs=se) and ct[1] == pytest.approx(0.117, abs=se)


@pytest.mark.parametrize(
    "mod, frame, name", [(acs, _pums_frame, "psam_p06.csv"), (fire, _fire_frame, "fire.csv")]
)
def test_too_few_rows_is_a_clear_error(tmp_path, mod, frame, name):
    path = tmp_path / name
    frame(n=60).to_csv(path, index=False)
    block = {"source": "real", "path": str(path), "raw_rows": None, "standin_size": 200}
    with pytest.raises(DataFormatError, match="usable rows") as err:
        mod.load(block, seed=0)
    assert str(path) in str(err.value)
    frame(n=150).to_csv(path, index=False)
    assert mod.load(block, seed=0).n_rows == 150  # enough rows: loads


@pytest.mark.parametrize(
    "mod, frame, column, value",
    [(acs, _pums_frame, "SEX", 1), (fire, _fire_frame, "ALS Unit", "True")],
)
def test_single_valued_column_is_a_clear_error(tmp_path, mod, frame, column, value):
    path = tmp_path / "table.csv"
    df = frame(n=150)
    df[column] = value
    df.to_csv(path, index=False)
    with pytest.raises(DataFormatError, match="single value") as err:
        mod.load(
            {"source": "real", "path": str(path), "raw_rows": None, "standin_size": 200}, seed=0
        )
    assert str(path) in str(err.value) and repr(column) in str(err.value)
