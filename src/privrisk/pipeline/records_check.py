"""``privrisk records --check``: is a run of record still what it says, and what do today's rules
make of it (docs/records.md)?

1. **Hashes.** Every file the manifest lists has its SHA-256, and the folder holds nothing else.
2. **Decisions, recomputed.** Every covered figure is run again by today's code on the record's
   per-run values (its figure function, with the params its provenance recorded, in a temporary
   folder), and each claim's status is printed beside the recorded one. A status that moved while
   the figure's code (its function and the verdict rules it imports) changed since the run (the
   manifest's digests) is "rules changed", not an error; moved under the same code, it is an
   error. ``statuses.json`` (what the status page shows) must equal today's statuses: after the
   rules changed, ``--refresh`` rewrites it. A figure that reads no per-run values (it draws its own trials, e.g. lowy2024's) is its
   own job: its rows are checked for consistency and it is rerun only with ``--full``.
3. **One job, rerun.** One job of the record whose measured CPU time is at most ``--rerun-limit``
   seconds and whose inputs the record holds, chosen at random (the seed of the choice printed,
   ``--rerun-seed`` repeats it), is run again and its outputs compared with the record's: byte for
   byte where this machine computes as the record's did (CPU, kernels, package versions), else by
   the statuses the figures reading them give (no contradiction: ok never becomes fails).

Exit 0 when everything holds, 1 when something does not (each problem one line naming the file or
claim), 2 when the record cannot be read at all.
"""

from __future__ import annotations

import json
import random
import secrets
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core import records as rec
from ..core.paths import figure_outputs
from . import config as config_mod
from . import workflow
from .records_make import code_digests

#: the longest job the check reruns (CPU seconds as the record measured it)
RERUN_LIMIT_S = 120.0
#: pairs of statuses that contradict each other (a rerun may move a claim to or from
#: uninformative, never across)
CONTRADICTIONS = {
    frozenset({"qualitative-ok", "qualitative-fails"}),
    frozenset({"reproduced", "differs"}),
}


@dataclass
class Outcome:
    #: where each line goes as it is found (the command prints them)
    log: Callable[[str], None] = print
    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    #: seed -> claim key -> status today (figures recomputed)
    today: dict[str, dict[str, str]] = field(default_factory=dict)
    recomputed_all: bool = True

    def note(self, line: str) -> None:
        self.lines.append(line)
        self.log(line)


def verify_hashes(folder: Path, man: Mapping[str, Any]) -> list[str]:
    """One line per file whose bytes differ from the manifest, that is gone, or that the
    manifest does not list."""
    problems = []
    listed = man.get("files", {})
    for rel, digest in sorted(listed.items()):
        path = folder / rel
        if not path.is_file():
            problems.append(f"{path}: missing (the manifest lists it)")
        elif rec.sha256(path) != digest:
            problems.append(f"{path}: its bytes differ from the manifest's SHA-256 (edited?)")
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and rel not in listed and rel not in (rec.MANIFEST, rec.STATUSES):
            problems.append(f"{path}: not in the manifest")
    return problems


def record_config(man: Mapping[str, Any], seed: int, tmp: Path) -> dict[str, Any]:
    """The merged config the record's run at ``seed`` used, from the texts the manifest keeps
    (validated by today's schema when it still passes, else read as it is)."""
    paths = []
    texts = [f["text"] for f in man["config"]["files"]]
    if man["config"].get("overlay"):
        texts.append(man["config"]["overlay"]["text"])
    for i, text in enumerate(texts):
        p = tmp / f"config{i}.yaml"
        p.write_text(text)
        paths.append(p)
    try:
        cfg = config_mod.load(*paths)
    except config_mod.ConfigError:
        cfg = config_mod.load(*paths, check=False)
    cfg["seed"] = seed
    return cfg


def _job(cfg: Mapping[str, Any], paper: str, name: str, scale: str) -> workflow.Job | None:
    reg = workflow.load_registry(paper, cfg)
    for job in workflow.jobs(reg, cfg, scale if scale in ("quick", "paper") else "quick"):
        if job.name == name:
            return job
    return None


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    from ..contract import claims as claims_mod

    if not path.is_file():
        return {}
    return {r["claim_id"]: r for r in claims_mod.read(path).to_dict("records")}


def _stage(folder: Path, seed: str, paper: str, rels: Mapping[str, str], work: Path) -> list[str]:
    """Copy the record's files ``rels`` (``results/...`` paths) of one seed under ``work``;
    returns those the record does not hold."""
    absent = []
    for rel in rels.values():
        src = folder / rec.seed_dir(seed) / Path(rel).relative_to("results")
        if not src.is_file():
            absent.append(rel)
            continue
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, work / rel)
    return absent


