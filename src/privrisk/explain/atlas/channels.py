"""Local-DP deployments through their channel: what one user's report reveals about the user's
value when the randomizer is published, not just its ε.

An ε-DP bound holds for every ε-DP mechanism; a published local randomizer is one mechanism, and
the server's best guesses from its report can be far below the bound. Three channels are read
exactly (each with the parameters its source prints):

* ``rr``: binary randomized response with ε (the report is the bit, kept with probability
  q = e^ε/(1 + e^ε)): the extremal ε-DP mechanism, so the card's numbers are the ε-DP bound's;
* ``cms``: Apple's count mean sketch (Apple DP team 2017): the value's bucket h_j(x) among m, as a
  ±1 vector with +1 there, each coordinate flipped with probability 1/(1 + e^{ε/2});
* ``hcms``: the Hadamard count mean sketch: one coordinate l of the Hadamard row of h_j(x), a ±1
  bit flipped with probability 1/(1 + e^ε); two rows differ in half the coordinates.

For each channel: the privacy-loss distribution of two values' reports (which gives the
distinguishing advantage and the best guess of a yes/no secret at any prior), and
S = Σ_y max_x P(y | x), which bounds the best guess of a value drawn from a prior whose largest
mass is p by p·S (Σ_y max_x π(x)P(y | x) <= max π · S; the card takes the smaller of it and the
ε-DP bound). Hash collisions only make two values'
reports more alike, so the numbers assume none: an upper bound for the deployed sketch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

KINDS = {
    "rr": "binary randomized response",
    "cms": "count mean sketch",
    "hcms": "Hadamard count mean sketch",
}


@dataclass(frozen=True)
class Channel:
    kind: str
    epsilon: float
    m: int | None = None

    @property
    def name(self) -> str:
        extra = f", m = {self.m:,}" if self.m else ""
        return f"{KINDS[self.kind]} (ε = {self.epsilon:g}{extra})"

    def pair(self) -> tuple[tuple[float, float], ...]:
        """The privacy loss L = log P_a(y)/P_b(y) of two values' reports under value a, as pairs
        (L, probability); the distribution under b is its mirror."""
        e = self.epsilon
        if self.kind == "rr":
            q = 1 / (1 + math.exp(-e))
            return ((e, q), (-e, 1 - q))
        if self.kind == "cms":  # the two buckets' coordinates, each RR(ε/2); the rest cancel
            q = 1 / (1 + math.exp(-e / 2))
            return ((e, q * q), (0.0, 2 * q * (1 - q)), (-e, (1 - q) ** 2))
        q = 1 / (1 + math.exp(-e))  # hcms: the rows agree at l half the time
        return ((e, q / 2), (0.0, 0.5), (-e, (1 - q) / 2))

    def binary_success(self, prior: float) -> float:
        """The best guess of a yes/no secret (a or b, a with probability ``prior``) from one
        report: Σ_y max(p P_a(y), (1 − p) P_b(y)), over the loss classes."""
        p = float(prior)
        return sum(max(p * w, (1 - p) * w * math.exp(-loss)) for loss, w in self.pair())

    def advantage(self) -> float:
        """The total variation between two values' reports: the best test's TPR − FPR."""
        return 2 * self.binary_success(0.5) - 1

    def guess_sum(self) -> float:
        """S = Σ_y max_x P(y | x) over every value x (in any bucket)."""
        e = self.epsilon
        if self.kind in ("rr", "hcms"):  # one bit: each output's likeliest value keeps it
            return 2 / (1 + math.exp(-e))
        q = 1 / (1 + math.exp(-e / 2))
        r = (1 - q) / q
        qm = q**self.m
        # y with w > 0 ones: a value in one of its +1 buckets, w − 1 flips; w = 0: one flip
        return qm * r + (1 - qm) / r

    def reconstruction(self, prior: float) -> float:
        """The best guess of a value whose likeliest value has prior ``prior``: at most p·S, and
        at most the ε-DP bound e^ε p/(e^ε p + 1 − p) (Swanberg et al. 2025, Theorem 3.2) that
        every ε-DP channel obeys; the smaller of the two (p·S is the tighter for small p)."""
        p = float(prior)
        dp = 1.0 / (1.0 + (1.0 - p) / p * math.exp(-self.epsilon))
        return max(p, min(1.0, p * self.guess_sum(), dp))


def of(spec: dict | None, epsilon: float | None) -> Channel | None:
    """The channel an atlas parameter set states (None when its mechanism is not published in
    enough detail to read one)."""
    if not spec or epsilon is None:
        return None
    return Channel(spec["kind"], float(epsilon), spec.get("m"))
