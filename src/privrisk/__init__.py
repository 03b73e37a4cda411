"""privrisk: reproduction library for five papers on what DP's epsilon means against attackers.

The library is organised by concept (see docs/development.md "Code layout"):

- ``accounting``   Gaussian / GDP / DP-SGD noise calibration, shared by every paper.
- ``bounds``       membership, attribute and reconstruction bounds (pure functions, vectorised).
- ``plotting``     the one plotting style of every figure.
- ``figure``       the figure contract: FigureResult and the writer of pdf/png/csv/json.
- ``claims``       the claims ledger (one row per number the paper quotes).
- ``provenance``   provenance records (versions, commit, seeds, data sources, wall time).
- ``config``       config loading and schema validation.
- ``papers.<key>`` per-paper composition: each figure is a small function of its config.
- ``explain``      ``privrisk.explain(epsilon=3, prior=0.1)``: the risk card of a guarantee.
- ``audit``        ``privrisk.audit("scores.csv", epsilon=1)``: lower bounds from attack results.
"""

import importlib

__version__ = "0.1.0"


def __getattr__(name: str):
    # ``privrisk.explain`` is loaded on first use by a call, not an import statement: every rule's
    # code inputs follow each ``import`` in this file (functions included), so a static import
    # here would make every figure of every paper depend on the explain package.
    if name in ("explain", "audit"):
        return importlib.import_module(f"privrisk.{name}")
    raise AttributeError(f"module 'privrisk' has no attribute {name!r}")
