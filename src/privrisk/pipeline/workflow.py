"""The pipeline side of the registry: load each paper's declarations and give the rule loop
(``workflow/rules/registry.smk``) its params, data inputs and code inputs.

The declaration types and paths live in the core (:mod:`privrisk.core.declarations`,
:mod:`privrisk.core.paths`), so that a paper's registry imports them without importing this
module; they are re-exported here for the rule files.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..core.declarations import (  # noqa: F401  (re-exported for workflow/rules and the tests)
    Figure,
    Out,
    Registry,
    RegistryError,
    Resources,
    Shards,
    Step,
    _Declaration,
    shard_groups,
    shard_input,
)
from ..core.discovery import files as paper_files
from ..core.discovery import paper_keys, registry_module, search_path
from ..core.paths import (  # noqa: F401
    artifact,
    benchmark_path,
    figure_outputs,
    log_path,
)

#: the privrisk package (this module lives in its pipeline subpackage)
PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: the papers found when this module was imported (:func:`paper_keys` looks again)
PAPERS = paper_keys()


# --- loading declarations ------------------------------------------------------------------------


def _declared(value: Sequence | Callable[[dict], Sequence], section: dict) -> tuple:
    return tuple(value(section) if callable(value) else value)


def load_registry(paper: str, config: Mapping[str, Any]) -> Registry:
    """The paper's declarations (``privrisk.papers.<paper>.registry``) for this config."""
    module = registry_module(paper)
    section = dict(config.get(paper, {}))
    return Registry(
        paper,
        _declared(getattr(module, "STEPS", ()), section),
        _declared(getattr(module, "FIGURES", ()), section),
    )


def paper_params(config: Mapping[str, Any], key: str, fig: str) -> dict[str, Any]:
    """``config[key]['common']`` overlaid by ``config[key][fig]``, plus the global seed."""
    section = config.get(key, {})
    params = copy.deepcopy(section.get("common", {}))
    params.update(copy.deepcopy(section.get(fig, {})))
    params.setdefault("seed", config.get("seed", 0))
    return params


def _lookup(section: Mapping[str, Any], dotted: str, where: str) -> Any:
    node: Any = section
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise RegistryError(f"{where}: config key {dotted!r} not found")
        node = node[part]
    return copy.deepcopy(node)


def params(config: Mapping[str, Any], paper: str, decl: _Declaration) -> dict[str, Any]:
    """The params a step or figure function receives (also recorded in provenance)."""
    out = (
        paper_params(config, paper, decl.section)
        if decl.section
        else {"seed": config.get("seed", 0)}
    )
    section = config.get(paper, {})
    for name, dotted in decl.config.items():
        out[name] = _lookup(section, dotted, f"{paper}.{decl.name}")
    out.update(copy.deepcopy(dict(decl.fixed)))
    if decl.device:
        out["device"] = config.get("device", "auto")
    if isinstance(decl, Step):
        # torch's numbers depend on its thread count (run.py applies it): as a param, a change
        # reruns the steps, and with them the figures that read their artifacts
        out["torch_threads"] = config.get("torch_threads", 1)
    return out


def data_inputs(config: Mapping[str, Any], paper: str, decl: _Declaration) -> list[str]:
    """Real raw files a step or figure will read (empty when it falls back to a stand-in)."""
    from ..data import sources

    blocks = config.get(paper, {}).get("data", {})
    files: list[str] = []
    for name in decl.data:
        if name not in blocks:
            raise RegistryError(f"{paper}.{decl.name}: no data block {paper}.data.{name} in config")
        files += sources.rule_inputs(name, blocks[name])
    return files


# --- jobs: what the rule loop makes of the declarations ------------------------------------------


class ShardError(RegistryError):
    """A sharded step's run count or the config's ``runs_per_job`` is unusable."""


@dataclass(frozen=True)
class Job:
    """One rule of the pipeline, as ``workflow/rules/registry.smk`` writes it.

    ``kind`` is ``step`` (a step in one job), ``shard`` (runs ``first``..``stop - 1`` of a sharded
    step), ``pool`` (a sharded step's own outputs from its shards) or ``figure``; ``func`` is what
    ``workflow/scripts/run.py`` calls (a pool job: the step's ``Shards.pool``). ``priority`` is
    Snakemake's: a figure 0, a step (its shards and pool too) 1 + the number of steps made from
    it, so that of the jobs ready at a time the ones others wait on start first (a data step that
    five attacks read must not start last, leaving one core idle at the end).
    """

    rule: str
    name: str
    kind: str
    func: str
    decl: _Declaration
    inputs: dict[str, str]
    outputs: dict[str, str]
    params: dict[str, Any]
    data: list[str]
    resources: Resources
    log: str
    benchmark: str
    runs: tuple[int, int] | None = field(default=None)
    priority: int = 0


