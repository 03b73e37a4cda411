"""The types a paper declares its work with, checked for consistency.

Each paper package has a ``registry`` module declaring

* ``STEPS``: expensive computations (training, attacks, sweeps). A step runs
  ``func(params, inputs, outputs)`` and writes exactly its named ``outputs``
  (files under ``results/<paper>/intermediate/``); the step runner has already applied the
  config's ``torch_threads`` (:func:`privrisk.core.device.set_torch_threads`);
* ``FIGURES``: figures and tables. A figure runs ``func(params)`` or ``func(params, inputs)``
  and returns a :class:`privrisk.contract.figure.FigureResult`.

A step that trains independent replicate runs declares :class:`Shards`: the pipeline then trains
its runs in shards of the config's ``runs_per_job`` (each shard its own job, on any core, node or
GPU) and pools them into the step's own outputs, which are the same whatever the sharding.

Either may be a sequence or a function of the paper's config section (for declarations that
depend on config, such as one training step per ε), and ``PAPER``: the :class:`Paper` it
reproduces (the docs' paper table and pages are generated from it). ``workflow/rules/registry.smk``
turns every declaration into one Snakemake rule (through :mod:`privrisk.pipeline.workflow`); the papers
themselves are found by :mod:`privrisk.core.discovery`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .paths import artifact, figure_outputs


class RegistryError(ValueError):
    """A paper's declarations are inconsistent (duplicate name, unknown input, bad reference)."""


@dataclass(frozen=True, kw_only=True)
class Paper:
    """What a paper package reproduces: the bibliographic facts the docs show, nothing the code
    computes with (so editing them reruns no rule: ``registry.py`` is no code input)."""

    title: str
    authors: str
    venue: str
    #: which version is reproduced and what else exists (``""`` when there is only one)
    version: str = ""
    #: what it needs, in a few words (the docs' paper table)
    summary: str = ""
    #: position in the pipeline's listings (the ledger, the status page, the docs): cheap first
    order: int = 100

    def __post_init__(self) -> None:
        for name in ("title", "authors", "venue"):
            if not str(getattr(self, name)).strip():
                raise RegistryError(f"PAPER.{name} is empty")


@dataclass(frozen=True)
class Resources:
    """What one job needs; the Slurm profile turns these into a job request."""

    threads: int = 1
    mem_mb: int = 1000
    runtime: int = 5  # minutes
    gpu: int = 0


@dataclass(frozen=True)
class Shards:
    """A step whose outputs pool ``count`` independent replicate runs, which may train apart.

    ``count`` is the dotted path of the number of runs in the step's *params* (e.g.
    ``"model.runs"``). With the config's ``runs_per_job`` set below that number, the pipeline
    makes one job per shard of consecutive runs, each calling the step's function with that
    count removed from its params and ``params["shard"] = {"first": a, "stop": b}`` (runs a..b-1)
    and writing the step's outputs under ``intermediate/shards/``; then one job calls ``pool``
    (``"module:function"``, signature ``f(params, shards, outputs)``, ``shards`` being the shards'
    output paths in run order) to write the step's own outputs. The step function must make run
    k's numbers from run k's seed alone (never from how many runs share its job), so that the
    pooled outputs equal those of one job training every run; without ``runs_per_job`` (or with
    one shard) the step is one job as any other.
    """

    count: str
    pool: str

    def __post_init__(self) -> None:
        if ":" not in self.pool:
            raise RegistryError(f"Shards.pool must be 'module:function', got {self.pool!r}")
        if not self.count or any(not part for part in self.count.split(".")):
            raise RegistryError(f"Shards.count must be a dotted params path, got {self.count!r}")


#: how a pool job's inputs are named: ``shard<i>__<output>`` (i = the shard's position)
_SHARD_INPUT = "shard{i}__{name}"


def shard_input(i: int, name: str) -> str:
    """The name of shard ``i``'s output ``name`` among a pool job's inputs."""
    return _SHARD_INPUT.format(i=i, name=name)


def shard_groups(inputs: Mapping[str, str]) -> list[dict[str, str]]:
    """A pool job's inputs as one dict of output paths per shard, in run order (the inverse of
    :func:`shard_input`; other inputs are left out)."""
    groups: dict[int, dict[str, str]] = {}
    for key, path in inputs.items():
        head, sep, name = key.partition("__")
        if sep and head.startswith("shard") and head[5:].isdigit():
            groups.setdefault(int(head[5:]), {})[name] = path
    return [groups[i] for i in sorted(groups)]


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
    #: the step pools independent replicate runs that may train in shards (:class:`Shards`)
    shards: Shards | None = None

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

    def upstream(self, decl: _Declaration) -> tuple[Step, ...]:
        """Every step ``decl`` is made from: the steps whose artifacts it reads and, transitively,
        the steps those read (in declaration order).

        Its rule lists their params, code and data as its own (workflow/rules/registry.smk): a
        step whose rerun was interrupted has lost its outputs (Snakemake deletes them before a
        job runs), and Snakemake does not remake a missing input of an output it deems current,
        so without them the same command would report "Nothing to be done" over a figure made
        from the old parameters."""
        names: set[str] = set()
        todo = [ref.step for ref in decl.inputs.values()]
        while todo:
            name = todo.pop()
            if name not in names:
                names.add(name)
                todo += [ref.step for ref in self.step(name).inputs.values()]
        return tuple(s for s in self.steps if s.name in names)

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
