"""xu2022's models trained in shards (config key ``runs_per_job``) and pooled are the same bytes as
the same models trained in one job: every array, every weight and the record (seeds, splits,
sizes, settings, AUCs). The MLP WGAN-GP in the fast tier, every other model in the slow tier. A
shard is the step function called with
``params["shard"]``; the pool is :func:`privrisk.papers.xu2022.steps.pool`, as the pipeline's
rules call them (:func:`privrisk.pipeline.workflow.jobs`)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from privrisk.contract.figure import resolve
from privrisk.core.declarations import shard_groups
from privrisk.estimators import queries as Q
from privrisk.papers.xu2022 import steps
from privrisk.pipeline import config, workflow
from tests.conftest import REPO


@pytest.fixture(scope="module")
def tiny():
    return config.load(REPO / "config/config.yaml", REPO / "config/tiny.yaml")


def _with_runs(cfg, block: str, runs: int, per_job: int | None):
    cfg = copy.deepcopy(cfg)
    cfg["xu2022"]["models"][block]["runs"] = runs
    cfg["runs_per_job"] = per_job
    cfg["device"] = "cpu"
    return cfg


def train(cfg, step: str, where: Path) -> dict[str, Path]:
    """Run the jobs the pipeline makes for ``step`` (one, or shards then the pool) in ``where``;
    the step's own outputs."""
    reg = workflow.load_registry("xu2022", cfg)
    mine = [j for j in workflow.jobs(reg, cfg, "tiny") if j.decl.name == step]
    out = {}
    for job in mine:  # shards come before their pool
        files = {k: where / v for k, v in job.outputs.items()}
        for f in files.values():
            f.parent.mkdir(parents=True, exist_ok=True)
        inputs = {k: str(where / v) for k, v in job.inputs.items()}
        args = {k: str(v) for k, v in files.items()}
        if job.kind == "pool":
            resolve(job.func)(job.params, shard_groups(inputs), args)
        else:
            resolve(job.func)(job.params, inputs, args)
        out = files
    assert {j.kind for j in mine} == ({"shard", "pool"} if len(mine) > 1 else {"step"})
    return out


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def assert_same_bytes(a: dict[str, Path], b: dict[str, Path]) -> None:
    """Every array (names, dtypes, shapes, bytes), every weight and the record JSON's bytes."""
    for key in ("split", "queries"):
        x, y = _arrays(a[key]), _arrays(b[key])
        assert list(x) == list(y), key
        for k in x:
            assert x[k].dtype == y[k].dtype and x[k].shape == y[k].shape, (key, k)
            assert x[k].tobytes() == y[k].tobytes(), (key, k)
    sa, sb = torch.load(a["model"], weights_only=True), torch.load(b["model"], weights_only=True)
    assert list(sa) == list(sb)
    for k in sa:
        for n in sa[k]:
            assert torch.equal(sa[k][n], sb[k][n]), (k, n)
    assert a["record"].read_bytes() == b["record"].read_bytes()


