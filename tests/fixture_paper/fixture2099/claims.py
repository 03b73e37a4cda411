"""The fixture paper's one ledger (every claim row of the paper is made through it)."""

from __future__ import annotations

from ...contract.claims import Ledger

LEDGER = Ledger("fixture2099")
