"""thudi2022: every figure is analytic, one cheap rule each (no steps)."""

from ...workflow import Figure, Resources

_FIGS = "privrisk.papers.thudi2022.figures"
_CHEAP = {"quick": Resources(mem_mb=1000, runtime=5)}

FIGURES = [
    *(
        Figure(name=f, func=f"{_FIGS}:{f}", resources=_CHEAP)
        for f in (
            "fig1",
            "fig2",
            "fig3",
            "fig4a",
            "fig4b",
            "fig5",
            "fig6",
            "fig7",
            "fig7_corrected",
        )
    ),
    Figure(name="table1", func=f"{_FIGS}:table1", table=True, resources=_CHEAP),
]
