"""Concatenate claims files; with an `md` output also write the ledger as Markdown."""

from pathlib import Path

from privrisk.claims import gather, to_markdown
from privrisk.joblog import job_log

sm = snakemake  # noqa: F821
with job_log(sm.log[0]):
    out = sm.output
    csv = out.csv if hasattr(out, "csv") else out[0]
    df = gather(list(sm.input), csv)
    if hasattr(out, "md"):
        Path(out.md).write_text(to_markdown(df))
    print(f"{len(df)} claims -> {csv}")
