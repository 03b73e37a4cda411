"""Shell scripts make temporary files through mktemp: a fixed name under /tmp, written as root,
can be planted beforehand as a link to any file (issue 32, ci_slice.sh)."""

import re

import pytest

from tests.conftest import REPO

FIXED = re.compile(r"/tmp/[\w.-]+")  # a literal name under /tmp (not a mktemp template's folder)


def test_no_script_writes_a_fixed_name_under_tmp():
    scripts = sorted(REPO.glob("workflow/**/*.sh"))
    assert scripts, "no shell script found"
    for script in scripts:
        for n, line in enumerate(script.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            fixed = [m for m in FIXED.findall(code) if not m.endswith("XXXXXX")]
            assert not fixed, f"{script.relative_to(REPO)}:{n}: fixed temporary name {fixed}"


def _fake(folder, name, body="exit 0"):
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def test_the_slurm_slice_removes_its_temporary_files_whatever_the_outcome(tmp_path):
    """ci_slice.sh with stand-ins for the cluster recipe and the commands it calls: whether Slurm
    cannot start (a skip), or the run through it fails, nothing it made is left in TMPDIR, and a
    cluster it started is stopped."""
    import os
    import subprocess

    recipe, bin_, tmp = tmp_path / "recipe", tmp_path / "bin", tmp_path / "tmp"
    for d in (recipe, bin_, tmp):
        d.mkdir()
    stopped = tmp_path / "stopped"
    _fake(recipe, "stop_local_slurm.sh", f"touch {stopped}")
    for name in ("sinfo", "pip", "squeue"):
        _fake(bin_, name)
    # the run through Slurm fails after writing into its working directory
    _fake(
        bin_,
        "snakemake",
        'for a; do case "$prev" in -d) mkdir -p "$a/x";; esac; prev=$a; done\nexit 1',
    )
    env = dict(os.environ, CLUSTER_RECIPE=str(recipe), TMPDIR=str(tmp))
    env["PATH"] = f"{bin_}{os.pathsep}{env['PATH']}"
    script = REPO / "workflow/profiles/slurm/ci_slice.sh"
    for start, code, said in (("exit 1", 0, "SKIPPED"), ("exit 0", 1, "did not finish")):
        _fake(recipe, "start_local_slurm.sh", start)
        proc = subprocess.run(
            ["bash", str(script)], env=env, capture_output=True, text=True, timeout=120
        )
        if "needs root" in proc.stdout:
            pytest.skip("ci_slice.sh runs only as root")
        assert proc.returncode == code and said in proc.stdout, proc.stdout + proc.stderr
        assert list(tmp.iterdir()) == [], f"left behind: {list(tmp.iterdir())}"
        assert stopped.exists() == (start == "exit 0")


def test_a_failed_doc_write_leaves_the_doc_and_no_temporary_file(tmp_path, monkeypatch, capsys):
    """`privrisk docs --write` on a full disk: one line, exit 2, the doc as it was, and no
    `.tmp` beside it (its own `_write_atomic` left one before; privrisk.core.safe_io)."""
    import errno
    import os
    import shutil

    from privrisk.contract import status
    from privrisk.pipeline import cli, docs

    for g in docs.GENERATED:
        (tmp_path / g.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / g.path, tmp_path / g.path)
    shutil.copy(REPO / status.STATUS_FILE, tmp_path / status.STATUS_FILE)
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "docs/config.md"
    page.write_text(page.read_text().replace("## ", "## edited ", 1))
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    assert cli.main(["docs", "--write"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "privrisk docs: generated doc docs/config.md: could not be written (no space left on "
        "device); it is unchanged\n"
    )
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before
