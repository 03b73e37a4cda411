"""The dataset descriptions and their registry: each description is checked when declared, the
registry refuses an unknown name listing the known ones, a dataset module's code inputs stay its
own, ``data/README.md`` agrees with the download tables, and a new dataset needs no code outside
its module and one registry line (a fake one, prepared through the generic driver)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from privrisk.data import enron, prepare, sources
from privrisk.data.dataset import Dataset, Remote, atomic_output
from privrisk.pipeline import workflow
from tests.conftest import REPO
from tests.data.fake_remote import Server, overrides

NAMES = ["mnist", "cifar10", "acs", "fire", "enron", "dermamnist"]


def test_every_registry_line_names_its_description():
    assert list(sources.DATASETS) == NAMES
    for name in NAMES:
        desc = sources.dataset(name)
        assert isinstance(desc, Dataset) and desc.name == name
        assert desc.fallback in ("bundled-real", "standin") and desc.obtain.endswith(".")
        assert desc.downloadable and desc.licence


def test_unknown_dataset_is_refused_listing_the_known_ones():
    with pytest.raises(ValueError, match="unknown dataset 'mnits'; known: mnist, cifar10, acs"):
        sources.dataset("mnits")
    with pytest.raises(ValueError, match="unknown dataset 'mnits'"):
        sources.resolve("mnits", {"source": "auto"})
    with pytest.raises(ValueError, match="unknown dataset 'mnits'"):
        prepare.prepare("mnits", {"path": "x"})


def test_a_registry_line_pointing_elsewhere_is_refused(monkeypatch):
    monkeypatch.setitem(sources.DATASETS, "mnist", "privrisk.data.cifar10:CIFAR10")
    with pytest.raises(TypeError, match="is not the Dataset named 'mnist'"):
        sources.dataset("mnist")
    monkeypatch.setitem(sources.DATASETS, "mnist", "privrisk.data.mnist:FILES")
    with pytest.raises(TypeError, match="privrisk.data.mnist:FILES"):
        sources.dataset("mnist")


def _files(block):
    return [Path(block["path"])]


def _convert(archives, block, outputs, *, what):
    """The fake dataset's conversion: extract ``table.csv`` from ``fake.zip``."""
    (out,) = outputs
    with zipfile.ZipFile(archives["fake.zip"]) as zf, atomic_output(out) as part:
        part.write_bytes(zf.read("table.csv"))


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"fallback": "synthetic"}, "fallback 'synthetic' is not one of"),
        ({"archive_dir": "home"}, "archive_dir 'home' is not one of"),
        ({"remotes": (Remote("a.zip", "http://x/a.zip"),)}, "needs a conversion"),
        ({"convert": _convert}, "needs a conversion"),
        (
            {
                "remotes": (Remote("a", "http://x/1"), Remote("a", "http://x/2")),
                "convert": _convert,
            },
            "file name repeats",
        ),
    ],
)
def test_a_malformed_description_is_refused_when_declared(kw, message):
    base = {"name": "fake", "real_files": _files, "fallback": "standin", "obtain": "Get it."}
    with pytest.raises(ValueError, match=message):
        Dataset(**{**base, **kw})


def test_a_dataset_module_is_no_code_input_of_another_datasets_rules():
    """A step reading MNIST must not rerun when the FIRE module (its conversion included) or the
    download driver changes: the registry is imported lazily, so code inputs stay narrow."""
    modules = {name: sources.DATASETS[name].partition(":")[0] for name in NAMES}
    driver = {"download.py", "prepare.py", "gpt2.py"}
    for name, module in modules.items():
        files = {Path(f).name for f in workflow.code_inputs(module)}
        others = {m.rsplit(".", 1)[1] + ".py" for n, m in modules.items() if n != name}
        assert not files & (others | driver), (name, sorted(files & (others | driver)))
        assert {"sources.py", "dataset.py", f"{module.rsplit('.', 1)[1]}.py"} <= files


def test_data_readme_lists_every_download_checksum_and_licence():
    readme = (REPO / "data" / "README.md").read_text()
    for name in NAMES:
        desc = sources.dataset(name)
        assert desc.licence in readme, name
        for r in desc.remotes:
            assert f"`{r.name}`" in readme, r.name
            assert r.url in readme or r.url.rsplit("/", 1)[0] + "/" in readme, r.url
            if r.checksum:
                assert r.checksum.partition(":")[2] in readme, r.name


def test_rule_outputs_and_gpt2_marker_where_the_rules_put_them():
    assert enron.GPT2_MARKER == Path("data/prepared/gpt2.json")
    assert sources.dataset("enron").extra_inputs({"gpt2": True}) == [enron.GPT2_MARKER]
    assert sources.dataset("enron").extra_inputs({"gpt2": False}) == []
    assert [sources.dataset(n).archive_dir for n in NAMES] == [
        "path",
        "parent",
        "parent",
        "parent",
        "parent",
        "path",
    ]


# --- a new dataset: one module with its description, one registry line --------------------------

FAKE = Dataset(
    name="fake",
    real_files=_files,
    fallback="standin",
    obtain="Unzip fake.zip to the block's path.",
    remotes=(Remote("fake.zip", "http://127.0.0.1:9/fake.zip", None, "1 kB"),),
    convert=_convert,
    prepare_keys=("path", "urls", "checksums", "columns"),
    licence="CC0",
)


def _zip(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("table.csv", text)
    return buf.getvalue()


def test_a_new_dataset_needs_only_its_description_and_a_registry_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sources.DATASETS, "fake", "tests.data.test_datasets:FAKE")
    path = tmp_path / "raw" / "fake" / "table.csv"
    block = {"source": "auto", "path": str(path), "download": True, "columns": 2, "rows": 9}
    assert sources.resolve("fake", block) == "standin"
    assert sources.rule_inputs("fake", block) == ["data/prepared/fake.json"]
    (spec,) = prepare.rule_specs({"p": {"data": {"fake": block}}})
    assert spec.block == {"path": str(path), "columns": 2} and spec.outputs == (str(path),)
    files = {"fake.zip": _zip("a,b\n1,2\n")}
    with Server({"/fake.zip": files["fake.zip"]}) as srv:
        got = prepare.prepare("fake", {**block, **overrides(files, srv.base)}, what="p.data.fake")
    assert got == [path] and path.read_text() == "a,b\n1,2\n"
    assert (path.parent / "fake.zip").is_file()  # archive_dir "parent": beside the prepared file
    assert sources.resolve("fake", block) == "real"
    # a conversion that writes nothing: the driver names what is missing
    monkeypatch.setitem(sources.DATASETS, "fake", "tests.data.test_datasets:FAKE_WRITES_NOTHING")
    (tmp_path / "fake.zip").write_bytes(files["fake.zip"])  # placed by hand: no network
    with pytest.raises(ValueError, match=r"p.data.fake: preparation did not produce .*other.csv"):
        prepare.prepare("fake", {"path": str(tmp_path / "other.csv")}, what="p.data.fake")


FAKE_WRITES_NOTHING = Dataset(
    name="fake",
    real_files=_files,
    fallback="standin",
    obtain="Nothing.",
    remotes=(Remote("fake.zip", "http://127.0.0.1:9/fake.zip"),),
    convert=lambda archives, block, outputs, *, what: None,
)
