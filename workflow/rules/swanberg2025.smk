# swanberg2025 — analytic part (issue 5): Table 1, Figures 1(a, b) and 2(a, b).
# The n-gram Figure 3 and the marginals Figures 4–7 live in swanberg2025_*.smk.

SWANBERG_ANALYTIC = {  # output -> is it a table?
    "table1": True,
    "fig1a": False,
    "fig1b": False,
    "fig2a": False,
    "fig2b": False,
}
PAPER_TARGETS.setdefault("swanberg2025", []).extend(
    f
    for fig, table in SWANBERG_ANALYTIC.items()
    for k, f in figure_outputs("swanberg2025", fig, table).items()
    if k != "claims"
)

for _fig, _table in SWANBERG_ANALYTIC.items():

    rule:
        name:
            f"swanberg2025_{_fig}"
        input:
            code=code("privrisk.papers.swanberg2025.analytic"),
        output:
            **report_outputs("swanberg2025", _fig, _table),
        log:
            f"results/logs/swanberg2025/{_fig}.log",
        benchmark:
            f"results/benchmarks/swanberg2025/{_fig}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=1500,
            runtime=5,
        params:
            func=f"privrisk.papers.swanberg2025.analytic:{_fig}",
            cfg=paper_params("swanberg2025", _fig),
            paper="swanberg2025",
            figure=_fig,
        script:
            "../scripts/make_figure.py"