def runs_per_job(config: Mapping[str, Any]) -> int | None:
    """The config's ``runs_per_job`` (None: every run of a model in one job)."""
    value = config.get("runs_per_job")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ShardError(f"config key runs_per_job: {value!r} is not an integer >= 1 (or null)")
    return value


def _pop(params: dict[str, Any], dotted: str, where: str) -> int:
    """Remove and return the run count at ``dotted`` in ``params``."""
    *parents, last = dotted.split(".")
    node: Any = params
    for part in parents:
        node = node.get(part) if isinstance(node, Mapping) else None
    if not isinstance(node, dict) or last not in node:
        raise ShardError(f"{where}: Shards.count {dotted!r} is not among the step's params")
    count = node.pop(last)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ShardError(f"{where}: the run count {dotted} = {count!r} is not an integer >= 1")
    return count


def shard_ranges(count: int, per_job: int | None) -> list[tuple[int, int]]:
    """Consecutive ``(first, stop)`` run ranges of at most ``per_job`` runs covering ``count`` runs
    (one range when ``per_job`` is None). The ranges start at multiples of ``per_job`` whatever
    ``count`` is, so raising ``count`` adds shards and leaves the full ones as they were (their
    params hold no run count: they are not rerun)."""
    step = count if per_job is None else per_job
    return [(a, min(a + step, count)) for a in range(0, count, step)]


def shard_tag(first: int, stop: int) -> str:
    """``runs0-4``: the name part of the shard of runs 0..4."""
    return f"runs{first}-{stop - 1}"


def shard_outputs(reg: Registry, step: Step, first: int, stop: int) -> dict[str, str]:
    """Where the shard of runs ``first``..``stop - 1`` writes the step's outputs (same file names,
    in a folder of its own under ``intermediate/shards/``)."""
    tag = shard_tag(first, stop)
    return {k: artifact(reg.paper, f"shards/{tag}/{f}") for k, f in step.outputs.items()}


#: resources of a pool job: it reads and writes the shards' files, trains nothing
POOL_RUNTIME = 10


def jobs(reg: Registry, config: Mapping[str, Any], scale: str) -> list[Job]:
    """Every rule of one paper: one per figure and per unsharded step; per sharded step (a
    :class:`Shards` declaration and ``runs_per_job`` below its run count) one job per shard and
    one pool job, whose outputs are the step's own (what the figures read)."""
    paper, per_job = reg.paper, runs_per_job(config)
    made_from = [{u.name for u in reg.upstream(s)} for s in reg.steps]
    out: list[Job] = []
    for decl in (*reg.steps, *reg.figures):
        res = decl.resources_for(scale)
        prio = 1 + sum(decl.name in ups for ups in made_from) if isinstance(decl, Step) else 0
        common = dict(
            decl=decl, resources=res, data=data_inputs(config, paper, decl), priority=prio
        )
        prm = params(config, paper, decl)
        base = Job(
            rule=reg.rule_name(decl),
            name=decl.name,
            kind="step" if isinstance(decl, Step) else "figure",
            func=decl.func,
            inputs=reg.inputs(decl),
            outputs=reg.step_outputs(decl) if isinstance(decl, Step) else {},
            params=prm,
            log=log_path(paper, decl.name),
            benchmark=benchmark_path(paper, decl.name),
            **common,
        )
        if not isinstance(decl, Step) or decl.shards is None:
            out.append(base)
            continue
        shard_params = copy.deepcopy(prm)
        count = _pop(shard_params, decl.shards.count, f"{paper}.{decl.name}")
        ranges = shard_ranges(count, per_job)
        if len(ranges) == 1:
            out.append(base)
            continue
        pool_inputs: dict[str, str] = {}
        for i, (a, b) in enumerate(ranges):
            tag = shard_tag(a, b)
            files = shard_outputs(reg, decl, a, b)
            pool_inputs |= {shard_input(i, k): f for k, f in files.items()}
            out.append(
                Job(
                    rule=f"{base.rule}_{tag.replace('-', '_')}",
                    name=f"{decl.name}.{tag}",
                    kind="shard",
                    func=decl.func,
                    inputs=base.inputs,
                    outputs=files,
                    params={**copy.deepcopy(shard_params), "shard": {"first": a, "stop": b}},
                    log=log_path(paper, f"{decl.name}.{tag}"),
                    benchmark=benchmark_path(paper, f"{decl.name}.{tag}"),
                    runs=(a, b),
                    **common,
                )
            )
        out.append(
            Job(
                rule=base.rule,
                name=decl.name,
                kind="pool",
                func=decl.shards.pool,
                decl=decl,
                priority=prio,
                inputs=pool_inputs,
                outputs=base.outputs,
                params=prm,
                data=[],
                resources=Resources(mem_mb=res.mem_mb, runtime=POOL_RUNTIME),
                log=base.log,
                benchmark=base.benchmark,
            )
        )
    return out


