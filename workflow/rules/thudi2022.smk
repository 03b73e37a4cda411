# thudi2022 — Thudi et al., "Bounding Membership Inference": Figures 1–7 and Table 1.
# All analytic: one cheap rule per figure, each calling privrisk.papers.thudi2022.<fig>.

THUDI2022 = {  # figure -> is it a table?
    "fig1": False,
    "fig2": False,
    "fig3": False,
    "fig4a": False,
    "fig4b": False,
    "fig5": False,
    "fig6": False,
    "fig7": False,
    "fig7_corrected": False,
    "table1": True,
}
PAPER_TARGETS["thudi2022"] = [
    f
    for fig, table in THUDI2022.items()
    for k, f in figure_outputs("thudi2022", fig, table).items()
    if k != "claims"
]

for _fig, _table in THUDI2022.items():

    rule:
        name:
            f"thudi2022_{_fig}"
        input:
            code=code(f"privrisk.papers.thudi2022"),
        output:
            **report_outputs("thudi2022", _fig, _table),
        log:
            f"results/logs/thudi2022/{_fig}.log",
        benchmark:
            f"results/benchmarks/thudi2022/{_fig}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=5,
        params:
            func=f"privrisk.papers.thudi2022:{_fig}",
            cfg=paper_params("thudi2022", _fig),
            paper="thudi2022",
            figure=_fig,
        script:
            "../scripts/make_figure.py"
