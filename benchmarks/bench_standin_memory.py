"""Peak memory of building each stand-in, against its size: the numbers behind the schema's upper
limits on ``standin_size`` (``src/privrisk/pipeline/config.schema.yaml``; docs/data.md, *Stand-in sizes*).

Each stand-in is built in a fresh Python process (``privrisk.data.<dataset>.load`` of a
``source: standin`` block, as a pipeline step builds it) at three sizes; the process's peak
resident memory less that of the same process before the build is the build's
cost. (``VmHWM`` of ``/proc/self/status``, not ``ru_maxrss``: Linux carries the parent's peak into
``ru_maxrss`` across ``exec``, so a child of a large process would seem to cost nothing.) A
straight line through the three points (least squares) gives bytes per record and the
size whose build would reach the budget; the schema's limit must stay under it. The generators
draw whole arrays (every record's parameters, then every pixel's noise, in float64), so the cost
is linear in the size and the extrapolation is safe; they are not chunked, because chunked draws
would change every stand-in (and so every number made from one).

Run: python benchmarks/bench_standin_memory.py [--budget-gb 12]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from privrisk.pipeline import config  # noqa: E402

#: dataset -> (loader call building n records, sizes measured, the block's schema in config.schema)
CASES = {
    "cifar10": (
        "from privrisk.data import cifar10; cifar10.load_cifar10("
        "{'source': 'standin', 'path': 'none', 'standin_size': {n}})",
        (4_000, 8_000, 16_000),
        "cifar10_block",
    ),
    # the largest images (64×64) with the per-image texture: the costliest stand-in of the three
    "dermamnist": (
        "from privrisk.data import dermamnist; dermamnist.load_dermamnist("
        "{'source': 'standin', 'path': 'none', 'standin_size': {n}, 'image_size': 64, "
        "'standin_texture': 0.3})",
        (1_000, 2_000, 4_000),
        "dermamnist_block",
    ),
    # the table and the degree-2 Bayesian network fitted to it (swanberg2025's dataset step)
    "acs/fire (tables)": (
        "import numpy as np; from privrisk.data import acs; "
        "from privrisk.models import baynet; "
        "t = acs.load({'source': 'standin', 'path': 'none', 'standin_size': {n}, "
        "'raw_rows': None}); baynet.fit_greedy(t.codes, t.domains, degree=2, pseudocount=0.0, "
        "rng=np.random.default_rng(0), names=t.columns)",
        (200_000, 400_000, 800_000),
        "table_block",
    ),
}

CHILD = """
import json

def hwm():  # this process's peak resident memory in bytes (VmHWM; Linux)
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("VmHWM:"))

base = hwm()
{call}
print(json.dumps([base, hwm()]))
"""


def peak_bytes(call: str, n: int) -> int:
    """Extra peak resident memory of ``call`` with N = n, in a fresh process."""
    # the imports happen before the baseline: the build alone is measured
    parts = call.split("; ")
    imports = "; ".join(p for p in parts if p.startswith(("import ", "from ")))
    build = "\n".join(p for p in parts if not p.startswith(("import ", "from ")))
    code = imports + "\n" + CHILD.format(call=build.replace("{n}", str(n)))
    env_path = str(REPO / "src")
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
    )
    base, peak = json.loads(out.stdout.strip().splitlines()[-1])
    return peak - base


def limit_of(block: str) -> int:
    schema = config.load_schema()
    node = config._resolve(schema, schema["$defs"][block])
    return int(node["properties"]["standin_size"]["maximum"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget-gb", type=float, default=12.0, help="peak memory a build may use")
    args = ap.parse_args()
    budget = args.budget_gb * 1e9
    print(f"budget for one stand-in build: {args.budget_gb:g} GB")
    for name, (call, sizes, block) in CASES.items():
        peaks = [peak_bytes(call, n) for n in sizes]
        slope, intercept = np.polyfit(sizes, peaks, 1)
        limit = limit_of(block)
        fits = int((budget - intercept) / slope)
        print(
            f"{name}: "
            + ", ".join(f"{n:,} -> {p / 1e9:.2f} GB" for n, p in zip(sizes, peaks, strict=True))
            + f"; {slope / 1e3:,.1f} kB per record; the schema's limit {limit:,} -> "
            f"{(intercept + slope * limit) / 1e9:.1f} GB; the budget fits {fits:,}"
        )


if __name__ == "__main__":
    main()
