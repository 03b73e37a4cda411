# Reproduction pipeline: every figure and table of five papers on what DP's epsilon means
# against real attackers. Read README.md first; the output contract is in design notes there.
#
#   snakemake --cores 2                      every paper, quick scale, offline
#   snakemake --cores 2 thudi2022            one paper
#   snakemake --cores 2 results/thudi2022/fig2.pdf   one figure
#   snakemake --cores 8 --configfile config/paper.yaml   paper scale

from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/thudi2022.smk"
include: "workflow/rules/pankova2022.smk"
include: "workflow/rules/claims.smk"


rule all:
    default_target: True
    input:
        all_targets(),
        "results/claims.csv",
        "results/claims.md",