def recompute(
    folder: Path,
    man: Mapping[str, Any],
    der: Mapping[str, Any],
    *,
    full: bool,
    tmp: Path,
    out: Outcome,
    log: Callable[[str], None],
) -> None:
    """Part 2: every covered figure of every seed, by today's code."""
    from ..contract import claims as claims_mod
    from .records_run import run_job

    # the recorded rows were written by the run's figure code (the manifest's digests): a status
    # that moved since is the rules' doing when that code has changed, a fault when it has not
    changed = rec.changed_code(man.get("code", {}).get("figures", {}))
    scale = man.get("scale") or "quick"
    for seed in map(str, man["seeds"]):
        cfg = record_config(man, int(seed), tmp)
        today = out.today.setdefault(seed, {})
        for item in man["figures"]:
            paper, fig = item.split("/")
            outs = figure_outputs(paper, fig)
            recorded = _rows(
                folder / rec.seed_dir(seed) / Path(outs["claims"]).relative_to("results")
            )
            prov_path = folder / rec.seed_dir(seed) / Path(outs["json"]).relative_to("results")
            if not prov_path.is_file():
                out.note(f"seed {seed} {item}: not in the record (partial), not recomputed")
                out.recomputed_all = False
                continue
            job = _job(cfg, paper, fig, scale)
            if job is None:
                out.problems.append(f"seed {seed} {item}: no such figure in today's registry")
                continue
            if not job.inputs and not full:
                problems = claims_mod.check(
                    claims_mod.read(
                        folder / rec.seed_dir(seed) / Path(outs["claims"]).relative_to("results")
                    )
                )
                out.problems += [f"seed {seed} {item}: {p}" for p in problems]
                today.update(_kept(der, seed, paper, recorded))
                cpu = man.get("jobs", {}).get(seed, {}).get(item, {}).get("cpu_s")
                out.note(
                    f"seed {seed} {item}: reads no per-run values (it draws its own); its rows "
                    f"checked as recorded, --full reruns it"
                    + (f" (≈ {cpu:.0f} s CPU)" if cpu is not None else "")
                )
                out.recomputed_all = False
                continue
            work = tmp / f"seed-{seed}"
            absent = _stage(folder, seed, paper, job.inputs, work)
            if absent:
                out.note(
                    f"seed {seed} {item}: not recomputed (the record does not hold {absent[0]})"
                )
                out.recomputed_all = False
                today.update(_kept(der, seed, paper, recorded))
                continue
            params = json.loads(prov_path.read_text())["parameters"]
            try:
                run_job(job, work, paper=paper, scale=scale, params=params)
            except Exception as err:  # today's code on the recorded values: say which and why
                first = (str(err).splitlines() or [""])[0][:200]
                out.problems.append(
                    f"seed {seed} {item}: today's code fails on the recorded values "
                    f"({type(err).__name__}: {first})"
                )
                continue
            now = _rows(work / outs["claims"])
            for cid in sorted(set(recorded) | set(now)):
                key = f"{paper}/{cid}"
                old = recorded.get(cid, {}).get("status", "absent")
                new = now.get(cid, {}).get("status", "absent")
                if new != "absent":
                    today[key] = new
                if old == new:
                    continue
                if changed:
                    out.note(f"seed {seed} {key}: {old} -> {new} (rules changed)")
                else:
                    out.problems.append(
                        f"seed {seed} {key}: recorded {old}, recomputed {new} under the same code"
                    )
            log(f"seed {seed} {item}: recomputed ({len(now)} claims)")


def _kept(der: Mapping[str, Any], seed: str, paper: str, recorded: Mapping[str, Mapping]) -> dict:
    """The statuses of a figure not recomputed here: as last derived (``statuses.json``, which a
    ``--refresh`` may have recomputed with newer rules than the recorded rows'), else as recorded."""
    shown = der.get("claims", {})
    return {
        f"{paper}/{k}": shown.get(f"{paper}/{k}", {}).get("statuses", {}).get(seed, r["status"])
        for k, r in recorded.items()
    }


def _candidates(folder: Path, man: Mapping[str, Any], limit: float, tmp: Path):
    """(seed, paper, job, cpu_s) of every job of the record that can be rerun within ``limit``
    CPU seconds: unsharded, its inputs held by the record, its outputs (or, for a figure, its
    claims rows) held by the record."""
    out = []
    scale = man.get("scale") or "quick"
    for seed in map(str, man["seeds"]):
        cfg = record_config(man, int(seed), tmp)
        for key, bench in sorted(man.get("jobs", {}).get(seed, {}).items()):
            cpu = bench.get("cpu_s")
            if cpu is None or cpu > limit or bench.get("shards"):
                continue
            paper, name = key.split("/")
            job = _job(cfg, paper, name, scale)
            if job is None or job.kind in ("shard", "pool"):
                continue
            base = folder / rec.seed_dir(seed)

            def held(rel: str, base: Path = base) -> bool:
                return (base / Path(rel).relative_to("results")).is_file()

            if not all(held(r) for r in job.inputs.values()):
                continue
            if job.kind == "figure":
                if job.inputs:  # a figure fed by per-run values is part 2's work already
                    continue
                if not held(figure_outputs(paper, name)["claims"]):
                    continue
            elif not any(held(r) for r in job.outputs.values()):
                continue
            out.append((seed, paper, job, cpu))
    return out


