"""Independent training runs of one architecture as ONE batched computation.

:class:`Replicas` turns R modules of the same architecture into one module whose layers are
*grouped*: every ``Linear`` becomes a batched matrix product over a leading run axis
(:func:`lane_matmul`) and every ``Conv2d`` / ``ConvTranspose2d`` one convolution per run on its
own rows; the activations carry the R runs' batches one after another (run-major, ``R·B`` rows),
so the architecture's own ``forward`` (reshapes, concatenations, activations) runs unchanged.
The small matrix products then cost about as many kernel launches as one — native kernels, unlike
``torch.func.vmap`` over ``functional_call``, whose per-op dispatch made a quick-scale WGAN-GP step
slower batched than a loop over runs (0.27 s for 10 runs vs 0.23 s, and 6× the loop for one run;
measured on this machine). Each run's loss depends only on its own slice of the parameters, so
one backward pass of the summed losses gives every run its own gradient, and an element-wise
optimizer (Adam, SGD) over the stacked tensors is exactly R independent optimizers.

:class:`RunRNG` holds one ``torch.Generator`` per run, seeded with that run's seed: each run's
batches, latents and noise are the stream its own seed gives, whatever the other runs are.

**A run's numbers do not depend on the runs beside it**, to the last bit (on one machine, at one
``torch_threads``): a model whose runs train in shards (config key ``runs_per_job``) is then the
same model as one trained in one job. Four things would otherwise tie a run's rounding to its
batch, each handled here and tested in tests/training/test_replicates.py:

* ATen computes a batch of one matrix-vector product with another kernel than a batch of
  several, and the operands' memory layout picks the kernel's transposition:
  :func:`lane_matmul` computes a lone run as two copies and makes operands contiguous;
* MKL rounds by the alignment of each run's slice: its reproducible mode
  (``MKL_CBWR=AUTO,STRICT``, set by importing :mod:`privrisk.training`);
* oneDNN picks another kernel for a grouped convolution than for a plain one: one convolution
  per run (on this machine also faster than the grouped kernel at quick scale);
* element-wise kernels finish a tensor's last entries with scalar code whose ``exp``/``tanh``
  round differently from SIMD: per-sample losses and tanh/sigmoid activations are computed on
  rows padded per run (:func:`lane_bce`, :func:`lane_rows`).

A GPU gives no such promise (cuBLAS and cuDNN choose algorithms by shape); shards of one model
should run on one kind of device.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import torch
from torch import nn
from torch.nn import functional as F


def device_of(*modules: nn.Module) -> torch.device:
    """The one device of the modules' parameters; every tensor a training loop makes goes there."""
    devs = {p.device for m in modules for p in m.parameters()}
    if len(devs) != 1:
        raise ValueError(f"modules must sit on one device, found {sorted(map(str, devs))}")
    return devs.pop()


def _stacked(layers: Sequence[nn.Module], name: str) -> dict[str, nn.Parameter | None]:
    out = {}
    for attr in ("weight", "bias"):
        ts = [getattr(m, attr) for m in layers]
        out[attr] = None if ts[0] is None else nn.Parameter(torch.stack([t.detach() for t in ts]))
    return out


def lane_matmul(
    a: torch.Tensor,
    b: torch.Tensor,
    bias: torch.Tensor | None = None,
    *,
    ta: bool = False,
    tb: bool = False,
) -> torch.Tensor:
    """``bias + a′ @ b′`` per lane (the leading run axis), where ``a′`` is ``a`` transposed when
    ``ta`` (``b′`` likewise), with each lane's numbers independent of how many lanes there are.

    Three things would otherwise make a run's numbers depend on the runs beside it in its job:
    ATen computes a batch of ONE matrix-vector product (a critic's last layer) with another
    kernel than a batch of several, so one lane is computed as two copies of itself (the second
    discarded; its gradient is exactly zero); the memory layout of the operands picks the
    kernel's transposition, so they are made contiguous before the transposition, in both cases
    alike; and MKL rounds by the alignment of each lane's slice unless its reproducible mode is
    on (``MKL_CBWR=AUTO,STRICT``, which importing :mod:`privrisk.training` sets).
    """
    a, b = a.contiguous(), b.contiguous()
    if a.shape[0] == 1:
        return lane_matmul(
            torch.cat([a, a]),
            torch.cat([b, b]),
            None if bias is None else torch.cat([bias, bias]),
            ta=ta,
            tb=tb,
        )[:1]
    a = a.transpose(1, 2) if ta else a
    b = b.transpose(1, 2) if tb else b
    return torch.bmm(a, b) if bias is None else torch.baddbmm(bias, a, b)


#: rows of per-sample values are padded to a multiple of this many entries (below)
ROW_BLOCK = 64