def test_shard_ranges_and_params(tiny):
    assert workflow.shard_ranges(10, None) == [(0, 10)]
    assert workflow.shard_ranges(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert workflow.shard_ranges(3, 5) == [(0, 3)]
    # raising the run count keeps the full shards as they were (their params have no run count)
    cfg = _with_runs(tiny, "mnist_wgangp", 4, 2)
    more = _with_runs(tiny, "mnist_wgangp", 6, 2)
    name = "train_mnist_wgangp"

    def shards(c):
        reg = workflow.load_registry("xu2022", c)
        return {j.rule: j for j in workflow.jobs(reg, c, "tiny") if j.decl.name == name}

    before, after = shards(cfg), shards(more)
    assert [j.kind for j in before.values()] == ["shard", "shard", "pool"]
    for rule, job in before.items():
        if job.kind == "shard":
            assert after[rule].params == job.params and after[rule].outputs == job.outputs
            assert "runs" not in job.params["model"] and "shard" in job.params
    assert before["xu2022_train_mnist_wgangp"].outputs == after["xu2022_train_mnist_wgangp"].outputs
    assert len(after) == 4


@pytest.mark.parametrize("value", [0, -1, 1.5, "2", True])
def test_runs_per_job_must_be_a_positive_integer(tiny, value):
    with pytest.raises(config.ConfigError, match="runs_per_job"):
        config.validate({**tiny, "runs_per_job": value})
    reg = workflow.load_registry("xu2022", tiny)
    with pytest.raises(workflow.ShardError, match="runs_per_job"):
        workflow.jobs(reg, {**tiny, "runs_per_job": value}, "tiny")


@pytest.fixture(scope="module")
def mnist_wgangp(tiny, tmp_path_factory):
    """The tiny MNIST WGAN-GP with 3 runs: in one job, and in shards of 2 and 1 runs."""
    where = tmp_path_factory.mktemp("mnist_wgangp")
    sharded = _with_runs(tiny, "mnist_wgangp", 3, 2)
    one = train(_with_runs(tiny, "mnist_wgangp", 3, None), "train_mnist_wgangp", where / "one")
    two = train(sharded, "train_mnist_wgangp", where / "two")
    return one, two, sharded, where / "two"


def test_sharded_mlp_wgan_gp_is_the_same_bytes_as_one_job(tiny, mnist_wgangp):
    """3 runs in one job vs shards of 2 and 1 runs: identical pooled files (the batched layers
    give each run the numbers it gets alone: privrisk.training.replicates)."""
    one, two, _, _ = mnist_wgangp
    assert_same_bytes(one, two)
    rec = json.loads(two["record"].read_text())
    assert [r["run"] for r in rec["runs"]] == [0, 1, 2] and "runs" in rec["model"]
    jobs = json.loads(two["shards"].read_text())["jobs"]
    assert [j["runs"] for j in jobs] == [[0, 2], [2, 3]]
    assert json.loads(one["shards"].read_text())["jobs"][0]["runs"] == [0, 3]
    # each run is its own seed's: the one-run shard's run 2 is the pooled run 2
    assert Q.load(two["queries"]).record["runs"][2]["seed"] == steps.run_seed(
        {"seed": tiny["seed"], "name": "mnist_wgangp"}, 2
    )


def test_pool_refuses_shards_that_are_not_the_models_runs(mnist_wgangp, tmp_path):
    _, _, cfg, where = mnist_wgangp
    reg = workflow.load_registry("xu2022", cfg)
    pool = [j for j in workflow.jobs(reg, cfg, "tiny") if j.decl.name == "train_mnist_wgangp"][-1]
    groups = shard_groups({k: str(where / v) for k, v in pool.inputs.items()})
    outs = {k: str(tmp_path / Path(v).name) for k, v in pool.outputs.items()}
    with pytest.raises(steps.PoolError, match=r"runs \[2, 0, 1\]"):
        steps.pool(pool.params, groups[::-1], outs)
    other = copy.deepcopy(pool.params)
    other["model"]["runs"] = 4
    with pytest.raises(steps.PoolError, match=r"not 0\.\.3"):
        steps.pool(other, groups, outs)
    assert not any(tmp_path.iterdir())  # nothing half-written


# every other model (conv networks, privGAN, DP-SGD, the skin models with their synthetic sets and
# corrupted images): the same bytes too, with 3 runs in one job vs three one-run jobs
@pytest.mark.slow
@pytest.mark.parametrize(
    "step,block",
    [
        ("train_cifar10_wgangp", "cifar10_wgangp"),
        ("train_mnist_privgan", "mnist_privgan"),
        ("train_dpcgan_eps2", "dpcgan"),
        ("train_dpcgan_epsinf", "dpcgan"),
        ("train_skin_jsgan", "skin_jsgan"),
        ("train_skin_jsgan_corrupted", "skin_jsgan"),
        ("train_skin_classifier", "skin_classifier"),
    ],
)
def test_every_sharded_model_is_the_same_bytes(tiny, tmp_path, step, block):
    one = train(_with_runs(tiny, block, 3, None), step, tmp_path / "one")
    three = train(_with_runs(tiny, block, 3, 1), step, tmp_path / "three")
    assert_same_bytes(one, three)
    if step == "train_skin_jsgan_corrupted":  # run 0's training images, from its shard
        assert "train_images" in Q.load(three["queries"]).arrays
