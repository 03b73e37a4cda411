"""``real`` only for files a checksummed preparation made and that still match it; otherwise
``real-unverified`` with a reason (issue 32: "a 20-image MNIST is labelled `real`"). Against the
local HTTP server of fake_remote; no network, no Snakemake."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from privrisk.contract import claims, plotting, provenance
from privrisk.data import enron, mnist, prepare, sources, verified
from privrisk.data.dataset import prepared_marker
from tests.data.fake_remote import BUILDERS, Server, overrides


@pytest.fixture
def here(tmp_path, monkeypatch):
    """Work in tmp_path: the marker goes to its data/prepared/ (relative, as in the pipeline)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _prepare(name, block, *, pin=True):
    """Serve the dataset's archives and prepare it as the prepare rule does (with the marker)."""
    files = BUILDERS[name]()
    with Server({f"/{n}": b for n, b in files.items()}) as srv:
        over = overrides(files, srv.base)
        block = {**block, **(over if pin else {"urls": over["urls"]})}
        prepare.prepare(name, block, marker=prepared_marker(name))
    return block, json.loads(prepared_marker(name).read_text())


def test_pinned_preparation_is_real_and_its_marker_records_sha256_and_size(here):
    block, marker = _prepare("mnist", {"source": "real", "path": "data/raw/mnist"})
    assert marker["format"] == verified.MARKER_FORMAT and marker["verified"] is True
    for entry in marker["files"]:
        data = open(entry["path"], "rb").read()
        assert entry["origin"] == "converted" and entry["verified"] is True
        assert entry["size"] == len(data) and entry["kind"] == "file"
        assert entry["sha256"] == verified.digest(entry["path"])["sha256"]
        assert "why" not in entry
    assert {d["pinned_by"] for d in marker["downloads"].values()} == {"checksums"}
    x, _, src = mnist.load_mnist(block)
    assert src == "real" and x.shape == (10, 28, 28)
    assert sources.fallback_reason("mnist", block) == ""


