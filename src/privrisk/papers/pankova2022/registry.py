"""pankova2022: analytic or seconds of Monte Carlo, one cheap rule per figure or table (no steps)."""

from ...core.declarations import Figure, Paper, Resources

PAPER = Paper(
    title="Interpreting ε of DP in terms of advantage in guessing or approximating sensitive attributes",
    authors="Pankova & Laud",
    venue="CSF 2022; reproduced from the talk slides",
    summary="attribute-guessing advantage bounds, worked example",
    order=2,
)


_FIGS = "privrisk.papers.pankova2022.figures"
_CHEAP = {"quick": Resources(mem_mb=1000, runtime=5)}

_PKG = "privrisk.papers.pankova2022"

FIGURES = [
    *(
        Figure(name=f, func=f"{_FIGS}:{f}", resources=_CHEAP)
        for f in (
            "fig_eps_vs_advantage",
            "fig_worst_case_prior",
            "fig_single_attribute",
            "fig_shell_counterexample",
        )
    ),
    Figure(
        name="fig_two_attributes",
        func=f"{_PKG}.figures_two_attributes:fig_two_attributes",
        resources=_CHEAP,
    ),
    *(
        Figure(name=t, func=f"{_FIGS}:{t}", table=True, resources=_CHEAP)
        for t in ("table_cafeteria", "table_eps_advantage")
    ),
    Figure(
        name="table_eps_for_advantage",
        func=f"{_PKG}.figures_epsilon_search:table_eps_for_advantage",
        table=True,
        resources=_CHEAP,
    ),
]
