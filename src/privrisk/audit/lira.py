"""Carlini et al.'s LiRA (2022) outputs → the audit's columns: the online attack, as its code runs it.

The layout is what the LiRA code (tensorflow/privacy, ``research/mi_lira_2021``) writes: a log
directory with one ``experiment-*`` folder per trained model, each holding ``keep.npy`` (bool per
training example: was it in this model's training set; ``train.py``) and ``scores/<epoch>.npy``
(``score.py``: per example and augmentation, log p(true label) − log p(other labels)); ``plot.py``
reads the last file of ``scores/`` in sorted order and the matching ``keep.npy``.

The attack is ``plot.py``'s ``generate_ours`` (online, per-example variance): the last experiment
(in sorted order) is the target, the others are shadow models; for each example, Gaussians are
fitted to its shadow scores with it in and out (median and standard deviation, the shadow sets cut
to the smallest count over examples, as the code does), and the target's score is the
log-likelihood ratio log N(s; in) − log N(s; out), averaged over augmentations. Higher =
member. ``member`` is the target's ``keep``. Every canary is scored on the one target model.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from privrisk.core.safe_io import FileRefused, check_input

from .errors import AuditInputError


def _logpdf(x, mean, std):
    return -0.5 * ((x - mean) / std) ** 2 - np.log(std) - 0.5 * np.log(2 * np.pi)


def read_lira(root: Path) -> tuple[dict, str]:
    """(columns ``score``, ``member``; a SHA-256 over the files read) of a LiRA log directory."""
    where = str(root)
    exps = sorted(p for p in root.rglob("experiment*") if p.is_dir() and (p / "scores").is_dir())
    scores, keep, digest = [], [], hashlib.sha256()
    for e in exps:
        files = sorted((e / "scores").iterdir())
        if not files or not (e / "keep.npy").exists():  # not a file: refused below
            continue
        try:  # regular files only: np.load on a pipe would hang, on /dev/zero never end
            for f in (files[-1], e / "keep.npy"):
                check_input(f, what=f"{e.name}:")
            s = np.load(files[-1], allow_pickle=False)
            k = np.load(e / "keep.npy", allow_pickle=False)
        except FileRefused as err:
            raise AuditInputError(where, str(err)) from None
        except (OSError, ValueError) as err:
            raise AuditInputError(f"{where}: {e.name}", f"cannot be read: {err}") from None
        for f in (files[-1], e / "keep.npy"):
            digest.update(f.read_bytes())
        scores.append(np.asarray(s, float).reshape(s.shape[0], -1))
        keep.append(np.asarray(k, bool).ravel())
        if keep[-1].size != scores[-1].shape[0]:  # which example is which would be a guess
            raise AuditInputError(
                f"{where}: {e.name}",
                f"keep.npy has {keep[-1].size} entries but {files[-1].name} scores "
                f"{scores[-1].shape[0]} examples",
            )
    if len(scores) < 3:
        raise AuditInputError(
            where,
            f"{len(scores)} experiment(s) with keep.npy and scores/: LiRA needs a target and at "
            "least two shadow models",
        )
    n = min(s.shape[0] for s in scores)
    if any(s.shape[1] != scores[0].shape[1] for s in scores):
        raise AuditInputError(where, "the experiments' scores have different augmentations")
    s = np.stack([x[:n] for x in scores])  # (models, examples, augmentations)
    k = np.stack([x[:n] for x in keep])
    shadow_s, shadow_k, target_s, target_k = s[:-1], k[:-1], s[-1], k[-1]
    n_in, n_out = shadow_k.sum(axis=0), (~shadow_k).sum(axis=0)
    in_size, out_size = int(n_in.min()), int(n_out.min())
    if in_size < 2 or out_size < 2:
        raise AuditInputError(
            where, "some example is in (or out of) fewer than 2 shadow models: LiRA cannot fit it"
        )
    # per example: the first in_size shadows with it in, out_size without (plot.py's x[:in_size])
    order_in = np.argsort(~shadow_k, axis=0, kind="stable")[:in_size]
    order_out = np.argsort(shadow_k, axis=0, kind="stable")[:out_size]
    cols = np.arange(n)
    dat_in = shadow_s[order_in, cols[None, :]]  # (in_size, examples, augmentations)
    dat_out = shadow_s[order_out, cols[None, :]]
    mean_in, mean_out = np.median(dat_in, 0), np.median(dat_out, 0)
    std_in, std_out = np.std(dat_in, 0) + 1e-30, np.std(dat_out, 0) + 1e-30
    ratio = _logpdf(target_s, mean_in, std_in) - _logpdf(target_s, mean_out, std_out)
    score = ratio.mean(axis=1)
    return {"score": score, "member": target_k.astype(int)}, digest.hexdigest()
