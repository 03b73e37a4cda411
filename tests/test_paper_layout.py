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
* a figure module imports no other figure module (what figures share is in ``common.py``);
* a figure module chooses no verdict rule: the rules of :mod:`privrisk.contract.verdicts` and the
  ledger's rows are called from ``claims*.py``, the figure passes the numbers;
* no paper imports or uses a ``_``-prefixed (private) name of a module outside its own package.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from privrisk.contract.verdicts import exact, rules, verdict
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


#: the decision rules a figure module must not call (claims*.py chooses them): every public
#: function of the verdicts' rule modules
RULES = {
    name
    for mod in (rules, exact, verdict)
    for name, f in inspect.getmembers(mod, inspect.isfunction)
    if f.__module__ == mod.__name__ and not name.startswith("_")
}
#: the ledger's row makers, called from claims*.py only
ROW_MAKERS = {"judged", "numeric"}


def _rule_calls(tree: ast.Module) -> list[str]:
    """Where ``tree`` names a verdict rule (``V.greater`` with ``V`` the verdicts package, called or
    passed on as in ``decide(V.greater, …)``, or ``greater`` imported from it) or calls a ledger
    row maker (``LEDGER.judged(...)``). A paper's own claims function of the same name
    (``paper_claims.below``) is the claims module's choice."""
    verdicts, direct = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.endswith("verdicts") or ".verdicts." in f".{node.module}.":
                direct |= {a.asname or a.name for a in node.names if a.name in RULES}
            if node.module.endswith("contract"):
                verdicts |= {a.asname or a.name for a in node.names if a.name == "verdicts"}
    found = []
    for node in ast.walk(tree):
        # a rule named at all (called, or passed to a helper that calls it: decide(V.greater, …))
        rule = isinstance(node, ast.Name) and node.id in direct
        rule |= isinstance(node, ast.Attribute) and node.attr in RULES and _base(node) in verdicts
        f = node.func if isinstance(node, ast.Call) else None
        row = isinstance(f, ast.Attribute) and f.attr in ROW_MAKERS and _base(f) == "LEDGER"
        if rule or row:
            found.append(f"{ast.unparse(f if row else node)} (line {node.lineno})")
    return found


@pytest.mark.parametrize("key", discovery.paper_keys())
def test_figure_modules_choose_no_verdict_rule(key):
    found = {
        name: calls
        for name, tree in _modules(key).items()
        if name.startswith("figures") and (calls := _rule_calls(tree))
    }
    assert not found, (
        f"{key}: figure modules call verdict rules or write ledger rows: {found}; choose the rule "
        "in claims*.py and pass it the numbers"
    )


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _base(node: ast.expr) -> str:
    """The name an attribute chain starts from (``mace`` in ``mace._f`` or ``a.b.c``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _private_uses(tree: ast.Module, key: str) -> list[str]:
    """Where a module of paper ``key`` imports a ``_``-prefixed name from outside its own package
    (``from ...estimators.mace import _f``, ``from ...estimators import _mace``), or reads one as an
    attribute of a name it imported from outside (``mace._f(...)``)."""
    own = f"privrisk.papers.{key}"
    found, outside = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 or (
                node.level == 0 and (module == own or module.startswith(own + "."))
            ):
                continue  # the paper's own package
            for part in module.split("."):
                if _private(part):
                    found.append(f"from {module} (line {node.lineno})")
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"import of {alias.name} (line {node.lineno})")
                outside.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == own or alias.name.startswith(own + "."):
                    continue
                if any(_private(p) for p in alias.name.split(".")):
                    found.append(f"import {alias.name} (line {node.lineno})")
                outside.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and _base(node) in outside:
            found.append(f"{ast.unparse(node)} (line {node.lineno})")
    return found


@pytest.mark.parametrize("key", discovery.paper_keys())
def test_no_paper_uses_a_private_name_from_outside_its_package(key):
    found = {
        name: uses for name, tree in _modules(key).items() if (uses := _private_uses(tree, key))
    }
    assert not found, (
        f"{key} uses private names of the library: {found}; make the function public there "
        "(a name without a leading _) and call that"
    )


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
    # a figure module that decides, and a paper that reaches into the library's private names
    decides = ast.parse(
        "from ...contract import verdicts as V\nfrom ...contract.verdicts import below as B\n"
        "v = V.greater(d, what='x')\nrow = LEDGER.judged(verdict=B(x, 1))\n"
        "w = C.decide(V.at_least, d)\nok = paper_claims.below(x) + V.Estimate(1, se=0)\n"
    )
    assert sorted(c.split()[0] for c in _rule_calls(decides)) == [
        "B",
        "LEDGER.judged",
        "V.at_least",
        "V.greater",
    ]
    private = ast.parse(
        "from ...estimators import mace\nfrom ...estimators.mace import _f, dp_bound\n"
        "from ...core import _hidden\nimport privrisk.estimators.mace as M\n"
        "from .claims import _own\nfrom . import common as K\n"
        "x = mace._f(1, 2, 0.5) + M._counts + K._mine + _own() + mace.__name__\n"
    )
    uses = _private_uses(private, "x")
    assert len(uses) == 4 and "mace._f (line 7)" in uses and "M._counts (line 7)" in uses, uses
    assert _private_uses(ast.parse("from privrisk.papers.x.claims import _own\n"), "x") == []
