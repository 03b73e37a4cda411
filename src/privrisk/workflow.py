"""The registry: what each paper makes, declared as data, and the helpers the rule loop calls.

Each paper package has a ``registry`` module declaring

* ``STEPS``: expensive computations (training, attacks, sweeps). A step runs
  ``func(params, inputs, outputs, threads)`` and writes exactly its named ``outputs``
  (files under ``results/<paper>/intermediate/``);
* ``FIGURES``: figures and tables. A figure runs ``func(params)`` or ``func(params, inputs)``
  and returns a :class:`privrisk.figure.FigureResult`.

Either may be a sequence or a function of the paper's config section (for declarations that
depend on config, such as one training step per ε). ``workflow/rules/registry.smk`` turns
every declaration into one Snakemake rule; nothing else about a paper is written in rule files.

Paths are made here and nowhere else: :func:`artifact`, :func:`figure_outputs`,
:func:`log_path`, :func:`benchmark_path`.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent

#: Paper keys in the order the pipeline builds and reports them.
PAPERS = ("thudi2022", "pankova2022", "lowy2024", "swanberg2025", "xu2022")


class RegistryError(ValueError):
    """A paper's declarations are inconsistent (duplicate name, unknown input, bad reference)."""


@dataclass(frozen=True)
class Resources:
    """What one job needs; the Slurm profile turns these into a job request."""

    threads: int = 1
    mem_mb: int = 1000
    runtime: int = 5  # minutes
    gpu: int = 0


@dataclass(frozen=True)
class Out:
    """A named output of another step of the same paper: ``Out("train_mnist", "queries")``."""

    step: str
    name: str


@dataclass(frozen=True, kw_only=True)
class _Declaration:
    name: str
    func: str  # "module:function"
    inputs: Mapping[str, Out] = field(default_factory=dict)
    #: Datasets whose raw files are read (blocks ``config[paper]["data"][name]``); their real
    #: files become rule inputs when they will be used, so adding them reruns the rule.
    data: tuple[str, ...] = ()
    #: Config section merged over ``common`` into params (None: no section, only the seed).
    section: str | None = None
    #: Extra params taken from the paper's config: param name -> dotted path in the section.
    config: Mapping[str, str] = field(default_factory=dict)
    #: Constant params (e.g. which dataset a shared step function works on).
    fixed: Mapping[str, Any] = field(default_factory=dict)
    #: The step runs torch models: params get the global ``device`` setting (privrisk.device).
    device: bool = False
    #: Resources per scale ("quick", "paper"); "tiny" uses "quick", a missing "paper" too.
    resources: Mapping[str, Resources] = field(default_factory=lambda: {"quick": Resources()})

    def __post_init__(self) -> None:
        if ":" not in self.func:
            raise RegistryError(f"{self.name}: func must be 'module:function', got {self.func!r}")
        if "quick" not in self.resources:
            raise RegistryError(f"{self.name}: resources need a 'quick' entry")

    def resources_for(self, scale: str) -> Resources:
        return self.resources.get(scale, self.resources["quick"])


@dataclass(frozen=True, kw_only=True)
class Step(_Declaration):
    """An expensive computation writing ``outputs`` (output name -> file name)."""

    outputs: Mapping[str, str]

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.outputs:
            raise RegistryError(f"step {self.name}: needs at least one output")


@dataclass(frozen=True, kw_only=True)
class Figure(_Declaration):
    """A figure (or, with ``table=True``, a table); its section defaults to its own name."""

    table: bool = False
    section: str | None = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.section == "":
            object.__setattr__(self, "section", self.name)


