"""The layer contract (docs/development.md "Code layout", ``.importlinter``): imports point down only, papers
never import each other, and no module imports itself through others.

Why it matters to users: every rule lists the library files its function imports as code inputs
(:func:`privrisk.pipeline.workflow.code_inputs`), so an upward import makes an edit of one paper rerun
another paper's jobs. ``test_rule_dependencies.py`` checks the same on real Snakemake dry runs
after content edits (slow); these tests check it on the declarations (fast).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from privrisk.pipeline import workflow
from tests.conftest import REPO

PKG = workflow.PACKAGE_DIR
#: the pipeline layer: no rule may depend on these (an edit of the CLI or the validator reruns nothing)
PIPELINE = set((PKG / "pipeline").rglob("*.py"))


def _all_modules() -> dict[str, Path]:
    mods = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _declarations():
    for paper in workflow.PAPERS:
        module = __import__(f"privrisk.papers.{paper}.registry", fromlist=["x"])
        # every declaration any config can make: the registry's STEPS/FIGURES for the shipped
        # quick config (config-dependent declarations vary only in ε tags, not in code)
        from privrisk.pipeline import config as cfgmod

        cfg = cfgmod.load(REPO / "config/config.yaml")
        reg = workflow.load_registry(paper, cfg)
        assert module is not None
        for decl in (*reg.steps, *reg.figures):
            yield paper, decl


def test_each_rule_depends_on_its_own_paper_and_the_lower_layers_only():
    """A rule of paper A lists no file of another paper and none of the pipeline layer."""
    problems = []
    for paper, decl in _declarations():
        files = {Path(f) for f in workflow.code_inputs(decl.func)}
        papers_dir = PKG / "papers"
        other = sorted(
            str(f.relative_to(PKG))
            for f in files
            if papers_dir in f.parents
            and (papers_dir / paper) not in f.parents
            and f != papers_dir / "__init__.py"
        )
        pipeline = sorted(str(f.relative_to(PKG)) for f in files & PIPELINE)
        if other or pipeline:
            problems.append(f"{paper}.{decl.name}: {other + pipeline}")
    assert not problems, "rules depending on other papers or on the pipeline:\n" + "\n".join(
        problems
    )


def test_no_import_cycle_anywhere():
    """No privrisk module reaches itself through its imports (function-level imports included:
    they are code inputs too)."""
    mods = _all_modules()
    graph = {
        m: {i for i in workflow._imports(p, m) if i in mods and i != m} for m, p in mods.items()
    }
    # a package imports its parent's __init__ implicitly; that is not a cycle of ours
    index, low, on_stack, stack, sccs, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    assert not sccs, f"import cycles: {sccs}"


def test_import_linter_contract_is_kept():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    proc = subprocess.run([exe], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_no_module_of_the_library_imports_the_pipeline_layer():
    """Only the pipeline itself (``privrisk.pipeline``: workflow, config, config_checks, cli, docs,
    completeness, run_summary, plan) may import a module of the pipeline package."""
    mods = _all_modules()
    pipeline_mods = {
        m for m in mods if m == "privrisk.pipeline" or m.startswith("privrisk.pipeline.")
    }
    assert "privrisk.pipeline.cli" in pipeline_mods
    bad = {
        m: sorted(workflow._imports(p, m) & pipeline_mods)
        for m, p in mods.items()
        if m not in pipeline_mods and workflow._imports(p, m) & pipeline_mods
    }
    assert not bad, bad


def test_the_top_level_shows_the_layers():
    """The top level of the library holds its layers as subpackages and only the entry modules
    (``__init__``, ``__main__``), and every layer of ``.importlinter`` names packages."""
    loose = sorted(p.name for p in PKG.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert not loose, f"modules at the top level of src/privrisk (move them into a layer): {loose}"
    text = (REPO / ".importlinter").read_text()
    block = text.split("[importlinter:contract:layers]", 1)[1].split("\n[", 1)[0]
    layers = block.split("layers =", 1)[1].split()
    names = [n for n in layers if n != ":"]
    assert "privrisk.pipeline" in names and "privrisk.contract" in names, names
    not_packages = [
        n for n in names if not (PKG.parent / n.replace(".", "/") / "__init__.py").is_file()
    ]
    assert not not_packages, f"layers naming modules, not packages: {not_packages}"