def lane_bce(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-sample binary cross-entropy with logits (``reduction="none"``) of (R, b) values, each
    run's row computed as it is when the run is alone.

    ATen's element-wise kernels run SIMD over the whole tensor and finish the last few entries
    with scalar code, whose ``exp``/``log`` round differently from the vector ones; which of a
    run's entries fall in that tail depends on how many runs are stacked. Padding every row to a
    multiple of :data:`ROW_BLOCK` entries (64, a multiple of every SIMD width) puts every entry
    on the vector path in any layout; the padding's loss and gradient are sliced away.
    """
    b = logits.shape[-1]
    pad = -b % ROW_BLOCK
    if pad:
        logits, target = F.pad(logits, (0, pad)), F.pad(target, (0, pad))
    return F.binary_cross_entropy_with_logits(logits, target, reduction="none")[..., :b]


class _GroupedLinear(nn.Module):
    """R Linear layers: input (R·B, …, in) run-major -> (R·B, …, out)."""

    def __init__(self, layers: Sequence[nn.Linear]):
        super().__init__()
        self.runs = len(layers)
        for k, v in _stacked(layers, "linear").items():
            setattr(self, k, v)

    def forward(self, x):
        h = x.reshape(self.runs, -1, x.shape[-1])
        bias = None if self.bias is None else self.bias[:, None]
        y = lane_matmul(h, self.weight, bias, tb=True)
        return y.reshape(*x.shape[:-1], -1)


class _GroupedConv(nn.Module):
    """R Conv2d (or ConvTranspose2d) layers: input (R·B, C, H, W) run-major, one convolution per
    run on its own rows.

    Not one convolution with ``groups = R``: oneDNN picks another kernel for a grouped convolution
    than for a plain one (its first-layer kernel for 3 input channels, for one), so a run's numbers
    would depend on how many runs share its job; one call per run gives each run the numbers it
    gets alone. On this project's CPU the loop was also faster than the grouped kernel for the
    quick-scale skin networks (src/privrisk/papers/xu2022/notes.md, "Replicate training runs,
    batched").
    """

    def __init__(self, layers: Sequence[nn.Conv2d | nn.ConvTranspose2d]):
        super().__init__()
        first = layers[0]
        if first.groups != 1 or first.padding_mode != "zeros":
            raise ValueError(f"Replicas: unsupported convolution {first!r}")
        self.runs, self.transposed = len(layers), isinstance(first, nn.ConvTranspose2d)
        self.stride, self.padding, self.dilation = first.stride, first.padding, first.dilation
        self.output_padding = getattr(first, "output_padding", 0)
        for k, v in _stacked(layers, "conv").items():
            setattr(self, k, v)

    def _one(
        self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None
    ) -> torch.Tensor:
        if self.transposed:
            return F.conv_transpose2d(
                x,
                weight,
                bias,
                self.stride,
                self.padding,
                self.output_padding,
                1,
                self.dilation,
            )
        return F.conv2d(x, weight, bias, self.stride, self.padding, self.dilation, 1)

    def forward(self, x):
        # unbind, not weight[k]: the backward of R selects writes R zero-filled copies of the
        # stacked weight and adds them up (a quarter of a quick skin GAN step); unbind's is one
        # stack, with the same numbers
        xs = x.reshape(self.runs, -1, *x.shape[1:]).unbind(0)
        ws = self.weight.unbind(0)
        bs = [None] * self.runs if self.bias is None else self.bias.unbind(0)
        return torch.cat([self._one(xs[k], ws[k], bs[k]) for k in range(self.runs)])


_GROUPED = {nn.Linear: _GroupedLinear, nn.Conv2d: _GroupedConv, nn.ConvTranspose2d: _GroupedConv}


def lane_rows(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, runs: int):
    """``fn`` (element-wise) of x (R·B, ...) run-major, each run's entries padded to a multiple of
    :data:`ROW_BLOCK` so that SIMD treats them alike however many runs are stacked (see
    :func:`lane_bce`)."""
    rows = x.reshape(runs, -1)
    pad = -rows.shape[1] % ROW_BLOCK
    out = fn(F.pad(rows, (0, pad)) if pad else rows)
    return (out[:, : rows.shape[1]] if pad else out).reshape(x.shape)


class _LaneActivation(nn.Module):
    """An element-wise activation whose SIMD and scalar code round differently (tanh, sigmoid),
    applied per run through :func:`lane_rows`."""

    def __init__(self, fn: Callable[[torch.Tensor], torch.Tensor], runs: int):
        super().__init__()
        self.fn, self.runs = fn, runs

    def forward(self, x):
        return lane_rows(self.fn, x, self.runs)


#: activations computed per run (exact ones, ReLU and LeakyReLU, need nothing)
_TRANSCENDENTAL = {nn.Tanh: torch.tanh, nn.Sigmoid: torch.sigmoid}


class Replicas:
    """R modules of one architecture as one grouped module: ``params[name]`` has shape
    (R, *shape) under the architecture's own parameter names.

    Call it with arguments shaped (R, B, ...) (run k's batch in row k); outputs come back the
    same way. :meth:`write_back` copies the trained slices into the original modules (which keep
    their own attributes, e.g. ``z_dim``, readable here too).
    """

    def __init__(self, modules: Sequence[nn.Module]):
        if not modules:
            raise ValueError("Replicas needs at least one module")
        self.modules = list(modules)
        self.template = self.modules[0]
        self.device = device_of(*self.modules)
        if any(True for _ in self.template.buffers()):
            raise ValueError("Replicas: modules with buffers (e.g. batch norm) are not supported")
        names = [n for n, _ in self.template.named_parameters()]
        if any([n for n, _ in m.named_parameters()] != names for m in self.modules):
            raise ValueError("Replicas: the modules do not share one architecture")
        self.grouped = copy.deepcopy(self.template)
        for name, leaf in list(self.template.named_modules()):
            if any(True for _ in leaf.parameters(recurse=False)):
                kind = _GROUPED.get(type(leaf))
                if kind is None:
                    raise ValueError(f"Replicas: no grouped form of {type(leaf).__name__}")
                layers = [m.get_submodule(name) for m in self.modules]
                parent, _, attr = name.rpartition(".")
                setattr(self.grouped.get_submodule(parent), attr, kind(layers))
            elif type(leaf) in _TRANSCENDENTAL:
                parent, _, attr = name.rpartition(".")
                act = _LaneActivation(_TRANSCENDENTAL[type(leaf)], len(self.modules))
                setattr(self.grouped.get_submodule(parent), attr, act)
        self.params = dict(self.grouped.named_parameters())
        if list(self.params) != names:
            raise ValueError("Replicas: parameters outside Linear and convolution layers")

    def __len__(self) -> int:
        return len(self.modules)

    def __getattr__(self, name):  # architecture attributes (z_dim, n_classes) of the template
        if name in ("modules", "template", "params", "device", "grouped"):
            raise AttributeError(name)
        return getattr(self.template, name)

    def parameters(self) -> list[torch.Tensor]:
        return list(self.params.values())

    def __call__(self, *args):
        r = len(self.modules)
        out = self.grouped(*(a.reshape(r * a.shape[1], *a.shape[2:]) for a in args))
        return out.reshape(r, -1, *out.shape[1:])

    @torch.no_grad()
    def write_back(self) -> None:
        """Copy each run's trained parameters into its module."""
        for k, m in enumerate(self.modules):
            for n, p in m.named_parameters():
                p.copy_(self.params[n][k])


class RunRNG:
    """One random stream per run (seed k for run k) on ``device``; draws are stacked over runs."""

    def __init__(self, seeds: Sequence[int], device: torch.device):
        self.device = torch.device(device)
        self.gens = [torch.Generator(device=self.device).manual_seed(int(s)) for s in seeds]

    def __len__(self) -> int:
        return len(self.gens)

    def _stack(self, draw: Callable[[torch.Generator], torch.Tensor]) -> torch.Tensor:
        # one small draw per run: the streams must stay separate for the runs to be replicates
        return torch.stack([draw(g) for g in self.gens])

    def randn(self, *shape: int) -> torch.Tensor:
        return self._stack(lambda g: torch.randn(shape, generator=g, device=self.device))

    def rand(self, *shape: int) -> torch.Tensor:
        return self._stack(lambda g: torch.rand(shape, generator=g, device=self.device))

    def randint(self, high: int, *shape: int) -> torch.Tensor:
        return self._stack(lambda g: torch.randint(0, high, shape, generator=g, device=self.device))

    def randperm(self, n: int) -> torch.Tensor:
        return self._stack(lambda g: torch.randperm(n, generator=g, device=self.device))

    def epoch(self, n: int, batch_size: int) -> list[torch.Tensor]:
        """One epoch of shuffled index batches per run: a list of (R, b) index tensors (the last
        batch may be short, the same length in every run)."""
        perm = self.randperm(n)
        return [perm[:, s : s + batch_size] for s in range(0, n, batch_size)]


def take(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """Rows ``idx[k]`` of run k's data ``x[k]``: (R, n, ...) and (R, b) -> (R, b, ...)."""
    runs = torch.arange(x.shape[0], device=x.device)[:, None]
    return x[runs, idx]


def make_adam(replicas: Replicas, lr: float, betas) -> torch.optim.Adam:
    """Adam over the stacked parameters: element-wise, so R independent Adams. Not the fused
    kernel, though it is 1.06× faster at quick scale: its vector path and its scalar tail round
    differently, so a run's update would depend on where its slice sits in the stacked tensor
    and a sharded model would differ from one trained in one job (tests/papers/xu2022/
    test_shards.py caught it on the skin models)."""
    return torch.optim.Adam(replicas.parameters(), lr=lr, betas=tuple(betas))


def step(optimizer: torch.optim.Optimizer, loss: torch.Tensor) -> None:
    """One optimizer step on the sum of the per-run losses (each run gets its own gradient)."""
    optimizer.zero_grad()
    loss.sum().backward()
    optimizer.step()
