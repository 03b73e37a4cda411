"""The privrisk command: ledger, data status, config validation and reference."""

from privrisk import cli, config
from tests.conftest import REPO


def test_data_status_names_every_block_and_its_resolution(monkeypatch):
    cfg = config.load(REPO / "config/config.yaml")
    lines = cli.data_status(cfg)
    assert any(line.startswith("xu2022.data.mnist: source auto -> bundled-real") for line in lines)
    assert any(line.startswith("swanberg2025.data.acs: source auto -> standin") for line in lines)
    cfg["xu2022"]["data"]["cifar10"]["source"] = "real"
    assert any("cifar10: source real -> UNAVAILABLE" in line for line in cli.data_status(cfg))


def test_config_command(tmp_path, capsys):
    assert cli.main(["config", str(REPO / "config/config.yaml")]) == 0
    assert "config valid" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("scale: huge\n")
    assert cli.main(["config", str(REPO / "config/config.yaml"), str(bad)]) == 1
    assert "config key scale" in capsys.readouterr().err
    assert cli.main(["config", "--readme"]) == 0
    assert capsys.readouterr().out == config.readme()
    assert cli.main([]) == 0
