"""swanberg2025's one ledger: every claim row of the paper is made through :data:`LEDGER`, by the
claims modules of its parts (``claims_marginals``, ``claims_ngram``) and the analytic figures.

Statements about the analytic curves (Table 1, Figures 1–2) are decided by the exact checks of
:mod:`privrisk.contract.verdicts`; statements about attacks by its rules on estimates.
"""

from __future__ import annotations

from ...contract.claims import Ledger

LEDGER = Ledger("swanberg2025")
