"""The privrisk command: help, version, sub-command names, config merging, data status."""

import subprocess
import sys

import pytest

from privrisk import __version__
from privrisk.pipeline import cli, config
from tests.conftest import REPO


def test_data_status_names_every_block_and_its_resolution(monkeypatch):
    cfg = config.load(REPO / "config/config.yaml")
    lines = cli.data_status(cfg)
    assert any(line.startswith("xu2022.data.mnist: source auto -> bundled-real") for line in lines)
    assert any(line.startswith("swanberg2025.data.acs: source auto -> standin") for line in lines)
    cfg["xu2022"]["data"]["cifar10"]["source"] = "real"
    assert any("cifar10: source real -> UNAVAILABLE" in line for line in cli.data_status(cfg))


def test_data_status_says_why_real_files_are_unverified(monkeypatch, tmp_path):
    """A real file placed by hand, with no preparation that checked it: real-unverified, why."""
    monkeypatch.chdir(tmp_path)  # no data/prepared marker here
    placed = tmp_path / "fire.csv"
    placed.write_text("a,b\n1,2\n")
    cfg = config.load(REPO / "config/config.yaml")
    cfg["swanberg2025"]["data"]["fire"]["path"] = str(placed)
    (line,) = [x for x in cli.data_status(cfg) if x.startswith("swanberg2025.data.fire")]
    assert "source auto -> real-unverified (" in line and "1/1" in line, line


def test_help_lists_every_command_with_one_line(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "``" not in out and "--version" in out
    for name, (text, _) in cli.COMMANDS.items():
        assert f"  {name}" in out and text in out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"privrisk {__version__}"
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_every_command_help_names_itself(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([command, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: privrisk {command}")


def test_config_merges_files_over_the_defaults_as_snakemake_does(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    # paper.yaml alone lacks required keys (seed, ...): valid only over config/config.yaml
    assert cli.main(["config", "config/paper.yaml"]) == 0
    assert (
        "config/config.yaml + config/paper.yaml (merged in this order)" in capsys.readouterr().out
    )
    assert cli.main(["config", "--no-defaults", "config/paper.yaml"]) == 2
    assert "required property" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("scale: huge\n")
    assert cli.main(["config", str(bad)]) == 2
    assert "config key scale" in capsys.readouterr().err
    later = tmp_path / "later.yaml"
    later.write_text("scale: quick\n")
    assert cli.main(["config", str(bad), str(later)]) == 0  # the later file overrides
    assert cli.main(["config", "--readme"]) == 0
    assert capsys.readouterr().out.endswith(config.readme())


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (None, "no such file"),
        ("seed: [1, 2\n", "not valid YAML at line 2"),
        ("- just\n- a list\n", "must be a mapping of keys"),
        (b"\xff\xfe\x00garbage", "not UTF-8 text (byte 0)"),
    ],
)
def test_a_broken_config_file_is_one_line_naming_it(tmp_path, capsys, text, needle):
    path = tmp_path / "broken.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text)
    for command in ("config", "data"):
        assert cli.main([command, str(path)]) == 2
        err = capsys.readouterr().err
        assert needle in err and str(path) in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1, err


def test_console_entry_point_runs_as_a_module():
    proc = subprocess.run(
        [sys.executable, "-m", "privrisk", "--version"], capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0 and proc.stdout.strip() == f"privrisk {__version__}", proc.stderr
