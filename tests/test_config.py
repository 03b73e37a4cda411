"""Config validation: typos, wrong types and out-of-range values are caught, naming the key."""

import copy

import numpy as np
import pytest
import yaml

from privrisk.core.grids import deep_update, grid
from privrisk.pipeline import config
from tests.conftest import REPO, TINY, run_pipeline


@pytest.fixture(scope="module")
def cfg():
    return config.load(REPO / "config/config.yaml")


def test_shipped_configs_validate():
    config.load(REPO / "config/config.yaml")
    config.load(REPO / "config/config.yaml", REPO / "config/paper.yaml")
    config.load(REPO / "config/config.yaml", REPO / "config/tiny.yaml")


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (
            lambda c: c["thudi2022"]["fig2"].__setitem__("epsilon_maxx", 3),
            "thudi2022.fig2.epsilon_maxx",
        ),
        (
            lambda c: c["thudi2022"]["fig2"]["epsilons"].__setitem__("min", -1),
            "thudi2022.fig2.epsilons",
        ),
        (
            lambda c: c["thudi2022"]["fig2"]["epsilons"].__setitem__("n_points", 2.5),
            "thudi2022.fig2.epsilons",
        ),
        (
            lambda c: c["thudi2022"]["fig3"]["epsilons"].__setitem__(1, -0.5),
            "thudi2022.fig3.epsilons[1]",
        ),
        (lambda c: c["thudi2022"]["fig7"].__setitem__("b", 1.5), "thudi2022.fig7.b"),
        (
            lambda c: c["thudi2022"]["fig4a"].__setitem__("n_points", "many"),
            "thudi2022.fig4a.n_points",
        ),
        (lambda c: c.__setitem__("scale", "huge"), "scale"),
        (lambda c: c.__setitem__("thudi2O22", {}), "thudi2O22"),
        (
            lambda c: c["pankova2022"]["fig_eps_vs_advantage"]["prior_probs"].append(1.2),
            "pankova2022.fig_eps_vs_advantage.prior_probs[6]",
        ),
    ],
)
def test_bad_values_name_the_key(cfg, mutate, needle):
    bad = copy.deepcopy(cfg)
    mutate(bad)
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert needle in str(err.value)


