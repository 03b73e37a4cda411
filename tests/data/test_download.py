"""Download, resume, checksum, offline and hand-placed paths of privrisk.data.download, and each
dataset's preparation from archives in its real layout, all against a local HTTP server."""

from __future__ import annotations

import hashlib
import json
import logging
import socket

import numpy as np
import pytest

from privrisk.data import acs, cifar10, enron, fire, gpt2, mnist, prepare, sources
from privrisk.data.dataset import Remote
from privrisk.data.download import ChecksumMismatch, DownloadError, fetch
from tests.data.fake_remote import BUILDERS, ENRON_NAMES, Server, md5, overrides

PAYLOAD = (
    bytes(range(256)) * 4000
)  # 1 MB: several chunks, so a half transfer is a real partial file


def _remote(server, checksum="auto", name="blob.bin"):
    return Remote(name, f"{server.base}/{name}", md5(PAYLOAD) if checksum == "auto" else checksum)


def test_download_verifies_renames_and_logs_progress(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="privrisk.data.download")
    with Server({"/blob.bin": PAYLOAD}) as srv:
        got = fetch(_remote(srv), tmp_path / "raw", what="test.block")
    assert got == tmp_path / "raw" / "blob.bin" and got.read_bytes() == PAYLOAD
    assert not (tmp_path / "raw" / "blob.bin.part").exists()
    progress = [r.message for r in caplog.records if "of 1.0 MB" in r.message]
    assert progress and "100 %" in progress[-1] and "/s" in progress[-1]


def test_dropped_connection_is_resumed_with_a_range_request(tmp_path):
    with Server({"/blob.bin": PAYLOAD}, drop_first={"/blob.bin"}) as srv:
        got = fetch(_remote(srv), tmp_path)
    assert got.read_bytes() == PAYLOAD
    assert srv.requests == [("/blob.bin", None), ("/blob.bin", f"bytes={len(PAYLOAD) // 2}-")]


def test_interrupted_run_leaves_only_a_part_file_and_the_next_run_resumes(tmp_path):
    with Server({"/blob.bin": PAYLOAD}, drop_first={"/blob.bin"}) as srv:
        with pytest.raises(DownloadError, match="dropped 1 times.*next run resumes"):
            fetch(_remote(srv), tmp_path, retries=0)
        assert not (tmp_path / "blob.bin").exists()
        assert (tmp_path / "blob.bin.part").stat().st_size == len(PAYLOAD) // 2
        got = fetch(_remote(srv), tmp_path)
    assert got.read_bytes() == PAYLOAD and srv.requests[-1][1] == f"bytes={len(PAYLOAD) // 2}-"


def test_server_without_range_support_restarts_cleanly(tmp_path):
    (tmp_path / "blob.bin.part").write_bytes(b"garbage from an older attempt")
    with Server({"/blob.bin": PAYLOAD}, ignore_range=True) as srv:
        got = fetch(_remote(srv), tmp_path)
    assert got.read_bytes() == PAYLOAD


def test_part_file_longer_than_the_file_restarts(tmp_path):
    (tmp_path / "blob.bin.part").write_bytes(PAYLOAD + b"extra")
    with Server({"/blob.bin": PAYLOAD}) as srv:
        assert fetch(_remote(srv), tmp_path).read_bytes() == PAYLOAD
    assert srv.requests[0][1] is not None and srv.requests[-1][1] is None


def test_checksum_mismatch_names_what_where_expected_and_got(tmp_path):
    wrong = "md5:" + "0" * 32
    with Server({"/blob.bin": PAYLOAD}) as srv, pytest.raises(ChecksumMismatch) as err:
        fetch(_remote(srv, wrong), tmp_path, what="xu2022.data.mnist")
    msg = str(err.value)
    for part in (
        "xu2022.data.mnist",
        f"{srv.base}/blob.bin",
        "0" * 32,
        hashlib.md5(PAYLOAD).hexdigest(),
        "place it by hand",
        str(tmp_path / "blob.bin"),
    ):
        assert part in msg
    assert list(tmp_path.iterdir()) == []  # neither the file nor a .part is left


