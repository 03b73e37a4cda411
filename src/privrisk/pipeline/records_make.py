"""``privrisk records make``: a run of record, ``records/<name>/``, from finished results folders
(one per seed) of a run of a config overlay (docs/records.md).

What a record covers is decided from the config, not guessed: a figure is covered when the
overlay changes its params or the params of a step it is made from (transitively), or when it is
named with ``--figures``. Per seed the record keeps each covered figure's claims rows, its tidy
CSV and provenance record, and the step artifacts it reads (its per-run values) except models
(``.pt``) and files over ``--max-file-mb``, which are listed as left out. A seed missing some of
those files makes the record partial (``complete: false`` and what is missing).

The folder is written under a temporary name and renamed at the end: nothing half-written.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core import checksums
from ..core import records as rec
from ..core.paths import benchmark_path, figure_outputs
from . import config as config_mod
from . import workflow
from .plan import get_dotted

#: files a record never keeps: trained models
MODEL_SUFFIXES = (".pt", ".pth", ".ckpt")
#: the largest per-run value file a record keeps by default (MB)
MAX_FILE_MB = 4.0
#: the Snakefile's defaults, relative to a checkout
DEFAULT_CONFIG = Path("config/config.yaml")


class MakeError(Exception):
    """A problem the user can fix: one line naming the argument or file, exit 2."""


# --- what a record covers -----------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples as lists, numpy scalars as numbers)."""
    return json.loads(json.dumps(value, default=str))


def covered_figures(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, list[str]]:
    """paper -> the figures whose params, or the params of a step they are made from, differ
    between the configs ``base`` and ``over`` (the base merged with the overlay)."""
    out: dict[str, list[str]] = {}
    for paper in workflow.paper_keys():
        old = workflow.load_registry(paper, base)
        new = workflow.load_registry(paper, over)
        before = {
            d.name: _jsonable(workflow.params(base, paper, d)) for d in (*old.steps, *old.figures)
        }
        for fig in new.figures:
            decls = (fig, *new.upstream(fig))
            if any(_jsonable(workflow.params(over, paper, d)) != before.get(d.name) for d in decls):
                out.setdefault(paper, []).append(fig.name)
    return out


def parse_figures(items: Sequence[str], cfg: Mapping[str, Any]) -> dict[str, list[str]]:
    """``--figures lowy2024/fig2 xu2022/fig1a`` as paper -> figures; each must be declared in the
    config ``cfg``."""
    out: dict[str, list[str]] = {}
    for item in items:
        paper, sep, fig = item.partition("/")
        if not sep or paper not in workflow.paper_keys():
            raise MakeError(
                f"--figures {item!r}: expected PAPER/FIGURE with a paper of this checkout"
            )
        names = [f.name for f in workflow.load_registry(paper, cfg).figures]
        if fig not in names:
            raise MakeError(f"--figures {item!r}: {paper} has no figure {fig!r}")
        out.setdefault(paper, []).append(fig)
    return out


def planned(
    paper: str, over: Mapping[str, Any], overlay: Mapping[str, Any], claim: Mapping
) -> dict:
    """The count the overlay ran for one claim (``{"key", "n", "unit"}``), through the paper's
    ``PLAN_KEYS``; {} when the overlay does not set the key that holds the claim's units."""
    from .plan import plan_keys

    section = over.get(paper) or {}
    keys = plan_keys(paper, section)
    decl = keys.get(claim["claim_id"]) or keys.get(claim["figure"])
    if not decl:
        return {}
    for dotted in (decl["key"], decl.get("fallback")):
        if dotted and get_dotted(overlay.get(paper) or {}, dotted) is not None:
            return {
                "key": f"{paper}.{dotted}",
                "n": get_dotted(section, dotted),
                "unit": decl["unit"],
            }
    return {}


# --- measurements -------------------------------------------------------------------------------


