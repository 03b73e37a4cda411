"""Torch's thread count comes from config (``torch_threads``), not from the rule's threads: run.py
applies it once before every step (a step takes no thread argument); figure provenance records
it with the CPU model; the record is one core function, and a figure job never imports torch
for it."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import torch

from privrisk.contract import provenance
from privrisk.core import device
from privrisk.pipeline import config

REPO = Path(__file__).resolve().parents[1]
RUN_PY = REPO / "workflow" / "scripts" / "run.py"


@pytest.fixture
def torch_threads():
    """Restore torch's thread count and the module's setting after a test changes them."""
    before, setting = torch.get_num_threads(), device._TORCH_THREADS
    yield
    torch.set_num_threads(before)
    device._TORCH_THREADS = setting


def test_record_says_threads_and_cpu(torch_threads):
    device.set_torch_threads(2)
    assert torch.get_num_threads() == 2
    record = device.thread_record()
    assert record == {"torch_threads": 2, "cpu": device.cpu_model()}
    assert isinstance(record["cpu"], str) and record["cpu"]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
def test_bad_thread_count_names_the_key(bad):
    with pytest.raises(device.DeviceError, match="config key torch_threads"):
        device.check_torch_threads(bad)


def test_schema_refuses_zero_threads_naming_the_key():
    cfg = config.load(REPO / "config/config.yaml")
    assert cfg["torch_threads"] == 1
    with pytest.raises(config.ConfigError, match="torch_threads"):
        config.validate({**cfg, "torch_threads": 0})


_NO_TORCH = """
import sys
from privrisk.contract import provenance
from privrisk.core import device
device.set_torch_threads(3, load_torch=False)
rec = provenance.make_record(paper="p", figure="f", caption="c", scale="tiny", parameters={})
assert "torch" not in sys.modules, "a figure's provenance imported torch"
print(rec["torch_threads"], rec["cpu"])
"""


def test_figure_provenance_records_the_setting_without_importing_torch():
    proc = subprocess.run(
        [sys.executable, "-c", _NO_TORCH],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(maxsplit=1) == ["3", device.cpu_model() + "\n"]


# --- workflow/scripts/run.py with a stand-in for Snakemake's `snakemake` object ----------------


def record_step(params, inputs, outputs):
    """A step that writes what torch uses."""
    Path(outputs["out"]).write_text(
        json.dumps({"torch": torch.get_num_threads(), **device.thread_record()})
    )


def one_point_figure(params):
    from privrisk.contract.figure import FigureResult

    data = pd.DataFrame({"series": ["a"], "x": [0.0], "y": [1.0]})
    return FigureResult(data=data, caption="one point", table_md="| a |\n|---|\n| 1 |\n")


def _run_py(tmp_path, *, kind, func, cfg, config_threads, rule_threads=2, output=None):
    sm = SimpleNamespace(
        log=[str(tmp_path / "job.log")],
        input={},
        output=output,
        params=SimpleNamespace(kind=kind, func=func, cfg=cfg, paper="p", name="f"),
        threads=rule_threads,
        scriptdir=str(RUN_PY.parent),
        config={"scale": "tiny", "torch_threads": config_threads},
    )
    runpy.run_path(str(RUN_PY), init_globals={"snakemake": sm})


def test_a_step_gets_the_configs_threads_not_the_rules(tmp_path, torch_threads):
    out = tmp_path / "record.json"
    _run_py(
        tmp_path,
        kind="step",
        func="tests.test_threads:record_step",
        cfg={"seed": 1, "torch_threads": 3},
        config_threads=3,
        rule_threads=2,  # what Snakemake gives the rule under --cores 2
        output={"out": str(out)},
    )
    assert json.loads(out.read_text()) == {
        "torch": 3,
        "torch_threads": 3,
        "cpu": device.cpu_model(),
    }


def test_figure_provenance_records_threads_and_cpu(tmp_path, torch_threads):
    class Output(dict):
        csv = str(tmp_path / "f.csv")
        claims = str(tmp_path / "claims" / "f.csv")

    _run_py(
        tmp_path,
        kind="figure",
        func="tests.test_threads:one_point_figure",
        cfg={"seed": 1},
        config_threads=2,
        output=Output(),
    )
    record = json.loads((tmp_path / "f.json").read_text())
    assert record["torch_threads"] == 2 and record["cpu"] == device.cpu_model()
    assert provenance.make_record(
        paper="p", figure="f", caption="c", scale="tiny", parameters={}
    ).keys() >= {"torch_threads", "cpu"}


def test_no_step_takes_or_sets_threads_itself():
    """One door: the runner applies torch_threads; a step's signature is (params, inputs,
    outputs) and its source never sets torch's thread count."""
    import inspect

    from privrisk.contract.figure import resolve
    from privrisk.pipeline import workflow

    cfg = config.load(REPO / "config/config.yaml")
    funcs = {s.func for p in workflow.PAPERS for s in workflow.load_registry(p, cfg).steps}
    assert funcs, "no steps declared"
    for func in funcs:
        fn = resolve(func)
        assert list(inspect.signature(fn).parameters) == ["params", "inputs", "outputs"], func
        assert "set_num_threads" not in inspect.getsource(inspect.getmodule(fn)), func
