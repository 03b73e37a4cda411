"""``privrisk audit``: valid lower bounds from anyone's attack results, and a verdict on a claim.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> cols = {"score": np.r_[rng.normal(2, 1, 2000), rng.normal(0, 1, 2000)],
...         "member": np.r_[np.ones(2000), np.zeros(2000)]}
>>> report = audit(cols, epsilon=1)
>>> report.verdict
'refuted'

``audit(...)`` returns an :class:`AuditReport` (frozen; ``to_json``/``from_json``). The command
``privrisk audit FILE`` prints it (``--json``). This package sits above ``explain``
(``.importlinter``): it reuses ``explain``'s guarantee parser, and ``explain`` never imports it;
the papers' audit figures (the pipeline auditing its own DP models) sit above it.
"""

from __future__ import annotations

import sys
import types

from .build import audit
from .compare import Comparison, compare
from .errors import AuditInputError
from .report import SCHEMA, AuditReport

__all__ = ["audit", "compare", "AuditReport", "Comparison", "AuditInputError", "SCHEMA"]


class _CallableModule(types.ModuleType):
    """Lets ``privrisk.audit(...)`` call :func:`audit` (the package and the function share the
    name; once the package is imported the attribute ``privrisk.audit`` is the module)."""

    def __call__(self, source, **kwargs) -> AuditReport:
        return audit(source, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