@pytest.mark.slow
def test_pipeline_refuses_a_duplicate_key_and_a_missing_device_and_reads_nested_numbers(
    tmp_path,
):
    """What Snakemake reads itself, checked by the Snakefile before any job: a key given twice in
    a --configfile (Snakemake keeps the last silently), `device: cuda` on a machine without CUDA
    (it failed only inside the first training step), and a nested `--config` number (Snakemake
    hands it over as a string: it was refused as "'3' is not of type 'integer'")."""
    dup = tmp_path / "dup.yaml"
    dup.write_text("seed: 1\nseed: 2\n")
    proc = run_pipeline(tmp_path, "thudi2022", "-n", configfiles=(str(dup),), check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2 and "line 2: duplicate key 'seed'" in out, out
    assert "Traceback" not in out
    cuda = tmp_path / "cuda.yaml"
    cuda.write_text("device: cuda\n")
    proc = run_pipeline(tmp_path, "thudi2022", "-n", configfiles=(*TINY, str(cuda)), check=False)
    out = proc.stdout + proc.stderr
    import torch

    if not torch.cuda.is_available():
        assert proc.returncode == 2 and "config key device: 'cuda'" in out, out
    proc = run_pipeline(
        tmp_path,
        "thudi2022",
        "-n",
        check=False,
        config_overrides=("thudi2022={fig2: {epsilons: {min: 0, max: 4, n_points: 3}}}",),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Config error" not in out, out
    assert not (tmp_path / "results").exists()


def test_deep_update_merges_nested():
    base = {"a": {"b": 1, "c": 2}, "d": 3}
    assert deep_update(base, {"a": {"c": 5}}) == {"a": {"b": 1, "c": 5}, "d": 3}
    assert base["a"]["c"] == 2


@pytest.mark.slow
def test_pipeline_refuses_typo_before_any_job(tmp_path):
    bad = yaml.safe_load((REPO / "config/config.yaml").read_text())
    bad["thudi2022"]["fig2"]["epsilon_maxx"] = 3
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad, allow_unicode=True))
    proc = run_pipeline(
        tmp_path, "thudi2022", configfiles=(str(tmp_path / "bad.yaml"),), check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2
    assert "Config error, nothing was run:" in out and "thudi2022.fig2.epsilon_maxx" in out
    # one block naming the key, not a WorkflowError with a frame that reads like a crash
    assert "WorkflowError" not in out and 'File "' not in out and "Traceback" not in out, out
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("spelling", ["true", "True", "TRUE", "false", "False"])
def test_a_boolean_key_accepts_true_and_false_in_any_case(spelling):
    """What `--config allow_large=true` hands over (Snakemake passes a lower-case word on as a
    string): the one rule is true/false in any case, at boolean keys only."""
    cfg = config.load(REPO / "config/config.yaml")
    cfg["allow_large"] = spelling
    cfg["scale"] = "true"  # a string key keeps its string
    assert config.normalize_booleans(cfg) == ["allow_large"]
    assert cfg["allow_large"] is (spelling.lower() == "true") and cfg["scale"] == "true"
    cfg["allow_large"] = "yes"  # not a spelling of the rule: validation names the key
    config.normalize_booleans(cfg)
    with pytest.raises(config.ConfigError, match="allow_large"):
        config.validate(cfg)


def test_nested_boolean_keys_are_normalized_too():
    cfg = config.load(REPO / "config/config.yaml")
    enron = cfg["swanberg2025"]["data"]["enron"]
    enron["gpt2"] = "False"
    assert config.normalize_booleans(cfg) == ["swanberg2025.data.enron.gpt2"]
    assert enron["gpt2"] is False


def test_config_readme_is_current():
    """docs/config.md is generated from the schemas; regenerate it after a schema change with
    `python -m privrisk.pipeline.config --readme > docs/config.md`."""
    assert (REPO / "docs" / "config.md").read_text() == config.readme()


def test_grid_specs():
    np = pytest.importorskip("numpy")
    assert grid([0.5, 1, float("inf")]).tolist() == [0.5, 1.0, float("inf")]
    np.testing.assert_array_equal(
        grid({"min": 0, "max": 5, "n_points": 501}), np.linspace(0, 5, 501)
    )
    np.testing.assert_array_equal(
        grid({"min": 1e-3, "max": 1, "n_points": 4, "spacing": "log"}),
        np.geomspace(1e-3, 1, 4),
    )
    with pytest.raises(config.ConfigError, match="min > max"):
        grid({"min": 2, "max": 1, "n_points": 3})


def test_renamed_key_names_the_new_one():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"trials": {"type": "integer"}},
        "x-renamed": {"repeats": "trials"},
    }
    with pytest.raises(config.ConfigError, match="config key repeats was renamed to 'trials'"):
        config.validate({"repeats": 3}, schema)
    with pytest.raises(config.ConfigError, match="unknown config key"):
        config.validate({"repeatz": 3}, schema)


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (lambda c: c.__setitem__("seed", 3.0), "seed: 3.0 is not of type 'integer'"),
        (
            lambda c: c["thudi2022"]["fig4a"].__setitem__("n_points", 51.0),
            "thudi2022.fig4a.n_points",
        ),
        (
            lambda c: c["thudi2022"]["fig2"]["epsilons"].__setitem__("max", float("nan")),
            "thudi2022.fig2.epsilons",
        ),
        (
            lambda c: c["thudi2022"]["fig2"]["epsilons"].update(min=5.0, max=1.0),
            "thudi2022.fig2.epsilons: min 5.0 > max 1.0",
        ),
    ],
)
def test_floats_for_integers_nan_and_reversed_grids_are_refused(cfg, mutate, needle):
    bad = copy.deepcopy(cfg)
    mutate(bad)
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert needle in str(err.value)


def test_infinite_epsilon_is_allowed(cfg):
    ok = copy.deepcopy(cfg)
    ok["thudi2022"]["fig3"]["epsilons"] = [0.1, float("inf")]
    config.validate(ok)


# --- empty lists, cross-key consistency and upper limits, all before any job -----------


def _set(*path_and_value):
    *path, key, value = path_and_value

    def mutate(c):
        node = c
        for p in path:
            node = node[p]
        node[key] = value

    return mutate


def _fig3_against_sigma(c):
    fig3 = c["lowy2024"]["fig3"]
    del fig3["dims"], fig3["sigma"]
    fig3["sigmas"] = [0.5, 1.0]


