"""Check that every output the pipeline promises exists and is well formed (run after the pipeline).

The list of outputs comes from the registry (privrisk.papers.<key>.registry) for the config the
pipeline ran with; the checks are privrisk.contract.figure.check_outputs (files, tidy CSV, provenance,
consistent claims ledger), the same as the tests use.
"""

import sys
from pathlib import Path

from privrisk.contract import claims
from privrisk.contract.figure import check_outputs
from privrisk.pipeline import config, workflow

cfg = config.load(*(sys.argv[1:] or ["config/config.yaml"]))
problems, n_figs = [], 0
for paper in workflow.PAPERS:
    reg = workflow.load_registry(paper, cfg)
    n_figs += len(reg.figures)
    problems += check_outputs(Path("."), reg)
ledger = claims.read("results/claims.csv")
problems += claims.check(ledger)
counts = ", ".join(f"{k} {v}" for k, v in ledger.status.value_counts().items())
print(f"{n_figs} figures of {len(workflow.PAPERS)} papers checked; {len(ledger)} claims ({counts})")
if problems:
    print("\n".join(problems))
    sys.exit(1)