def _benchmark(path: Path) -> dict[str, float] | None:
    """Snakemake's benchmark file: ``{"cpu_s", "wall_s"}`` (the mean over its rows)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    if len(lines) < 2:
        return None
    head = lines[0].split("\t")
    rows = [dict(zip(head, line.split("\t"), strict=False)) for line in lines[1:]]
    out = {}
    for key, col in (("cpu_s", "cpu_time"), ("wall_s", "s")):
        vals = []
        for r in rows:
            try:
                vals.append(float(r[col]))
            except (KeyError, ValueError):
                pass
        vals = [v for v in vals if math.isfinite(v)]
        if vals:
            out[key] = round(sum(vals) / len(vals), 2)
    return out or None


def job_benchmark(results: Path, paper: str, name: str) -> dict[str, float] | None:
    """A job's CPU and wall seconds; a step trained in shards: its shards' and pool's summed."""
    bench = results.parent / benchmark_path(paper, name)
    own = _benchmark(bench)
    parts = [_benchmark(p) for p in sorted(bench.parent.glob(f"{name}.runs*.tsv"))]
    parts = [p for p in parts if p]
    if not parts:
        return own
    total: dict[str, float] = {}
    for p in [*parts, own or {}]:
        for k, v in p.items():
            total[k] = round(total.get(k, 0.0) + v, 2)
    return total | {"shards": len(parts)}


def code_digests(modules: Sequence[str], checkout: Path | None) -> dict[str, str]:
    """SHA-256 of the source files ``modules`` import (privrisk's, transitively), keyed by their
    path under ``src/`` and read from ``checkout``'s ``src/`` (the run's own code) when it has
    them, else from this one's."""
    out = {}
    for path in workflow.code_inputs(*modules):
        rel = Path(path).resolve().relative_to(rec.SRC).as_posix()
        theirs = checkout / "src" / rel if checkout else None
        out[rel] = rec.sha256(theirs if theirs and theirs.is_file() else path)
    return out


# --- the record ---------------------------------------------------------------------------------


def _checkout(results: Path) -> Path | None:
    """The checkout a results folder was made in (its parent, when that has the package)."""
    parent = results.resolve().parent
    return parent if (parent / "src" / "privrisk").is_dir() else None


def _vouched_figure(prov: Path):
    """Whether a figure's file is the one its finished job wrote: the provenance record (written
    last, :mod:`privrisk.contract.figure`) holds its SHA-256. A record made while the run goes on
    takes only what finished jobs vouch for."""
    try:
        digests = json.loads(prov.read_text()).get(checksums.PROVENANCE_KEY, {})
    except (OSError, ValueError):
        digests = {}

    def vouched(path: Path) -> bool:
        rel = Path(path).relative_to(prov.parent).as_posix()
        return digests.get(rel) == rec.sha256(path)

    return vouched


def _vouched_step_output(path: Path) -> bool:
    """Whether a step artifact is what its finished job wrote: run.py writes the ``.sha256``
    sidecar after the step returns (a file still being written has none, or another digest)."""
    side = checksums.sidecar(path)
    return side.is_file() and checksums.read_sidecar(side).get(path.name) == rec.sha256(path)


def _load(files: Sequence[Path], seed: int) -> dict[str, Any]:
    try:
        cfg = config_mod.load(*files)
    except config_mod.ConfigError as err:
        raise MakeError(str(err).splitlines()[0]) from None
    cfg["seed"] = seed
    return cfg


def _seed_of(results: Path, figures: Mapping[str, list[str]]) -> int | None:
    for paper, figs in figures.items():
        for fig in figs:
            prov = results.parent / figure_outputs(paper, fig)["json"]
            if prov.is_file():
                return json.loads(prov.read_text()).get("parameters", {}).get("seed")
    return None


