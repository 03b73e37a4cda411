"""Run one figure function of the privrisk library and write the output contract's files.

Every figure rule uses this script: params.func names the function (``module:function``),
params.cfg its params; named inputs (other steps' artifacts) are passed through.
"""

import logging
import sys
from pathlib import Path

# Import this checkout's own library (src/ beside workflow/), whatever else is installed, so the
# code that runs is the code whose commit goes into provenance.
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from privrisk.figure import run_figure
from privrisk.joblog import job_log

sm = snakemake  # noqa: F821
with job_log(sm.log[0]):
    # The output prefix is the CSV's path without extension (every figure writes a CSV).
    prefix = sm.output.csv.removesuffix(".csv")
    inputs = {k: str(v) for k, v in sm.input.items() if k not in ("code", "data")} or None
    run_figure(
        sm.params.func,
        paper=sm.params.paper,
        figure=sm.params.figure,
        params=sm.params.cfg,
        prefix=prefix,
        claims_path=sm.output.claims,
        scale=sm.config.get("scale", "quick"),
        inputs=inputs,
    )
    logging.getLogger("make_figure").info("wrote %s.*", prefix)