BAD_BEFORE_ANY_JOB = {
    "pankova check_epsilons []": (
        _set("pankova2022", "fig_worst_case_prior", "check_epsilons", []),
        "pankova2022.fig_worst_case_prior.check_epsilons: [] should be non-empty",
    ),
    "pankova table etas []": (
        _set("pankova2022", "table_eps_advantage", "etas", []),
        "pankova2022.table_eps_advantage.etas: [] should be non-empty",
    ),
    "both attack optimisers empty": (
        lambda c: c["swanberg2025"]["marginals_attack"]["tuning"].update(adam_lr=[], sgd_lr=[]),
        "swanberg2025.marginals_attack.tuning: adam_lr and sgd_lr are both empty",
    ),
    "lowy claim_sigma not in sigmas": (
        _set("lowy2024", "fig1", "claim_sigma", 0.3),
        "lowy2024.fig1.claim_sigma: 0.3 is not a point of sigmas",
    ),
    "lowy claim_clip not in clips": (
        _set("lowy2024", "fig5", "claim_clip", 99),
        "lowy2024.fig5.claim_clip: 99 is not a point of clips",
    ),
    "lowy claim_epsilon not in a dense grid": (
        lambda c: c["lowy2024"]["fig4"].update(
            epsilons={"min": 1, "max": 9, "n_points": 5}, claim_epsilon=10
        ),
        "lowy2024.fig4.claim_epsilon: 10 is not a point of epsilons [1.0, 3.0, 5.0, 7.0, 9.0]",
    ),
    "lowy claim missing": (
        lambda c: c["lowy2024"]["fig2"].pop("claim_larger_n"),
        "lowy2024.fig2.claim_larger_n: required",
    ),
    "lowy figure swept along another axis": (
        _fig3_against_sigma,
        "lowy2024.fig3: this figure plots against d; give its grid dims (not sigmas)",
    ),
    "lowy fixed parameter missing": (
        lambda c: c["lowy2024"]["fig6"].pop("epsilon"),
        "lowy2024.fig6.epsilon: required (it is not the swept parameter)",
    ),
    "lowy more outliers than points": (
        _set("lowy2024", "fig5", "n_outliers", 201),
        "lowy2024.fig5.n_outliers: 201 outliers in a population of 2n = 200",
    ),
    "lowy claim_larger_n not larger": (
        _set("lowy2024", "fig2", "claim_larger_n", 6),
        "lowy2024.fig2.claim_larger_n: 6 is not larger than n = 6",
    ),
    "swanberg unknown column in a list": (
        _set("swanberg2025", "fig4b", "columns", ["ALS Unit", "Zip Code"]),
        "swanberg2025.fig4b.columns[1]: 'Zip Code' is not a column of FIRE",
    ),
    "swanberg ACS column on the FIRE panel": (
        _set("swanberg2025", "fig7b", "column", "AGEP"),
        "swanberg2025.fig7b.column: 'AGEP' is not a column of FIRE",
    ),
    "swanberg max_unknown too large": (
        _set("swanberg2025", "fig6a", "max_unknown", 14),
        "swanberg2025.fig6a.max_unknown: 14 leaves fewer than 3 of the 16",
    ),
    "xu2022 fig6 ε not trained": (
        _set("xu2022", "fig6", "epsilons", [2, 3]),
        "xu2022.fig6.epsilons: ε 3 not among the trained DP-cGANs",
    ),
    "thudi c_step > c_max": (
        _set("thudi2022", "fig7", "c_step", 300.0),
        "thudi2022.fig7.c_step: 300.0 > c_max 200",
    ),
    "trials 1e8": (
        _set("pankova2022", "fig_single_attribute", "trials", 10**8),
        "pankova2022.fig_single_attribute.trials: 100,000,000 is above the limit of 10,000,000",
    ),
    "n_points 1e10": (
        _set("thudi2022", "fig1", "n_points", 10**10),
        "thudi2022.fig1.n_points: 10,000,000,000 is above the limit of 1,000,000 for 'n_points' "
        "(set allow_large: true",
    ),
    "dense grid n_points 1e10": (
        lambda c: c["thudi2022"]["fig2"]["epsilons"].update(n_points=10**10),
        "thudi2022.fig2.epsilons.n_points: 10,000,000,000 is above the limit",
    ),
    "an item of a list above its limit": (
        _set("lowy2024", "fig3", "dims", [1, 10, 10**6]),
        "lowy2024.fig3.dims[2]: 1,000,000 is above the limit",
    ),
    "tiny c_step": (
        _set("thudi2022", "fig7_corrected", "c_step", 1e-5),
        "thudi2022.fig7_corrected.c_step: c_max / c_step = 20,000,000 grid points",
    ),
}