def make(
    name: str,
    results: Sequence[str | Path],
    *,
    seeds: Sequence[int] | None = None,
    planned_seeds: Sequence[int] | None = None,
    overlay: str | Path | None = None,
    configfiles: Sequence[str | Path] = (),
    figures: Sequence[str] = (),
    root: str | Path | None = None,
    max_file_mb: float = MAX_FILE_MB,
    force: bool = False,
    log=print,
) -> Path:
    """Write ``root/name`` from the results folders ``results`` (one per seed); returns it."""
    if not name or "/" in name or name.startswith("."):
        raise MakeError(f"record name {name!r}: one folder name, not starting with '.'")
    results = [Path(r) for r in results]
    for r in results:
        if not (r.is_dir() and any((r / p).is_dir() for p in workflow.paper_keys())):
            raise MakeError(f"--results {r}: not a results folder (it holds no paper's results)")
    if seeds and len(seeds) != len(results):
        raise MakeError(f"--seeds: {len(seeds)} seeds for {len(results)} results folders")
    if overlay is None and not figures:
        raise MakeError("give --overlay FILE (the covered figures follow from it) or --figures")
    overlay = Path(overlay) if overlay else None
    if overlay is not None and not overlay.is_file():
        raise MakeError(f"--overlay {overlay}: no such file")
    checkout = _checkout(results[0])
    # the run's own defaults (its checkout's config/config.yaml) unless told otherwise
    files = [Path(f) for f in configfiles] or [(checkout or Path(".")) / DEFAULT_CONFIG]
    for f in files:
        if not f.is_file():
            raise MakeError(f"--configfile {f}: no such file")
    base = _load(files, 0)
    over = _load([*files, overlay], 0) if overlay else base
    overlay_cfg = config_mod.read_file(overlay) if overlay else {}
    cover = parse_figures(figures, over) if figures else covered_figures(base, over)
    if not cover:
        raise MakeError(f"--overlay {overlay}: it changes no figure's params; nothing to record")
    if not seeds:
        seeds = [_seed_of(r, cover) for r in results]
        if None in seeds:
            bad = results[seeds.index(None)]
            raise MakeError(
                f"--results {bad}: no covered figure's provenance to read its seed from; give --seeds"
            )
    if len(set(seeds)) != len(seeds):
        raise MakeError(f"--seeds {' '.join(map(str, seeds))}: a seed twice")

    root = Path(root or rec.default_root())
    root.mkdir(parents=True, exist_ok=True)
    final = root / name
    if final.exists() and not force:
        raise MakeError(f"{final} exists (--force replaces it)")
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=root))
    try:
        man = _fill(tmp, results, seeds, cover, files, overlay, overlay_cfg, max_file_mb, name, log)
        # the seeds the run of record must cover and has not run yet: a partial record, not a
        # smaller one (its claims decide nothing until every planned seed has run)
        planned = list(planned_seeds or seeds)
        later = [f"seed {s}: not run yet" for s in planned if s not in seeds]
        m = man["manifest"]
        m["planned_seeds"], m["missing"] = planned, later + m["missing"]
        m["complete"] = not m["missing"]
        _write_json(tmp / rec.MANIFEST, man["manifest"])
        _write_json(tmp / rec.STATUSES, man["statuses"])
        if final.exists():
            shutil.rmtree(final)
        tmp.rename(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def _write_json(path: Path, data: Mapping) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=False, allow_nan=True) + "\n")


