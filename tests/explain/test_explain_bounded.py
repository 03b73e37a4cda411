"""Every path of ``privrisk explain`` ends, in bounded time, with a card or one line: the cases
issue 38 found hanging (10⁴ targets with μ, ρ or DP-SGD), raising a traceback (``--max-risk`` with
``--steps 6e3``, an RDP order ∞, a closed pipe) or printing dp-accounting's absl warnings.

Each run is in a fresh process with a generous timeout: a hang fails the test instead of the
suite. The cases that need no pipe of their own share one process (``privrisk``'s command, one
case after the other, each with its own stdout and exit status; the process's stderr is theirs
together, so any warning of any case fails the tests that read it): a start-up, about a second,
instead of one per case. No test asserts a speed (the benchmark measures those)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from privrisk.explain import explain

TIMEOUT = 300  # a hang guard, not a speed requirement
DPSGD = ["--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "600", "--delta", "1e-5"]


def _run(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "privrisk", "explain", *args],
        capture_output=True, text=True, timeout=TIMEOUT, **kw,
    )  # fmt: skip


#: runs each argument list through the ``privrisk`` command in this one process, in order; prints
#: one JSON list of {"rc", "stdout", "stderr"} (a traceback is the case's stderr, its rc None;
#: what bypasses sys.stderr, as a logging handler made earlier, is in the process's stderr)
_DRIVER = """
import contextlib, importlib, io, json, sys, traceback
main = importlib.import_module("privrisk.pipeline.cli").main
out = []
for argv in json.loads(sys.argv[1]):
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            rc = main(["explain", *argv])
        except SystemExit as err:
            rc = err.code
        except Exception:
            rc = None
            traceback.print_exc()
    out.append({"rc": rc, "stdout": stdout.getvalue(), "stderr": stderr.getvalue()})
print(json.dumps(out))
"""


def _ok(runs: dict, case: str) -> dict:
    """The case's run, checked: exit status 0, nothing on its stderr or the process's."""
    run = runs[case]
    assert run["rc"] == 0 and run["stderr"] == "", (case, run["rc"], run["stderr"])
    assert runs["stderr"] == "", runs["stderr"]
    return run


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Every shared case's run (its exit status and stdout), and the process's stderr."""
    d = tmp_path_factory.mktemp("bounded")
    priors = d / "priors.csv"
    np.savetxt(priors, np.random.default_rng(0).uniform(0.01, 0.9, 10_000))
    rdp = d / "rdp.csv"
    rdp.write_text("order,rdp\n2,0.05\n8,0.3\ninf,1.0\n")
    cases = {
        # first: the float steps' reverse question accounts its own DP-SGD guarantee afresh
        "reverse_float_steps": [*DPSGD[:4], "--steps", "6e2", "--delta", "1e-5",
                                "--max-risk", "membership.advantage_fdp=0.2"],
        "targets_mu": ["--mu", "1", "--targets", "10000"],
        "targets_rho": ["--rho", "0.1", "--targets", "10000"],
        "targets_dpsgd": [*DPSGD, "--targets", "10000"],
        "prior_file": ["--mu", "1", "--prior-file", str(priors)],
        # dp-accounting's RDP accountant logs "failed to converge ... Excluding this order" here
        "absl": ["--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "100",
                 "--delta", "1e-5"],
        "rdp_inf": ["--rdp", str(rdp)],
    }  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-c", _DRIVER, json.dumps(list(cases.values()))],
        capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    results = dict(zip(cases, json.loads(run.stdout), strict=True))
    return {"stderr": run.stderr, "rdp": rdp, **results}


@pytest.mark.parametrize("case", ["targets_mu", "targets_rho", "targets_dpsgd"])
def test_ten_thousand_targets_over_a_whole_privacy_profile_return(runs, case):
    assert "of 10,000" in _ok(runs, case)["stdout"]


def test_ten_thousand_per_target_priors_return(runs):
    assert "of 10,000" in _ok(runs, "prior_file")["stdout"]


def test_reverse_question_on_dp_sgd_with_steps_written_as_a_float(runs):
    run = _ok(runs, "reverse_float_steps")
    assert "smallest noise multiplier keeping membership.advantage_fdp ≤ 0.2" in run["stdout"]


@pytest.mark.slow
def test_reverse_question_at_a_million_steps():
    run = _run("--noise-multiplier", "0.8", "--sample-rate", "0.001", "--steps", "1e6",
               "--delta", "1e-6", "--max-risk", "membership.tpr_at_fpr_0.01=0.2")  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr


def test_no_absl_warnings_on_valid_cards_at_a_large_sampling_rate(runs):
    _ok(runs, "absl")


@pytest.mark.slow
def test_no_absl_warnings_in_the_reverse_question_either():
    run = _run("--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "100",
               "--delta", "1e-5", "--max-risk", "membership.advantage_fdp=0.5")  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr


def test_an_rdp_order_of_infinity_is_pure_dp(runs):
    _ok(runs, "rdp_inf")
    # the order ∞ is pure 1-DP: the card's (ε, δ) can be no worse than ε = 1 at δ = 0
    card = explain(rdp=str(runs["rdp"]))
    assert card.setting("epsilon").value <= 1.0
    assert card.row("membership.advantage_fdp").value <= 0.4621171572600098 + 1e-12  # tanh(1/2)


def test_a_closed_pipe_ends_quietly():
    run = subprocess.run(
        f"{sys.executable} -m privrisk explain --epsilon 1 | head -1",
        shell=True, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert run.stdout.startswith("What does this guarantee mean") and run.stderr == ""
