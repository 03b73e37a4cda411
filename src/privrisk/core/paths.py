"""Where every file of the pipeline lives; paths are made here and nowhere else."""

from __future__ import annotations


def artifact(paper: str, filename: str) -> str:
    """Where a step's output lives."""
    return f"results/{paper}/intermediate/{filename}"


def figure_outputs(paper: str, fig: str, *, table: bool = False) -> dict[str, str]:
    """The named outputs of one figure (or table) rule: the output contract plus its claims rows."""
    prefix = f"results/{paper}/{fig}"
    out = {
        "csv": f"{prefix}.csv",
        "json": f"{prefix}.json",
        "claims": f"results/{paper}/claims/{fig}.csv",
    }
    if table:
        out |= {"md": f"{prefix}.md", "tex": f"{prefix}.tex"}
    else:
        out |= {"pdf": f"{prefix}.pdf", "png": f"{prefix}.png"}
    return out


def log_path(paper: str, name: str) -> str:
    return f"results/logs/{paper}/{name}.log"


def benchmark_path(paper: str, name: str) -> str:
    return f"results/benchmarks/{paper}/{name}.tsv"
