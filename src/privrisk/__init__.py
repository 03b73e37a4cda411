"""privrisk: reproduction library for five papers on what DP's epsilon means against attackers.

The library is organised by concept (see README "Code layout"):

- ``accounting``   Gaussian / GDP / DP-SGD noise calibration, shared by every paper.
- ``bounds``       membership, attribute and reconstruction bounds (pure functions, vectorised).
- ``plotting``     the one plotting style of every figure.
- ``figure``       the figure contract: FigureResult and the writer of pdf/png/csv/json.
- ``claims``       the claims ledger (one row per number the paper quotes).
- ``provenance``   provenance records (versions, commit, seeds, data sources, wall time).
- ``config``       config loading and schema validation.
- ``papers.<key>`` per-paper composition: each figure is a small function of its config.
"""

__version__ = "0.1.0"