def test_offline_fails_clearly_and_writes_nothing(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    remote = Remote("blob.bin", f"http://127.0.0.1:{port}/blob.bin", md5(PAYLOAD))
    with pytest.raises(
        DownloadError, match="could not download .*offline.*place it by hand"
    ) as err:
        fetch(remote, tmp_path / "raw", what="swanberg2025.data.acs")
    assert hashlib.md5(PAYLOAD).hexdigest() in str(err.value)
    assert not (tmp_path / "raw" / "blob.bin").exists()


def test_hand_placed_file_is_used_without_network(tmp_path):
    (tmp_path / "blob.bin").write_bytes(PAYLOAD)
    remote = Remote("blob.bin", "http://127.0.0.1:9/unreachable", md5(PAYLOAD))
    assert fetch(remote, tmp_path).read_bytes() == PAYLOAD


def test_hand_placed_wrong_file_is_reported_and_kept(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"not it")
    remote = Remote("blob.bin", "http://127.0.0.1:9/unreachable", md5(PAYLOAD))
    with pytest.raises(ChecksumMismatch, match="placed by hand, it is not the published file"):
        fetch(remote, tmp_path)
    assert (tmp_path / "blob.bin").read_bytes() == b"not it"


def test_unpinned_file_is_trusted_on_first_use_then_checked(tmp_path):
    with Server({"/blob.bin": PAYLOAD}) as srv:
        fetch(_remote(srv, None), tmp_path)
    record = (tmp_path / "blob.bin.sha256").read_text().split()
    assert record == [hashlib.sha256(PAYLOAD).hexdigest(), "blob.bin"]
    (tmp_path / "blob.bin").write_bytes(PAYLOAD[:-1] + b"x")  # changed after the first download
    with pytest.raises(ChecksumMismatch, match="recorded at first download"):
        fetch(Remote("blob.bin", "http://127.0.0.1:9/x", None), tmp_path)


def test_checksum_spec_is_validated():
    with pytest.raises(ValueError, match="md5:<hex> or sha256:<hex>"):
        Remote("f", "http://x", "crc32:1234")


def test_tables_pin_torchvision_and_medmnist_checksums():
    tables = {n: sources.dataset(n).remotes for n in sources.DATASETS}
    sums = {r.name: r.checksum for rs in tables.values() for r in rs}
    assert sums["train-images-idx3-ubyte.gz"] == "md5:f68b3c2dcbeaaa9fbdd348bbdeb94873"
    assert sums["t10k-labels-idx1-ubyte.gz"] == "md5:ec29112dd5afa0611ce80d1b7f02629c"
    assert sums["cifar-10-python.tar.gz"] == "md5:c58f30108f718f92721af3b95e74349a"
    assert sums["dermamnist_64.npz"] == "md5:b70a2f5635c6199aeaa28c31d7202e1f"
    assert {n for n, rs in tables.items() if rs} == {
        "mnist",
        "cifar10",
        "dermamnist",
        "acs",
        "fire",
        "enron",
    }
    assert (
        sums["csv_pca.zip"] is None and sums["enron_mail_20150507.tar.gz"] is None
    )  # not published


def test_overrides_must_name_files_of_the_table():
    with pytest.raises(ValueError, match="unknown file"):
        prepare.remotes("mnist", {"path": "x", "urls": {"mnist.zip": "http://x"}})


# --- each dataset: archives in the real layout -> the files its loader reads --------------------------


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in tmp_path: the preparation marker (data/prepared/, relative as in the pipeline) goes
    there, and the loads read it (privrisk.data.verified)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _serve_and_prepare(name, block, tmp_path, pin=True):
    files = BUILDERS[name]()
    with Server({f"/{n}": b for n, b in files.items()}) as srv:
        over = overrides(files, srv.base)
        block = {**block, **(over if pin else {"urls": over["urls"]})}
        return prepare.prepare(name, block, marker=prepare.prepared_marker(name)), block


def test_prepare_mnist_then_the_loader_reads_real_digits(tmp_path, in_tmp):
    block = {"source": "real", "path": str(tmp_path / "mnist")}
    out, block = _serve_and_prepare("mnist", block, tmp_path)
    assert [p.name for p in out] == list(mnist.FILES.values())
    x, y, src = mnist.load_mnist(block)
    assert src == "real" and x.shape == (10, 28, 28)
    np.testing.assert_allclose(x[:, 0, 0] * 255, np.arange(10), atol=1e-4)
    np.testing.assert_array_equal(y, np.arange(10) % 10)


def test_prepare_cifar10_into_the_block_path(tmp_path, in_tmp):
    block = {"source": "real", "path": str(tmp_path / "raw" / "cifar-10-batches-py")}
    _serve_and_prepare("cifar10", block, tmp_path)
    assert (tmp_path / "raw" / "cifar-10-python.tar.gz").is_file()  # torchvision's layout
    x, y, src = cifar10.load_cifar10(block)
    assert src == "real" and x.shape == (18, 32, 32, 3)
    np.testing.assert_array_equal(y, np.repeat(np.arange(6), 3))


def test_prepare_dermamnist_downloads_the_npz_in_place(tmp_path):
    block = {"source": "real", "path": str(tmp_path / "dermamnist")}
    files = BUILDERS["dermamnist"]()
    with Server({f"/{n}": b for n, b in files.items()}) as srv:
        out = prepare.prepare(
            "dermamnist",
            {**block, **overrides(files, srv.base)},
            [tmp_path / "dermamnist" / "dermamnist_64.npz"],
        )
    with np.load(out[0]) as npz:
        assert npz["train_images"].shape == (5, 64, 64, 3)


def test_prepare_acs_extracts_folktables_file(tmp_path, in_tmp):
    path = tmp_path / "acs" / "2018" / "1-Year" / "psam_p06.csv"
    block = {"source": "real", "path": str(path), "raw_rows": None, "standin_size": 100}
    _serve_and_prepare("acs", block, tmp_path, pin=False)  # as in the table: no published checksum
    assert (path.parent / "csv_pca.zip").is_file() and (
        path.parent / "csv_pca.zip.sha256"
    ).is_file()
    table = acs.load(block)
    # no published checksum: trusted on first use, so real data nothing verified
    assert table.source == "real-unverified" and table.codes.shape == (200, 16)


def test_prepare_fire_keeps_ten_columns_complete_rows_and_subsamples(tmp_path, in_tmp):
    path = tmp_path / "fire" / "Fire_Department_Calls_for_Service.csv"
    block = {
        "source": "real",
        "path": str(path),
        "raw_rows": None,
        "standin_size": 100,
        "prepare_rows": 100,
    }
    _serve_and_prepare("fire", block, tmp_path)
    header = path.read_text().splitlines()[0]
    assert header == ",".join(fire.COLUMNS)
    table = fire.load(block)
    assert table.source == "real" and table.codes.shape == (100, 10)


def test_prepare_fire_keeps_every_complete_row_without_prepare_rows(tmp_path, in_tmp):
    path = tmp_path / "fire" / "calls.csv"
    block = {
        "source": "real",
        "path": str(path),
        "raw_rows": None,
        "standin_size": 100,
        "prepare_rows": None,
    }
    _serve_and_prepare("fire", block, tmp_path)
    assert fire.load(block).codes.shape == (270, 10)  # 300 rows, every tenth has no City


def test_prepare_enron_unpacks_the_maildir(tmp_path, in_tmp):
    block = {"source": "real", "path": str(tmp_path / "enron" / "maildir")}
    _serve_and_prepare("enron", block, tmp_path)
    assert len(list((tmp_path / "enron" / "maildir").rglob("*."))) == 6
    seqs, names, src = enron.load(block, n=10)
    assert (
        src == "real"
        and sorted(names) == sorted(ENRON_NAMES)
        and all(enron.MASK in s for s in seqs)
    )


def test_obtains_and_rule_inputs(tmp_path):
    block = {"source": "auto", "path": str(tmp_path / "mnist")}
    assert sources.rule_inputs("mnist", block) == []  # auto without download: bundled fallback
    # the data files are never a rule's input when the pipeline obtains them: only the marker of
    # the prepare rule is (Snakemake could delete a rule's output, the user's data never)
    want = ["data/prepared/mnist.json"]
    assert sources.rule_inputs("mnist", {**block, "download": True}) == want
    assert (
        sources.rule_inputs("mnist", {**block, "source": "real"}) == want
    )  # no DataUnavailable: prepared
    enron_block = {"source": "real", "path": str(tmp_path / "maildir")}
    assert sources.rule_inputs("enron", enron_block) == [
        "data/prepared/enron.json",
        str(enron.GPT2_MARKER),
    ]
    assert sources.rule_inputs("enron", {**enron_block, "gpt2": False}) == [
        "data/prepared/enron.json"
    ]


def test_gpt2_prepare_fails_clearly_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(RuntimeError, match=r"transformers: pip install|offline\?"):
        gpt2.prepare_gpt2(tmp_path / "gpt2.json")
    assert not (tmp_path / "gpt2.json").exists()


def test_rule_specs_one_rule_per_dataset_with_only_the_preparation_keys():
    cfg = {
        "seed": 0,
        "p1": {
            "data": {
                "train_fraction": 0.1,
                "mnist": {"source": "auto", "path": "m", "download": True},
                "enron": {"source": "real", "path": "e/maildir", "gpt2": False},
                "fire": {"source": "real", "path": "f.csv", "raw_rows": 100, "prepare_rows": 500},
            }
        },
        "p2": {"data": {"mnist": {"source": "real", "path": "m"}}},
    }
    specs = {s.dataset: s for s in prepare.rule_specs(cfg)}
    assert set(specs) == {
        "mnist",
        "enron",
        "fire",
    }  # train_fraction is no dataset; p2's mnist is p1's
    assert specs["fire"].block == {"path": "f.csv", "prepare_rows": 500}
    assert specs["mnist"].outputs == tuple(f"m/{f}" for f in mnist.FILES.values())
    assert specs["enron"].directory and specs["enron"].outputs == ("e/maildir",)
    cfg["p2"]["data"]["mnist"]["path"] = "elsewhere"
    with pytest.raises(ValueError, match="different paths in two papers"):
        prepare.rule_specs(cfg)


def test_prepare_keeps_files_in_place_and_downloads_nothing(tmp_path):
    """A hand-placed file survives a forced preparation offline: nothing is fetched or rewritten,
    and the marker records that the file was there before."""
    csv = tmp_path / "acs" / "psam_p06.csv"
    csv.parent.mkdir()
    csv.write_text("placed,by,hand\n")
    before = csv.stat().st_mtime_ns
    marker = tmp_path / "prepared" / "acs.json"
    block = {"path": str(csv), "urls": {"csv_pca.zip": "http://127.0.0.1:9/csv_pca.zip"}}
    assert prepare.prepare("acs", block, what="swanberg2025.data.acs", marker=marker) == [csv]
    assert csv.read_text() == "placed,by,hand\n" and csv.stat().st_mtime_ns == before
    record = json.loads(marker.read_text())
    assert record["files"] == [
        {
            "path": str(csv),
            "origin": "in place before this preparation",
            "kind": "file",
            "sha256": hashlib.sha256(b"placed,by,hand\n").hexdigest(),
            "size": 15,
            "verified": False,
            "why": f"placed by hand: {csv} was in place before this preparation, so no "
            "download vouches for it",
        }
    ]
    assert record["verified"] is False
    assert record["downloads"] == {} and not (tmp_path / "acs" / "csv_pca.zip").exists()
