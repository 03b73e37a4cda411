"""privrisk: reproduction library for five papers on what DP's epsilon means against attackers.

The library is organised in layers, one subpackage each (see docs/development.md "Code layout"):

- ``pipeline``     the pipeline: the ``privrisk`` command, config validation, Snakemake's side, docs.
- ``papers.<key>`` per-paper composition: each figure is a small function of its config.
- ``audit``        ``privrisk.audit("scores.csv", epsilon=1)``: lower bounds from attack results.
- ``explain``      ``privrisk.explain(epsilon=3, prior=0.1)``: the risk card of a guarantee.
- ``contract``     the output contract: figures, plotting style, claims ledger, verdicts, provenance.
- concepts         ``accounting`` (Gaussian / GDP / DP-SGD calibration), ``mechanisms``, ``bounds``,
                   ``models``, ``training``, ``attacks``, ``estimators``, ``priors``, ``data``.
- ``core``         grids, declarations, discovery, paths, seeds, device.
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
