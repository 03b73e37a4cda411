"""Bounds on what an attacker can infer from a DP release (pure, vectorised functions).

- ``membership``: membership-inference bounds (Thudi et al. Theorem 1 and prior work).
- ``attribute``: attribute-guessing advantage bounds (Pankova & Laud).
- ``reconstruction``: reconstruction with a prior (Swanberg et al.), MMC, ReRo.
- ``pmp``: Lowy et al.'s pointwise privacy parameter ε̃.
- ``tradeoff``: f-DP trade-off functions, the tight advantage, 1 − f(κ) (Kulynych et al.).

ε, δ, μ (and ε̃) are keyword-only in every public function, with the scalar threat-model
parameters beside them: ``positive_accuracy_upper(epsilon=3, p=0.1)``. Array data stays
positional. ``tests/test_keyword_only.py`` checks it.
"""
