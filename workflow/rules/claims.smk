# The claims ledger: per-figure rows -> per-paper claims.csv -> results/claims.csv (+ .md).


rule gather_paper_claims:
    input:
        lambda wc: REGISTRIES[wc.key].claims_files(),
    output:
        "results/{key}/claims.csv",
    log:
        "results/logs/{key}/gather_claims.log",
    benchmark:
        "results/benchmarks/{key}/gather_claims.tsv"
    wildcard_constraints:
        key="|".join(PAPER_TARGETS) or "none",
    conda:
        "../envs/privrisk.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/gather_claims.py"


rule gather_all_claims:
    input:
        [f"results/{key}/claims.csv" for key in PAPER_TARGETS],
    output:
        csv="results/claims.csv",
        md="results/claims.md",
        # the ledger as a table in the Snakemake report (snakemake --report results/report.html)
        html=report(
            "results/claims.html",
            caption="../report/claims.rst",
            category="Claims ledger",
        ),
    log:
        "results/logs/gather_all_claims.log",
    benchmark:
        "results/benchmarks/gather_all_claims.tsv"
    conda:
        "../envs/privrisk.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/gather_claims.py"
