"""swanberg2025: what the paper makes, declared for the rule loop (workflow/rules/registry.smk).

* analytic: Table 1, Figures 1(a, b) and 2(a, b), one cheap rule each (2(a, b) read the Enron
  maildir when present: the PII prior);
* Figure 3: one step ``fig3_train`` (tune, train and attack the DP-SGD n-gram models; reads the
  Enron maildir for the PII prior) and the figure reading its npz;
* Figures 4–7: one step per dataset (raw table → BayNet + records; reads the ACS/FIRE file when
  present), one attack step per panel (tunes the attack on shadow draws, then attacks repeated target
  draws), and the figures reading the attack and tuning CSVs and the dataset summary.

Modules: ``steps_*`` (expensive steps, no plotting), ``figures_*`` (figures), ``claims_*`` (the
judgements). Artifact file names are those of the former rule files, so existing results stay
valid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.declarations import Figure, Out, Paper, Resources, Step

PAPER = Paper(
    title="Beyond the Worst Case",
    authors="Swanberg et al.",
    venue="arXiv 2507.08158 v1",
    version="A revised version (arXiv 2507.08158 v2, June 2026, retitled *A Unified Framework for Adversary-Aware Differential Privacy Bounds*; its abstract names DP-finetuned language models where v1 has an n-gram model) exists; this project reproduces v1 and mixes nothing of v2 into it.",
    summary="bounds, priors, DP-SGD n-gram LM, noisy 3-way marginals, Bayesian network, RAP M-AI",
    order=4,
)


_PKG = "privrisk.papers.swanberg2025"
_ANALYTIC = f"{_PKG}.figures_analytic"
_NGRAM_STEPS = f"{_PKG}.steps_ngram"
_NGRAM_FIG = f"{_PKG}.figures_ngram"
_MARG_STEPS = f"{_PKG}.steps_marginals"
_MARG_FIG = f"{_PKG}.figures_marginals"

#: marginals panel -> (dataset, kind of attack sweep)
MARGINALS = {
    "fig4a": ("acs", "columns"),
    "fig4b": ("fire", "columns"),
    "fig5a": ("acs", "epsilons"),
    "fig5b": ("fire", "epsilons"),
    "fig6a": ("acs", "multi"),
    "fig6b": ("fire", "multi"),
    "fig7a": ("acs", "l1"),
    "fig7b": ("fire", "l1"),
}
#: the PII prior's data block is a param of everything that builds it
_ENRON = {"enron": "data.enron"}
_ATTACK = {"marginals_attack": "marginals_attack"}


def _res(threads: int = 1, mem_mb: int = 1000, runtime: int = 5) -> dict[str, Resources]:
    return {"quick": Resources(threads=threads, mem_mb=mem_mb, runtime=runtime)}


STEPS = [
    Step(
        name="fig3_train",
        func=f"{_NGRAM_STEPS}:train_step",
        section="ngram_train",
        data=("enron",),
        config=_ENRON,
        outputs={"npz": "fig3_ngram_runs.npz", "tuning": "fig3_ngram_tuning.csv"},
        # one thread, as every job: torch's threads are the config's torch_threads (1), so a second
        # core only idled, and a job that needs two free cores at once waited for the end of the
        # run (it was the last step of the quick pipeline, alone on one of the two cores)
        resources=_res(mem_mb=3000, runtime=30),
    ),
    *(
        Step(
            name=f"marginals_dataset_{ds}",
            func=f"{_MARG_STEPS}:dataset_step",
            data=(ds,),
            config={"data": f"data.{ds}", "marginals": "marginals"},
            fixed={"dataset": ds},
            outputs={"npz": f"marginals_{ds}_dataset.npz", "json": f"marginals_{ds}_dataset.json"},
            resources=_res(mem_mb=4000, runtime=30),
        )
        for ds in ("acs", "fire")
    ),
    *(
        Step(
            name=f"{fig}_attack",
            func=f"{_MARG_STEPS}:attack_step",
            section=fig,
            inputs={"dataset": Out(f"marginals_dataset_{ds}", "npz")},
            config={**_ATTACK, "n_records": "marginals.n_records"},
            fixed={"dataset": ds, "kind": kind, "figure": fig},
            outputs={"csv": f"{fig}_attack.csv", "tuning": f"{fig}_tuning.csv"},
            resources=_res(mem_mb=4000, runtime=60),
        )
        for fig, (ds, kind) in MARGINALS.items()
    ),
]

FIGURES = [
    Figure(name="table1", func=f"{_ANALYTIC}:table1", table=True, resources=_res(mem_mb=1500)),
    *(
        Figure(name=f, func=f"{_ANALYTIC}:{f}", resources=_res(mem_mb=1500))
        for f in ("fig1a", "fig1b")
    ),
    *(
        Figure(
            name=f,
            func=f"{_ANALYTIC}:{f}",
            data=("enron",),
            config=_ENRON,
            resources=_res(mem_mb=1500),
        )
        for f in ("fig2a", "fig2b")
    ),
    Figure(
        name="fig3",
        func=f"{_NGRAM_FIG}:fig3",
        inputs={"npz": Out("fig3_train", "npz")},
        resources=_res(mem_mb=1500),
    ),
    *(
        Figure(
            name=fig,
            func=f"{_MARG_FIG}:{fig}",
            inputs={
                "attack": Out(f"{fig}_attack", "csv"),
                "tuning": Out(f"{fig}_attack", "tuning"),
                "dataset_json": Out(f"marginals_dataset_{ds}", "json"),
            },
            config={**_ATTACK, "n_records": "marginals.n_records"},
            resources=_res(),
        )
        for fig, (ds, _kind) in MARGINALS.items()
    ),
]


# --- config checks beyond the schema (called by privrisk.pipeline.config.validate) ---


def check_config(sec: Mapping[str, Any]) -> list[str]:
    """Keys of the swanberg2025 section that are each valid but do not fit together (column
    names of the datasets, enough known columns, the ceiling's burn-in)."""
    from ...data import acs, fire

    columns = {"acs": acs.COLUMNS, "fire": fire.COLUMNS}
    out = []
    base = (sec.get("marginals_attack") or {}).get("ceiling")
    base = dict(base) if isinstance(base, Mapping) else {}
    for where, own in [("marginals_attack", {})] + [
        (f, (sec.get(f) or {}).get("ceiling") or {})
        for f in MARGINALS
        if isinstance(sec.get(f), Mapping)
    ]:
        ceil = base | dict(own)
        if _is_int(ceil.get("sweeps")) and _is_int(ceil.get("burn_in")):
            if ceil["burn_in"] >= ceil["sweeps"] and (where == "marginals_attack" or own):
                out.append(
                    f"config key swanberg2025.{where}.ceiling.burn_in: {ceil['burn_in']} >= "
                    f"sweeps {ceil['sweeps']}; no sweep would be kept"
                )
    for fig, (dataset, kind) in MARGINALS.items():
        s = sec.get(fig)
        if not isinstance(s, Mapping):
            continue
        cols, where = columns[dataset], f"config key swanberg2025.{fig}"
        named = [(f"{where}.columns[{i}]", c) for i, c in enumerate(s.get("columns", []))]
        if "column" in s:
            named.append((f"{where}.column", s["column"]))
        for c in s.get("headline_draws") or {}:
            if c not in s.get("columns", []):
                out.append(
                    f"{where}.headline_draws: {c!r} is not one of the figure's columns "
                    f"({', '.join(s.get('columns', []))})"
                )
        out += [
            f"{p}: {c!r} is not a column of {dataset.upper()}; its columns: {', '.join(cols)}"
            for p, c in named
            if c not in cols
        ]
        if kind == "multi" and _is_int(s.get("max_unknown")) and s["max_unknown"] > len(cols) - 3:
            out.append(
                f"{where}.max_unknown: {s['max_unknown']} leaves fewer than 3 of the {len(cols)} "
                f"{dataset.upper()} columns known (at most {len(cols) - 3})"
            )
    return out


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# The project's own audit of Figure 3's models (figures_audit; ledger rows ``derived``): its
# reconstruction audit reads the step's npz; its membership audit trains as many models again with
# the canary as with a replacement, Figure 3's hyperparameters and σ (steps_audit; about a second).
STEPS.append(
    Step(
        name="fig3_membership",
        func=f"{_PKG}.steps_audit:membership_step",
        section="ngram_train",
        inputs={"npz": Out("fig3_train", "npz")},
        outputs={"npz": "fig3_membership.npz"},
        resources=_res(mem_mb=1500),
    )
)
FIGURES.append(
    Figure(
        name="audit_fig3",
        func=f"{_PKG}.figures_audit:audit_fig3",
        section="fig3",
        inputs={"npz": Out("fig3_train", "npz"), "membership": Out("fig3_membership", "npz")},
        resources=_res(mem_mb=1500),
    )
)


# --- privrisk plan (privrisk.pipeline.plan): the key that holds what a claim's plan counts ---

#: figure -> the key of this section that holds the units an uninformative claim's plan counts
#: (``unit``), the key it falls back to when the figure has none (``fallback``) and the jobs
#: whose cost grows with it (their benchmark names). Figure 3's models are ``trials`` per (ε,
#: prior), trained and attacked by fig3_train and audited by fig3_membership; the target draws of
#: Figures 4-7 are attacked by the figure's attack step (its tuning on shadow draws does not grow
#: with them, so scaling the whole job is an upper estimate).
PLAN_KEYS = {
    "fig3": {
        "unit": "models",
        "key": "ngram_train.trials",
        "jobs": ("fig3_train", "fig3_membership"),
    },
    **{
        fig: {
            "unit": "draws",
            "key": f"{fig}.draws",
            "fallback": "marginals_attack.draws",
            "jobs": (f"{fig}_attack",),
            # the plans count draws in clusters of draws per stand-in world: the planned degrees
            # of freedom are those of draws / cluster worlds, so the worlds rise with the draws;
            # each world is one more BayNet fit per dataset, and every marginals figure reruns
            "clusters": {
                "key": "marginals.worlds",
                "jobs": tuple(sorted({f"marginals_dataset_{ds}" for ds, _ in MARGINALS.values()})),
                "reruns": tuple(f"{f}_attack" for f in MARGINALS),
            },
        }
        for fig in MARGINALS
    },
}
