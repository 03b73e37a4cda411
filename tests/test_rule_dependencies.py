"""What Snakemake reruns after an edit , on a copy of the repository.

The copy's outputs are marked up to date with ``snakemake --touch`` (nothing is computed), then a
source file is touched and ``snakemake -n`` must list exactly the rules that depend on it:
plotting edits rerun figures and never a step; a step module's edit reruns its steps and the
figures that read them, nothing else.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from privrisk import config, workflow
from tests.conftest import REPO, TINY, snakemake_exe

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for d in ("src", "workflow", "config"):
        shutil.copytree(REPO / d, root / d, ignore=ignore)
    shutil.copy(REPO / "Snakefile", root / "Snakefile")
    return root


def _smk(root: Path, *args: str) -> str:
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
        *[str(root / c) for c in TINY],
    ]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root / "src")),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def _planned(root: Path) -> set[str]:
    out = _smk(root, "-n", "--quiet", "rules")
    return set(re.findall(r"^(\S+)\s+\d+$", out, flags=re.M)) - {"total", "job"}


def _all_outputs(registries) -> list[str]:
    files = ["results/claims.csv", "results/claims.md"]
    for reg in registries.values():
        files += [f for s in reg.steps for f in reg.step_outputs(s).values()]
        files += [
            f
            for fig in reg.figures
            for f in workflow.figure_outputs(reg.paper, fig.name, table=fig.table).values()
        ]
        files.append(f"results/{reg.paper}/claims.csv")
    return files


def _touch_outputs_then(root: Path, source: Path, registries) -> set[str]:
    """Mark every output up to date (``--touch`` orders mtimes along the DAG but creates nothing),
    then make ``source`` newer than all of them and return the rules a dry run would run."""
    for rel in _all_outputs(registries):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).touch()
    _smk(root, "--touch")
    assert _planned(root) == set(), "outputs not up to date after --touch"
    later = time.time() + 5
    os.utime(source, (later, later))
    return _planned(root)


@pytest.fixture(scope="module")
def registries(repo_copy):
    cfg = config.load(*[repo_copy / c for c in TINY])
    return {p: workflow.load_registry(p, cfg) for p in workflow.PAPERS}


GATHER = {"all", "gather_all_claims", "gather_paper_claims", *workflow.PAPERS}


def test_plotting_edit_reruns_no_step(repo_copy, registries):
    planned = _touch_outputs_then(repo_copy, repo_copy / "src/privrisk/plotting.py", registries)
    steps = {reg.rule_name(s) for reg in registries.values() for s in reg.steps}
    figures = {reg.rule_name(f) for reg in registries.values() for f in reg.figures}
    assert planned and not planned & steps
    assert planned - GATHER <= figures


def _expected_after_editing(reg, path: Path) -> set[str]:
    """Rules of ``reg`` whose code includes ``path``, plus everything downstream of those steps."""
    hit = {s.name for s in reg.steps if str(path) in workflow.code_inputs(s.func)}
    changed = True
    while changed:  # steps reading changed steps' artifacts rerun too
        new = {s.name for s in reg.steps if any(r.step in hit for r in s.inputs.values())}
        changed = not new <= hit
        hit |= new
    figs = {
        f.name
        for f in reg.figures
        if str(path) in workflow.code_inputs(f.func)
        or any(r.step in hit for r in f.inputs.values())
    }
    return {f"{reg.paper}_{n}" for n in hit | figs}


def test_step_module_edit_reruns_its_steps_and_their_figures_only(repo_copy, registries):
    with_steps = {p: r for p, r in registries.items() if r.steps}
    if not with_steps:
        pytest.skip("no paper declares steps yet")
    for reg in with_steps.values():
        module = reg.steps[0].func.split(":")[0]
        # the copy's file: code_inputs resolves against the imported privrisk, so map the path
        rel = workflow._module_file(module).relative_to(workflow.PACKAGE_DIR)
        path = repo_copy / "src/privrisk" / rel
        expected = _expected_after_editing(reg, workflow.PACKAGE_DIR / rel)
        planned = _touch_outputs_then(repo_copy, path, registries) - GATHER
        assert planned == expected, (
            f"editing {rel}: planned {sorted(planned)}, expected {sorted(expected)}"
        )


def _planned_after_content_edit(root: Path, path: Path, registries) -> set[str]:
    """Mark every output up to date, then change ``path``'s *content* (Snakemake compares
    checksums, so a bare touch would rerun nothing and prove nothing) and dry-run."""
    original = path.read_text()
    try:
        for rel in _all_outputs(registries):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).touch()
        _smk(root, "--touch")
        assert _planned(root) == set(), "outputs not up to date after --touch"
        path.write_text(original + "\n# a content edit made by test_rule_dependencies\n")
        later = time.time() + 5
        os.utime(path, (later, later))
        return _planned(root)
    finally:
        path.write_text(original)


def test_content_edit_of_one_paper_schedules_no_job_of_another(repo_copy, registries):
    """Editing a paper's registry or a module its rules run reruns only that paper's jobs; editing
    the CLI reruns nothing (it failed at 35a50a3: 57 jobs of four papers after a one-line edit of
    the xu2022 registry)."""
    rule_paper = {
        reg.rule_name(d): p for p, reg in registries.items() for d in (*reg.steps, *reg.figures)
    }
    for paper, reg in registries.items():
        first = (*reg.steps, *reg.figures)[0]
        for module in (f"privrisk.papers.{paper}.registry", first.func.split(":")[0]):
            rel = workflow._module_file(module).relative_to(workflow.PACKAGE_DIR)
            planned = _planned_after_content_edit(
                repo_copy, repo_copy / "src/privrisk" / rel, registries
            )
            others = sorted(r for r in planned - GATHER if rule_paper.get(r) != paper)
            assert not others, f"editing {rel} schedules other papers' jobs: {others}"
    planned = _planned_after_content_edit(repo_copy, repo_copy / "src/privrisk/cli.py", registries)
    assert planned == set(), f"editing cli.py schedules {sorted(planned)}"
