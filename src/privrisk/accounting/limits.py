"""What the accounting takes: argument checks, the limits of DP-SGD's PLD accounting (refused with
an :class:`AccountingLimit` naming the input), and dp-accounting's log lines silenced."""

from __future__ import annotations

import contextlib
import math

#: DP-SGD's accountants: ``pld`` (:func:`~privrisk.accounting.dpsgd_pld`, tight, with a stated
#: error; the card's default) and ``rdp`` (:func:`~privrisk.accounting.dpsgd_rdp` and
#: :func:`~privrisk.accounting.rdp_epsilon`, milliseconds at any number of steps; training's)
DPSGD_ACCOUNTANTS = ("pld", "rdp")

#: the most steps the PLD accounting takes (above it a card would take minutes): refused beyond
MAX_STEPS = 10_000_000
#: the largest RDP ε the PLD accounting takes: beyond it the run has essentially no noise and
#: the privacy-loss grid would not fit in memory
MAX_RDP_EPSILON = 500.0
#: the most points of the composed PLD's grid (predicted before it is built; ~0.5 GB of arrays)
MAX_GRID_POINTS = 20_000_000
#: the relative ε error :func:`dpsgd_pld` aims for by default (its stated bound, see there)
PLD_RELATIVE_ERROR = 5e-3
#: the finest and coarsest discretisation intervals the adaptive rule uses
_FINEST, _COARSEST = 1e-7, 1e-2


class AccountingLimit(ValueError):
    """A DP-SGD run outside what :func:`dpsgd_pld` accounts; ``argument`` names the input."""

    def __init__(self, argument: str, message: str):
        self.argument = argument
        self.message = message
        super().__init__(f"{argument}: {message}")


@contextlib.contextmanager
def quiet_absl():
    """dp-accounting logs through absl (WARNING lines about RDP orders it drops, a warning per
    fractional order at large sampling rates): not the user's to act on, since the orders it keeps
    still give an upper bound. Silenced below ERROR for the duration."""
    import logging

    log = logging.getLogger("absl")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _check_accountant(accountant: str) -> None:
    if accountant not in DPSGD_ACCOUNTANTS:
        raise ValueError(
            f"accountant must be one of {', '.join(DPSGD_ACCOUNTANTS)}, got {accountant!r}"
        )


def _check_delta(delta: float, *, allow_zero: bool) -> None:
    if not (0 <= delta < 1) or (delta == 0 and not allow_zero):
        raise ValueError(f"delta must be in {'[0' if allow_zero else '(0'}, 1), got {delta}")


def check_dpsgd(*, noise_multiplier: float, sample_rate: float, steps: int) -> None:
    """AccountingLimit naming the input when a run lies outside what :func:`dpsgd_pld` takes."""
    if not (noise_multiplier > 0 and math.isfinite(noise_multiplier)):
        raise AccountingLimit("noise_multiplier", f"must be > 0 and finite, got {noise_multiplier}")
    if not 0 < sample_rate <= 1:
        raise AccountingLimit("sample_rate", f"must be in (0, 1], got {sample_rate}")
    if int(steps) != steps or steps < 1:
        raise AccountingLimit("steps", f"must be a whole number >= 1, got {steps}")
    if steps > MAX_STEPS and sample_rate < 1:
        raise AccountingLimit(
            "steps",
            f"at most {MAX_STEPS:,} steps are accounted (the PLD's documented limit; beyond it "
            f"the accounting takes minutes), got {steps:.3g}",
        )
