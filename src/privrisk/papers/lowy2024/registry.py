"""lowy2024: every figure is cheap (exact enumeration or a vectorised bound), one rule each,
no steps. Runtimes are for the paper scale T = 100, which is also the quick default."""

from ...workflow import Figure, Resources

_PKG = "privrisk.papers.lowy2024"
_EXP = {"quick": Resources(mem_mb=1500, runtime=2)}
_GAUSS = {"quick": Resources(mem_mb=1500, runtime=3)}

FIGURES = [
    *(Figure(name=f, func=f"{_PKG}.exponential:{f}", resources=_EXP) for f in ("fig1", "fig2", "fig3")),
    *(Figure(name=f, func=f"{_PKG}.gaussian:{f}", resources=_GAUSS)
      for f in ("fig4", "fig4_global", "fig5", "fig5_epsX", "fig6", "fig6_epsX")),
]
