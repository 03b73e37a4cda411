"""pyproject.toml and environment.yml list the same dependencies."""

import re
import tomllib

import yaml

from tests.conftest import REPO


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_matches_pyproject():
    proj = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in proj["dependencies"]} | {
        _name(r) for r in proj["optional-dependencies"]["test"]
    }
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = {_name(r) for r in pip if not r.startswith("-e")}
    assert wanted == listed, (
        f"only in pyproject: {wanted - listed}; only in environment.yml: {listed - wanted}"
    )


def test_constraints_pin_every_declared_dependency():
    """constraints.txt (the lock file CI installs with) pins each dependency to one version."""
    proj = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in proj["dependencies"]} | {
        _name(r) for r in proj["optional-dependencies"]["test"]
    }
    pinned = {
        _name(line)
        for line in (REPO / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#") and "==" in line
    }
    assert wanted <= pinned, f"not pinned: {wanted - pinned}"


def test_license_matches_pyproject():
    proj = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert proj["license"]["text"] == "MIT" and (REPO / "LICENSE").read_text().startswith(
        "MIT License"
    )
