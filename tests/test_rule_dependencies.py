"""What Snakemake reruns after an edit, on a copy of the repository.

The copy's outputs are marked up to date once with ``snakemake --touch`` (nothing is computed), then
each test makes a source file newer (and edits its content where checksums matter), ``snakemake -n``
must list exactly the rules that depend on it, and the file is put back as it was:
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

from privrisk.pipeline import config, workflow
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


@pytest.fixture(scope="module")
def up_to_date(repo_copy, registries) -> Path:
    """The copy with every output marked up to date, once for the module: ``--touch`` orders
    mtimes along the DAG but creates nothing. Each test then edits one source file and puts it
    back exactly (content and mtime, :func:`_planned_after`), so the copy is up to date again."""
    for rel in _all_outputs(registries):
        (repo_copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo_copy / rel).touch()
    _smk(repo_copy, "--touch")
    assert _planned(repo_copy) == set(), "outputs not up to date after --touch"
    return repo_copy


def _planned_after(path: Path, *, content_edit: bool) -> set[str]:
    """The rules a dry run would run once ``path`` is newer than every output, with its content
    changed too when ``content_edit`` (Snakemake compares checksums where it recorded them, so a
    bare touch can prove nothing there). The file's content and times are restored afterwards."""
    root = next(p for p in path.parents if (p / "Snakefile").is_file())
    original, times = path.read_bytes(), path.stat()
    try:
        if content_edit:
            path.write_bytes(original + b"\n# a content edit made by test_rule_dependencies\n")
        later = time.time() + 5
        os.utime(path, (later, later))
        return _planned(root)
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))


@pytest.fixture(scope="module")
def registries(repo_copy):
    cfg = config.load(*[repo_copy / c for c in TINY])
    return {p: workflow.load_registry(p, cfg) for p in workflow.PAPERS}


GATHER = {"all", "gather_all_claims", "gather_paper_claims", *workflow.PAPERS}


def test_plotting_edit_reruns_no_step(up_to_date, registries):
    planned = _planned_after(up_to_date / "src/privrisk/contract/plotting.py", content_edit=False)
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


def test_step_module_edit_reruns_its_steps_and_their_figures_only(up_to_date, registries):
    with_steps = {p: r for p, r in registries.items() if r.steps}
    if not with_steps:
        pytest.skip("no paper declares steps yet")
    for reg in with_steps.values():
        module = reg.steps[0].func.split(":")[0]
        # the copy's file: code_inputs resolves against the imported privrisk, so map the path
        rel = workflow._module_file(module).relative_to(workflow.PACKAGE_DIR)
        path = up_to_date / "src/privrisk" / rel
        expected = _expected_after_editing(reg, workflow.PACKAGE_DIR / rel)
        planned = _planned_after(path, content_edit=False) - GATHER
        assert planned == expected, (
            f"editing {rel}: planned {sorted(planned)}, expected {sorted(expected)}"
        )


def test_content_edit_of_one_paper_schedules_no_job_of_another(up_to_date, registries):
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
            planned = _planned_after(up_to_date / "src/privrisk" / rel, content_edit=True)
            others = sorted(r for r in planned - GATHER if rule_paper.get(r) != paper)
            assert not others, f"editing {rel} schedules other papers' jobs: {others}"
    planned = _planned_after(up_to_date / "src/privrisk/pipeline/cli.py", content_edit=True)
    assert planned == set(), f"editing cli.py schedules {sorted(planned)}"
    # every edit above was put back exactly: the copy is up to date again
    assert _planned(up_to_date) == set()
