"""The schema's upper limits on ``standin_size`` fit the machine the docs name (24 GB): building a
stand-in at its limit, extrapolated from its measured peak memory at two small sizes, stays within
the budget benchmarks/bench_standin_memory.py and docs/data.md use (12 GB: half the machine).
Slow: each size is built in a fresh process."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

BUDGET = 12e9
#: two sizes per stand-in, large enough that fixed costs do not inflate the slope (smaller sizes
#: overstate it: 213 kB an image at 1,000 and 2,000 CIFAR-10 images, 185 kB at 4,000 and 8,000)
SIZES = {"cifar10": (4_000, 8_000), "dermamnist": (1_000, 2_000)}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_a_stand_in_at_its_limit_fits_the_budget(name):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_standin_memory as bench
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    call, _, block = bench.CASES[name]
    (n1, n2) = SIZES[name]
    p1, p2 = bench.peak_bytes(call, n1), bench.peak_bytes(call, n2)
    per_record = (p2 - p1) / (n2 - n1)
    assert per_record > 0, (p1, p2)
    limit = bench.limit_of(block)
    at_limit = p2 + per_record * (limit - n2)
    assert at_limit <= BUDGET, (
        f"{name}: standin_size {limit:,} would build with {at_limit / 1e9:.1f} GB "
        f"({per_record / 1e3:.0f} kB a record), over the {BUDGET / 1e9:g} GB budget"
    )
