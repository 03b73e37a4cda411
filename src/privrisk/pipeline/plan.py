"""``privrisk plan``: the ledger's runs-to-decide as a config overlay, its cost and the commands.

Every uninformative row of the claims ledger carries a plan (``to_decide``, written by
:meth:`privrisk.contract.verdicts.Plan.text`): the runs, draws, models or samples at which the same rule
decides at the observed effect with 80 % power, or "never by more … (why)". This command reads
those plans and prints, per claim that more evidence can decide, the count it needs (priced for
the page's rule: a status is decided only if every seed of :data:`SEEDS` decides it, so each seed's
run gets :func:`per_seed_power`, 0.8^(1/3), and the three together 80 %; :func:`for_every_seed`),
the config key that holds that count (and every other key the plan's model assumes: the worlds
that hold draws made in clusters), the CPU time scaled from the job's measured cost, and the commands that
run the overlay (``--write FILE``) on local cores, on Slurm and on a GPU. "Never" plans are listed
with their reason and not priced; decided rows do not appear.

Which config key holds a claim's units is declared in one place, each paper's registry:
``PLAN_KEYS`` (a mapping, or a function of the paper's config section) from a figure or a claim
id (the claim id wins) to ``{"unit", "key", "jobs"}`` and optionally ``"fallback"`` (the key that
applies when ``key`` is absent, e.g. ``marginals_attack.draws`` under ``fig4a.draws``). A plan
whose key is not declared, or whose unit differs from the declared one, is listed as not planned,
saying so; nothing is guessed from the plan's words.

The relation the outputs keep (tests/test_plan_command.py checks it over random ledgers): every
planned row's key is in the overlay with a value >= the row's planned count (the overlay takes the
largest over the claims that share a key, and never lowers the current value); every "never" row
is listed with its reason and adds nothing to the overlay; decided rows appear nowhere; the
overlay merged over the config passes :func:`privrisk.pipeline.config.validate`.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: the seeds a decided status must survive: the default seed and the two more seeds whose
#: statuses docs/verdicts.md measured ("How robust the statuses are at quick scale")
SEEDS = (20221, 1, 2)


def per_seed_power() -> float:
    """The power each seed's run is priced at. A plan is a promise about the page's rule, which
    counts a status as decided only if every seed of SEEDS decides it: at this power the joint
    chance (the seeds' runs are independent) is the ledger's POWER, 0.8^(1/3) ≈ 92.8 % per seed
    for 80 %."""
    from ..contract.verdicts import POWER

    return POWER ** (1.0 / len(SEEDS))


#: the Snakefile's defaults (its ``configfile:``), which every overlay is merged over
DEFAULT_CONFIG = Path("config/config.yaml")
SLURM_PROFILE = "workflow/profiles/slurm"

# The texts of privrisk.contract.verdicts.Plan.text (a test round-trips them): "41 runs", "41 runs
# (why)", "3.89× the current samples", "> 1e+09 runs", "never by more draws (why)".
_UNIT = r"(?P<unit>[^\s()]+)"
_WHY = r"(?: \((?P<why>.*)\))?"
_ABSOLUTE = re.compile(rf"(?P<n>\d+) {_UNIT}{_WHY}")
_RELATIVE = re.compile(rf"(?P<n>[0-9.eE+-]+)× the current {_UNIT}{_WHY}")
_BEYOND = re.compile(rf"> (?P<n>[0-9.eE+-]+) {_UNIT}{_WHY}")
_NEVER = re.compile(rf"never by more {_UNIT}{_WHY}")


class PlanError(Exception):
    """A problem a user can fix (a missing ledger, a bad paper key, an unwritable file): one line,
    exit 2."""


@dataclass(frozen=True)
class Need:
    """One ledger plan read back: ``n`` units (a multiple of the current count when
    ``relative``), or ``kind`` "never" / "beyond" (past the planner's search) with ``why``."""

    kind: str  # "count", "never", "beyond"
    unit: str
    n: float = math.nan
    relative: bool = False
    why: str = ""


def parse(text: str) -> Need | None:
    """The plan in a ledger's ``to_decide`` cell, or None when the cell is not a plan's text."""
    text = text.strip()
    if m := _NEVER.fullmatch(text):
        return Need("never", m["unit"], why=m["why"] or "")
    if m := _BEYOND.fullmatch(text):
        return Need("beyond", m["unit"], float(m["n"]), why=m["why"] or "")
    if m := _ABSOLUTE.fullmatch(text):
        return Need("count", m["unit"], float(m["n"]), why=m["why"] or "")
    if m := _RELATIVE.fullmatch(text):
        try:
            return Need("count", m["unit"], float(m["n"]), relative=True, why=m["why"] or "")
        except ValueError:
            return None
    return None


@dataclass
class Row:
    """One uninformative claim and what the planner makes of it."""

    paper: str
    figure: str
    claim_id: str
    plan_text: str
    #: "planned" (in the overlay), "never" (its reason), "unplanned" (why not: no key declared,
    #: another unit, past the planner's search)
    kind: str
    why: str = ""
    key: str = ""  # the full dotted key (paper.section...)
    unit: str = ""
    current: int | None = None
    value: int | None = None  # the count this claim needs: each seed's run at per_seed_power()
    jobs: tuple[str, ...] = ()
    #: the ledger's count: one run at POWER (what the row's to_decide says)
    single: int | None = None
    #: the other keys the plan's model assumes, with the value it needs (the worlds that hold
    #: draws made in clusters: ``swanberg2025.marginals.worlds``)
    extra: dict[str, int] = field(default_factory=dict)


@dataclass
class Plan:
    rows: list[Row]
    overlay: dict[str, int] = field(default_factory=dict)  # full dotted key -> value
    current: dict[str, int] = field(default_factory=dict)
    jobs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    allow_large: bool = False
    #: per key, the jobs that rerun at their current size when it changes (every figure that
    #: reads the worlds), priced at their measured cost
    reruns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the config's ``runs_per_job`` (how the measured jobs were sharded)
    runs_per_job: int | None = None
    #: uninformative rows left out because a run of record decided them: (paper/claim_id, record)
    decided: list[tuple[str, str]] = field(default_factory=list)

    def nested(self) -> dict[str, Any]:
        """The overlay as a config mapping (``allow_large`` first when a value needs it)."""
        out: dict[str, Any] = {"allow_large": True} if self.allow_large else {}
        for dotted, v in sorted(self.overlay.items()):
            node = out
            *parents, leaf = dotted.split(".")
            for p in parents:
                node = node.setdefault(p, {})
            node[leaf] = v
        return out


# --- the declarations ---------------------------------------------------------------------------


def get_dotted(section: Mapping[str, Any], dotted: str) -> Any:
    """``section["a"]["b"]`` for ``"a.b"``; None where a level is missing."""
    node: Any = section
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def plan_keys(paper: str, section: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The paper's ``PLAN_KEYS`` (figure or claim id -> declaration); {} when it declares none or
    is not a paper of this checkout."""
    from ..core.discovery import RegistryError, registry_module

    try:
        declared = getattr(registry_module(paper), "PLAN_KEYS", None)
    except RegistryError:
        return {}
    if callable(declared):
        declared = declared(section)
    return dict(declared or {})


def _declaration(row: Mapping[str, str], keys: Mapping[str, Any]):
    return keys.get(row["claim_id"]) or keys.get(row["figure"])


_CLUSTERS = re.compile(r"in clusters of (?P<c>[0-9.]+(?:, [0-9.]+)*)")


def clusters_of(why: str) -> float:
    """The units per cluster a plan's words name ("in clusters of 3"; the smallest where points
    differ: the clusters' key is then raised for it, which only shrinks the others'), 1 when
    none."""
    m = _CLUSTERS.search(why or "")
    return min(float(c) for c in m["c"].split(", ")) if m else 1.0


def for_every_seed(n: float, *, relative: bool = False, cluster: float = 1.0) -> float:
    """The count at which one run decides with :func:`per_seed_power`, from the ledger's count
    ``n`` at which it decides with POWER (a multiple of the current sample when ``relative``).

    The model is the planner's own for one point leaning one way: a one-sided interval at the
    robust level (±ROBUST·Z s.e., Student's t with n / cluster − 1 df, a normal without df) whose
    noncentrality grows as √n; the effect is solved from "POWER at ``n``" and the count found at
    which the same effect gives the per-seed power. It is exact for a plan of one point; for a
    joint plan over several points, a plan leaning to fail at the Bonferroni level, or a tie
    (certain at its n), it errs upwards (more units than needed: tests/test_plan_seeds.py)."""
    from scipy import optimize, stats

    from ..contract.verdicts import POWER, ROBUST, Z, alpha_of

    zr = ROBUST * Z
    target = per_seed_power()
    if not math.isfinite(n) or n <= 0:
        return n
    grow = ((zr + stats.norm.ppf(target)) / (zr + stats.norm.ppf(POWER))) ** 2
    if relative or n / cluster - 1 < 1:
        return n * grow if relative else math.ceil(n * grow)

    def power(m: float, d: float) -> float:
        df = m / cluster - 1
        if df > 1e4:  # t and normal agree; scipy's noncentral t is slow and unstable there
            return float(stats.norm.sf(zr - d * math.sqrt(m)))
        q = stats.t.isf(alpha_of(zr) / 2, df)
        return float(stats.nct.sf(q, df, d * math.sqrt(m)))

    d = optimize.brentq(lambda d: power(n, d) - POWER, 1e-12, 1e4 / math.sqrt(n))
    lo, hi = int(n), max(int(n), 2)
    while power(hi, d) < target:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if power(mid, d) < target else (lo, mid)
    return float(max(hi, math.ceil(n)))


def _current(section: Mapping[str, Any], decl: Mapping[str, Any]) -> int | None:
    for dotted in (decl["key"], decl.get("fallback")):
        if dotted and isinstance(v := get_dotted(section, dotted), int) and not isinstance(v, bool):
            return v
    return None


def make(
    ledger,
    config: Mapping[str, Any],
    papers: Sequence[str] | None = None,
    *,
    decided: Mapping[str, str] | None = None,
) -> Plan:
    """The plan of every uninformative row with a ``to_decide`` of ``ledger`` (a DataFrame of
    :mod:`privrisk.contract.claims` columns), priced against ``config`` (the merged config the ledger was
    made with): its current counts; ``papers`` limits it. ``decided`` (``paper/claim_id`` → the
    record that decided it, :func:`privrisk.pipeline.records.decided`): those uninformative rows
    are left out, neither planned nor priced, and listed in :attr:`Plan.decided`."""
    from .config_checks import LIMITS

    rows: list[Row] = []
    plan = Plan(rows, runs_per_job=config.get("runs_per_job"))
    keys_of: dict[str, dict[str, Any]] = {}
    decided = decided or {}
    for r in ledger.to_dict("records"):
        if r["status"] != "uninformative":
            continue
        if papers and r["paper"] not in papers:
            continue
        if (claim := f"{r['paper']}/{r['claim_id']}") in decided:
            plan.decided.append((claim, decided[claim]))
            continue
        if not str(r["to_decide"]).strip():
            continue
        paper, text = r["paper"], str(r["to_decide"]).strip()
        base = {
            "paper": paper,
            "figure": r["figure"],
            "claim_id": r["claim_id"],
            "plan_text": text,
        }
        need = parse(text)
        if need is None:
            rows.append(Row(**base, kind="unplanned", why="its to_decide is not a plan's text"))
            continue
        if need.kind == "never":
            rows.append(
                Row(**base, kind="never", unit=need.unit, why=need.why or "no reason given")
            )
            continue
        if need.kind == "beyond":
            rows.append(
                Row(
                    **base,
                    kind="unplanned",
                    unit=need.unit,
                    why=f"more than {need.n:.0e} {need.unit}: past the planner's search",
                )
            )
            continue
        section = config.get(paper) or {}
        if paper not in keys_of:
            keys_of[paper] = plan_keys(paper, section)
        decl = _declaration(r, keys_of[paper])
        if decl is None:
            rows.append(
                Row(
                    **base,
                    kind="unplanned",
                    unit=need.unit,
                    why=f"no config key declared for its {need.unit} "
                    f"(PLAN_KEYS of privrisk.papers.{paper}.registry)",
                )
            )
            continue
        key = f"{paper}.{decl['key']}"
        if decl["unit"] != need.unit:
            rows.append(
                Row(
                    **base,
                    kind="unplanned",
                    unit=need.unit,
                    why=f"it counts {need.unit} but {key} holds {decl['unit']}: "
                    f"no config key declared for its {need.unit}",
                )
            )
            continue
        current = _current(section, decl)
        if need.relative and current is None:
            rows.append(
                Row(
                    **base,
                    kind="unplanned",
                    unit=need.unit,
                    key=key,
                    why=f"{key} has no current value in the config to multiply",
                )
            )
            continue
        cluster = clusters_of(need.why)
        groups = decl.get("clusters")
        if cluster > 1 and not groups:
            rows.append(
                Row(
                    **base,
                    kind="unplanned",
                    unit=need.unit,
                    key=key,
                    why=f"its {need.unit} come in clusters of {cluster:g} but no key for the "
                    f"clusters is declared (PLAN_KEYS of privrisk.papers.{paper}.registry): "
                    f"raising {key} alone would not give the planned degrees of freedom",
                )
            )
            continue
        # a multiple of the current count, rounded up (after rounding away the float product's
        # last bits: 3.89 × 1000 is 3890, not 3891)
        single = math.ceil(round(need.n * current, 6)) if need.relative else int(need.n)
        seeds = for_every_seed(need.n, relative=need.relative, cluster=cluster)
        value = math.ceil(round(seeds * current, 6)) if need.relative else int(seeds)
        extra: dict[str, int] = {}
        if cluster > 1 and groups:
            # the planned df are those of value / cluster clusters: raise the clusters' key too
            gkey = f"{paper}.{groups['key']}"
            gcur = get_dotted(section, groups["key"])
            gcur = gcur if isinstance(gcur, int) and not isinstance(gcur, bool) else None
            extra[gkey] = math.ceil(value / cluster)
            plan.overlay[gkey] = max(plan.overlay.get(gkey, 0), extra[gkey], gcur or 0)
            plan.current[gkey] = gcur
            plan.jobs[gkey] = tuple(groups["jobs"])
            plan.reruns[gkey] = tuple(groups.get("reruns", ()))
        rows.append(
            Row(
                **base,
                kind="planned",
                why=need.why,
                key=key,
                unit=need.unit,
                current=current,
                value=value,
                jobs=tuple(decl["jobs"]),
                single=single,
                extra=extra,
            )
        )
        # the largest count any claim needs, and never below what the config already runs
        plan.overlay[key] = max(plan.overlay.get(key, 0), value, current or 0)
        plan.current[key] = current
        plan.jobs[key] = tuple(decl["jobs"])
    plan.allow_large = any(
        v > LIMITS.get(k.rsplit(".", 1)[-1], math.inf) for k, v in plan.overlay.items()
    )
    return plan


# --- cost -----------------------------------------------------------------------------------------


def _cpu_seconds(path: Path) -> float | None:
    """The ``cpu_time`` of Snakemake's benchmark file ``path`` (the mean over its rows), or None
    when there is no such measurement."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    head = lines[0].split("\t") if lines else []
    if "cpu_time" not in head:
        return None
    i = head.index("cpu_time")
    values = []
    for line in lines[1:]:
        try:
            values.append(float(line.split("\t")[i]))
        except (IndexError, ValueError):
            continue
    values = [v for v in values if math.isfinite(v) and v >= 0]
    return sum(values) / len(values) if values else None


def job_cpu_seconds(
    benchmarks: Path, paper: str, job: str, shards: Sequence[str] = ()
) -> float | None:
    """The job's measured CPU seconds (``<benchmarks>/<paper>/<job>.tsv``), or None when there is
    no measurement. A step trained in shards (``shards``: the tags the config's ``runs_per_job``
    makes, ``runs0-1`` …) costs its shards (``<job>.<tag>.tsv``) plus the pooling job, which
    writes ``<job>.tsv``; some shards measured but not all is no measurement."""
    own = _cpu_seconds(benchmarks / paper / f"{job}.tsv")
    parts = [_cpu_seconds(benchmarks / paper / f"{job}.{tag}.tsv") for tag in shards]
    if not any(p is not None for p in parts):  # not sharded: the job trained every run itself
        return own
    if any(p is None for p in parts):
        return None
    return sum(p for p in parts if p is not None) + (own or 0.0)


@dataclass(frozen=True)
class Cost:
    per_seed: float | None  # CPU seconds of the jobs at the planned count, one seed
    measured: float | None  # CPU seconds the jobs took at the current count
    missing: tuple[str, ...] = ()  # jobs without a measurement


def cost(
    benchmarks: Path,
    paper: str,
    jobs: Sequence[str],
    current: int | None,
    value: int,
    runs_per_job: int | None = None,
) -> Cost:
    """CPU time of ``jobs`` at ``value`` units, scaled linearly from their measured cost at
    ``current`` units (in the config's shards, where ``runs_per_job`` splits them); no number when
    a job has no measurement or the current count is unknown."""
    from .workflow import shard_ranges, shard_tag

    if not current:
        return Cost(None, None, tuple(jobs))
    ranges = shard_ranges(current, runs_per_job) if runs_per_job else []
    tags = [shard_tag(a, b) for a, b in ranges] if len(ranges) > 1 else []
    measured = {j: job_cpu_seconds(benchmarks, paper, j, tags) for j in jobs}
    missing = tuple(j for j, v in measured.items() if v is None)
    if missing:
        return Cost(None, None, missing)
    total = sum(v for v in measured.values() if v is not None)
    return Cost(total * value / current, total)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# --- the report -----------------------------------------------------------------------------------


def commands(
    configfiles: Sequence[Path], overlay: str, runs_per_job: int | None = None
) -> list[str]:
    """The commands that run ``overlay`` at every seed: local cores, Slurm, a GPU (with
    ``runs_per_job``, the replicate runs of a model train in shards of that many runs)."""
    files = " ".join(str(f) for f in [*configfiles, overlay])
    seeds = " ".join(map(str, SEEDS))
    shards = f" runs_per_job={runs_per_job}" if runs_per_job else ""
    # each seed's ledger is kept: the next run writes results/claims.csv again
    keep = "cp results/claims.csv results/claims-seed$s.csv"
    return [
        f"local cores: for s in {seeds}; do snakemake --cores all --configfile {files} "
        f"--config seed=$s{shards} && {keep}; done",
        f"Slurm:       for s in {seeds}; do snakemake --profile {SLURM_PROFILE} --configfile {files} "
        f"--config seed=$s{shards} && {keep}; done",
        f"one GPU:     for s in {seeds}; do snakemake --cores all --configfile {files} "
        f"--config seed=$s{shards} device=cuda && {keep}; done",
    ]


def report(
    plan: Plan,
    benchmarks: Path,
    configfiles: Sequence[Path],
    write: str | None,
    runs_per_job: int | None = None,
) -> str:
    from ..contract.verdicts import POWER

    seeds = f"× {len(SEEDS)} seeds ({', '.join(map(str, SEEDS))})"
    planned = [r for r in plan.rows if r.kind == "planned"]
    nevers = [r for r in plan.rows if r.kind == "never"]
    unplanned = [r for r in plan.rows if r.kind == "unplanned"]
    out = [
        f"{len(plan.rows)} uninformative claims with a plan: {len(planned)} that more evidence "
        f"can decide, {len(nevers)} never by more of the same, {len(unplanned)} not planned here."
    ]
    if planned:
        out += [
            "",
            f"Decidable by more evidence (each count {seeds}: a decided status must hold at each,"
            f" so each seed's run is priced at {per_seed_power():.1%} power and all "
            f"{len(SEEDS)} decide with {POWER:.0%}; the ledger's count is one run's at {POWER:.0%}):",
        ]
    for r in planned:
        c = cost(benchmarks, r.paper, r.jobs, r.current, r.value, plan.runs_per_job)
        price = (
            f"≈ {_duration(c.per_seed)} CPU per seed, {_duration(c.per_seed * len(SEEDS))} in all "
            f"(scaled from {_duration(c.measured)} measured at {r.current} {r.unit})"
            if c.per_seed is not None
            else "no measurement ("
            + (f"no benchmark of {', '.join(c.missing)}" if r.current else f"no current {r.unit}")
            + ")"
        )
        why = f" ({r.why})" if r.why else ""
        single = f" (one run: {r.single})" if r.single is not None and r.single != r.value else ""
        also = "".join(f"; with {k} >= {v}" for k, v in r.extra.items())
        out.append(
            f"  {r.paper}/{r.claim_id}: {r.value} {r.unit}{why}{single} {seeds}; {r.key} "
            f"(now {r.current if r.current is not None else 'unset'}){also}; {price}"
        )
    if nevers:
        out += ["", "Never by more of the same (not priced):"]
        out += [f"  {r.paper}/{r.claim_id}: never by more {r.unit} ({r.why})" for r in nevers]
    if unplanned:
        out += ["", "Not planned here:"]
        out += [f"  {r.paper}/{r.claim_id}: {r.plan_text}: {r.why}" for r in unplanned]
    if not plan.overlay:
        out += ["", "Nothing to raise: no claim more evidence can decide."]
        return "\n".join(out)
    out += [
        "",
        "Overlay (the largest count any claim needs per key; never below the current value):",
    ]
    total, unmeasured = 0.0, []
    for key, v in sorted(plan.overlay.items()):
        paper = key.split(".", 1)[0]
        c = cost(benchmarks, paper, plan.jobs[key], plan.current[key], v, plan.runs_per_job)
        if c.per_seed is None:
            unmeasured.append(key)
            price = "no measurement"
        else:
            total += c.per_seed
            price = f"≈ {_duration(c.per_seed)} CPU per seed"
        out.append(f"  {key}: {plan.current[key]} -> {v} ({', '.join(plan.jobs[key])}: {price})")
        rerun = _reruns(plan, key)
        if rerun:
            r = cost(benchmarks, paper, rerun, 1, 1, plan.runs_per_job)
            if r.per_seed is None:
                unmeasured.append(f"{key}'s reruns")
                price = "no measurement"
            else:
                total += r.per_seed
                price = f"≈ {_duration(r.per_seed)} CPU per seed"
            out.append(f"    and reruns at their current size: {', '.join(rerun)} ({price})")
    if plan.allow_large:
        out.append("  allow_large: true (a value is above privrisk.pipeline.config_checks.LIMITS)")
    what = (
        f"≈ {_duration(total)} CPU per seed, {_duration(total * len(SEEDS))} for {len(SEEDS)} seeds"
    )
    what += f"; no measurement for {', '.join(unmeasured)}" if unmeasured else ""
    out.append(f"  in all: {what} (the jobs above; the figures that read them rerun too)")
    target = write or "plan.yaml"
    out += [
        "",
        "Run it ("
        + (f"overlay written to {write}" if write else "write the overlay with --write plan.yaml")
        + "):",
    ]
    out += [f"  {c}" for c in commands(configfiles, target, runs_per_job)]
    if not runs_per_job and any(r.unit == "runs" for r in planned):
        out.append(
            "  (--runs-per-job N adds runs_per_job=N: each model's runs train in shards of N, "
            "spread over cores, Slurm nodes or a GPU; docs/running.md, Sharding replicate runs)"
        )
    return "\n".join(out)


def _reruns(plan: Plan, key: str) -> tuple[str, ...]:
    """The jobs a change of ``key`` reruns at their current size: its declared reruns less the
    jobs another overlay key already prices at its planned size."""
    priced = {j for k, jobs in plan.jobs.items() if k != key for j in jobs}
    return tuple(j for j in plan.reruns.get(key, ()) if j not in priced)


def overlay_text(plan: Plan, configfiles: Sequence[Path]) -> str:
    claims: dict[str, list[str]] = {}
    for r in plan.rows:
        if r.kind == "planned":
            claims.setdefault(r.key, []).append(f"{r.paper}/{r.claim_id} ({r.value})")
            for k, v in r.extra.items():
                claims.setdefault(k, []).append(f"{r.paper}/{r.claim_id} ({v})")
    head = [
        "# privrisk plan: the counts the ledger's plans need, merged over "
        + " + ".join(map(str, configfiles)),
        f"# run it at each seed of {', '.join(map(str, SEEDS))} (docs/plan.md): each count is "
        f"one seed's at {per_seed_power():.1%} power, so that all decide with "
        f"{per_seed_power() ** len(SEEDS):.0%}",
        *(f"# {key}: {', '.join(c)}" for key, c in sorted(claims.items())),
    ]
    return "\n".join(head) + "\n" + yaml.safe_dump(plan.nested(), sort_keys=False)


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file renamed at the end: nothing half-written on failure."""
    if path.is_dir():
        raise PlanError(f"--write {path}: is a directory; give a file name")
    if not path.parent.is_dir():
        raise PlanError(f"--write {path}: no folder {path.parent} to write it in")
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise PlanError(f"--write {path}: cannot write it ({err.strerror or err})") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        tmp.replace(path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise PlanError(f"--write {path}: cannot write it ({err.strerror or err})") from None


# --- the command ----------------------------------------------------------------------------------


def read_ledger(path: Path):
    """The ledger at ``path`` (:func:`privrisk.contract.claims.read`), or a PlanError saying in one line
    why it cannot be read."""
    from ..contract import claims

    if path.is_dir():
        raise PlanError(f"{path} is a directory, not a claims ledger (e.g. results/claims.csv)")
    if not path.exists():
        raise PlanError(
            f"{path} does not exist: no results to plan from; run `snakemake --cores 2` first"
        )
    try:
        with open(path, "rb") as f:
            if b"\0" in f.read(4096):
                raise PlanError(f"{path} is not text (binary data?); a claims ledger is a CSV file")
        return claims.read(path)
    except UnicodeDecodeError:
        raise PlanError(f"{path} is not text; a claims ledger is a CSV file") from None
    except (OSError, ValueError) as err:  # pandas' parse errors are ValueErrors
        first = (str(err).splitlines() or [type(err).__name__])[0]
        raise PlanError(f"{path} is not a claims ledger ({first[:200]})") from None


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="privrisk plan",
        description="The claims the ledger's plans say more runs, draws or models can decide: "
        "what each needs, the config key, the CPU time, and a config overlay to run.",
        epilog="The configfiles are those the ledger was made with (merged in order over "
        f"{DEFAULT_CONFIG}, as Snakemake merges them); docs/plan.md explains the output.",
    )
    ap.add_argument(
        "ledger",
        nargs="?",
        default="results/claims.csv",
        help="the claims ledger (default: %(default)s)",
    )
    ap.add_argument("--paper", action="append", metavar="KEY", help="only this paper (repeatable)")
    ap.add_argument(
        "--configfile",
        action="append",
        default=[],
        metavar="FILE",
        help=f"config files the ledger was made with, merged over {DEFAULT_CONFIG}",
    )
    ap.add_argument(
        "--benchmarks",
        default="results/benchmarks",
        metavar="DIR",
        help="the run's job benchmarks (default: %(default)s)",
    )
    ap.add_argument("--write", metavar="FILE", help="write the config overlay (YAML) to FILE")
    ap.add_argument(
        "--runs-per-job",
        type=int,
        metavar="N",
        help="in the commands, train each model's replicate runs in shards of N (runs_per_job)",
    )
    return ap


def _run(argv: Sequence[str], decided: Mapping[str, str] | None) -> int:
    args = _parser().parse_args(argv)
    from . import config

    df = read_ledger(Path(args.ledger))
    if args.paper:
        known = sorted(set(df.paper))
        bad = [p for p in args.paper if p not in known]
        if bad:
            raise PlanError(
                f"--paper {bad[0]!r}: no claims for it in {args.ledger}; papers: {', '.join(known)}"
            )
    if args.runs_per_job is not None and args.runs_per_job < 1:
        raise PlanError(f"--runs-per-job {args.runs_per_job}: must be an integer >= 1")
    files = [Path(f) for f in args.configfile]
    if DEFAULT_CONFIG.is_file():
        files = [DEFAULT_CONFIG, *(f for f in files if f.resolve() != DEFAULT_CONFIG.resolve())]
    if not files:
        raise PlanError(
            f"no {DEFAULT_CONFIG} here and no --configfile: run in the checkout, or name the config"
        )
    try:
        cfg = config.load(*files)
    except config.ConfigError as err:
        raise PlanError(str(err).replace("\n", " ")) from None
    plan = make(df, cfg, args.paper, decided=decided)
    for claim, record in plan.decided:
        print(f"decided at records/{record}, not planned: {claim}")
    if args.write:
        if not plan.overlay:
            raise PlanError(
                f"--write {args.write}: nothing to write (no claim more evidence can decide)"
            )
        write_atomic(Path(args.write), overlay_text(plan, files))
    print(report(plan, Path(args.benchmarks), files, args.write, args.runs_per_job))
    return 0


def main(argv: Sequence[str] | None = None, *, decided: Mapping[str, str] | None = None) -> int:
    """``privrisk plan``; a reader that stops early (``privrisk plan | head``) ends it quietly.
    ``decided``: the claims runs of record decided, left out (:func:`make`)."""
    try:
        code = _run(sys.argv[1:] if argv is None else argv, decided)
        sys.stdout.flush()  # inside the try: a closed pipe fails here, not at interpreter exit
        return code
    except PlanError as err:
        print(f"privrisk plan: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
