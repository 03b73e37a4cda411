"""PII (names) prior of Swanberg et al. §5.1, after Lukas et al.: sequences with one masked name.

For each of ``n_sequences`` sequences with one masked name, every candidate name (the names that
occur in the sampled sequences) gets a score; normalising over the candidates gives that
sequence's prior, and the prior of its true name is one "canary prior". The paper scores with
GPT-2 (small) likelihoods of the filled-in sequence on 500 Enron sequences.

Sources (the data block ``swanberg2025.data.enron``; recorded in provenance as ``source``/``scorer``):

- ``real``: Enron emails from the CMU maildir (see :mod:`privrisk.data.enron`), scored by GPT-2
  when ``transformers`` and the ``gpt2`` weights are available locally, else by census name
  frequencies (scorer ``namefreq``).
- ``standin`` (offline default): the synthetic business-email sentences of
  :func:`privrisk.data.enron.synthetic_sequences` (census name frequencies), scored by a
  context-aware name-frequency model (a "Mr."/"Ms." cue selects male/female first-name
  frequencies). This gives a realistically skewed prior; absolute values differ from the paper's.

This module reads data through :mod:`privrisk.data`; the data modules never import priors.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data import enron, verified
from ..data.census_names import census_names
from ..data.enron import MASK

log = logging.getLogger(__name__)


@dataclass
class PiiPrior:
    """Per-sequence priors over a shared candidate set.

    Attributes:
        sequences: masked sequences (one ``<NAME>`` each).
        candidates: candidate names.
        priors: (n_sequences, n_candidates) row-normalised candidate probabilities.
        truth: index of each sequence's true name in ``candidates``.
        source / scorer: data source (``real`` or ``standin``) and scoring model.
    """

    sequences: list[str]
    candidates: np.ndarray
    priors: np.ndarray
    truth: np.ndarray
    source: str
    scorer: str
    info: dict = field(default_factory=dict)

    @property
    def canary_priors(self) -> np.ndarray:
        """Prior of the true name of each sequence."""
        return self.priors[np.arange(len(self.truth)), self.truth]

    def typical_sequence(self, k: int = 10) -> int:
        """Index of a typical sequence for a k-value scaling: the one whose top-k candidates,
        renormalised, give the median top mass over the sequences (ties: lowest index)."""
        top = np.sort(self.priors, axis=1)[:, ::-1][:, :k]
        mass = top[:, 0] / top.sum(axis=1)
        return int(np.argsort(mass, kind="stable")[len(mass) // 2])

    @property
    def pooled(self) -> np.ndarray:
        """Mean prior of each candidate over the sequences (used for the 10-value scaling)."""
        return self.priors.mean(axis=0)

    def summary(self) -> dict[str, float]:
        c = self.canary_priors
        return {
            "min": float(c.min()),
            "p10": float(np.percentile(c, 10)),
            "median": float(np.median(c)),
            "max": float(c.max()),
            "n_sequences": len(self.sequences),
            "n_candidates": int(self.candidates.size),
        }


def _frequency(names_pkg: dict, first: np.ndarray, last: np.ndarray, cue: str | None) -> np.ndarray:
    """Census frequency of full names 'First Last' given a gender cue (None, 'm', 'f')."""
    tables = {
        "m": [names_pkg["male"]],
        "f": [names_pkg["female"]],
        None: [names_pkg["male"], names_pkg["female"]],
    }
    f_first = np.zeros(first.size)
    for nm, fr in tables[cue]:
        lookup = dict(zip(nm, fr, strict=True))
        f_first += np.array([lookup.get(x, 0.0) for x in first]) / len(tables[cue])
    lookup_last = dict(zip(*names_pkg["last"], strict=True))
    f_last = np.array([lookup_last.get(x, 0.0) for x in last])
    # A floor so that names missing from the census files keep a small, non-zero score.
    return (f_first + 1e-4) * (f_last + 1e-4)


def namefreq_scores(sequences: list[str], candidates: np.ndarray) -> np.ndarray:
    """Log-scores of every candidate in every sequence under the name-frequency model."""
    cn = census_names()
    split = [c.split(" ", 1) + [""] for c in candidates]
    first = np.array([s[0] for s in split])
    last = np.array([s[1] for s in split])
    cache_by_cue = {cue: np.log(_frequency(cn, first, last, cue)) for cue in (None, "m", "f")}
    rows = []
    for seq in sequences:
        cue = "m" if "Mr. " + MASK in seq else "f" if "Ms. " + MASK in seq else None
        rows.append(cache_by_cue[cue])
    return np.vstack(rows)


def normalise(log_scores: np.ndarray) -> np.ndarray:
    z = log_scores - log_scores.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


NORMALISATIONS = ("likelihood", "inverse_perplexity")


def _n_tokens(sequences, candidates) -> np.ndarray:
    """Whitespace-token count of every filled-in sequence (the name-frequency model's 'tokens')."""
    return np.array(
        [[len(seq.replace(MASK, c).split()) for c in candidates] for seq in sequences], float
    )


def from_sequences(
    sequences,
    truths,
    *,
    source: str,
    scorer: str = "namefreq",
    lm_scorer=None,
    normalisation: str = "likelihood",
) -> PiiPrior:
    """Build the prior for masked sequences with known true names; candidates = the distinct names.

    ``normalisation`` (the paper says only "perplexity ... normalized over the candidates"; spec §7.3):
    ``likelihood`` normalises the sequence likelihood exp(Σ log p) over the candidates;
    ``inverse_perplexity`` normalises 1/perplexity = exp(mean log p per token), which is much flatter
    (for the name-frequency model: the name log-frequency divided by the sequence's word count).
    """
    if normalisation not in NORMALISATIONS:
        raise ValueError(f"normalisation must be one of {NORMALISATIONS}, got {normalisation!r}")
    candidates, truth = np.unique(np.asarray(truths), return_inverse=True)
    per_token = normalisation == "inverse_perplexity"
    if scorer == "namefreq":
        logs = namefreq_scores(list(sequences), candidates)
        if per_token:
            logs = logs / _n_tokens(sequences, candidates)
    elif scorer == "gpt2":
        logs = lm_scorer.score(list(sequences), list(candidates), per_token=per_token)
    else:
        raise ValueError(f"unknown scorer {scorer!r}; expected 'namefreq' or 'gpt2'")
    return PiiPrior(
        list(sequences),
        candidates,
        normalise(logs),
        truth,
        source,
        scorer,
        info={"normalisation": normalisation},
    )


def build(
    *,
    source: str = "auto",
    path: str | Path = enron.DEFAULT_PATH,
    n_sequences: int = 500,
    seed: int = 0,
    scorer: str = "auto",
    normalisation: str = "likelihood",
) -> PiiPrior:
    """The PII prior from the data block ``{source, path}`` (``auto``: the Enron maildir at
    ``path`` if present, else the stand-in; see :func:`privrisk.data.enron.load`)."""
    seqs, truths, src = enron.load({"source": source, "path": str(path)}, n=n_sequences, seed=seed)
    if src not in verified.REAL_SOURCES:  # real-unverified is real data: scored as real
        return from_sequences(
            seqs, truths, source=src, scorer="namefreq", normalisation=normalisation
        )
    lm = None
    use = scorer
    if scorer in ("auto", "gpt2"):
        lm = Gpt2Scorer.try_load()
        use = "gpt2" if lm is not None else "namefreq"
        if scorer == "gpt2" and lm is None:
            raise FileNotFoundError(
                "scorer gpt2 requested but transformers/GPT-2 weights are not available"
            )
    return from_sequences(
        seqs, truths, source=src, scorer=use, lm_scorer=lm, normalisation=normalisation
    )


class Gpt2Scorer:
    """Log-likelihood of each filled-in sequence under GPT-2 small (only when weights are local)."""

    def __init__(self, model, tokenizer):
        self.model, self.tok = model, tokenizer

    @classmethod
    def try_load(cls):
        try:
            import torch  # noqa: F401
            from transformers import GPT2LMHeadModel, GPT2TokenizerFast
        except ImportError:
            log.info("transformers not installed: falling back to name frequencies")
            return None
        try:
            tok = GPT2TokenizerFast.from_pretrained("gpt2", local_files_only=True)
            model = GPT2LMHeadModel.from_pretrained("gpt2", local_files_only=True).eval()
        except OSError:
            log.info("GPT-2 weights not found locally: falling back to name frequencies")
            return None
        return cls(model, tok)

    def score(
        self, sequences: list[str], candidates: list[str], per_token: bool = False
    ) -> np.ndarray:
        """Summed (or, with ``per_token``, mean per predicted token) log-likelihood of each filled sequence."""
        import torch

        out = np.zeros((len(sequences), len(candidates)))
        with torch.no_grad():
            for i, seq in enumerate(sequences):
                texts = [seq.replace(MASK, c) for c in candidates]
                enc = (
                    self.tok(texts, return_tensors="pt", padding=True)
                    if self.tok.pad_token
                    else None
                )
                if enc is None:
                    self.tok.pad_token = self.tok.eos_token
                    enc = self.tok(texts, return_tensors="pt", padding=True)
                logits = self.model(**enc).logits[:, :-1]
                target = enc["input_ids"][:, 1:]
                lp = torch.log_softmax(logits, -1).gather(-1, target[..., None])[..., 0]
                mask = enc["attention_mask"][:, 1:]
                total = (lp * mask).sum(1)
                out[i] = (total / mask.sum(1) if per_token else total).numpy()
        return out
