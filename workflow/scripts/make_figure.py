"""Run one figure function of the privrisk library and write the output contract's files.

Every figure rule uses this script: params.func names the function (``module:function``),
params.cfg is the figure's config section; named inputs (if any) are passed through.
"""

import logging
import sys

from privrisk.figure import run_figure

sm = snakemake  # noqa: F821
with open(sm.log[0], "w") as log:
    sys.stdout = sys.stderr = log
    logging.basicConfig(stream=log, level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    # The output prefix is the CSV's path without extension (every figure writes a CSV).
    prefix = sm.output.csv.removesuffix(".csv")
    inputs = {k: str(v) for k, v in sm.input.items() if k != "code"} or None
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
