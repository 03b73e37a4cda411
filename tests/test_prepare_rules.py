"""The prepare_<dataset> rules through real Snakemake runs, with a local HTTP server standing in for
the internet (``--config`` overrides the URLs and checksums), in a copy of the repository:
download + use, resume after a dropped connection, checksum mismatch, offline, hand-placed files,
and ``auto`` with ``download: true``."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
import yaml

from privrisk.data import cifar10, mnist
from tests.conftest import REPO, TINY, snakemake_exe
from tests.data.fake_remote import BUILDERS, Server, md5, overrides

pytestmark = pytest.mark.slow

PAPER = {
    "mnist": "xu2022",
    "cifar10": "xu2022",
    "acs": "swanberg2025",
    "fire": "swanberg2025",
    "enron": "swanberg2025",
}


@pytest.fixture
def repo(tmp_path):
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for d in ("src", "workflow", "config", "profiles"):
        shutil.copytree(REPO / d, tmp_path / d, ignore=ignore)
    shutil.copy(REPO / "Snakefile", tmp_path / "Snakefile")
    return tmp_path


def _smk(root: Path, *args: str, blocks: dict | None = None, configfile: Path | None = None):
    """Run Snakemake in ``root``; ``blocks`` ({dataset: data block keys}) go through ``--config``."""
    cfgs = [str(root / c) for c in TINY] + ([str(configfile)] if configfile else [])
    cmd = [
        *snakemake_exe(),
        "-s",
        str(root / "Snakefile"),
        "-d",
        str(root),
        "--cores",
        "1",
        *args,
        "--configfile",
        *cfgs,
    ]
    if blocks:
        by_paper: dict = {}
        for name, block in blocks.items():
            by_paper.setdefault(PAPER[name], {}).setdefault("data", {})[name] = block
        cmd += ["--config", *[f"{p}={json.dumps(v)}" for p, v in by_paper.items()]]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root / "src")),
    )
    return proc.returncode, proc.stdout + proc.stderr


def _planned(out: str) -> set[str]:
    """The rules in a dry run's job table."""
    return set(re.findall(r"^(\S+)\s+\d+$", out, flags=re.M)) - {"total", "job"}


def _serve(names, **kw):
    files = {n: BUILDERS[n]() for n in names}
    srv = Server({f"/{n}/{f}": b for n, fs in files.items() for f, b in fs.items()}, **kw)
    return srv, files


def _real(files, srv, name, **extra):
    return {"source": "real", **overrides(files[name], srv.base, f"/{name}/"), **extra}


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_download_prepare_and_use_every_dataset(repo, tmp_path_factory, monkeypatch):
    names = ["mnist", "cifar10", "acs", "fire", "enron"]
    srv, files = _serve(
        names, drop_first={"/mnist/train-images-idx3-ubyte.gz"}
    )  # one interrupted transfer
    blocks = {n: _real(files, srv, n) for n in names}
    # no hub here (prepare_gpt2's offline error is tested in tests/data); a boolean cannot go through
    # --config (its values are read as strings), so it goes in a config file
    no_gpt2 = tmp_path_factory.mktemp("cfg") / "no_gpt2.yaml"
    no_gpt2.write_text("swanberg2025: {data: {enron: {gpt2: false}}}\n")
    targets = [
        "swanberg2025_marginals_dataset_acs",
        "swanberg2025_marginals_dataset_fire",
        "results/swanberg2025/fig2a.csv",
        *[f"prepare_{n}" for n in ("mnist", "cifar10")],
    ]
    with srv:
        code, out = _smk(repo, "-n", "xu2022", blocks=blocks, configfile=no_gpt2)
        assert code == 0, out
        assert {"prepare_mnist", "prepare_cifar10"} <= _planned(out)  # xu2022's steps need them
        code, out = _smk(repo, *targets, blocks=blocks, configfile=no_gpt2)
    assert code == 0, out
    assert ("/mnist/train-images-idx3-ubyte.gz", "bytes=") in [
        (p, (r or "")[:6]) for p, r in srv.requests
    ]
    raw = repo / "data" / "raw"
    monkeypatch.chdir(repo)  # where the prepare rule's marker (data/prepared/) vouches for them
    x, _, src = mnist.load_mnist({"source": "real", "path": str(raw / "mnist")})
    assert src == "real" and x.shape == (10, 28, 28)  # pinned checksums (the block's overrides)
    assert (
        cifar10.load_cifar10({"source": "real", "path": str(raw / "cifar-10-batches-py")})[0].shape[
            0
        ]
        == 18
    )
    inter = repo / "results" / "swanberg2025" / "intermediate"
    for ds, rows in (("acs", 200), ("fire", 270)):  # fire: the complete rows of the export
        info = json.loads((inter / f"marginals_{ds}_dataset.json").read_text())
        # real data is one world (the stand-in's worlds are pre-registered draws of a synthetic one)
        assert info["source"] == "real" and len(info["worlds"]) == 1, info
        assert info["worlds"][0]["info"]["rows_used"] == rows, info
    prov = json.loads((repo / "results" / "swanberg2025" / "fig2a.json").read_text())
    assert prov["data_sources"]["pii_names (Enron maildir)"] == "real", prov["data_sources"]
    assert not list(raw.rglob("*.part"))
    # a second run downloads nothing: every prepared file is up to date
    code, out = _smk(repo, "-n", *targets, blocks=blocks, configfile=no_gpt2)
    assert code == 0 and "Nothing to be done" in out, out


