"""DP-SGD with switchable implementation bugs, and the canaries an auditor plants in it.

Many logistic-regression models are trained at once (parameters ``(M, d)``, one row per training
run) by DP-SGD on a small shared dataset plus K canary slots per run. The implementation is
described by :class:`Implementation`; each field is one of the places where real DP-SGD code has
shipped a privacy bug:

* ``sampler``: ``full`` (every example every step), ``poisson`` (each example independently with
  probability ``sample_rate``, what the accountants assume) or ``shuffle`` (each epoch a random
  permutation cut into ``1/sample_rate`` batches of fixed size: a ``DataLoader(shuffle=True)``);
* ``clipping``: ``per-example`` (opacus' factor min(1, C/(‖g‖ + 1e-6)) on each example, the
  formula of :func:`privrisk.training.dpsgd.batched_dpsgd`), ``batch`` (the batch's summed gradient
  clipped to C as one vector, so no single example's contribution is bounded) or ``none``;
* ``noise_std``: ``sigma*C`` (correct) or ``sigma`` (the clipping norm forgotten in the noise).

Canaries (the auditing literature's two designs):

* ``dirac``: a white-box gradient canary (Nasr et al. 2023; Steinke et al. 2023): its gradient is
  inserted directly as ``-G e_j`` on a coordinate j that no real example touches, with ``G`` above
  the clipping norm; the auditor sees every privatised gradient (DP-SGD's accounting covers the
  release of every iterate) and scores the canary's coordinate of each step;
* ``input``: a black-box input canary: the example ``(a e_j, y = 1)`` on an unused feature; the
  auditor sees only the final model's logit on it.

Replace-one experiments swap an excluded canary for its opposite (``+G e_j``; the input with
``y = 0``), the pair that moves the clipped gradient across the whole C-ball.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

SAMPLERS = ("full", "poisson", "shuffle")
CLIPPINGS = ("per-example", "batch", "none")
NOISE_STDS = ("sigma*C", "sigma")
CANARIES = ("dirac", "input")
#: the Dirac canary's raw gradient norm G, in clipping norms: far above C, so that an
#: implementation that does not bound each example's contribution shows it (with the batch's other
#: gradients of norm about C, a canary of 10 C still shares a batch-clipped step with them)
DIRAC_GRADIENT = 100.0
#: the input canary's amplitude a, in clipping norms: its logistic gradient a·(sigmoid(a w_j) − 1)
#: is a/2 = 10 C at w = 0
INPUT_AMPLITUDE = 20.0
#: opacus' guard against a zero norm in the clipping factor (as training.dpsgd)
_TINY = 1e-6


@dataclass(frozen=True)
class Implementation:
    """What the DP-SGD code actually does (see the module docstring)."""

    noise_multiplier: float
    steps: int
    sampler: str = "full"
    sample_rate: float = 1.0
    clipping: str = "per-example"
    clip: float = 1.0
    noise_std: str = "sigma*C"
    lr: float = 0.05

    def __post_init__(self):
        for name, allowed in (
            ("sampler", SAMPLERS),
            ("clipping", CLIPPINGS),
            ("noise_std", NOISE_STDS),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}: must be one of {allowed}, got {getattr(self, name)!r}")
        if self.sampler == "shuffle":
            per_epoch = 1 / self.sample_rate
            if abs(per_epoch - round(per_epoch)) > 1e-9 or self.steps % round(per_epoch):
                raise ValueError("shuffle: 1/sample_rate batches per epoch must divide steps")

    @property
    def std(self) -> float:
        return self.noise_multiplier * (self.clip if self.noise_std == "sigma*C" else 1.0)


def dataset(rng: np.random.Generator, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The shared training data: n Gaussian feature vectors and logistic labels."""
    x = rng.normal(size=(n, d)) / np.sqrt(d)
    w = rng.normal(size=d) * 2
    y = (rng.random(n) < special.expit(x @ w)).astype(float)
    return x, y


@dataclass(frozen=True)
class Trace:
    """What the auditor sees: ``noisy`` (T, M, d_data + K) the privatised gradient sums of every
    step (white box), ``data_dir`` (T, M, d_data) the unit direction of the rest of the batch's
    raw gradient (the auditor knows the other examples and every iterate), ``final`` (M, d)."""

    noisy: np.ndarray
    data_dir: np.ndarray
    final: np.ndarray


