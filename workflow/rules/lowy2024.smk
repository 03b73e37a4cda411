# lowy2024 — Lowy et al., "Why does DP with large ε defend against practical MIAs?": Figures 1-6.
# Figures 1-3 (exponential mechanism, exact enumeration) and 4-6 (Gaussian mechanism,
# Proposition 12 bound) each run in one rule calling privrisk.papers.lowy2024.<fig>; Figures 4-6
# come in both readings of which DP parameter the paper holds fixed (see the config comments).

LOWY2024 = {  # figure -> resources (runtime in minutes at the paper scale T = 100)
    "fig1": 2,
    "fig2": 2,
    "fig3": 2,
    "fig4": 3,
    "fig4_global": 3,
    "fig5": 3,
    "fig5_epsX": 3,
    "fig6": 3,
    "fig6_epsX": 3,
}
PAPER_TARGETS["lowy2024"] = [
    f
    for fig in LOWY2024
    for k, f in figure_outputs("lowy2024", fig).items()
    if k != "claims"
]

for _fig, _runtime in LOWY2024.items():

    rule:
        name:
            f"lowy2024_{_fig}"
        input:
            code=code(f"privrisk.papers.lowy2024"),
        output:
            **report_outputs("lowy2024", _fig),
        log:
            f"results/logs/lowy2024/{_fig}.log",
        benchmark:
            f"results/benchmarks/lowy2024/{_fig}.tsv"
        conda:
            "../envs/privrisk.yaml"
        threads: 1
        resources:
            mem_mb=1500,
            runtime=_runtime,
        params:
            func=f"privrisk.papers.lowy2024:{_fig}",
            cfg=paper_params("lowy2024", _fig),
            paper="lowy2024",
            figure=_fig,
        script:
            "../scripts/make_figure.py"
