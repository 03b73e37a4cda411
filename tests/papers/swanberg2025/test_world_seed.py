"""The worlds of Figures 4-7 (stand-in table, BayNet fit and visit order) are pre-registered:
``marginals.worlds`` of them, seeded 0, 1, …; the run's ``seed`` draws the experiment in each,
and the attack steps spread their draws over them (draw r in world r mod W)."""

from __future__ import annotations

import json

import numpy as np

from privrisk.papers.swanberg2025 import steps_marginals


def _run(tmp_path, *, seed, worlds=4):
    out = {
        "npz": str(tmp_path / f"w{worlds}s{seed}.npz"),
        "json": str(tmp_path / f"w{worlds}s{seed}.json"),
    }
    params = {
        "dataset": "fire",
        "data": {
            "source": "standin",
            "path": str(tmp_path / "absent.csv"),
            "standin_size": 3000,
            "raw_rows": 2000,
        },
        "marginals": {"n_records": 50, "degree": 2, "pseudocount": 0.0, "worlds": worlds},
        "seed": seed,
    }
    steps_marginals.dataset_step(params, {}, out)
    return json.loads(open(out["json"]).read()), out["npz"]


def test_another_seed_draws_other_records_in_the_same_worlds(tmp_path):
    a, npz_a = _run(tmp_path, seed=0)
    b, npz_b = _run(tmp_path, seed=1)
    assert [w["visit_order"] for w in a["worlds"]] == [w["visit_order"] for w in b["worlds"]]
    assert [w["world_seed"] for w in a["worlds"]] == [0, 1, 2, 3]
    _, rec_a, _ = steps_marginals._load_dataset(npz_a)
    _, rec_b, _ = steps_marginals._load_dataset(npz_b)
    assert not np.array_equal(rec_a, rec_b)


def test_the_worlds_differ_and_draws_spread_over_them(tmp_path):
    info, npz = _run(tmp_path, seed=0)
    assert len({tuple(w["visit_order"]) for w in info["worlds"]}) > 1
    nets, _, cols = steps_marginals._load_dataset(npz)
    assert len(nets) == 4 and nets[0].names == cols
    dr = steps_marginals.make_draws(
        nets, [1], 1.0, delta=1e-5, n=20, draws=10, seed=0, tag="t", kind="target"
    )
    assert dr.world.tolist() == [r % 4 for r in range(10)] and dr.index.tolist() == list(range(10))
    # a subset of the draws is the same draws: their streams depend on the draw, not the batch
    part = steps_marginals.make_draws(
        nets, [1], 1.0, delta=1e-5, n=20, draws=10, seed=0, tag="t", kind="target", indices=[2, 6]
    )
    np.testing.assert_array_equal(part.records, dr.records[[2, 6]])
    np.testing.assert_array_equal(part.p_map, dr.p_map[[2, 6]])


def test_real_data_is_one_world(tmp_path):
    assert steps_marginals.world_seeds({"worlds": 10}, "real") == [0]
    assert steps_marginals.world_seeds({"worlds": 10}, "standin") == list(range(10))