def _contradicts(a: str, b: str) -> bool:
    return frozenset({a, b}) in CONTRADICTIONS


def rerun(
    folder: Path,
    man: Mapping[str, Any],
    *,
    limit: float,
    choice_seed: int | None,
    tmp: Path,
    out: Outcome,
    log: Callable[[str], None],
) -> None:
    """Part 3: one job, chosen at random among those that fit, run again and compared."""
    from .records_run import run_job, same_machine

    choice_seed = secrets.randbelow(2**32) if choice_seed is None else choice_seed
    cands = _candidates(folder, man, limit, tmp)
    if not cands:
        out.note(
            f"rerun: no job of the record fits in {limit:g} s CPU with its inputs recorded; none rerun"
        )
        return
    seed, paper, job, cpu = random.Random(choice_seed).choice(cands)
    scale = man.get("scale") or "quick"
    same, why = same_machine(man.get("machine", {}), man.get("packages", {}))
    log(
        f"rerun: {paper}/{job.name} at seed {seed} (≈ {cpu:.0f} s CPU; chosen with --rerun-seed "
        f"{choice_seed} among {len(cands)} jobs)"
    )
    work = tmp / f"rerun-{seed}"
    _stage(folder, seed, paper, job.inputs, work)
    params = None
    if job.kind == "figure":
        prov = (
            folder
            / rec.seed_dir(seed)
            / Path(figure_outputs(paper, job.name)["json"]).relative_to("results")
        )
        params = json.loads(prov.read_text())["parameters"]
    torch_threads = (man.get("machine", {}).get("torch_threads") or [1])[0]
    try:
        run_job(job, work, paper=paper, scale=scale, params=params, torch_threads=torch_threads)
    except Exception as err:
        first = (str(err).splitlines() or [""])[0][:200]
        out.problems.append(
            f"rerun {paper}/{job.name} seed {seed}: fails ({type(err).__name__}: {first})"
        )
        return
    base = folder / rec.seed_dir(seed)
    if job.kind == "figure":
        compared = {
            "claims": figure_outputs(paper, job.name)["claims"],
            "csv": figure_outputs(paper, job.name)["csv"],
        }
    else:
        compared = job.outputs
    pairs = [
        (rel, base / Path(rel).relative_to("results"), work / rel)
        for rel in compared.values()
        if (base / Path(rel).relative_to("results")).is_file()
    ]
    if same:
        differ = [rel for rel, a, b in pairs if rec.sha256(a) != rec.sha256(b)]
        if not differ:
            out.note(
                f"rerun {paper}/{job.name} seed {seed}: {len(pairs)} files byte-identical to the record"
            )
            return
        # the bytes are promised only under the code that made them: a job whose code changed
        # since (a figure's ledger gained a column, say) is held to the record's decisions instead
        kind = "figures" if job.kind == "figure" else "steps"
        changed = rec.changed_code(man.get("code", {}).get(kind, {}))
        if not changed:
            for rel in differ:
                out.problems.append(
                    f"rerun {paper}/{job.name} seed {seed}: {rel} differs from the record's bytes "
                    "on the record's machine type"
                )
            return
        shown = ", ".join(changed[:3]) + (f" (+{len(changed) - 3})" if len(changed) > 3 else "")
        why = f"its code changed since the record: {shown}; bytes differ"
    else:
        why = f"another machine, {why}"
    # another machine, or other code: the statuses the rerun's values give, beside the record's
    statuses = _statuses_from_rerun(folder, man, seed, paper, job, work, tmp)
    recorded = {
        k: s
        for k, v in rec.derived(folder.name, folder.parent).get("claims", {}).items()
        if (s := v.get("statuses", {}).get(seed)) and k.startswith(f"{paper}/")
    }
    clash = [
        f"{k}: {recorded[k]} -> {s}"
        for k, s in sorted(statuses.items())
        if k in recorded and _contradicts(recorded[k], s)
    ]
    for c in clash:
        out.problems.append(
            f"rerun {paper}/{job.name} seed {seed} ({why}) contradicts the record: {c}"
        )
    if not clash:
        moved = sum(1 for k, s in statuses.items() if k in recorded and recorded[k] != s)
        out.note(
            f"rerun {paper}/{job.name} seed {seed}: not byte-comparable ({why}); {len(statuses)} "
            f"statuses from its values, none contradicts the record ({moved} moved to or from "
            "uninformative)"
        )


