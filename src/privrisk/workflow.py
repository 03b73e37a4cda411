"""Helpers the Snakemake rules call (kept here so they are tested like any other code)."""

from __future__ import annotations

import copy
from typing import Any


def figure_outputs(key: str, fig: str, *, table: bool = False) -> dict[str, str]:
    """The named outputs of one figure (or table) rule."""
    prefix = f"results/{key}/{fig}"
    out = {"csv": f"{prefix}.csv", "json": f"{prefix}.json", "claims": f"results/{key}/claims/{fig}.csv"}
    if table:
        out |= {"md": f"{prefix}.md", "tex": f"{prefix}.tex"}
    else:
        out |= {"pdf": f"{prefix}.pdf", "png": f"{prefix}.png"}
    return out


def paper_params(config: dict[str, Any], key: str, fig: str) -> dict[str, Any]:
    """``config[key]['common']`` overlaid by ``config[key][fig]``, plus the global seed."""
    section = config.get(key, {})
    params = copy.deepcopy(section.get("common", {}))
    params.update(copy.deepcopy(section.get(fig, {})))
    params.setdefault("seed", config.get("seed", 0))
    return params
