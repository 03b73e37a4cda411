# pankova2022 — Pankova & Laud, guessing advantage (CSF 2022 slides). All analytic or
# seconds of Monte Carlo: one rule per output, each calling privrisk.papers.pankova2022.<fig>.

PANKOVA2022 = {  # output -> is it a table?
    "fig_eps_vs_advantage": False,
    "fig_worst_case_prior": False,
    "fig_single_attribute": False,
    "fig_shell_counterexample": False,
    "table_cafeteria": True,
    "table_eps_advantage": True,
}
PAPER_TARGETS.setdefault("pankova2022", []).extend(
    f
    for fig, table in PANKOVA2022.items()
    for k, f in figure_outputs("pankova2022", fig, table).items()
    if k != "claims"
)

for _fig, _table in PANKOVA2022.items():

    rule:
        name:
            f"pankova2022_{_fig}"
        input:
            code=code(f"privrisk.papers.pankova2022"),
        output:
            **report_outputs("pankova2022", _fig, _table),
        log:
            f"results/logs/pankova2022/{_fig}.log",
        benchmark:
            f"results/benchmarks/pankova2022/{_fig}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=5,
        params:
            func=f"privrisk.papers.pankova2022:{_fig}",
            cfg=paper_params("pankova2022", _fig),
            paper="pankova2022",
            figure=_fig,
        script:
            "../scripts/make_figure.py"
