# Reproduction pipeline: every figure and table of five papers on what DP's epsilon means
# against real attackers. README.md explains the commands and the output contract.
#
#   snakemake --cores 2                                 every paper, quick scale, offline
#   snakemake --cores 2 thudi2022                       one paper (a target rule per paper key)
#   snakemake --cores 2 results/thudi2022/fig2.pdf      one figure; only its inputs run
#   snakemake --cores 8 --configfile config/paper.yaml  paper scale

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/registry.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/claims.smk"


rule all:
    default_target: True
    input:
        all_targets(),
        "results/claims.csv",
        "results/claims.md",


# One target rule per paper key: `snakemake --cores 2 <key>`.
for _key in PAPER_TARGETS:

    rule:
        name:
            _key
        input:
            paper_targets(_key),


# The run's last lines: where the outputs are, the ledger's counts and what changed since the last
# run, what to do next (privrisk.pipeline.run_summary). Not on a dry run.
onsuccess:
    from privrisk.pipeline import run_summary

    print(run_summary.text(ok=True))


onerror:
    from privrisk.pipeline import run_summary

    # Snakemake's log of this run says why it ended: a failed job, or a stop with none failing
    print(run_summary.text(ok=False, logs=log))
