"""privrisk.training.replicates: the grouped layers compute what the plain modules compute, and a
run's numbers do not depend on how many runs share its batch (the property that makes a model
trained in shards equal to the model trained in one job, tests/papers/xu2022/test_shards.py)."""

import pytest
import torch
from torch import nn

from privrisk.training.replicates import ROW_BLOCK, Replicas, lane_bce, lane_matmul


def _nets(make, runs=4, seed=0):
    torch.manual_seed(seed)
    return [
        nn.Sequential(make(), nn.LeakyReLU(0.2), nn.Flatten(), nn.LazyLinear(1))
        for _ in range(runs)
    ]


LAYERS = {
    "linear 37->5": (lambda: nn.Linear(37, 5), (13, 37)),
    "conv 3->4": (lambda: nn.Conv2d(3, 4, 5, 2, 2), (16, 3, 16, 16)),
    "conv 8->16": (lambda: nn.Conv2d(8, 16, 3, 1, 1), (5, 8, 6, 6)),
    "convT 8->4": (lambda: nn.ConvTranspose2d(8, 4, 5, 2, 2, output_padding=1), (16, 8, 4, 4)),
    # 8 samples of 6 values: a run's 48 outputs straddle a SIMD tail unless padded (lane_rows)
    "linear+sigmoid": (lambda: nn.Sequential(nn.Linear(5, 6), nn.Sigmoid()), (8, 5)),
    "convT+tanh": (lambda: nn.Sequential(nn.ConvTranspose2d(3, 2, 3), nn.Tanh()), (3, 3, 2, 2)),
}


def _grads(rep: Replicas, x: torch.Tensor):
    out = rep(x)
    (out.pow(2) + out).sum().backward()
    return out.detach(), {k: p.grad for k, p in rep.params.items()}


@pytest.mark.parametrize("layer", list(LAYERS))
def test_grouped_layers_compute_the_plain_modules(layer):
    make, shape = LAYERS[layer]
    nets = _nets(make)
    x = torch.randn(4, *shape, generator=torch.Generator().manual_seed(1))
    for m, xk in zip(nets, x, strict=True):
        m(xk)  # materialise the lazy layer
    out, grads = _grads(Replicas(nets), x)
    for k, m in enumerate(nets):
        y = m(x[k]).squeeze(-1)
        (y.pow(2) + y).sum().backward()
        torch.testing.assert_close(out[k].squeeze(-1), y.detach(), rtol=1e-5, atol=1e-5)
        for name, p in m.named_parameters():
            torch.testing.assert_close(grads[name][k], p.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layer", list(LAYERS))
def test_a_runs_numbers_do_not_depend_on_the_runs_beside_it(layer):
    """Exactly equal, forward and backward, for run k alone, beside one other run and beside
    three (the critic's last layer is a matrix-vector product: ATen's kernel for a batch of
    one would round it differently; lane_matmul computes one run as two copies)."""
    make, shape = LAYERS[layer]
    nets = _nets(make)
    x = torch.randn(4, *shape, generator=torch.Generator().manual_seed(1))
    for m, xk in zip(nets, x, strict=True):
        m(xk)
    out, grads = _grads(Replicas(nets), x)
    for k in range(4):
        for lanes in ([k], [k, (k + 1) % 4], [(k + 3) % 4, k]):
            o, g = _grads(Replicas([nets[i] for i in lanes]), x[lanes])
            at = lanes.index(k)
            assert torch.equal(o[at], out[k]), (k, lanes)
            for name in grads:
                assert torch.equal(g[name][at], grads[name][k]), (k, lanes, name)


def test_lane_matmul_is_bmm_and_one_lane_keeps_its_gradient():
    a = torch.randn(3, 5, 7, requires_grad=True)
    b = torch.randn(3, 2, 7)
    bias = torch.randn(3, 1, 2)
    torch.testing.assert_close(lane_matmul(a, b, bias, tb=True), torch.baddbmm(bias, a, b.mT))
    torch.testing.assert_close(lane_matmul(a, a.detach(), ta=True), torch.bmm(a.mT, a.detach()))
    one = a[:1].detach().clone().requires_grad_(True)
    lane_matmul(one, b[:1], tb=True).sum().backward()
    torch.testing.assert_close(one.grad, b[:1].sum(1, keepdim=True).expand(1, 5, 7))


@pytest.mark.parametrize("b", [1, 16, 22, ROW_BLOCK, ROW_BLOCK + 3])
def test_lane_bce_is_the_loss_and_the_same_for_every_layout(b):
    gen = torch.Generator().manual_seed(b)
    logits = torch.randn(5, b, generator=gen) * 4
    target = torch.rand(5, b, generator=gen)
    ref = torch.nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="none")
    got = lane_bce(logits, target)
    torch.testing.assert_close(got, ref)
    for k in range(5):
        assert torch.equal(lane_bce(logits[k : k + 1], target[k : k + 1])[0], got[k])
        x = logits[k : k + 1].clone().requires_grad_(True)
        lane_bce(x, target[k : k + 1]).sum().backward()
        xs = logits.clone().requires_grad_(True)
        lane_bce(xs, target).sum().backward()
        assert torch.equal(x.grad[0], xs.grad[k])
