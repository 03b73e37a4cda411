"""Every path of ``privrisk explain`` ends, in bounded time, with a card or one line: the cases
issue 38 found hanging (10⁴ targets with μ, ρ or DP-SGD), raising a traceback (``--max-risk`` with
``--steps 6e3``, an RDP order ∞, a closed pipe) or printing dp-accounting's absl warnings.

Each run is a fresh process with a generous timeout: a hang fails the test instead of the suite;
no test asserts a speed (the benchmark measures those)."""

import subprocess
import sys

import pytest

from privrisk.explain import explain

TIMEOUT = 300  # a hang guard, not a speed requirement
DPSGD = ["--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "600", "--delta", "1e-5"]


def _run(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "privrisk", "explain", *args],
        capture_output=True, text=True, timeout=TIMEOUT, **kw,
    )  # fmt: skip


@pytest.mark.parametrize(
    "args", [["--mu", "1"], ["--rho", "0.1"], DPSGD], ids=["mu", "rho", "dpsgd"]
)
def test_ten_thousand_targets_over_a_whole_privacy_profile_return(args):
    run = _run(*args, "--targets", "10000")
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert "of 10,000" in run.stdout


def test_ten_thousand_per_target_priors_return(tmp_path):
    import numpy as np

    f = tmp_path / "priors.csv"
    np.savetxt(f, np.random.default_rng(0).uniform(0.01, 0.9, 10_000))
    run = _run("--mu", "1", "--prior-file", str(f))
    assert run.returncode == 0 and run.stderr == "" and "of 10,000" in run.stdout


def test_reverse_question_on_dp_sgd_with_steps_written_as_a_float():
    run = _run(*DPSGD[:4], "--steps", "6e2", "--delta", "1e-5",
               "--max-risk", "membership.advantage_fdp=0.2")  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert "smallest noise multiplier keeping membership.advantage_fdp ≤ 0.2" in run.stdout


@pytest.mark.slow
def test_reverse_question_at_a_million_steps():
    run = _run("--noise-multiplier", "0.8", "--sample-rate", "0.001", "--steps", "1e6",
               "--delta", "1e-6", "--max-risk", "membership.tpr_at_fpr_0.01=0.2")  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr


def test_no_absl_warnings_on_valid_cards_at_a_large_sampling_rate():
    # dp-accounting's RDP accountant logs "failed to converge ... Excluding this order" here
    run = _run("--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "100",
               "--delta", "1e-5")  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr


@pytest.mark.slow
def test_no_absl_warnings_in_the_reverse_question_either():
    run = _run("--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "100",
               "--delta", "1e-5", "--max-risk", "membership.advantage_fdp=0.5")  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr


def test_an_rdp_order_of_infinity_is_pure_dp(tmp_path):
    f = tmp_path / "rdp.csv"
    f.write_text("order,rdp\n2,0.05\n8,0.3\ninf,1.0\n")
    run = _run("--rdp", str(f))
    assert run.returncode == 0 and run.stderr == "", run.stderr
    # the order ∞ is pure 1-DP: the card's (ε, δ) can be no worse than ε = 1 at δ = 0
    card = explain(rdp=str(f))
    assert card.setting("epsilon").value <= 1.0
    assert card.row("membership.advantage_fdp").value <= 0.4621171572600098 + 1e-12  # tanh(1/2)


def test_a_closed_pipe_ends_quietly():
    run = subprocess.run(
        f"{sys.executable} -m privrisk explain --epsilon 1 | head -1",
        shell=True, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert run.stdout.startswith("What does this guarantee mean") and run.stderr == ""
