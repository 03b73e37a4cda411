"""Character n-gram language model: a fully connected network for Pr[c_n | c_1..c_{n-1}].

Following Stock et al. (as in Swanberg et al. §5), the network embeds the n − 1 context digits,
concatenates the embeddings, applies one tanh hidden layer and a linear output layer over the
vocabulary (10 digits).

"Lazy" training (Swanberg et al.: "we only train the parameters corresponding to the fixed first
8 digits"): the context is one fixed prefix, so the embedding and hidden layer only ever produce
one feature vector h(prefix); the trainable parameters are the output layer (W, b) that maps
h(prefix) to the next-digit logits. The batched form stacks M copies of (W, b) along a leading
model dimension. The output bias starts at log-prior − W h so each model starts by predicting
the prior, which is how the attack "utilises the prior".
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


class NGramMLP(nn.Module):
    """Next-character model over ``vocab`` symbols from a context of ``context`` symbols."""

    def __init__(self, vocab: int = 10, context: int = 8, embedding_dim: int = 8, hidden: int = 32):
        super().__init__()
        self.context = context
        self.embed = nn.Embedding(vocab, embedding_dim)
        self.hidden = nn.Linear(context * embedding_dim, hidden)
        self.out = nn.Linear(hidden, vocab)

    def features(self, ctx: torch.Tensor) -> torch.Tensor:
        """(B, context) long -> (B, hidden) activations feeding the output layer."""
        if ctx.shape[-1] != self.context:
            raise ValueError(f"context must have {self.context} symbols, got {ctx.shape[-1]}")
        return torch.tanh(self.hidden(self.embed(ctx).flatten(1)))

    def forward(self, ctx: torch.Tensor) -> torch.Tensor:
        return self.out(self.features(ctx))


def lazy_setup(
    prior: np.ndarray,
    prefix,
    *,
    embedding_dim: int = 8,
    hidden: int = 32,
    seed: int = 0,
    dtype=torch.float32,
):
    """The frozen prefix features h and the prior-initialised output layer of M models.

    Args:
        prior: (M, V) per-model prior over the next symbol (rows sum to 1, entries > 0).
        prefix: the fixed context (n − 1 symbols).
        seed: initialisation of the (public, shared) network.
    Returns:
        (h of shape (H,), params {"weight": (M, V, H), "bias": (M, V)}) with logits = log prior.
    """
    prior = np.asarray(prior, dtype=float)
    if prior.ndim != 2 or np.any(prior <= 0):
        raise ValueError("prior must be an (M, V) array of positive probabilities")
    vocab = prior.shape[1]
    with torch.random.fork_rng():
        torch.manual_seed(int(seed))
        net = NGramMLP(vocab, len(prefix), embedding_dim, hidden).to(dtype)
    with torch.no_grad():
        h = net.features(torch.as_tensor([list(prefix)], dtype=torch.long))[0]
        w = net.out.weight.detach().expand(prior.shape[0], -1, -1).clone()
        bias = torch.as_tensor(np.log(prior), dtype=dtype) - w @ h
    return h.detach(), {"weight": w, "bias": bias}


def lazy_logits(params: dict[str, torch.Tensor], h: torch.Tensor) -> torch.Tensor:
    """(M, V) next-symbol logits of each model at the fixed prefix."""
    return torch.einsum("mvh,h->mv", params["weight"], h) + params["bias"]


def lazy_loss(
    params: dict[str, torch.Tensor], h: torch.Tensor, target: torch.Tensor
) -> torch.Tensor:
    """(M,) cross-entropy of each model on its own canary's last symbol."""
    return nn.functional.cross_entropy(lazy_logits(params, h), target, reduction="none")
