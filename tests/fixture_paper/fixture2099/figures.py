"""The fixture paper's one figure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...bounds import membership
from ...contract import plotting
from ...contract.figure import FigureResult
from ...core.grids import grid
from .claims import LEDGER


def fig1(params) -> FigureResult:
    """Positive accuracy bound of membership inference against ε at one prior (Theorem 1)."""
    eps = grid(params["epsilons"])
    p = params["prior_prob"]
    y = membership.positive_accuracy_upper(epsilon=eps, p=p)
    fig, ax = plotting.subplots()
    ax.plot(eps, y, color=plotting.color(0))
    ax.set(xlabel="ε", ylabel="positive accuracy bound")
    # the bound at ε = 0 is the prior itself: DP with ε = 0 tells the attacker nothing
    at_zero = float(np.interp(0.0, eps, y))
    claims = [
        LEDGER.numeric(
            figure="fig1",
            claim_id="fig1_eps0",
            claim="at ε = 0 the bound equals the prior",
            paper_value=p,
            ours=at_zero,
            tolerance=1e-9,
        )
    ]
    return FigureResult(
        data=pd.DataFrame({"series": "bound", "x": eps, "y": y}),
        fig=fig,
        claims=claims,
        caption=f"Positive accuracy bound at prior {p:g} against ε.",
    )
