"""The output contract: what every paper's figures and claims are made of and checked against.

- ``figure``       FigureResult and the writer of pdf/png/csv/json (the files of the contract).
- ``plotting``     the one plotting style of every figure.
- ``claims``       the claims ledger (one row per number the paper quotes); ``claims_page`` its HTML.
- ``verdicts``     the one set of decision rules (estimate with its uncertainty -> status).
- ``provenance``   provenance records (versions, commit, seeds, data sources, wall time).
- ``joblog``       per-job logs; ``status``: the status page (docs/status.md).

Below the papers, explain and audit; above the concepts (``.importlinter``).
"""
