"""Concatenate claims files; with `md` / `html` outputs also write the ledger as Markdown and as
the page the Snakemake report shows (privrisk.contract.claims_page)."""

import sys
from pathlib import Path

# Import this checkout's own library (src/ beside workflow/), whatever else is installed, so the
# code that runs is the code whose commit goes into provenance.
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))  # noqa: F821

from privrisk.contract import claims_page
from privrisk.contract.claims import gather, to_markdown
from privrisk.contract.joblog import job_log
from privrisk.core import checksums, safe_io

sm = snakemake  # noqa: F821
with job_log(sm.log[0]):
    out = sm.output
    csv = out.csv if hasattr(out, "csv") else out[0]
    df = gather(list(sm.input), csv)
    if hasattr(out, "md"):  # atomic, no temporary file left on a failure
        safe_io.write_output(out.md, to_markdown(df), what="ledger")
    if hasattr(out, "html"):  # colours, legend, sorting, filters, links to the figures
        claims_page.write(df, out.html)
    # their digests, so that `privrisk complete` reports a ledger or page edited by hand (and one
    # whose sidecar is gone as unverified: privrisk.pipeline.completeness)
    checksums.write_sidecars(
        [o for o in (csv, getattr(out, "md", None), getattr(out, "html", None)) if o]
    )
    print(f"{len(df)} claims -> {csv}")
