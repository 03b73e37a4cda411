"""fixture2099's figures: each ``figN(params)`` returns a FigureResult (CONTRIBUTING "Adding a
figure"); ``privrisk new-paper`` wrote Figure 1 as a working example."""

from __future__ import annotations

import pandas as pd

from ...bounds import membership
from ...contract import plotting
from ...contract.figure import FigureResult
from ...core.grids import grid
from . import claims as paper_claims


def fig1(params) -> FigureResult:
    """Positive accuracy bound of membership inference against ε at one prior (Theorem 1)."""
    # params: this figure's config keys (described in schema.yaml) and the global seed
    eps = grid(params["epsilons"])  # a list or a dense grid {min, max, n_points}
    p = params["prior_prob"]
    bound = membership.positive_accuracy_upper(epsilon=eps, p=p)
    fig, ax = plotting.subplots()
    ax.plot(eps, bound, color=plotting.color(0))
    ax.set(xlabel="ε", ylabel="positive accuracy bound")
    return FigureResult(
        # tidy: one row per plotted point (series, x, y; lo, hi where an interval is drawn)
        data=pd.DataFrame({"series": "bound", "x": eps, "y": bound}),
        fig=fig,
        # the figure computes the numbers; claims.py makes the rows
        claims=[
            paper_claims.prior_at_zero(figure="fig1", eps=eps, bound=bound, prior=p),
            paper_claims.odds_at_one(eps=eps, bound=bound, prior=p),
        ],
        # the caption of record, readable without the paper (the docstring is only the title)
        caption=f"Positive accuracy bound at prior {p:g} against ε.",
    )
