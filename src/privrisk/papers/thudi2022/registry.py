"""thudi2022: every figure is analytic, one cheap rule each (no steps)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.declarations import Figure, Paper, Resources

PAPER = Paper(
    title="Bounding Membership Inference",
    authors="Thudi, Shumailov, Boenisch & Papernot",
    venue="ICLR 2022 submission",
    summary="analytic membership-inference bounds, subsampling, deletion",
    order=1,
)


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


# --- config checks beyond the schema (called by privrisk.pipeline.config.validate) ---


def check_config(sec: Mapping[str, Any]) -> list[str]:
    """Keys of the thudi2022 section that are each valid but do not fit together."""
    return [
        f"config key thudi2022.{f}.c_step: {s['c_step']} > c_max {s['c_max']} (an empty grid of c)"
        for f, s in sec.items()
        if isinstance(s, Mapping)
        and _is_number(s.get("c_step"))
        and _is_number(s.get("c_max"))
        and s["c_step"] > s["c_max"]
    ]


def check_limits(sec: Mapping[str, Any], *, limits: Mapping[str, int], hint: str) -> list[str]:
    """Sizes derived from several keys that exceed the config's upper ``limits``: a Fig 7 grid of
    c has c_max / c_step points (``privrisk.pipeline.config_checks`` calls this unless ``allow_large``)."""
    out = []
    for name, s in sec.items():
        if not (name.startswith("fig7") and isinstance(s, Mapping)):
            continue
        if _is_number(s.get("c_max")) and _is_number(s.get("c_step")) and s["c_step"] > 0:
            n = s["c_max"] / s["c_step"]
            if n > limits["n_points"]:
                out.append(
                    f"config key thudi2022.{name}.c_step: c_max / c_step = {n:,.0f} grid points, above "
                    f"the limit of {limits['n_points']:,} for 'n_points' ({hint})"
                )
    return out


def _is_number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)
