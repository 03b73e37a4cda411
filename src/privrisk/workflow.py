"""Helpers the Snakemake rules call (kept here so they are tested like any other code)."""

from __future__ import annotations

import ast
import copy
from functools import cache
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent


def figure_outputs(key: str, fig: str, *, table: bool = False) -> dict[str, str]:
    """The named outputs of one figure (or table) rule."""
    prefix = f"results/{key}/{fig}"
    out = {"csv": f"{prefix}.csv", "json": f"{prefix}.json", "claims": f"results/{key}/claims/{fig}.csv"}
    if table:
        out |= {"md": f"{prefix}.md", "tex": f"{prefix}.tex"}
    else:
        out |= {"pdf": f"{prefix}.pdf", "png": f"{prefix}.png"}
    return out


def paper_params(config: dict[str, Any], key: str, fig: str) -> dict[str, Any]:
    """``config[key]['common']`` overlaid by ``config[key][fig]``, plus the global seed."""
    section = config.get(key, {})
    params = copy.deepcopy(section.get("common", {}))
    params.update(copy.deepcopy(section.get(fig, {})))
    params.setdefault("seed", config.get("seed", 0))
    return params


@cache
def _module_file(module: str) -> Path | None:
    parts = module.split(".")[1:]
    if not parts:
        return PACKAGE_DIR / "__init__.py"
    rel = Path(*parts)
    for cand in (PACKAGE_DIR / rel.with_suffix(".py"), PACKAGE_DIR / rel / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imports(path: Path, module: str) -> set[str]:
    """privrisk modules imported by the module at ``path`` (absolute or relative imports)."""
    pkg = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("privrisk")}
        elif isinstance(node, ast.ImportFrom):
            base = pkg[: len(pkg) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            if not mod.startswith("privrisk"):
                continue
            found.add(mod)
            found |= {f"{mod}.{a.name}" for a in node.names}  # "from . import plotting"
    return found


def code_inputs(*modules: str, root: str | Path | None = None) -> list[str]:
    """Source files of ``modules`` and every privrisk module they import, transitively.

    Figure and step rules list these as ``input: code=...`` so that editing the library code a
    figure depends on reruns that figure (and nothing else), as Snakemake does for scripts.
    Paths are relative to ``root`` (the repository) when given.
    """
    seen: dict[str, Path] = {}
    todo = [m.split(":")[0] for m in modules]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        path = _module_file(mod)
        if path is None:
            continue
        seen[mod] = path
        todo.extend(_imports(path, mod) - set(seen))
    files = sorted(set(seen.values()))
    if root is not None:
        files = [p.relative_to(Path(root).resolve()) for p in files]
    return [str(p) for p in files]
