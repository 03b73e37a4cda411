"""Where a thing goes inside a paper package (CONTRIBUTING "Where a thing goes inside a paper"),
checked on the source of every shipped paper, without importing it:

* the modules are ``registry.py``, ``common.py`` (the paper's shared helpers), ``steps*.py``,
  ``figures*.py`` and ``claims*.py`` (plus ``__init__.py``);
* one ledger per paper, made in a ``claims*`` module (``LEDGER = Ledger(...)``); its key string
  is ``LEDGER.paper``;
* no ``LEDGER.qualitative(...)`` in a paper: every decision is a rule of
  :mod:`privrisk.contract.verdicts` through ``LEDGER.judged(..., verdict=...)``;
* the rows are made in the claims modules (``LEDGER.quoted`` / ``LEDGER.judged``): a figure
  module computes the numbers and calls a claims function;
* no paper module calls ``.numeric(...)``: a quoted number is data, an entry of the paper's
  ``quoted.yaml`` made into its row by ``LEDGER.quoted(claim_id, ours=...)``;
* ``PAPER`` is the registry's :class:`~privrisk.core.declarations.Paper`, assigned nowhere else;
* a figure module imports no other figure module (what figures share is in ``common.py``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from privrisk.core import discovery
from tests.conftest import REPO

#: every shipped paper and the fixture paper (CONTRIBUTING's example follows the rules too)
FOLDERS = {k: Path(str(discovery.files(k))) for k in discovery.paper_keys()} | {
    "fixture2099": REPO / "tests" / "fixture_paper" / "fixture2099"
}
PAPERS = sorted(FOLDERS)
ALLOWED = re.compile(r"^(__init__|registry|common|(steps|figures|claims)(_[a-z0-9_]+)?)\.py$")


def _modules(key: str) -> dict[str, ast.Module]:
    folder = FOLDERS[key]
    return {p.name: ast.parse(p.read_text()) for p in sorted(folder.glob("*.py"))}


def _calls(tree: ast.Module, name: str):
    """Calls of ``name(...)`` or ``<anything>.name(...)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == name) or (
                isinstance(f, ast.Attribute) and f.attr == name
            ):
                yield node


def _assigned(tree: ast.Module, name: str) -> bool:
    return any(
        isinstance(t, ast.Name) and t.id == name
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
    )


@pytest.mark.parametrize("key", PAPERS)
def test_module_names(key):
    bad = [n for n in _modules(key) if not ALLOWED.match(n)]
    assert not bad, f"{key}: modules outside the sanctioned names: {bad}"


@pytest.mark.parametrize("key", PAPERS)
def test_one_ledger_in_a_claims_module(key):
    made = [(n, c.lineno) for n, t in _modules(key).items() for c in _calls(t, "Ledger")]
    assert len(made) == 1, f"{key}: a paper makes exactly one Ledger; found {made}"
    assert made[0][0].startswith("claims"), f"{key}: the Ledger is made in {made[0][0]}"


@pytest.mark.parametrize("key", PAPERS)
def test_no_decision_written_in_the_paper(key):
    found = [(n, c.lineno) for n, t in _modules(key).items() for c in _calls(t, "qualitative")]
    assert not found, (
        f"{key}: LEDGER.qualitative at {found}: decide through a rule of "
        "privrisk.contract.verdicts and LEDGER.judged(verdict=...)"
    )


@pytest.mark.parametrize("key", PAPERS)
def test_rows_are_made_in_the_claims_modules(key):
    found = [
        (n, c.lineno)
        for n, t in _modules(key).items()
        if not n.startswith("claims")
        for name in ("quoted", "numeric", "judged")
        for c in _calls(t, name)
    ]
    assert not found, (
        f"{key}: ledger rows made at {found}: make them in a claims*.py function the figure calls "
        "(CONTRIBUTING, Where a thing goes inside a paper)"
    )


@pytest.mark.parametrize("key", PAPERS)
def test_quoted_numbers_are_data_not_numeric_calls(key):
    found = [(n, c.lineno) for n, t in _modules(key).items() for c in _calls(t, "numeric")]
    assert not found, (
        f"{key}: .numeric(...) at {found}: a quoted number is an entry of the paper's quoted.yaml "
        "made into its row by LEDGER.quoted(claim_id, ours=...) (CONTRIBUTING, Where a thing goes inside a paper)"
    )


@pytest.mark.parametrize("key", PAPERS)
def test_paper_is_the_registry_paper_only(key):
    where = [n for n, t in _modules(key).items() if _assigned(t, "PAPER")]
    assert where == ["registry.py"], f"{key}: PAPER assigned in {where}; the key is LEDGER.paper"


@pytest.mark.parametrize("key", PAPERS)
def test_figure_modules_import_no_other_figure_module(key):
    for name, tree in _modules(key).items():
        if not name.startswith("figures"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module or ""] if node.module else [a.name for a in node.names]
                bad = [m for m in targets if m.startswith("figures")]
                assert not bad, f"{key}/{name} imports {bad}: shared helpers go in common.py"


def test_the_checks_see_a_violation(tmp_path):
    """The AST helpers find what they look for (a check that cannot fail proves nothing)."""
    tree = ast.parse(
        "from .figures_x import f\nPAPER = 'x'\nLEDGER = Ledger('x')\nLEDGER.qualitative(holds=True)\n"
    )
    assert _assigned(tree, "PAPER")
    assert len(list(_calls(tree, "Ledger"))) == 1
    assert len(list(_calls(tree, "qualitative"))) == 1
    assert len(list(_calls(ast.parse("LEDGER.numeric(ours=1)"), "numeric"))) == 1
    assert not ALLOWED.match("helpers.py") and ALLOWED.match("figures_dp.py")
