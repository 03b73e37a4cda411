"""Check that every output the pipeline promises exists and is well formed (run after the pipeline).

Reads the list of target files from `snakemake --list-target-rules`-free source: the DAG summary
(`snakemake --summary`), then checks per figure: .csv has series/x/y, .json parses with the
provenance keys, and each paper has claims.csv with the ledger columns.
"""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

from privrisk.claims import COLUMNS

summary = subprocess.run(["snakemake", "--summary", "--cores", "1"], capture_output=True, text=True, check=True)
rows = [line.split("\t") for line in summary.stdout.splitlines()[1:] if line.strip()]
problems = []
files = [r[0] for r in rows]
for r in rows:
    if "missing" in r or not Path(r[0]).exists():
        problems.append(f"missing: {r[0]}")
for f in files:
    p = Path(f)
    if p.suffix == ".csv" and "claims" not in p.parts and p.name != "claims.csv" and "intermediate" not in p.parts:
        if p.with_suffix(".json").exists():
            df = pd.read_csv(p)
            if not {"series", "x", "y"} <= set(df.columns) or df.empty:
                problems.append(f"{p}: needs non-empty series/x/y columns")
            prov = json.loads(p.with_suffix(".json").read_text())
            for key in ("paper", "figure", "caption", "scale", "parameters", "data_sources", "packages", "git_commit"):
                if key not in prov:
                    problems.append(f"{p.with_suffix('.json')}: no {key!r}")
papers = sorted({Path(f).parts[1] for f in files if f.startswith("results/") and len(Path(f).parts) > 2
                 and Path(f).parts[1] not in ("logs", "benchmarks")})
for key in papers:
    c = Path("results") / key / "claims.csv"
    if not c.exists():
        problems.append(f"missing {c}")
    elif list(pd.read_csv(c).columns) != COLUMNS:
        problems.append(f"{c}: wrong columns")
ledger = pd.read_csv("results/claims.csv")
print(f"{len(files)} outputs checked for {len(papers)} papers ({', '.join(papers)}); {len(ledger)} claims")
if problems:
    print("\n".join(problems))
    sys.exit(1)
