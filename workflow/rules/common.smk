# Shared helpers. Logic lives in the privrisk package (src/privrisk/pipeline/workflow.py), tested
# there; this file only validates the config and registers each paper's targets.

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from privrisk.pipeline import config as _privrisk_config  # noqa: E402
from privrisk.pipeline import workflow as wf  # noqa: E402

# Stop before any job starts if a key is unknown, mistyped or out of range: one block naming each
# key and exit status 2, not a WorkflowError with a frame that reads like a crash in this file.
# Snakemake has already read the config files, silently keeping the last of a key given twice:
# each is read again as privrisk.pipeline.config reads it (a duplicate key or an alias bomb is
# refused). `--config allow_large=true` and `=True` both mean true
# (privrisk.pipeline.config.normalize_booleans), and a nested `--config` number, which Snakemake
# hands over as a string, is a number again.
try:
    for _file in (*workflow.configfiles, *workflow.overwrite_configfiles):
        _privrisk_config.read_file(_file)
    _privrisk_config.normalize_command_line(config, workflow.config_settings.config)
    _privrisk_config.normalize_booleans(config)
    _privrisk_config.validate(config)
except _privrisk_config.ConfigError as err:
    print(f"Config error, nothing was run:\n{err}", file=sys.stderr)
    raise SystemExit(2)

SCALE = config.get("scale", "quick")

# paper key -> its Registry (filled by registry.smk) and its list of final outputs.
REGISTRIES = {}
PAPER_TARGETS = {}


def all_targets():
    return [f for key in PAPER_TARGETS for f in paper_targets(key)]


def paper_targets(key):
    return PAPER_TARGETS[key] + [f"results/{key}/claims.csv"]


def figure_outputs(key, fig, table=False):
    """Named outputs of one figure rule: the files of the output contract plus its claims rows."""
    return wf.figure_outputs(key, fig, table=table)


def report_outputs(key, fig, table=False):
    """figure_outputs with the picture (or table) registered for the Snakemake report."""
    out = figure_outputs(key, fig, table)
    for k in ("png", "md"):
        if k in out:
            out[k] = report(out[k], caption=wf.caption_path(key, fig), category=key)
    return out


def paper_params(key, fig):
    """The figure's config section merged over the paper's `common` section."""
    return wf.paper_params(config, key, fig)


def code(*funcs):
    """Library source files the rule's functions depend on, as `input: code=code(func, ...)`,
    so that editing that code (and only that code) reruns the rule. Relative to the working
    directory, as Snakemake records inputs: a moved checkout reruns nothing."""
    return [os.path.relpath(p) for p in wf.code_inputs(*funcs)]


def lineage_data(paper, decls):
    """The real raw files any of `decls` reads (a rule and the steps it is made from), once each."""
    return sorted({f for d in decls for f in wf.data_inputs(config, paper, d)})


def lineage_params(reg, steps):
    """The params (function, config) of the steps a job is made from (Registry.upstream), by
    the steps' rule names, as one more param of the job. Changing a step's parameter then leaves
    every job made from it out of date, even when the step's rerun is interrupted (and its old
    outputs are gone). A job made from no step gets no such param, and keeps its old params.
    """
    return (
        {
            "upstream": {
                reg.rule_name(s): {
                    "func": s.func,
                    "cfg": wf.params(config, reg.paper, s),
                }
                for s in steps
            }
        }
        if steps
        else {}
    )


def caption(key, fig):
    return wf.caption_path(key, fig)


def prepare_job(log, params, marker):
    """One prepare_<dataset> job of data.smk, logged (out of the rule: `snakemake --lint` wants
    run: short)."""
    from privrisk.data import prepare
    from privrisk.contract.joblog import job_log

    with job_log(log[0]):
        prepare.prepare(
            params.dataset,
            params.block,
            [Path(f) for f in params.files],
            what=params.where,
            marker=marker,
        )