def _fill(
    tmp: Path,
    results: Sequence[Path],
    seeds: Sequence[int],
    cover: Mapping[str, list[str]],
    files: Sequence[Path],
    overlay: Path | None,
    overlay_cfg: Mapping[str, Any],
    max_file_mb: float,
    name: str,
    log,
) -> dict[str, Any]:
    from ..contract import claims as claims_mod

    missing: list[str] = []
    left_out: list[dict[str, str]] = []
    jobs: dict[str, dict[str, Any]] = {}
    claims: dict[str, dict[str, Any]] = {}
    planned_of: dict[str, dict] = {}
    prov_seen: dict[str, Any] = {}
    step_funcs: set[str] = set()
    fig_funcs: set[str] = set()
    checkouts = {str(c) for r in results if (c := _checkout(r))}
    for results_dir, seed in zip(results, seeds, strict=True):
        cfg = _load([*files, overlay] if overlay else files, seed)
        run_root = results_dir.parent
        dest = tmp / rec.seed_dir(seed)
        per_job: dict[str, Any] = {}
        for paper, figs in cover.items():
            reg = workflow.load_registry(paper, cfg)
            by_name = {d.name: d for d in (*reg.steps, *reg.figures)}
            for fig in figs:
                decl = by_name[fig]
                fig_funcs.add(decl.func)
                outs = figure_outputs(paper, fig, table=decl.table)
                vouched = _vouched_figure(run_root / outs["json"])
                for key in ("claims", "csv", "json"):
                    src = run_root / outs[key]
                    if not src.is_file() or (key != "json" and not vouched(src)):
                        missing.append(f"seed {seed}: {outs[key]}")
                        continue
                    target = dest / Path(outs[key]).relative_to("results")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, target)
                prov_path = run_root / outs["json"]
                if prov_path.is_file():
                    prov = json.loads(prov_path.read_text())
                    want = _jsonable(workflow.params(cfg, paper, decl))
                    got = _jsonable(prov.get("parameters")) or {}
                    # a param both sides have must agree (the seed, the overlay's counts); one that
                    # today's declaration adds or drops is no sign of another run
                    differ = sorted(k for k in set(want) & set(got) if want[k] != got[k])
                    if differ:
                        raise MakeError(
                            f"--results {results_dir}: {outs['json']} was made with other "
                            f"parameters than the config + overlay at seed {seed} "
                            f"({', '.join(differ[:3])})"
                        )
                    prov_seen.setdefault("git_commit", set()).add(prov.get("git_commit"))
                    prov_seen.setdefault("cpu", set()).add(prov.get("cpu"))
                    prov_seen.setdefault("torch_threads", set()).add(prov.get("torch_threads"))
                    prov_seen["packages"] = prov.get("packages", {})
                    prov_seen["scale"] = prov.get("scale")
                for rel in reg.inputs(decl).values():
                    src = run_root / rel
                    shown = f"seed {seed}: {rel}"
                    if Path(rel).suffix in MODEL_SUFFIXES:
                        left_out.append({"file": shown, "why": "a trained model"})
                    elif not src.is_file() or not _vouched_step_output(src):
                        missing.append(shown)
                    elif src.stat().st_size > max_file_mb * 1e6:
                        mb = src.stat().st_size / 1e6
                        left_out.append({"file": shown, "why": f"{mb:.1f} MB > {max_file_mb:g} MB"})
                    else:
                        target = dest / Path(rel).relative_to("results")
                        target.parent.mkdir(parents=True, exist_ok=True)
                        if not target.exists():
                            shutil.copyfile(src, target)
                for d in (decl, *reg.upstream(decl)):
                    if d is not decl:
                        step_funcs.add(d.func)
                    bench = job_benchmark(results_dir, paper, d.name)
                    per_job[f"{paper}/{d.name}"] = bench or {"missing": True}
                rows_path = run_root / outs["claims"]
                if rows_path.is_file():
                    for r in claims_mod.read(rows_path).to_dict("records"):
                        key = f"{paper}/{r['claim_id']}"
                        entry = claims.setdefault(key, {"figure": fig, "statuses": {}})
                        entry["statuses"][str(seed)] = r["status"]
                        if overlay is not None and key not in planned_of:
                            planned_of[key] = planned(paper, cfg, overlay_cfg, r)
        jobs[str(seed)] = per_job
        log(f"seed {seed}: {results_dir}")
    missing = list(dict.fromkeys(missing))  # an artifact two figures read is missing once
    if not prov_seen.get("git_commit"):  # no figure finished yet: the checkouts' own commits
        from ..contract.provenance import git_commit

        prov_seen["git_commit"] = {git_commit(cwd=c) for c in checkouts} or {"unknown"}
    if len(prov_seen.get("git_commit", ())) > 1:
        raise MakeError(
            f"the seeds' runs were made at several commits ({', '.join(sorted(map(str, prov_seen['git_commit'])))}): "
            "a record is one version of the code"
        )
    from .records_run import machine

    # the code that made the values: each seed's checkout's (one clone per seed is usual), which
    # must be one version
    clones = sorted(checkouts) or [None]
    step_code = code_digests(sorted(step_funcs), clones[0] and Path(clones[0]))
    fig_code = code_digests(sorted(fig_funcs), clones[0] and Path(clones[0]))
    for other in clones[1:]:
        if (
            code_digests(sorted(step_funcs), Path(other)) != step_code
            or code_digests(sorted(fig_funcs), Path(other)) != fig_code
        ):
            raise MakeError(
                f"--results: the checkouts {clones[0]} and {other} hold different code for the "
                "covered jobs; a record is one version of the code"
            )
    checkout = _checkout(results[0])
    digests = {
        p.relative_to(tmp).as_posix(): rec.sha256(p) for p in sorted(tmp.rglob("*")) if p.is_file()
    }
    size = sum((tmp / p).stat().st_size for p in digests)
    here = machine()
    cpu = sorted(c for c in prov_seen.get("cpu", ()) if c)
    man = {
        "format": rec.FORMAT,
        "name": name,
        "made_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": sorted(map(str, prov_seen.get("git_commit", {"unknown"})))[0],
        "scale": prov_seen.get("scale"),
        "seeds": list(seeds),
        "config": {
            "files": [{"path": _shown(f, checkout), "text": f.read_text()} for f in files],
            "overlay": {"path": _shown(overlay, checkout), "text": overlay.read_text()}
            if overlay
            else None,
        },
        "figures": sorted(f"{p}/{f}" for p, figs in cover.items() for f in figs),
        "planned": {k: v for k, v in sorted(planned_of.items()) if v},
        "jobs": jobs,
        # where the runs ran: the CPU their provenance names; the kernels and cores are this
        # machine's, which is the run's when the record is made where it ran (docs/records.md)
        "machine": {
            "cpu": cpu[0] if len(cpu) == 1 else (cpu or here["cpu"]),
            "cores": here["cores"],
            "platform": here["platform"],
            "kernels": here["kernels"],
            "torch_threads": sorted(t for t in prov_seen.get("torch_threads", ()) if t is not None),
        },
        "packages": prov_seen.get("packages", {}),
        "code": {"steps": step_code, "figures": fig_code},
        "remake": remake_command(
            name,
            seeds,
            [_shown(f, checkout) for f in files],
            overlay and _shown(overlay, checkout),
            sorted(f"{p}/{f}" for p, figs in cover.items() for f in figs),
        ),
        "complete": not missing,
        "missing": missing,
        "left_out": left_out,
        "bytes": size,
        "files": digests,
    }
    stat = {
        "format": rec.FORMAT,
        "derived_by": "recorded",
        "when_utc": man["made_utc"],
        "code": fig_code,
        "claims": claims,
    }
    log(
        f"records/{name}: {len(digests)} files, {size / 1e6:.2f} MB, "
        f"{sum(len(f) for f in cover.values())} figures, {len(claims)} claims, seeds "
        f"{', '.join(map(str, seeds))}"
        + ("" if not missing else f"; PARTIAL: {len(missing)} files missing")
    )
    return {"manifest": man, "statuses": stat}


