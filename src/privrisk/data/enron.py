"""Enron email corpus (CMU maildir release) -> sequences with one masked name.

Place the extracted archive so that ``data/raw/enron/maildir/<user>/<folder>/<n>.`` files exist
(``enron_mail_20150507.tar.gz`` from CMU unpacks to ``maildir/``). Nothing is downloaded.

The name finder is deliberately simple and documented: a "name" is a capitalised word that is a
US census first name followed by a capitalised word that is a census last name. Sequences are
sentences (split on . ! ?) of 6–40 words containing exactly one such name; one is sampled per
email, up to ``n`` emails, with a fixed seed.
"""

from __future__ import annotations

import email
import logging
import re
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

NAME_RE = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b")
SENT_RE = re.compile(r"(?<=[.!?])\s+")


def read_bodies(maildir: str | Path, limit: int | None = None):
    """Yield (path, body text) of the emails under ``maildir`` (sorted, deterministic)."""
    root = Path(maildir)
    if not root.is_dir():
        raise FileNotFoundError(f"Enron maildir not found at {root}; put the CMU archive's maildir/ there")
    count = 0
    files = sorted(p for p in root.rglob("*") if p.is_file())
    log.info("Enron: %d files under %s", len(files), root)
    for k, path in enumerate(files, start=1):
        if k % 50_000 == 0:  # the full CMU release has ~517k emails: show progress
            log.info("Enron: read %d / %d files", k, len(files))
        try:
            msg = email.message_from_bytes(path.read_bytes())
        except Exception as err:  # noqa: BLE001 - report which file is broken
            raise ValueError(f"{path}: not a readable email ({err})") from err
        payload = msg.get_payload(decode=True) if not msg.is_multipart() else None
        if payload is None:
            continue
        yield path, payload.decode("latin-1", errors="replace")
        count += 1
        if limit is not None and count >= limit:
            return


def find_names(text: str, first_names: set[str], last_names: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, 'First Last') spans of census first+last names in ``text``."""
    return [
        (m.start(), m.end(), m.group(0))
        for m in NAME_RE.finditer(text)
        if m.group(1) in first_names and m.group(2) in last_names
    ]


def masked_name_sequences(maildir: str | Path, *, n: int = 500, seed: int = 0, mask: str = "<NAME>"):
    """Up to n (masked sentence, true name) pairs from the corpus; raises if none are found."""
    from ..priors.pii import census_names

    cn = census_names()
    firsts = set(cn["male"][0]) | set(cn["female"][0])
    lasts = set(cn["last"][0])
    rng = np.random.default_rng(seed)
    found = []
    for _path, body in read_bodies(maildir):
        candidates = []
        for sent in SENT_RE.split(body):
            sent = " ".join(sent.split())
            if not 6 <= len(sent.split()) <= 40:
                continue
            names = find_names(sent, firsts, lasts)
            if len(names) == 1:
                s, e, name = names[0]
                candidates.append((sent[:s] + mask + sent[e:], name))
        if candidates:
            found.append(candidates[rng.integers(len(candidates))])
    if not found:
        raise ValueError(f"no sentence with exactly one census name found under {maildir}")
    idx = rng.permutation(len(found))[:n]
    seqs, truths = zip(*[found[i] for i in sorted(idx)], strict=True)
    return list(seqs), list(truths)