# --- code dependencies ---------------------------------------------------------------------------


@cache
def _module_file(module: str) -> Path | None:
    parts = module.split(".")[1:]
    if not parts:
        return PACKAGE_DIR / "__init__.py"
    rel = Path(*parts)
    # a paper package may sit in a directory of PRIVRISK_PAPERS (privrisk.core.discovery)
    roots = [PACKAGE_DIR] + (
        [Path(d) for d in search_path()[1:]] if parts[0] == "papers" and len(parts) > 1 else []
    )
    for root in roots:
        sub = rel if root == PACKAGE_DIR else Path(*parts[1:])
        for cand in (root / sub.with_suffix(".py"), root / sub / "__init__.py"):
            if cand.is_file():
                return cand
    return None


def _imports(path: Path, module: str) -> frozenset[str]:
    """privrisk modules imported by the module at ``path`` (absolute or relative imports)."""
    stat = path.stat()
    return _parsed_imports(path, module, stat.st_mtime_ns, stat.st_size)


@cache
def _parsed_imports(path: Path, module: str, mtime_ns: int, size: int) -> frozenset[str]:
    """:func:`_imports`, parsed once per file version: every rule's :func:`code_inputs` walks the
    same modules, and parsing them again for each of the ~80 rules took 11 s of every Snakemake
    start (``mtime_ns`` and ``size`` in the key: a file edited in the same process is read again).
    """
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
    return frozenset(found)


def code_inputs(*modules: str, root: str | Path | None = None) -> list[str]:
    """Source files of ``modules`` and every privrisk module they import, transitively.

    Rules list these as ``input: code=...`` so that editing the library code a step or figure
    depends on reruns it (and nothing else); Snakemake's own code trigger sees only the script.
    Importing ``privrisk.a.b`` runs ``privrisk/__init__.py`` and ``privrisk/a/__init__.py`` too,
    so package ``__init__`` files count. Paths are relative to ``root`` when given.
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
        parent = mod.rpartition(".")[0]
        if parent and parent not in seen:
            todo.append(parent)
    files = sorted(set(seen.values()))
    if root is not None:
        files = [p.relative_to(Path(root).resolve()) for p in files]
    return [str(p) for p in files]


#: the generic report caption (relative to ``workflow/rules/``): it shows the figure's docstring
#: (its one-line title) and points to the caption of record in the provenance record
GENERIC_CAPTION = "../report/figure.rst"


def caption_path(paper: str, fig: str) -> str:
    """The figure's report caption: the generic one (the function's docstring, a one-line title,
    and where the caption of record is: the inline ``FigureResult.caption`` in the provenance
    record), unless the paper package has ``captions/<fig>.rst``, a report caption that says what
    the inline one does not (an absolute path, which Snakemake's ``report(caption=...)`` takes as
    it is)."""
    own = paper_files(paper) / "captions" / f"{fig}.rst"
    return str(own) if own.is_file() else GENERIC_CAPTION


def figure_caption(func: str) -> str:
    """The docstring of a figure function (``module:function``), read from its source without
    importing it: the generic report caption of figures that have no caption file."""
    module, _, name = func.partition(":")
    path = _module_file(module)
    if path is None:
        raise RegistryError(f"{func}: module {module!r} not found")
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return " ".join((ast.get_docstring(node) or f"{name}").split())
    raise RegistryError(f"{func}: no function {name!r} in {path.name}")
