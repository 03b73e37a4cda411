"""swanberg2025 end to end at tiny scale (every registry figure, checked by assert_contract), and
the registry wiring: data inputs, step code apart from plotting, renamed config keys, no import cycle."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from privrisk.bounds import reconstruction as rb
from privrisk.pipeline import config, workflow
from tests.conftest import REPO, TINY, assert_contract

PAPER = "swanberg2025"


@pytest.mark.slow
def test_tiny_end_to_end(tmp_path, pipeline):
    pipeline(tmp_path, PAPER)
    ledger = assert_contract(tmp_path, PAPER)
    res = tmp_path / "results" / PAPER
    # analytic
    d = pd.read_csv(res / "fig1a.csv")
    s = d[d.series == "ours eps=2"]
    np.testing.assert_allclose(s.y, rb.beta_pure(epsilon=2, p=s.x), rtol=1e-12)
    status = ledger.set_index("claim_id")["status"]
    assert status["eps_protect_uniform"] == "reproduced"
    assert status["eps_protect_password"] == "differs"
    # Figure 3
    d = pd.read_csv(res / "fig3.csv")
    assert set(d["prior"]) == {"uniform", "password", "pii"}
    assert (res / "intermediate" / "fig3_ngram_runs.npz").exists()
    # the project's audit of Figure 3's models: reconstruction and membership rows per (ε, prior),
    # derived, no ε̂ above its accountant's ε
    audit = ledger[ledger.figure == "audit_fig3"]
    assert set(audit.status) == {"derived"} and len(audit) == 2 * 3 * 3
    eps, eps_hat = audit.paper_value.astype(float), audit.ours.astype(float)
    assert (eps_hat[eps < np.inf] <= eps[eps < np.inf]).all()
    # Figures 4-7
    for f in ("fig4a", "fig4b", "fig5a", "fig5b", "fig6a", "fig6b", "fig7a", "fig7b"):
        prov = json.loads((res / f"{f}.json").read_text())
        assert prov["scale"] == "tiny"
        assert set(prov["data_sources"].values()) == {"standin"}
        df = pd.read_csv(res / f"{f}.csv")
        assert {"series", "x", "y", "lo", "hi"} <= set(df.columns)
        bound = df[df.series.str.startswith("Bound")]
        assert (bound.lo <= bound.y).all() and (bound.y <= bound.hi).all()
    f5 = pd.read_csv(res / "fig5b.csv")
    inf_rows = f5[f5.x == np.inf]
    assert (inf_rows[inf_rows.series.str.startswith("Bound")].y == 100).all()
    assert status["sex_bound95_from_quoted_prior"] == "reproduced"
    assert status["sex_attack"] == "standin"


def _registry(configfiles=TINY):
    cfg = config.load(*[REPO / c for c in configfiles])
    return cfg, workflow.load_registry(PAPER, cfg)


def test_steps_do_not_depend_on_plotting_or_figure_code():
    """Editing plotting.py or a figure module must rerun no step (code inputs are imports)."""
    _, reg = _registry()
    figure_modules = {f.func.split(":")[0] for f in reg.figures}
    for step in reg.steps:
        files = workflow.code_inputs(step.func, root=REPO)
        assert "src/privrisk/contract/plotting.py" not in files, step.name
        assert not [m for m in figure_modules if m.replace(".", "/") + ".py" in " ".join(files)], (
            step.name
        )


def test_real_data_become_inputs_of_what_reads_them(tmp_path, monkeypatch):
    """The Enron maildir is an input of the PII-prior readers (fig3_train, fig2a, fig2b) once it exists."""
    cfg, reg = _registry(("config/config.yaml",))
    monkeypatch.chdir(tmp_path)
    decls = {d.name: d for d in (*reg.steps, *reg.figures)}
    assert all(not workflow.data_inputs(cfg, PAPER, d) for d in decls.values())
    (tmp_path / "data" / "raw" / "enron" / "maildir").mkdir(parents=True)
    readers = {n for n, d in decls.items() if workflow.data_inputs(cfg, PAPER, d)}
    assert readers == {"fig3_train", "fig2a", "fig2b"}
    assert workflow.data_inputs(cfg, PAPER, decls["fig3_train"]) == ["data/raw/enron/maildir"]
    fire = tmp_path / "data" / "raw" / "fire" / "Fire_Department_Calls_for_Service.csv"
    fire.parent.mkdir(parents=True)
    fire.write_text("x\n")
    assert workflow.data_inputs(cfg, PAPER, decls["marginals_dataset_fire"]) == [
        str(fire.relative_to(tmp_path))
    ]
    assert not workflow.data_inputs(cfg, PAPER, decls["marginals_dataset_acs"])


@pytest.mark.parametrize(
    "section, old, new",
    [
        ("ngram_train", {"n_models": 5}, "trials"),
        ("ngram_train", {"n_tune_models": 5}, "tune_trials"),
        ("ngram_train", {"priors": ["uniform"]}, "prior_names"),
        ("common", {"pii_source": "auto"}, "data.enron.source"),
        ("fig2a", {"epsilon_max": 20}, "epsilons"),
        ("fig1a", {"p_min": 1e-3}, "prior_probs"),
        ("fig2b", {"p_max": 0.9}, "prior_probs"),
        (None, {"marginals_data": {"n_records": 100}}, "marginals"),
        ("marginals_attack", {"steps": 150}, "tuning.steps"),
        ("marginals_attack", {"lr": 0.1}, "tuning.adam_lr"),
        ("fig6a", {"steps": 60}, "tuning_steps"),
        ("fig6a", {"approx_tolerance": 5}, "margin"),
        ("fig6b", {"approx_tolerance": 5}, "margin"),
        ("fig3", {"claim_tolerance": 0.04}, "tolerance"),
    ],
)
def test_old_config_names_fail_naming_the_new_key(section, old, new):
    cfg = config.load(*[REPO / c for c in TINY])
    target = cfg[PAPER] if section is None else cfg[PAPER][section]
    target.update(old)
    with pytest.raises(config.ConfigError, match="renamed") as err:
        config.validate(cfg)
    assert new in str(err.value) and next(iter(old)) in str(err.value)


@pytest.mark.parametrize(
    "module",
    [
        "privrisk.data.enron",
        "privrisk.priors.pii",
        "privrisk.data.census_names",
        "privrisk.data.acs",
        "privrisk.data.fire",
    ],
)
def test_data_and_priors_import_alone_without_a_cycle(module):
    subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        check=True,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src")),
    )
    source = (REPO / "src" / "privrisk" / "data" / "enron.py").read_text()
    assert "priors" not in source.split('"""', 2)[2].split("def ")[0]  # data never imports priors


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda s: s["fig4a"].update(headline_draws={"Zip": 5}),
            "swanberg2025.fig4a.headline_draws: 'Zip' is not one of the figure's columns",
        ),
        (
            lambda s: s["marginals_attack"]["ceiling"].update(sweeps=10, burn_in=10),
            "swanberg2025.marginals_attack.ceiling.burn_in: 10 >= sweeps 10",
        ),
        (
            lambda s: s["fig6a"].update(ceiling={"sweeps": 5, "burn_in": 6}),
            "swanberg2025.fig6a.ceiling.burn_in: 6 >= sweeps 5",
        ),
    ],
)
def test_ceiling_and_headline_keys_that_do_not_fit_together_are_refused(edit, message):
    cfg = config.load(*[REPO / c for c in TINY])
    edit(cfg[PAPER])
    with pytest.raises(config.ConfigError) as err:
        config.validate(cfg)
    assert message in str(err.value)
