# swanberg2025 Figure 3 — reconstruction from DP-SGD-trained character n-gram LMs (issue 6).
# Step: tune (C, lr, T) per (ε, prior) and train + attack every model (batched DP-SGD);
# the figure rule only reads the step's npz/csv.

_NG_INTER = "results/swanberg2025/intermediate"
_NG_CODE = "privrisk.papers.swanberg2025.ngram"
PAPER_TARGETS.setdefault("swanberg2025", []).extend(
    f for k, f in figure_outputs("swanberg2025", "fig3").items() if k != "claims"
)


rule swanberg2025_fig3_train:
    input:
        code=code(f"{_NG_CODE}:train_step"),
    output:
        npz=f"{_NG_INTER}/fig3_ngram_runs.npz",
        tuning=f"{_NG_INTER}/fig3_ngram_tuning.csv",
    log:
        "results/logs/swanberg2025/fig3_train.log",
    benchmark:
        "results/benchmarks/swanberg2025/fig3_train.tsv"
    conda:
        "../envs/privrisk.yaml"
    threads: 2
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        func=f"{_NG_CODE}:train_step",
        cfg=paper_params("swanberg2025", "ngram_train"),
    script:
        "../scripts/run_step.py"


rule swanberg2025_fig3:
    input:
        code=code(f"{_NG_CODE}:fig3"),
        npz=f"{_NG_INTER}/fig3_ngram_runs.npz",
    output:
        **report_outputs("swanberg2025", "fig3"),
    log:
        "results/logs/swanberg2025/fig3.log",
    benchmark:
        "results/benchmarks/swanberg2025/fig3.tsv"
    conda:
        "../envs/privrisk.yaml"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        func=f"{_NG_CODE}:fig3",
        cfg=paper_params("swanberg2025", "fig3"),
        paper="swanberg2025",
        figure="fig3",
    script:
        "../scripts/make_figure.py"
