"""Concatenate claims files; with an `md` output also write the ledger as Markdown."""

import sys
from pathlib import Path

from privrisk.claims import gather, to_markdown

with open(snakemake.log[0], "w") as log:  # noqa: F821
    sys.stderr = log
    out = snakemake.output  # noqa: F821
    csv = out.csv if hasattr(out, "csv") else out[0]
    df = gather(list(snakemake.input), csv)  # noqa: F821
    if hasattr(out, "md"):
        Path(out.md).write_text(to_markdown(df))
    print(f"{len(df)} claims -> {csv}", file=log)
