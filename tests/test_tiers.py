"""The two tiers of the tests: plain ``pytest`` deselects the slow tier, and a test that runs
Snakemake without being marked slow is stopped before it starts anything."""

from __future__ import annotations

import pytest

from tests.conftest import run_pipeline


def test_plain_pytest_is_the_fast_tier(pytestconfig):
    addopts = pytestconfig.getini("addopts")
    assert ["-m", "not slow"] in [addopts[i : i + 2] for i in range(len(addopts))], addopts


def test_an_unmarked_test_cannot_run_snakemake(tmp_path):
    with pytest.raises(AssertionError, match="runs Snakemake: mark it @pytest.mark.slow"):
        run_pipeline(tmp_path, "thudi2022", extra_args=("-n",))
    assert not any(tmp_path.iterdir())  # refused before anything ran