def _shown(path: Path, checkout: Path | None) -> str:
    """``path`` relative to the run's checkout when it lies there (``config/config.yaml``)."""
    try:
        return path.resolve().relative_to(checkout).as_posix() if checkout else str(path)
    except ValueError:
        return str(path)


def remake_command(
    name: str,
    seeds: Sequence[int],
    files: Sequence[str],
    overlay: str | None,
    figures: Sequence[str],
) -> str:
    """The commands that make the record again: the covered figures' run at every seed (one
    checkout each), then ``privrisk records make``. The results folders are named by seed
    (``CHECKOUT_<seed>/results``), not by the maker's paths: the manifest is read on other
    machines, where those paths mean nothing."""
    configs = " ".join([*files, *([overlay] if overlay else [])])
    seed_list = " ".join(map(str, seeds))
    targets = " ".join(f"results/{f}.csv" for f in figures)  # every figure and table has one
    return (
        f"for s in {seed_list}; do snakemake --cores all {targets} --configfile {configs} "
        f"--config seed=$s; done (one checkout per seed), then privrisk records make {name} "
        "--force --results "
        + " ".join(f"CHECKOUT_{s}/results" for s in seeds)
        + f" --seeds {seed_list}"
        + (f" --overlay {overlay}" if overlay else "")
        + f" --figures {' '.join(figures)}"
    )
