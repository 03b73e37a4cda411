"""fixture2099 end to end at the tiny scale: Snakemake makes every declared output and they meet
the output contract. Slow (it runs Snakemake): pytest tests/fixture_paper/tests -m "slow or not slow"."""

from __future__ import annotations

import pytest

# `pipeline` is a fixture of tests/conftest.py (take it as an argument); assert_contract is a
# function there (import it)
from tests.conftest import assert_contract

pytestmark = pytest.mark.slow


def test_fixture2099_tiny_end_to_end(tmp_path, pipeline):
    # pipeline(workdir, *targets, extra_args=(), ...): the real Snakefile in workdir over
    # config/config.yaml + config/tiny.yaml (configfiles=... for others); raises if it fails
    pipeline(tmp_path, "fixture2099")
    # every figure the registry declares has its files, tidy CSV, provenance and claims rows, and
    # the ledger is consistent; returns the paper's rows of results/fixture2099/claims.csv
    ledger = assert_contract(tmp_path, "fixture2099")
    assert dict(zip(ledger.claim_id, ledger.status, strict=True)) == {
        "fig1_eps0": "qualitative-ok",
        "fig1_odds_eps1": "reproduced",
    }