def _statuses_from_rerun(folder, man, seed, paper, job, work, tmp) -> dict[str, str]:
    """The claims statuses of the rerun job (a figure) or of the record's figures that read its
    outputs (a step), recomputed with the rerun's values and the record's others."""
    from .records_run import run_job

    outs_claims = lambda fig: work / figure_outputs(paper, fig)["claims"]  # noqa: E731
    figs = [job.name] if job.kind == "figure" else []
    if job.kind != "figure":
        cfg = record_config(man, int(seed), tmp)
        scale = man.get("scale") or "quick"
        for item in man["figures"]:
            p, fig = item.split("/")
            if p != paper:
                continue
            fjob = _job(cfg, p, fig, scale)
            if fjob is None or not set(fjob.inputs.values()) & set(job.outputs.values()):
                continue
            others = {k: v for k, v in fjob.inputs.items() if not (work / v).is_file()}
            if _stage(folder, seed, p, others, work):
                continue
            prov = (
                folder
                / rec.seed_dir(seed)
                / Path(figure_outputs(p, fig)["json"]).relative_to("results")
            )
            run_job(
                fjob, work, paper=p, scale=scale, params=json.loads(prov.read_text())["parameters"]
            )
            figs.append(fig)
    out = {}
    for fig in figs:
        out |= {f"{paper}/{k}": r["status"] for k, r in _rows(outs_claims(fig)).items()}
    return out


def check(
    name: str,
    root: str | Path | None = None,
    *,
    full: bool = False,
    do_rerun: bool = True,
    rerun_limit: float = RERUN_LIMIT_S,
    rerun_seed: int | None = None,
    refresh: bool = False,
    log: Callable[[str], None] = print,
) -> Outcome:
    """All three parts for one record; with ``refresh`` (which implies ``full``), and when every
    part holds, ``statuses.json`` is rewritten from today's recomputation."""
    root = Path(root or rec.default_root())
    folder = root / name
    man = rec.manifest(name, root)
    der = rec.derived(name, root)
    out = Outcome(log=log)
    out.problems += verify_hashes(folder, man)
    if not man.get("complete", False):
        out.note(
            f"records/{name}: partial ({len(man.get('missing', []))} files missing, e.g. "
            f"{(man.get('missing') or ['?'])[0]})"
        )
    tmp = Path(tempfile.mkdtemp(prefix=f"privrisk-records-{name}-"))
    try:
        recompute(folder, man, der, full=full or refresh, tmp=tmp, out=out, log=log)
        if do_rerun:
            rerun(folder, man, limit=rerun_limit, choice_seed=rerun_seed, tmp=tmp, out=out, log=log)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # the derived statuses the page shows must be today's: the same as recomputed, or refreshed
    shown = {k: v.get("statuses", {}) for k, v in der.get("claims", {}).items()}
    moved = [
        f"{k} seed {s}: shown {shown.get(k, {}).get(s)}, today {st}"
        for s, claims in out.today.items()
        for k, st in sorted(claims.items())
        if shown.get(k, {}).get(s) != st
    ]
    if refresh and not out.problems:
        _refresh(folder, man, der, out)
        out.note(f"records/{name}/statuses.json: rewritten from today's recomputation")
    elif refresh:
        out.note(f"records/{name}/statuses.json: not rewritten (the problems below first)")
    elif moved:
        out.problems.append(
            f"records/{name}/statuses.json: {len(moved)} statuses differ from today's "
            f"recomputation (e.g. {moved[0]}); fix: privrisk records --check {name} --refresh"
        )
    return out


def _refresh(folder: Path, man: Mapping[str, Any], der: Mapping[str, Any], out: Outcome) -> None:
    funcs = []
    cfg_tmp = Path(tempfile.mkdtemp())
    try:
        cfg = record_config(man, int(man["seeds"][0]), cfg_tmp)
    finally:
        shutil.rmtree(cfg_tmp, ignore_errors=True)
    for item in man["figures"]:
        paper, fig = item.split("/")
        reg = workflow.load_registry(paper, cfg)
        funcs += [f.func for f in reg.figures if f.name == fig]
    claims = {k: dict(v) for k, v in der.get("claims", {}).items()}
    for seed, today in out.today.items():
        for key, status in today.items():
            entry = claims.setdefault(key, {"figure": "", "statuses": {}})
            entry["statuses"] = {**entry.get("statuses", {}), seed: status}
    data = {
        "format": rec.FORMAT,
        "derived_by": "recomputed",
        "when_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "code": code_digests(sorted(set(funcs)), None),
        "claims": claims,
    }
    path = folder / rec.STATUSES
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)
