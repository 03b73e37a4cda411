"""lowy2024: every figure is cheap (exact enumeration or a vectorised bound), one rule each,
no steps. Figures 1-3 average T = 1,000 data draws, Figures 4-6 T = 100 (measured times in the
README). Figure 5 also recomputes Figure 2's curves (config ``fig2``) for the statement that
its gap is larger than Figure 2's."""

from ...workflow import Figure, Resources

_PKG = "privrisk.papers.lowy2024"
_EXP = {"quick": Resources(mem_mb=1500, runtime=3)}
_GAUSS = {"quick": Resources(mem_mb=1500, runtime=3)}

FIGURES = [
    *(
        Figure(name=f, func=f"{_PKG}.exponential:{f}", resources=_EXP)
        for f in ("fig1", "fig2", "fig3")
    ),
    Figure(name="fig4", func=f"{_PKG}.gaussian:fig4", resources=_GAUSS),
    Figure(name="fig4_epsX", func=f"{_PKG}.gaussian:fig4_epsX", resources=_GAUSS),
    Figure(name="fig5", func=f"{_PKG}.gaussian:fig5", resources=_GAUSS, config={"fig2": "fig2"}),
    *(
        Figure(name=f, func=f"{_PKG}.gaussian:{f}", resources=_GAUSS)
        for f in ("fig5_epsX", "fig6", "fig6_epsX")
    ),
]
