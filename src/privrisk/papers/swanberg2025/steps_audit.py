"""swanberg2025, the project's membership audit of Figure 3's models: a cheap step that trains, per
(ε, prior), ``trials`` models that see the canary and ``trials`` that see a replacement record.

Figure 3's models each see their own canary, so their hits audit reconstruction only. A
membership audit needs models without the canary: under Figure 3's replace-one adjacency, the
neighbouring dataset replaces the canary's digit by another one (uniform over the other nine
digits, drawn independently of the model). Each model starts from the prior and is trained by
the same DP-SGD with the hyperparameters and the noise multiplier Figure 3's step chose and
calibrated for the cell (read from its npz, so the audited models are Figure 3's models); the
score of a model is its log-probability of the canary's digit minus the prior's (higher =
"member"). Training all of them is one batched computation (about a second at quick scale).
"""

from __future__ import annotations

import logging

import numpy as np
import torch

from ...core import seeds
from ...models import ngram
from ...training import dpsgd
from .steps_ngram import _draw

log = logging.getLogger(__name__)


def membership_scores(z, params, *, dtype=torch.float32) -> dict[str, np.ndarray]:
    """Train 2 × ``trials`` models per condition of the Figure 3 npz ``z`` (half on the canary,
    half on a replacement) and score each on the canary. Returns per-model arrays ``cond``,
    ``member``, ``canary``, ``trained_on``, ``score``."""
    n = int(params["trials"])
    prior_mats = np.asarray(z["prior_mats"], float)
    cond_prior = prior_mats[np.asarray(z["cond_prior"], int)]
    n_c, vocab = cond_prior.shape
    seed = int(params["seed"])
    rng = seeds.rng(seed, "fig3_membership")
    cond = np.repeat(np.arange(n_c), 2 * n)
    member = np.tile(np.r_[np.ones(n, bool), np.zeros(n, bool)], n_c)
    canary = _draw(rng, cond_prior, cond)
    trained_on = np.where(member, canary, (canary + rng.integers(1, vocab, cond.size)) % vocab)
    steps = np.asarray(z["steps"], int)[cond]
    score = np.empty(cond.size)
    for t in np.unique(steps):
        idx = np.flatnonzero(steps == t)
        rows = cond_prior[cond[idx]]
        h, init = ngram.lazy_setup(
            rows,
            params["prefix"],
            embedding_dim=params["embedding_dim"],
            hidden=params["hidden"],
            seed=seed,
            dtype=dtype,
        )
        tgt = torch.as_tensor(trained_on[idx], dtype=torch.long)
        trained = dpsgd.batched_dpsgd(
            init,
            lambda p, tgt=tgt, h=h: ngram.lazy_loss(p, h, tgt),
            steps=int(t),
            lr=torch.as_tensor(np.asarray(z["lr"], float)[cond[idx]], dtype=dtype),
            clip=torch.as_tensor(np.asarray(z["clip"], float)[cond[idx]], dtype=dtype),
            noise_multiplier=torch.as_tensor(
                np.asarray(z["noise_multiplier"], float)[cond[idx]], dtype=dtype
            ),
            generator=torch.Generator().manual_seed(seeds.torch_seed(seed, "fig3_membership", t)),
        )
        with torch.no_grad():
            logp = torch.log_softmax(ngram.lazy_logits(trained, h), 1).double().numpy()
        c = canary[idx]
        score[idx] = logp[np.arange(idx.size), c] - np.log(rows[np.arange(idx.size), c])
    return {
        "cond": cond,
        "member": member,
        "canary": canary,
        "trained_on": trained_on,
        "score": score,
    }


def membership_step(params, inputs, outputs) -> None:
    """Read Figure 3's npz (conditions, chosen hyperparameters, σ), train the in/out models and
    write ``outputs['npz']``: the per-model arrays of :func:`membership_scores` and the conditions."""
    dtype = torch.float64 if params.get("float64", False) else torch.float32
    with np.load(inputs["npz"], allow_pickle=False) as f:
        z = {k: f[k] for k in f.files}
    log.info(
        "membership audit: %d conditions x 2 x %d models", len(z["cond_eps"]), params["trials"]
    )
    out = membership_scores(z, params, dtype=dtype)
    np.savez_compressed(
        outputs["npz"],
        **out,
        **{
            k: z[k]
            for k in (
                "epsilons",
                "priors",
                "prior_mats",
                "cond_eps",
                "cond_prior",
                "noise_multiplier",
                "delta",
                "adjacency",
                "pii_source",
            )
            if k in z
        },
    )