@pytest.mark.parametrize("case", BAD_BEFORE_ANY_JOB)
def test_inconsistent_empty_or_huge_configs_are_refused(cfg, case):
    mutate, needle = BAD_BEFORE_ANY_JOB[case]
    bad = copy.deepcopy(cfg)
    mutate(bad)
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert needle in str(err.value)


def test_allow_large_lifts_the_limits_only(cfg):
    big = copy.deepcopy(cfg)
    big["pankova2022"]["fig_single_attribute"]["trials"] = 10**8
    big["thudi2022"]["fig1"]["n_points"] = 10**10
    with pytest.raises(config.ConfigError, match="allow_large"):
        config.validate(big)
    big["allow_large"] = True
    config.validate(big)
    big["lowy2024"]["fig1"]["claim_sigma"] = 0.3  # consistency is still checked
    with pytest.raises(config.ConfigError, match="claim_sigma"):
        config.validate(big)
    big["allow_large"] = "yes"  # a boolean, not any truthy value
    with pytest.raises(config.ConfigError, match="allow_large"):
        config.validate(big)


def test_limits_leave_the_shipped_configs_far_inside():
    """Every limited key in config/paper-scale configs is at most 1/50 of its limit."""
    from privrisk.pipeline.config_checks import LIMITS, _walk

    seen = set()
    for files in (("config.yaml",), ("config.yaml", "paper.yaml"), ("config.yaml", "tiny.yaml")):
        merged = config.load(*[REPO / "config" / f for f in files])
        for path, key, value in _walk(merged):
            if key in LIMITS:
                values = value if isinstance(value, list) else [value]
                assert all(v * 50 <= LIMITS[key] for v in values if isinstance(v, int)), (
                    path,
                    value,
                )
                seen.add(key)
    assert {"trials", "n_points", "epochs", "standin_size"} <= seen


def test_one_optimiser_grid_may_be_empty(cfg):
    ok = copy.deepcopy(cfg)
    ok["swanberg2025"]["marginals_attack"]["tuning"]["sgd_lr"] = []
    config.validate(ok)


def test_every_schema_list_needs_an_item_unless_exempt():
    """A list a figure iterates over must not be empty: every array in the schemas has
    minItems >= 1, except the few privrisk.pipeline.config_checks.EMPTY_OK (hidden widths, one optimiser)."""
    from privrisk.pipeline.config_checks import EMPTY_OK

    lacking = []

    def walk(node, path):
        if isinstance(node, dict):
            if (
                node.get("type") == "array"
                and node.get("minItems", 0) < 1
                and path.split("/")[-1] not in EMPTY_OK
            ):
                lacking.append(path)
            for k, v in node.items():
                walk(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]")

    walk(config.load_schema(), "")
    assert not lacking


@pytest.mark.slow
@pytest.mark.parametrize(
    "case", ["xu2022 fig6 ε not trained", "trials 1e8", "lowy claim_sigma not in sigmas"]
)
def test_dry_run_refuses_before_any_job(tmp_path, case):
    """`snakemake -n` stops at config validation: the key is named, no job is listed or run."""
    mutate, needle = BAD_BEFORE_ANY_JOB[case]
    bad = yaml.safe_load((REPO / "config/config.yaml").read_text())
    mutate(bad)
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad, allow_unicode=True))
    proc = run_pipeline(
        tmp_path, configfiles=(str(tmp_path / "bad.yaml"),), extra_args=("-n",), check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and needle in out
    assert "Job stats" not in out and "rule " not in out and not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("dataset", "paper", "size", "limit"),
    [
        ("cifar10", "xu2022", 10**7, "60000"),
        ("cifar10", "xu2022", 60_001, "60000"),
        ("dermamnist", "xu2022", 10**6, "12000"),
        ("dermamnist", "xu2022", 12_001, "12000"),
    ],
)
def test_a_stand_in_larger_than_the_machine_holds_is_refused(dataset, paper, size, limit):
    """Issue 32: a CIFAR-10 standin_size of 10^7 passed and the job then asked for 38 GiB; issue
    38: the limits then (200,000 and 100,000) still built stand-ins of 36 and 76 GB, measured
    (benchmarks/bench_standin_memory.py); the limits now keep a build under 12 GB."""
    cfg = config.load(REPO / "config/config.yaml")
    cfg[paper]["data"][dataset]["standin_size"] = size
    cfg["allow_large"] = True  # a memory bound, not a slip of digits: no override
    with pytest.raises(config.ConfigError) as err:
        config.validate(cfg)
    assert f"{paper}.data.{dataset}.standin_size" in str(err.value) and limit in str(err.value)


