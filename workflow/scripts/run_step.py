"""Run one expensive step (training, attack, sweep) of the privrisk library.

params.func names ``module:function`` with signature ``f(params, inputs, outputs, threads)``;
the function writes exactly the rule's outputs. Plotting rules then read those files, so
changing a plot never reruns the step (showyourwork's rule).
"""

import logging
import sys

import torch

from privrisk.figure import resolve

sm = snakemake  # noqa: F821
with open(sm.log[0], "w") as log:
    sys.stdout = sys.stderr = log
    logging.basicConfig(stream=log, level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    torch.set_num_threads(max(1, sm.threads))
    fn = resolve(sm.params.func)
    fn(
        sm.params.cfg,
        {k: str(v) for k, v in sm.input.items() if k != "code"},
        {k: str(v) for k, v in sm.output.items()},
        sm.threads,
    )
