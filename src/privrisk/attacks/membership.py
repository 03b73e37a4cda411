"""Heuristic threshold membership adversaries compared against MACE (spec xu2022 §7.5).

* Hayes et al. (2019, LOGAN) white-box: the highest discriminator scores are members.
* Hilprecht et al. (2019) black-box: the smallest distances to the synthetic set are members.

Both predict the top ``round(p · N)`` of the pooled evaluation sample as members (the attacker
knows the prior p, as in privGAN's ``WBattack``); ties are broken at random with a fixed rng.
"""

from __future__ import annotations

import numpy as np


def top_fraction_predict(scores, p: float, rng: np.random.Generator) -> np.ndarray:
    """±1 predictions: +1 for the round(p N) largest scores (random tie-breaking)."""
    s = np.asarray(scores, dtype=float)
    k = int(round(p * len(s)))
    order = np.lexsort((rng.random(len(s)), -s))  # primary key: score descending
    pred = -np.ones(len(s), dtype=int)
    pred[order[:k]] = 1
    return pred


def hayes_predict(scores, p: float, rng: np.random.Generator) -> np.ndarray:
    """White-box threshold on the discriminator/critic score (higher = member)."""
    return top_fraction_predict(scores, p, rng)


def hilprecht_predict(distances, p: float, rng: np.random.Generator) -> np.ndarray:
    """Black-box threshold on the L2 distance to the nearest synthetic sample (smaller = member)."""
    return top_fraction_predict(-np.asarray(distances, dtype=float), p, rng)


def nearest_distance(x, synthetic, chunk: int = 1024) -> np.ndarray:
    """min_j ||x_i − g_j||_2 for each row of x (Eq. 2), computed in chunks."""
    x = np.asarray(x, dtype=np.float64).reshape(len(x), -1)
    g = np.asarray(synthetic, dtype=np.float64).reshape(len(synthetic), -1)
    g2 = (g**2).sum(1)
    out = np.empty(len(x))
    for s in range(0, len(x), chunk):
        xs = x[s : s + chunk]
        d2 = (xs**2).sum(1)[:, None] - 2 * xs @ g.T + g2[None, :]
        out[s : s + chunk] = np.sqrt(np.maximum(d2.min(1), 0.0))
    return out


def threshold_advantage(
    scores_in, scores_out, rng: np.random.Generator, higher_is_member: bool = True
) -> float:
    """2·Acc − 1 of the top-fraction rule on a pooled sample with prior p = N1 / N (Definition 1)."""
    s = np.r_[np.asarray(scores_in, float), np.asarray(scores_out, float)]
    m = np.r_[np.ones(len(scores_in)), -np.ones(len(scores_out))]
    p = len(scores_in) / len(s)
    pred = top_fraction_predict(s if higher_is_member else -s, p, rng)
    return float(2 * np.mean(pred == m) - 1)
