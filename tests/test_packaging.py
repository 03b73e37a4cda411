"""Packaging: pyproject.toml and environment.yml list the same dependencies, constraints.txt pins
them, the core install needs neither torch nor Snakemake, and (slow) a wheel installed in a fresh
virtual environment runs ``privrisk explain`` and ``privrisk config FILE`` away from the checkout."""

import os
import re
import subprocess
import sys
import tomllib
import venv

import pytest
import yaml

from tests.conftest import REPO

#: what only the pipeline needs: never in the core install
PIPELINE_ONLY = {"torch", "snakemake", "opacus", "mlxtend"}


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _everything(proj) -> set[str]:
    """The core, the pipeline and the test extra (what `pip install -e ".[test]"` installs)."""
    extras = proj["optional-dependencies"]
    names = {_name(r) for r in proj["dependencies"]}
    names |= {_name(r) for r in extras["pipeline"]} | {_name(r) for r in extras["test"]}
    return names - {"privrisk"}


def test_the_test_extra_installs_everything_and_the_core_no_pipeline():
    proj = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "privrisk[pipeline]" in proj["optional-dependencies"]["test"]
    core = {_name(r) for r in proj["dependencies"]}
    assert not core & PIPELINE_ONLY, core & PIPELINE_ONLY
    assert PIPELINE_ONLY <= {_name(r) for r in proj["optional-dependencies"]["pipeline"]}


def test_environment_matches_pyproject():
    proj = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = _everything(proj)
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = {_name(r) for r in pip if not r.startswith("-e")}
    assert wanted == listed, (
        f"only in pyproject: {wanted - listed}; only in environment.yml: {listed - wanted}"
    )


def test_constraints_pin_every_declared_dependency():
    """constraints.txt (the lock file CI installs with) pins each dependency to one version."""
    proj = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = _everything(proj) | {_name(r) for r in proj["optional-dependencies"]["docs"]}
    pinned = {
        _name(line)
        for line in (REPO / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#") and "==" in line
    }
    assert wanted <= pinned, f"not pinned: {wanted - pinned}"


def test_license_matches_pyproject():
    proj = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert proj["license"] == "MIT" and (REPO / "LICENSE").read_text().startswith("MIT License")


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


@pytest.mark.slow
def test_wheel_runs_away_from_the_checkout_without_torch(tmp_path):
    """Build the wheel, install it non-editable into a fresh venv (its dependencies through pip's
    configured index or cache, pinned by constraints.txt), and run the core commands from a folder
    outside the checkout with no PYTHONPATH: schemas and notes come from the package data."""
    dist = tmp_path / "dist"
    built = _run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)],
        cwd=tmp_path,
    )
    if built.returncode != 0 and "No module named build" in built.stderr:
        pytest.skip("the build package is not installed (pip install -e '.[test]')")
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("privrisk-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py, pip = env_dir / "bin" / "python", [str(env_dir / "bin" / "python"), "-m", "pip"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    inst = _run([*pip, "install", "-q", "-c", str(REPO / "constraints.txt"), str(wheel)], env=env)
    if inst.returncode != 0 and re.search(r"No matching distribution|Could not find", inst.stderr):
        pytest.skip(f"no package index or cache for the core dependencies: {inst.stderr[-300:]}")
    assert inst.returncode == 0, inst.stderr[-2000:]
    listed = {_name(line.split("==")[0]) for line in _run([*pip, "freeze"], env=env).stdout.split()}
    assert "privrisk" in listed and not listed & PIPELINE_ONLY, listed & PIPELINE_ONLY

    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "my.yaml").write_text((REPO / "config" / "config.yaml").read_text())
    where = _run([str(py), "-c", "import privrisk; print(privrisk.__file__)"], cwd=work, env=env)
    assert str(env_dir) in where.stdout and str(REPO) not in where.stdout
    # every paper's quoted numbers and their schema are package data (privrisk.contract.quoted)
    n_quoted = "from privrisk.contract import quoted; print(sum(map(len, map(quoted.load, quoted.papers()))))"
    got = _run([str(py), "-c", n_quoted], cwd=work, env=env)
    assert got.returncode == 0 and int(got.stdout) == 52, got.stderr[-2000:]
    exe = env_dir / "bin" / "privrisk"
    card = _run([str(exe), "explain", "--epsilon", "3", "--prior", "0.1"], cwd=work, env=env)
    assert card.returncode == 0 and "RECONSTRUCTION" in card.stdout, card.stderr[-2000:]
    ok = _run([str(exe), "config", "my.yaml"], cwd=work, env=env)
    assert ok.returncode == 0 and "config valid" in ok.stdout, ok.stderr[-2000:]
    assert "xu2022" in ok.stdout  # every paper found in the installed package
    (work / "bad.yaml").write_text("thudi2022: {fig2: {epsilons: [-1]}}\n")
    bad = _run([str(exe), "config", "my.yaml", "bad.yaml"], cwd=work, env=env)
    assert bad.returncode != 0 and "thudi2022.fig2.epsilons[0]" in bad.stderr
    assert "Traceback" not in bad.stderr