def test_a_prepared_file_edited_afterwards_is_unverified(here):
    block, marker = _prepare("mnist", {"source": "real", "path": "data/raw/mnist"})
    assert sources.label("mnist", block) == "real"
    labels = marker["files"][1]["path"]  # train labels: same size, one label changed
    raw = bytearray(open(labels, "rb").read())
    raw[-1] = (raw[-1] + 1) % 10
    open(labels, "wb").write(bytes(raw))
    st = os.stat(labels)
    os.utime(labels, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a new mtime, as an edit
    assert mnist.load_mnist(block)[2] == "real-unverified"
    why = sources.fallback_reason("mnist", block)
    assert why.startswith("changed since preparation: ") and labels in why


def test_files_placed_by_hand_are_unverified_with_or_without_a_marker(here):
    block = {"source": "real", "path": "data/raw/mnist"}
    root = here / "data" / "raw" / "mnist"
    root.mkdir(parents=True)
    for name, gz in BUILDERS["mnist"]().items():  # the right bytes, but nothing vouches for them
        (root / name.removesuffix(".gz")).write_bytes(gzip.decompress(gz))
    assert mnist.load_mnist(block)[2] == "real-unverified"
    assert sources.fallback_reason("mnist", block).startswith("no preparation record: ")
    # a preparation that finds them in place downloads nothing and does not vouch for them
    prepare.prepare("mnist", block, marker=prepared_marker("mnist"))
    marker = json.loads(prepared_marker("mnist").read_text())
    assert marker["verified"] is False and marker["downloads"] == {}
    assert {e["origin"] for e in marker["files"]} == {"in place before this preparation"}
    assert sources.label("mnist", block) == "real-unverified"
    assert sources.fallback_reason("mnist", block).startswith("placed by hand: ")


def test_trusted_on_first_use_is_unverified(here):
    block, marker = _prepare(
        "enron", {"source": "real", "path": "data/raw/enron/maildir"}, pin=False
    )
    (entry,) = marker["files"]
    assert entry["kind"] == "folder" and entry["files"] == 6 and entry["verified"] is False
    assert marker["downloads"]["enron_mail_20150507.tar.gz"]["pinned_by"] is None
    assert enron.load(block, n=4)[2] == "real-unverified"
    why = sources.fallback_reason("enron", block)
    assert why.startswith("trusted on first use: ") and "enron_mail_20150507.tar.gz" in why


def test_a_pinned_folder_is_real_until_a_file_is_added(here):
    block, marker = _prepare("enron", {"source": "real", "path": "data/raw/enron/maildir"})
    assert marker["files"][0]["verified"] is True and sources.label("enron", block) == "real"
    md = here / "data" / "raw" / "enron" / "maildir"
    (md / "user-0" / "inbox" / "9.").write_text("x")  # deep inside: seen by the next process
    verified._FOLDERS.clear()  # a new job
    assert sources.label("enron", block) == "real-unverified"
    assert sources.fallback_reason("enron", block).startswith("changed since preparation: ")
    (md / "user-0" / "inbox" / "9.").unlink()
    verified._FOLDERS.clear()
    assert sources.label("enron", block) == "real"
    (md / "notes.txt").write_text("x")  # at the top: the folder's mtime changes, seen at once
    st = md.stat()  # (a clock tick later, as any real edit: the kernel's mtime is coarse)
    os.utime(md, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    assert sources.label("enron", block) == "real-unverified"


@pytest.mark.parametrize(
    "text", ["{not json", "[]", '{"files": 3}', '{"files": [{"sha256": "x"}]}', ""]
)
def test_a_malformed_marker_is_unverified_and_named(here, text):
    block = {"source": "real", "path": "data/raw/mnist"}
    root = here / "data" / "raw" / "mnist"
    root.mkdir(parents=True)
    for name, gz in BUILDERS["mnist"]().items():
        (root / name.removesuffix(".gz")).write_bytes(gzip.decompress(gz))
    marker = prepared_marker("mnist")
    marker.parent.mkdir(parents=True)
    marker.write_text(text)
    assert mnist.load_mnist(block)[2] == "real-unverified"  # no exception
    why = sources.fallback_reason("mnist", block)
    assert why.startswith("malformed preparation record: ") and str(marker) in why


def test_a_file_is_hashed_once_per_process_for_its_size_and_mtime(here, monkeypatch):
    f = here / "a.bin"
    f.write_bytes(b"abc")
    calls = []
    real_sha = verified.hashlib.sha256
    monkeypatch.setattr(verified.hashlib, "sha256", lambda: calls.append(1) or real_sha())
    first = verified.digest(f)
    assert verified.digest(f) == first and len(calls) == 1
    assert first == {
        "kind": "file",
        "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",  # FIPS 180-2
        "size": 3,
    }
    f.write_bytes(b"abd")
    assert verified.digest(f)["sha256"] != first["sha256"] and len(calls) == 2


def test_the_footnote_says_which_real_data_is_unverified_and_why():
    note = plotting.data_source_note(
        {"mnist": "real-unverified", "acs": "real"},
        {"mnist": "placed by hand: data/raw/mnist/x was in place before ..."},
    )
    assert note == "Real data, checksum not verified: mnist (placed by hand)"
    assert plotting.data_source_note({"mnist": "real", "x": "analytic"}) is None
    both = plotting.data_source_note({"cifar10": "standin", "MNIST": "real-unverified"})
    assert both == (
        "Stand-in data (not the paper's dataset) — cifar10: standin. "
        "Real data, checksum not verified: MNIST"
    )


def test_provenance_and_the_ledger_accept_real_unverified(tmp_path):
    rec = provenance.make_record(
        paper="p",
        figure="f",
        caption="c",
        scale="quick",
        parameters={},
        data_sources={"mnist": "real-unverified"},
        data_fallbacks={"mnist": "placed by hand: ..."},
    )
    assert rec["data_sources"] == {"mnist": "real-unverified"}
    with pytest.raises(ValueError, match="real-unverified"):  # the message lists the values
        provenance.make_record(
            paper="p", figure="f", caption="c", scale="q", parameters={}, data_sources={"m": "x"}
        )
    row = claims.Ledger("p", data="real-unverified").numeric(
        figure="f", claim_id="c", claim="x", paper_value=1.0, ours=1.0, tolerance=0.1
    )
    # real data: it may be reproduced (the figure's footnote says the checksum is not verified)
    assert row.status == "reproduced" and row.data == "real-unverified"
    claims.write_claims([row], tmp_path / "claims.csv")
    ledger = claims.read(tmp_path / "claims.csv")
    assert list(ledger.data) == ["real-unverified"] and claims.check(ledger) == []


def test_downloads_placed_by_hand_are_verified_by_their_pinned_checksum(here):
    """MNIST's .gz files are read as they are: placed by hand, they are the downloads, so the
    preparation checks them against the pinned checksum (no network) and vouches for them."""
    files = BUILDERS["mnist"]()
    root = here / "data" / "raw" / "mnist"
    root.mkdir(parents=True)
    for name, gz in files.items():
        (root / name).write_bytes(gz)
    block = {"source": "real", "path": "data/raw/mnist", **overrides(files, "http://127.0.0.1:9")}
    prepare.prepare("mnist", block, marker=prepared_marker("mnist"))
    marker = json.loads(prepared_marker("mnist").read_text())
    assert marker["verified"] is True and marker["downloads"] == {}
    assert {(e["origin"], e["matches_pinned"]) for e in marker["files"]} == {
        ("in place before this preparation", "checksums")
    }
    assert mnist.load_mnist(block)[2] == "real"
    # one of them replaced by other bytes: in place, and its checksum is not the pinned one
    (root / "t10k-labels-idx1-ubyte.gz").write_bytes(files["train-labels-idx1-ubyte.gz"])
    prepare.prepare("mnist", block, marker=prepared_marker("mnist"))
    assert sources.label("mnist", block) == "real-unverified"
    why = sources.fallback_reason("mnist", block)
    assert why.startswith("placed by hand: ") and "is not the pinned" in why


def test_a_figure_on_unverified_real_data_says_so_under_the_axes(tmp_path):
    import matplotlib.pyplot as plt
    import pandas as pd

    from privrisk.contract import figure

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    result = figure.FigureResult(
        data=pd.DataFrame({"series": ["a", "a"], "x": [0, 1], "y": [0, 1]}),
        caption="c",
        fig=fig,
        data_sources={"mnist": "real-unverified"},
        data_fallbacks={"mnist": "trusted on first use: converted from x.zip, ..."},
    )
    figure.write_outputs(
        result,
        paper="p",
        figure="f",
        prefix=tmp_path / "f",
        claims_path=tmp_path / "claims.csv",
        params={},
        scale="quick",
        wall_time_s=0.0,
    )
    texts = [t.get_text() for t in fig.texts]
    plt.close(fig)
    assert "Real data, checksum not verified: mnist (trusted on first use)" in texts
    prov = json.loads((tmp_path / "f.json").read_text())
    assert prov["data_sources"] == {"mnist": "real-unverified"}
    assert prov["data_fallbacks"]["mnist"].startswith("trusted on first use: ")


def test_a_forced_rerun_keeps_verified_files_verified(here):
    """Snakemake deletes the marker before a forced prepare rule, which then finds every file in
    place: files still matching the checksums a preparation verified stay `real`."""
    block, first = _prepare("mnist", {"source": "real", "path": "data/raw/mnist"})
    prepared_marker("mnist").unlink()  # as --forcerun prepare_mnist does
    prepare.prepare("mnist", block, marker=prepared_marker("mnist"))
    again = json.loads(prepared_marker("mnist").read_text())
    assert again["verified"] is True and again["downloads"] == {}
    assert [e["sha256"] for e in again["files"]] == [e["sha256"] for e in first["files"]]
    assert {e["origin"] for e in again["files"]} == {"in place before this preparation"}
    assert all(e["verified_by"].startswith("the preparation of 20") for e in again["files"])
    assert sources.label("mnist", block) == "real"
    # a file replaced by hand and a forced rerun: not vouched for any more
    labels = again["files"][3]["path"]
    open(labels, "r+b").write(open(labels, "rb").read()[:-1] + b"\x00")
    st = os.stat(labels)  # a clock tick later, as any real edit
    os.utime(labels, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    prepared_marker("mnist").unlink()
    prepare.prepare("mnist", block, marker=prepared_marker("mnist"))
    assert sources.fallback_reason("mnist", block).startswith("placed by hand: ")
    # a malformed history only costs the carried verification
    prepare.verified_history(prepared_marker("mnist")).write_text("{")
    prepare.prepare("mnist", block, marker=prepared_marker("mnist"))
    assert json.loads(prepared_marker("mnist").read_text())["verified"] is False
