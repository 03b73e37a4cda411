"""Run one expensive step (training, attack, sweep) of the privrisk library.

params.func names ``module:function`` with signature ``f(params, inputs, outputs, threads)``;
the function writes exactly the rule's outputs. Plotting rules then read those files, so
changing a plot never reruns the step (showyourwork's rule).
"""

import sys
from pathlib import Path

import torch

# Import this checkout's own library (src/ beside workflow/), whatever else is installed, so the
# code that runs is the code whose commit goes into provenance.
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from privrisk.figure import resolve
from privrisk.joblog import job_log

sm = snakemake  # noqa: F821
with job_log(sm.log[0]):
    torch.set_num_threads(max(1, sm.threads))
    resolve(sm.params.func)(
        sm.params.cfg,
        {k: str(v) for k, v in sm.input.items() if k not in ("code", "data")},
        {k: str(v) for k, v in sm.output.items()},
        sm.threads,
    )
