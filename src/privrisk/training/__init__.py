"""Training loops, incl. batched DP-SGD over many small models and replicate runs batched in
one computation (:mod:`.replicates`).

Importing this package switches Intel MKL (torch's CPU matrix products) to its reproducible mode
``MKL_CBWR=AUTO,STRICT`` unless the environment already sets ``MKL_CBWR``: MKL otherwise rounds
a product by where its operands sit in memory, so a run's numbers would depend on the runs
stacked before it in a batch, and a model trained in shards (config key ``runs_per_job``) would
differ in the last bits from the same model trained in one job. MKL reads the setting at its
first call, so it holds in every pipeline job (nothing computes before the step module is
imported); a process that multiplied matrices before importing privrisk keeps MKL's default.
"""

import os

os.environ.setdefault("MKL_CBWR", "AUTO,STRICT")
