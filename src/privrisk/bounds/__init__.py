"""Bounds on what an attacker can infer from a DP release (pure, vectorised functions).

- ``membership``: membership-inference bounds (Thudi et al. Theorem 1 and prior work).
- ``attribute``: attribute-guessing advantage bounds (Pankova & Laud).
"""
