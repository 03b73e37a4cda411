"""Privacy mechanisms (exponential, Gaussian, noisy marginals), as small functions/objects.

ε, δ, μ, ε̃, ε(X) are keyword-only in every public function, with the scalar parameters beside
them (``noise_std(epsilon=…, delta=…, m=…)``); array data (``x``, ``dist``, ``membership``) stays
positional. ``tests/test_keyword_only.py`` checks it.
"""
