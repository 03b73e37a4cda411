"""Run one declared step or figure of the privrisk library (every rule of registry.smk uses this).

params.kind is ``step``, ``shard``, ``pool`` or ``figure``; params.func names ``module:function``;
params.cfg holds its params. A step (or a shard of one: runs ``params["shard"]`` of it) has the
signature ``f(params, inputs, outputs)`` and writes exactly the rule's outputs; a pool job calls
the step's ``Shards.pool`` as ``f(params, shards, outputs)`` with the shards' output paths in run
order; a figure returns a FigureResult that run_figure writes as the output contract. Figure
rules only read step artifacts, so changing a plot never reruns a step.

Torch's thread count is the config's ``torch_threads`` for every job, not the rule's ``threads``
(which Snakemake lowers to ``--cores``): torch's numbers depend on it, and the same config must
give the same numbers on a laptop and on a cluster. This runner applies it, once, before the
step or figure runs (:func:`privrisk.core.device.set_torch_threads`); a step's params also carry
it (privrisk.pipeline.workflow.params puts it there) only so that a change reruns the steps and their
records show it, and figure provenance records it.
"""

import os
import sys
from pathlib import Path

# A job draws only to files: the non-interactive backend, whatever display the node has
# (privrisk.contract.plotting itself leaves the backend to the user).
os.environ.setdefault("MPLBACKEND", "Agg")

# Import this checkout's own library (src/ beside workflow/), whatever else is installed, so the
# code that runs is the code whose commit goes into provenance.
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from privrisk.core import jobs

sm = snakemake  # noqa: F821
# Killed with its Snakemake, never an orphan that writes outputs after the run is gone; and one
# line a minute in the terminal while it runs (privrisk.core.jobs). Only in a job process of its
# own (Snakemake runs this file as a script), not when a test runs it inside its own process.
if __name__ == "__main__":
    jobs.die_with_parent()
    jobs.heartbeat(f"{sm.params.paper} {sm.params.name}", sm.log[0])

from privrisk.contract.figure import resolve, run_figure  # noqa: E402
from privrisk.contract.joblog import job_log  # noqa: E402
from privrisk.core import checksums, device  # noqa: E402
from privrisk.core.declarations import shard_groups  # noqa: E402

inputs = {k: str(v) for k, v in sm.input.items() if k not in ("code", "data")}
# a malformed intermediate file is named, not reported as `KeyError: 'draw'` from deep inside
with job_log(sm.log[0]), jobs.inputs_named_when_malformed(inputs):
    kind = sm.params.kind
    # under --cache the digest sidecars are declared outputs too (registry.smk); written below
    outputs = {k: str(v) for k, v in sm.output.items() if not k.startswith("sidecar__")}
    # applied here once for every job; a figure job does not load torch for it (it is recorded in
    # the figure's provenance)
    device.set_torch_threads(sm.config.get("torch_threads", 1), load_torch=kind != "figure")
    if kind in ("step", "shard", "pool"):
        if kind == "pool":
            resolve(sm.params.func)(sm.params.cfg, shard_groups(inputs), outputs)
        else:
            resolve(sm.params.func)(sm.params.cfg, inputs, outputs)
        # the SHA-256 of what the step wrote, beside each file: a later error blames only an input
        # that was changed since (privrisk.core.jobs), and `privrisk complete` names an edited one
        checksums.write_sidecars(p for p in outputs.values() if Path(p).is_file())
    else:
        run_figure(
            sm.params.func,
            paper=sm.params.paper,
            figure=sm.params.name,
            params=sm.params.cfg,
            # the output prefix is the CSV's path without extension (every figure writes a CSV)
            prefix=sm.output.csv.removesuffix(".csv"),
            claims_path=sm.output.claims,
            scale=sm.config.get("scale", "quick"),
            inputs=inputs or None,
        )