def train(
    impl: Implementation,
    data: tuple[np.ndarray, np.ndarray],
    included: np.ndarray,
    *,
    canary: str,
    replace: bool,
    rng: np.random.Generator,
) -> Trace:
    """Train M = ``included.shape[0]`` models, each with K = ``included.shape[1]`` canary slots
    (canary j on coordinate d_data + j), one batched computation per step.

    ``included[i, j]``: canary j is in run i's data; otherwise it is absent (add/remove) or its
    opposite is there instead (``replace``).
    """
    if canary not in CANARIES:
        raise ValueError(f"canary: must be one of {CANARIES}, got {canary!r}")
    x, y = data
    n, d_data = x.shape
    m, k = included.shape
    inc = np.asarray(included, bool)
    present = inc | replace  # a slot holds the canary or (replace-one) its opposite
    sign = np.where(inc, 1.0, -1.0)  # the canary pushes w_j up, its opposite down
    c = impl.clip
    w = np.zeros((m, d_data + k))
    noisy = np.empty((impl.steps, m, d_data + k))
    data_dir = np.empty((impl.steps, m, d_data))
    per_epoch = round(1 / impl.sample_rate)
    for t in range(impl.steps):
        if impl.sampler == "full":
            take_d, take_c = np.ones((m, n), bool), present.copy()
        elif impl.sampler == "poisson":
            take_d = rng.random((m, n)) < impl.sample_rate
            take_c = present & (rng.random((m, k)) < impl.sample_rate)
        else:
            if t % per_epoch == 0:  # a new epoch: every slot's batch, from one permutation
                rank = np.argsort(rng.random((m, n + k)), axis=1).argsort(axis=1)
                batch_of = rank * per_epoch // (n + k)
            take = batch_of == t % per_epoch
            take_d, take_c = take[:, :n], take[:, n:] & present
        # per-example gradients: data (M, n, d_data); each canary a scalar on its own coordinate
        p = special.expit(w[:, :d_data] @ x.T)
        g_data = (p - y)[:, :, None] * x[None] * take_d[:, :, None]
        if canary == "dirac":
            g_can = -sign * DIRAC_GRADIENT * c
        else:
            a = INPUT_AMPLITUDE * c
            g_can = (special.expit(a * w[:, d_data:]) - (sign > 0)) * a
        g_can = g_can * take_c
        raw_data = g_data.sum(1)
        norm_d = np.linalg.norm(raw_data, axis=1, keepdims=True)
        data_dir[t] = raw_data / np.maximum(norm_d, _TINY)
        if impl.clipping == "per-example":
            f_d = np.minimum(1.0, c / (np.linalg.norm(g_data, axis=2) + _TINY))
            s = np.concatenate(
                [
                    (g_data * f_d[:, :, None]).sum(1),
                    g_can * np.minimum(1.0, c / (abs(g_can) + _TINY)),
                ],
                axis=1,
            )
        else:
            s = np.concatenate([raw_data, g_can], axis=1)
            if impl.clipping == "batch":
                s *= np.minimum(1.0, c / (np.linalg.norm(s, axis=1, keepdims=True) + _TINY))
        noisy[t] = s + rng.normal(size=s.shape) * impl.std
        w -= impl.lr * noisy[t]
    return Trace(noisy=noisy, data_dir=data_dir, final=w)


# --- scores (higher = "canary in"): one per canary slot, shape (M, K) -----------------------

STATISTICS = ("sum", "poisson-lr", "shuffle-lr", "direction", "logit")


def scores(
    trace: Trace,
    *,
    statistic: str,
    d_data: int,
    clip: float,
    noise_multiplier: float,
    sample_rate: float = 1.0,
) -> np.ndarray:
    """The auditor's score of every canary slot. ``clip``, ``noise_multiplier`` and
    ``sample_rate`` are the CLAIMED ones (what the auditor is told); any statistic gives valid
    audits, a good one gives tight ones:

    * ``sum``: the canary coordinate summed over steps (the likelihood ratio of a full-batch
      Gaussian mechanism);
    * ``poisson-lr``: Σ_t log(1 − q + q·exp((x_t C − C²/2)/(σC)²)), the likelihood ratio when the
      canary is in each step independently with probability q;
    * ``shuffle-lr``: Σ_epochs log mean_t exp((x_t C − C²/2)/(σC)²): in exactly one step an epoch;
    * ``direction``: Σ_t ⟨−g̃_t, e_j + u_t⟩ with g̃_t the privatised gradient and u_t the direction
      of the rest of the batch's gradient (a single canary per run): what a canary displaces when
      the batch is clipped as a whole;
    * ``logit``: the final model's logit on the input canary (black box).
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic: must be one of {STATISTICS}, got {statistic!r}")
    xs = -trace.noisy[:, :, d_data:]  # (T, M, K): the update on each canary's coordinate
    if statistic == "logit":
        return trace.final[:, d_data:] * (INPUT_AMPLITUDE * clip)
    if statistic == "sum":
        return xs.sum(0)
    if statistic == "direction":
        along = np.einsum("tmd,tmd->tm", trace.noisy[:, :, :d_data], trace.data_dir)
        return (xs[:, :, 0] - along).sum(0)[:, None]
    ell = (xs * clip - clip**2 / 2) / (noise_multiplier * clip) ** 2
    if statistic == "poisson-lr":
        q = sample_rate
        return np.logaddexp(np.log1p(-q), np.log(q) + ell).sum(0) if q < 1 else ell.sum(0)
    per_epoch = round(1 / sample_rate)
    t = ell.shape[0]
    ep = ell.reshape(t // per_epoch, per_epoch, *ell.shape[1:])
    return (special.logsumexp(ep, axis=1) - np.log(per_epoch)).sum(0)
