"""The 10-value scaled-down priors of the n-gram experiment (Swanberg et al. §5.1; rule unspecified).

Our scaling rules (recorded in provenance by the callers):

- ``uniform``: 1/k for each of the k digits.
- ``password``: the same Zipf law over k ranks, p_r ∝ r^{-s} (top mass 0.373 for s = 1.1, k = 10,
  consistent with the paper's 38.0 % attack accuracy at ε = 1).
- ``pii``: the k highest pooled candidate priors of the PII prior (the mean over sequences of
  each candidate's normalised score), renormalised to sum to 1.

:func:`tempered` sharpens (or flattens) a prior to a given top mass, p_v ∝ p_v^t, keeping the order
of its values: an offline model of a more skewed prior (Figure 3's optional ``pii_top_mass``).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

SCALING_RULES = {
    "uniform": "1/k for each digit",
    "password": "Zipf(s) over k ranks, p_r ∝ r^-s",
    "pii": "k largest pooled candidate priors of the PII prior, renormalised",
}


def scaled_prior(
    name: str, k: int = 10, *, s: float = 1.1, pii_pooled=None, **pii_options
) -> np.ndarray:
    """k-value prior (sums to 1, sorted from most to least probable except ``uniform``).

    Args:
        name: ``uniform``, ``password`` or ``pii``.
        k: number of values (10 digits in the paper).
        s: Zipf exponent for ``password``.
        pii_pooled: PII candidate priors to scale: the pooled ones (``pii.build(...).pooled``) or one
            sequence's row (``prior.priors[prior.typical_sequence(k)]``, Figure 3's default); if None
            the PII prior is built with ``pii_options`` (keyword arguments of ``pii.build``:
            source, path, n_sequences, seed, scorer; default: Enron if present, else the
            offline stand-in, 500 sequences, seed 0).
    Raises:
        ValueError: unknown name or k < 2.
    """
    if k < 2:
        raise ValueError("k must be >= 2")
    if pii_options and name != "pii":
        raise TypeError(f"unexpected options {sorted(pii_options)} for the {name!r} prior")
    if name == "uniform":
        return np.full(k, 1.0 / k)
    if name == "password":
        w = np.arange(1, k + 1, dtype=float) ** (-s)
        return w / w.sum()
    if name == "pii":
        if pii_pooled is None:
            from .pii import build

            pii_pooled = build(**pii_options).pooled
        top = np.sort(np.asarray(pii_pooled, float))[::-1][:k]
        if top.size < k:
            raise ValueError(f"the PII prior has only {top.size} candidates; need {k}")
        return top / top.sum()
    raise ValueError(f"unknown prior {name!r}; expected one of {sorted(SCALING_RULES)}")


def tempered(p, *, top_mass: float) -> np.ndarray:
    """p_v^t / Σ p^t with t chosen so that the largest value has mass ``top_mass``.

    t > 1 sharpens, t < 1 flattens; the order of the values is kept and zero masses stay zero.
    Raises ValueError when ``top_mass`` is not strictly between 1/(number of positive values) and 1.
    """
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError("p must be one probability vector")
    pos = p[p > 0]
    if np.allclose(pos, pos[0]):
        raise ValueError("a uniform prior has no order to sharpen")
    if not 1.0 / pos.size < top_mass < 1.0:
        raise ValueError(f"top_mass must lie in (1/{pos.size}, 1), got {top_mass!r}")
    logp = np.log(pos)

    def top(t: float) -> float:
        w = np.exp(t * (logp - logp.max()))
        return float(w.max() / w.sum())

    hi = 1.0
    while top(hi) < top_mass:
        hi *= 2.0
    t = optimize.brentq(lambda t: top(t) - top_mass, 0.0, hi, xtol=1e-12)
    out = np.zeros_like(p)
    w = np.exp(t * (logp - logp.max()))
    out[p > 0] = w / w.sum()
    return out