def test_checksum_mismatch_fails_and_leaves_no_file(repo):
    srv, files = _serve(["mnist"])
    block = _real(files, srv, "mnist")
    block["checksums"]["t10k-labels-idx1-ubyte.gz"] = "md5:" + "0" * 32
    with srv:
        code, out = _smk(repo, "prepare_mnist", blocks={"mnist": block})
    assert code != 0
    assert (
        "expected " + "0" * 32 in out
        and md5(files["mnist"]["t10k-labels-idx1-ubyte.gz"])[4:] in out
    )
    assert not (repo / "data" / "raw" / "mnist" / "t10k-labels-idx1-ubyte").exists()
    assert not list((repo / "data" / "raw" / "mnist").glob("t10k-labels*"))


def test_offline_fails_with_the_clear_message(repo):
    base = _dead_url()
    block = {"source": "real", "urls": {"cifar-10-python.tar.gz": f"{base}/cifar-10-python.tar.gz"}}
    code, out = _smk(repo, "prepare_cifar10", blocks={"cifar10": block})
    assert code != 0
    for part in (
        "could not download",
        "offline",
        "place it by hand",
        "c58f30108f718f92721af3b95e74349a",
        "data/raw/cifar-10-python.tar.gz",
    ):
        assert part in out, out


def test_hand_placed_archive_is_used_without_network(repo):
    files = BUILDERS["cifar10"]()
    (repo / "data" / "raw").mkdir(parents=True)
    (repo / "data" / "raw" / "cifar-10-python.tar.gz").write_bytes(files["cifar-10-python.tar.gz"])
    block = {"source": "real", **overrides(files, _dead_url())}  # any download would fail
    code, out = _smk(repo, "prepare_cifar10", blocks={"cifar10": block})
    assert code == 0, out
    path = repo / "data" / "raw" / "cifar-10-batches-py"
    assert cifar10.load_cifar10({"source": "real", "path": str(path)})[0].shape == (18, 32, 32, 3)


def test_hand_placed_prepared_files_are_used_without_network(repo):
    folder = repo / "data" / "raw" / "mnist"
    folder.mkdir(parents=True)
    for name, data in BUILDERS["mnist"]().items():
        (folder / name).write_bytes(data)  # the loader reads the .gz files as they are
    block = {"source": "real", "urls": {"train-images-idx3-ubyte.gz": f"{_dead_url()}/x.gz"}}
    code, out = _smk(repo, "-n", "xu2022", blocks={"mnist": block})
    assert code == 0 and "xu2022_train_mnist_wgangp" in _planned(out), out
    code, out = _smk(repo, "prepare_mnist", blocks={"mnist": block})  # offline: nothing to fetch
    assert code == 0, out
    assert json.loads((repo / "data" / "prepared" / "mnist.json").read_text())["downloads"] == {}


@pytest.mark.parametrize("force", [["--forcerun", "prepare_acs"], ["--forceall"]])
def test_forced_prepare_offline_keeps_the_hand_placed_file(repo, force):
    """Issue 32's data loss: a real file placed by hand where the docs say, then a forced prepare
    rule offline. Snakemake deletes a job's outputs before it runs; the data file is not one."""
    csv = repo / "data" / "raw" / "acs" / "2018" / "1-Year" / "psam_p06.csv"
    csv.parent.mkdir(parents=True)
    csv.write_bytes(b"placed by hand\n")
    block = {"source": "real", "urls": {"csv_pca.zip": f"{_dead_url()}/csv_pca.zip"}}
    for _ in range(2):  # the second run finds the marker and deletes it first
        code, out = _smk(repo, "prepare_acs", *force, blocks={"acs": block})
        assert code == 0, out
        assert csv.read_bytes() == b"placed by hand\n"
    marker = json.loads((repo / "data" / "prepared" / "acs.json").read_text())
    assert [{k: e[k] for k in ("path", "origin", "size", "verified")} for e in marker["files"]] == [
        {
            "path": "data/raw/acs/2018/1-Year/psam_p06.csv",
            "origin": "in place before this preparation",
            "size": len(b"placed by hand\n"),
            "verified": False,
        }
    ]


def test_auto_downloads_only_with_download_true(repo, tmp_path_factory):
    code, out = _smk(repo, "-n", "xu2022")
    assert (
        code == 0 and _planned(out) and not any(r.startswith("prepare_") for r in _planned(out))
    ), out
    cfg = tmp_path_factory.mktemp("cfg") / "download.yaml"
    tiny = yaml.safe_load((repo / "config" / "tiny.yaml").read_text())
    cifar = {**tiny["xu2022"]["data"]["cifar10"], "source": "auto", "download": True}
    cfg.write_text(
        yaml.safe_dump({"xu2022": {"data": {**tiny["xu2022"]["data"], "cifar10": cifar}}})
    )
    code, out = _smk(repo, "-n", "xu2022", configfile=cfg)
    assert (
        code == 0 and "prepare_cifar10" in _planned(out) and "prepare_mnist" not in _planned(out)
    ), out