@dataclass(frozen=True)
class Registry:
    """One paper's steps and figures, checked for consistency."""

    paper: str
    steps: tuple[Step, ...]
    figures: tuple[Figure, ...]

    def __post_init__(self) -> None:
        names = [s.name for s in self.steps] + [f.name for f in self.figures]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise RegistryError(f"{self.paper}: duplicate step/figure names {dupes}")
        steps = {s.name: s for s in self.steps}
        for decl in (*self.steps, *self.figures):
            for key, ref in decl.inputs.items():
                if not isinstance(ref, Out):
                    raise RegistryError(
                        f"{self.paper}.{decl.name}: input {key!r} must be an Out, got {ref!r}"
                    )
                if ref.step not in steps:
                    raise RegistryError(
                        f"{self.paper}.{decl.name}: input {key!r} names unknown step {ref.step!r}"
                    )
                if ref.name not in steps[ref.step].outputs:
                    raise RegistryError(
                        f"{self.paper}.{decl.name}: input {key!r}: step {ref.step!r} has no output {ref.name!r} "
                        f"(it has {sorted(steps[ref.step].outputs)})"
                    )

    def step(self, name: str) -> Step:
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(f"{self.paper} has no step {name!r}")

    def rule_name(self, decl: _Declaration) -> str:
        return f"{self.paper}_{decl.name}"

    def step_outputs(self, step: Step) -> dict[str, str]:
        return {k: artifact(self.paper, f) for k, f in step.outputs.items()}

    def inputs(self, decl: _Declaration) -> dict[str, str]:
        """Named input files of a step or figure (other steps' artifacts)."""
        return {
            k: artifact(self.paper, self.step(ref.step).outputs[ref.name])
            for k, ref in decl.inputs.items()
        }

    def targets(self) -> list[str]:
        """The paper's final outputs (every figure's files, without the per-figure claims rows)."""
        return [
            f
            for fig in self.figures
            for k, f in figure_outputs(self.paper, fig.name, table=fig.table).items()
            if k != "claims"
        ]

    def claims_files(self) -> list[str]:
        return [figure_outputs(self.paper, fig.name)["claims"] for fig in self.figures]


# --- paths ---------------------------------------------------------------------------------------


def artifact(paper: str, filename: str) -> str:
    """Where a step's output lives."""
    return f"results/{paper}/intermediate/{filename}"


def figure_outputs(paper: str, fig: str, *, table: bool = False) -> dict[str, str]:
    """The named outputs of one figure (or table) rule: the output contract plus its claims rows."""
    prefix = f"results/{paper}/{fig}"
    out = {
        "csv": f"{prefix}.csv",
        "json": f"{prefix}.json",
        "claims": f"results/{paper}/claims/{fig}.csv",
    }
    if table:
        out |= {"md": f"{prefix}.md", "tex": f"{prefix}.tex"}
    else:
        out |= {"pdf": f"{prefix}.pdf", "png": f"{prefix}.png"}
    return out


def log_path(paper: str, name: str) -> str:
    return f"results/logs/{paper}/{name}.log"


def benchmark_path(paper: str, name: str) -> str:
    return f"results/benchmarks/{paper}/{name}.tsv"


def caption_path(paper: str, fig: str) -> str:
    """The figure's report caption, relative to ``workflow/rules/``."""
    return f"../report/{paper}/{fig}.rst"


# --- loading declarations ------------------------------------------------------------------------


def _declared(value: Sequence | Callable[[dict], Sequence], section: dict) -> tuple:
    return tuple(value(section) if callable(value) else value)


def load_registry(paper: str, config: Mapping[str, Any]) -> Registry:
    """The paper's declarations (``privrisk.papers.<paper>.registry``) for this config."""
    if paper not in PAPERS:
        raise RegistryError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    module = import_module(f"privrisk.papers.{paper}.registry")
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
    return out


def data_inputs(config: Mapping[str, Any], paper: str, decl: _Declaration) -> list[str]:
    """Real raw files a step or figure will read (empty when it falls back to a stand-in)."""
    from .data import sources

    blocks = config.get(paper, {}).get("data", {})
    files: list[str] = []
    for name in decl.data:
        if name not in blocks:
            raise RegistryError(f"{paper}.{decl.name}: no data block {paper}.data.{name} in config")
        files += sources.rule_inputs(name, blocks[name])
    return files


# --- code dependencies ---------------------------------------------------------------------------


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
