"""DP-SGD for many independent models at once, each trained on ONE example (full batch).

The parameters carry a leading model dimension M; every model's loss depends only on its own
slice, so one backward pass of the summed loss gives every model's (per-example) gradient. Each
step then clips each model's gradient to its norm bound C (opacus' factor min(1, C/(‖g‖ + 1e-6))),
adds N(0, σ²C²) noise drawn independently per model, and takes an SGD step. With one example per
model this is exactly opacus' ``DPOptimizer`` (expected batch size 1) applied model by model;
:func:`opacus_reference_train` does that, for the tests and the benchmark.

Calibration (:func:`full_batch_noise_multiplier`): :func:`privrisk.accounting.dpsgd_noise_multiplier`
at sample rate 1, where T steps of the Gaussian mechanism compose to μ-GDP with μ = Δ√T/σ, the
per-step L2 sensitivity Δ being C for add/remove adjacency and 2C for replace-one adjacency (a
different example can move the clipped gradient from one side of the C-ball to the other).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from .. import accounting

# per-step L2 sensitivity / C; ``adjacency`` arguments take an Adjacency or its config spelling
SENSITIVITY = accounting.DPSGD_SENSITIVITY


def full_batch_noise_multiplier(
    epsilon: float, delta: float, steps: int, adjacency: str = "replace_one"
) -> float:
    """Noise multiplier σ (noise std = σC) making T full-batch DP-SGD steps (ε, δ)-DP: the
    project's DP-SGD calibration (:func:`privrisk.accounting.dpsgd_noise_multiplier`) at sample
    rate 1, in closed form.

    Returns 0 for ε = ∞ (no noise).
    Raises:
        ValueError: unknown adjacency or steps < 1.
    """
    return accounting.dpsgd_noise_multiplier(
        epsilon=float(epsilon), delta=delta, sample_rate=1.0, steps=steps, adjacency=adjacency
    )


def full_batch_mu(noise_multiplier: float, steps: int, adjacency: str = "replace_one") -> float:
    """μ of T full-batch steps with noise multiplier σ (∞ when σ = 0)."""
    adjacency = accounting.Adjacency.parse(adjacency)
    if noise_multiplier == 0:
        return math.inf
    return SENSITIVITY[adjacency] * math.sqrt(steps) / noise_multiplier


def _per_model(x, m: int, like: torch.Tensor) -> torch.Tensor:
    t = torch.as_tensor(x, dtype=like.dtype)
    return t.expand(m) if t.ndim == 0 else t


def batched_dpsgd(
    params: dict[str, torch.Tensor],
    loss_fn: Callable[[dict[str, torch.Tensor]], torch.Tensor],
    *,
    steps: int,
    lr,
    clip,
    noise_multiplier,
    generator: torch.Generator | None = None,
    noise_fn: Callable[[int, str, tuple], torch.Tensor] | None = None,
    active_steps=None,
) -> dict[str, torch.Tensor]:
    """Train M models with one example each by DP-SGD, all in one batched computation.

    Args:
        params: name -> tensor of shape (M, ...) (copied, not modified).
        loss_fn: params -> (M,) per-model losses on each model's single example.
        steps: number of full-batch steps T.
        lr, clip, noise_multiplier: scalars or (M,) tensors (per-model hyperparameters).
        generator: torch generator for the standard-normal noise (independent across models).
        noise_fn: optional (step, name, shape) -> standard-normal tensor, to replay given draws.
        active_steps: optional (M,) number of steps each model takes (≤ steps); later steps
            leave that model untouched (lets models with different T share one run).
    Returns:
        the trained parameters (detached).
    """
    p = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
    ref = next(iter(p.values()))
    m = ref.shape[0]
    lr_t, c_t, s_t = (_per_model(x, m, ref) for x in (lr, clip, noise_multiplier))
    act = None if active_steps is None else torch.as_tensor(active_steps)
    for t in range(steps):
        losses = loss_fn(p)
        grads = torch.autograd.grad(losses.sum(), list(p.values()))
        norms = torch.sqrt(sum(g.reshape(m, -1).pow(2).sum(1) for g in grads))
        factor = (c_t / (norms + 1e-6)).clamp(max=1.0)
        with torch.no_grad():
            step_lr = lr_t if act is None else lr_t * (t < act).to(ref.dtype)
            for (name, v), g in zip(p.items(), grads, strict=True):
                shape = (m,) + (1,) * (v.ndim - 1)
                if noise_fn is not None:
                    z = noise_fn(t, name, tuple(v.shape))
                else:
                    z = torch.randn(v.shape, generator=generator, dtype=v.dtype)
                upd = g * factor.view(shape) + z * (s_t * c_t).view(shape)
                v -= step_lr.view(shape) * upd
    return {k: v.detach() for k, v in p.items()}


def opacus_reference_train(
    module: torch.nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    steps: int,
    lr: float,
    clip: float,
    noise_multiplier: float,
    noises: list[list[torch.Tensor]] | None = None,
    seed: int = 0,
) -> torch.nn.Module:
    """Train ONE model on one example (x, y) with opacus (GradSampleModule + DPOptimizer, SGD).

    ``noises[t][j]`` (standard normal, shaped like the j-th parameter) replaces opacus' own draw
    at step t, so the result can be compared with :func:`batched_dpsgd` on the same noise.
    """
    from opacus import GradSampleModule
    from opacus.optimizers import DPOptimizer
    from opacus.optimizers import optimizer as opt_mod

    gsm = GradSampleModule(module)
    opt = DPOptimizer(
        torch.optim.SGD(gsm.parameters(), lr=lr),
        noise_multiplier=noise_multiplier,
        max_grad_norm=clip,
        expected_batch_size=1,
    )
    original = opt_mod._generate_noise
    state = {"t": 0, "j": 0}

    def replay(std, reference, generator=None, secure_mode=False):
        z = noises[state["t"]][state["j"]]
        state["j"] += 1
        return (std * z).to(reference.dtype).view_as(reference)

    if noises is not None:
        opt_mod._generate_noise = replay
    else:
        torch.manual_seed(seed)
    try:
        for t in range(steps):
            state.update(t=t, j=0)
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(gsm(x), y)
            loss.backward()
            opt.step()
    finally:
        opt_mod._generate_noise = original
    return gsm._module
