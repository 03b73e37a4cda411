"""workflow/envs/privrisk.yaml, the rules' conda environment, is pinned to constraints.txt and has
no path in it (Snakemake copies the file into --conda-prefix, where `-e ../..` would break).

Not executed here (no conda on the test machines): this checks the file, not an installation.
"""

import re
import tomllib

import yaml

from tests.conftest import REPO

ENV = REPO / "workflow" / "envs" / "privrisk.yaml"


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pins() -> dict[str, str]:
    lines = (REPO / "constraints.txt").read_text().splitlines()
    return {
        _name(x): x.split("==", 1)[1].strip() for x in lines if "==" in x and not x.startswith("#")
    }


def _env():
    env = yaml.safe_load(ENV.read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    return env, conda, pip


def test_every_pip_requirement_is_pinned_to_constraints():
    _, _, pip = _env()
    pins = _pins()
    for req in pip:
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][A-Za-z0-9.+\-]*", req), (
            f"not an exact pin: {req!r}"
        )
        name, version = req.split("==")
        assert pins.get(_name(name)) == version, (
            f"{req} but constraints.txt has {pins.get(_name(name))}"
        )


def test_every_runtime_dependency_is_there_and_nothing_is_a_path():
    env, conda, pip = _env()
    runtime = {
        _name(r)
        for r in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    }
    # snakemake is the host running the jobs; its scripts find it through Snakemake's search path
    assert runtime - {"snakemake"} <= {_name(r) for r in pip}
    assert not any(r.startswith("-") or "/" in r or r.startswith(".") for r in pip)
    assert env["channels"] == ["conda-forge"]
    assert "python=3.11" in conda  # the Python of constraints.txt ("pip freeze ... Python 3.11")
    assert "Python 3.11" in (REPO / "constraints.txt").read_text().splitlines()[0]