def test_schema_is_parsed_once_per_version_and_each_caller_gets_its_own_copy(monkeypatch):
    first = config.load_schema()
    first["properties"].clear()  # a caller's change does not reach the next caller
    assert "seed" in config.load_schema()["properties"]
    parsed = []
    monkeypatch.setattr(config, "_assemble_schema", lambda: parsed.append(1) or {"v": len(parsed)})
    config.load_schema()
    assert parsed == []  # same files, same version: no parse
    # a new version of a schema file (its mtime or size) is parsed again
    monkeypatch.setattr(config, "_stamp", lambda f: (1, 2))
    assert config.load_schema() == {"v": 1} and parsed == [1]


def test_yaml_load_reads_what_safe_load_reads():
    import yaml

    text = (REPO / "config" / "config.yaml").read_text()
    assert config.yaml_load(text) == yaml.safe_load(text)


# --- config files that are valid YAML but not a config (issue 38) --------------------------------


def test_a_key_given_twice_is_refused_naming_it_and_both_lines(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("seed: 1\nthudi2022:\n  fig2:\n    trials: 3\n    trials: 4\n")
    with pytest.raises(config.ConfigError) as err:
        config.read_file(path)
    said = str(err.value)
    assert said == (
        f"config file {path}, line 5: duplicate key 'trials' (first given at line 4); "
        "YAML would keep only the last one"
    )
    # the same key in two different mappings is no duplicate, and neither is a merge key's
    path.write_text("a: {x: 1}\nb: {x: 2}\nc: &c {y: 1}\nd: {<<: *c, y: 2}\n")
    assert config.read_file(path)["d"] == {"y": 2}


def _laughs(levels: int, width: int = 10) -> str:
    """The "billion laughs" document: each level an alias list of the one before."""
    lines = ["l0: &l0 [" + ", ".join(["1"] * width) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("as_mappings", [False, True])
def test_aliases_expanding_to_a_billion_values_are_refused_at_once(tmp_path, as_mappings):
    """Nine lines of aliases expand to 10⁹ values: the expansion is counted without being made
    (it took 42 s and ended in a MemoryError), and the file is refused naming it."""
    import time

    text = _laughs(9)
    if as_mappings:
        text = text.replace("[", "{").replace("]", "}")
        text = "\n".join(
            line.split("{")[0]
            + "{"
            + ", ".join(
                f"k{j}: {v.strip()}" for j, v in enumerate(line.split("{")[1][:-1].split(","))
            )
            + "}"
            for line in text.splitlines()
        )
    path = tmp_path / "laughs.yaml"
    path.write_text(text)
    t0 = time.monotonic()
    with pytest.raises(config.ConfigError, match=r"laughs\.yaml: its YAML aliases .* more than"):
        config.read_file(path)
    assert time.monotonic() - t0 < 5
    # a few aliases that expand to little stay allowed
    path.write_text(_laughs(2) + "seed: 1\n")
    assert config.read_file(path)["l1"] == [[1] * 10] * 10


def test_nested_command_line_values_get_the_types_a_config_file_gives_them(cfg):
    """`--config 'swanberg2025={ngram_train: {tune_trials: 11}}'`: Snakemake reads the nested
    value with YAML's base loader, so 11 arrives as the string '11' (it was refused as
    "'11' is not of type 'integer'")."""
    from snakemake.cli import parse_config
    from snakemake.utils import update_config

    given = parse_config(
        [
            "swanberg2025={ngram_train: {tune_trials: 11, epsilons: [1, .inf], adjacency: "
            "replace_one}}",
            "thudi2022={fig2: {epsilons: {min: 0, max: 5, n_points: 51}}}",
            "seed=3",
            "allow_large=true",
        ]
    )
    assert given["swanberg2025"]["ngram_train"]["tune_trials"] == "11"  # Snakemake's reading
    merged = copy.deepcopy(cfg)
    update_config(merged, given)
    done = config.normalize_command_line(merged, given)
    assert "swanberg2025.ngram_train.tune_trials" in done and "allow_large" in done
    train = merged["swanberg2025"]["ngram_train"]
    assert train["tune_trials"] == 11 and train["epsilons"] == [1, float("inf")]
    assert train["adjacency"] == "replace_one"  # a string key keeps its string
    assert merged["thudi2022"]["fig2"]["epsilons"] == {"min": 0, "max": 5, "n_points": 51}
    config.validate(merged)
    # a string at a string key keeps its string even where it spells a number
    given = parse_config(["xu2022={data: {mnist: {path: '123'}}}"])
    merged = copy.deepcopy(cfg)
    update_config(merged, given)
    assert config.normalize_command_line(merged, given) == []
    assert merged["xu2022"]["data"]["mnist"]["path"] == "123"
    # what spells no number stays, and validation names the key
    given = parse_config(["swanberg2025={ngram_train: {tune_trials: eleven}}"])
    merged = copy.deepcopy(cfg)
    update_config(merged, given)
    config.normalize_command_line(merged, given)
    with pytest.raises(config.ConfigError, match="swanberg2025.ngram_train.tune_trials"):
        config.validate(merged)


@pytest.mark.parametrize(
    ("grid", "said"),
    [
        (
            "{min: 0, max: .inf, n_points: 10}",
            "config key thudi2022.fig2.epsilons: a dense grid's min and max must be finite "
            "(min 0, max inf); a list may hold .inf",
        ),
        (
            "{min: -.inf, max: 1, n_points: 10}",
            "config key thudi2022.fig2.epsilons: a dense grid's min and max must be finite",
        ),
        ("{min: .nan, max: 1, n_points: 10}", "config key thudi2022.fig2.epsilons"),
        (
            "{min: 0, max: 5, n_points: 10, spacing: log}",
            "config key thudi2022.fig2.epsilons: a log-spaced grid starts above 0 (min 0)",
        ),
    ],
)
def test_a_grid_a_job_would_fail_on_is_refused_at_validation(cfg, grid, said):
    """`--config thudi2022='{fig2: {epsilons: {min: 0, max: .inf, n_points: 10}}}'` passed
    validation and the job then failed (np.linspace to ∞ gives NaN; 0·∞ in the grid): refused
    before any job, naming the key. The grid itself would fail or be NaN (checked too)."""
    from snakemake.cli import parse_config
    from snakemake.utils import update_config

    given = parse_config([f"thudi2022={{fig2: {{epsilons: {grid}}}}}"])
    merged = copy.deepcopy(cfg)
    update_config(merged, given)
    config.normalize_command_line(merged, given)
    spec = merged["thudi2022"]["fig2"]["epsilons"]
    with np.errstate(all="ignore"):
        try:
            values = config.grid(spec)
        except ValueError:  # geomspace from 0
            values = np.array([np.nan])
    assert not np.isfinite(values).all()  # what the job would have been given
    with pytest.raises(config.ConfigError) as err:
        config.validate(merged)
    assert said in str(err.value)


def test_an_explicit_device_this_machine_lacks_is_refused_before_any_job(cfg, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    bad = dict(cfg, device="cuda")
    with pytest.raises(config.ConfigError) as err:
        config.validate(bad)
    assert "config key device: 'cuda'" in str(err.value) and "auto" in str(err.value)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    config.validate(dict(cfg, device="cuda:0"))
    with pytest.raises(config.ConfigError, match="cuda:1"):
        config.validate(dict(cfg, device="cuda:1"))
    config.validate(dict(cfg, device="cpu"))  # no torch needed for cpu and auto


@pytest.mark.parametrize(
    "text,needle",
    [
        # 200,000 nested brackets crashed libyaml's composer (a segmentation fault)
        ("thudi2022: " + "[" * 200_000 + "]" * 200_000 + "\n", "more than 50 levels deep"),
        ("thudi2022:\n  fig2: &a\n    x: *a\n", "line 2: an alias (*name) refers to a list"),
        (
            "a: &a [[[[[[[[[[1]]]]]]]]]]\n"
            + "b: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[*a]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
            "more than 50 levels deep",
        ),
    ],
)
def test_deep_or_recursive_nesting_is_refused_in_one_line(tmp_path, text, needle):
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    with pytest.raises(config.ConfigError) as err:
        config.read_file(path)
    assert needle in str(err.value) and "\n" not in str(err.value), err.value
