"""Enron email corpus (CMU maildir release) -> sequences with one masked name.

The real data is the extracted archive, ``data/raw/enron/maildir/<user>/<folder>/<n>.`` files
(``enron_mail_20150507.tar.gz`` from CMU unpacks to ``maildir/``): placed by hand, or downloaded
and unpacked by the ``prepare_enron`` rule (:data:`ENRON`, :func:`convert`).
A config data block ``{source: auto | real | standin, path: <the maildir>}`` chooses the data;
:func:`load` decides through :func:`privrisk.data.sources.resolve` (the maildir is the one real
"file", so adding it reruns whatever reads this dataset).

Stand-in (offline default): synthetic business-email sentences with one full name each, drawn
from real US census name frequencies (:mod:`privrisk.data.census_names`).

The name finder is deliberately simple and documented: a "name" is a capitalised word that is a
US census first name followed by a capitalised word that is a census last name. Sequences are
sentences (split on . ! ?) of 6–40 words containing exactly one such name; one is sampled per
email, up to ``n`` emails, with a fixed seed.
"""

from __future__ import annotations

import email
import logging
import re
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core import seeds
from . import sources, verified
from .census_names import census_names
from .dataset import Dataset, Remote, atomic_output
from .tabular import DataFormatError

log = logging.getLogger(__name__)

DEFAULT_PATH = Path("data/raw/enron/maildir")
#: written by the prepare_gpt2 rule once GPT-2 small is in the Hugging Face cache
#: (:mod:`privrisk.data.gpt2`); an input of the Enron rules when the real corpus is obtained (the
#: PII prior is scored by GPT-2, as in the paper) unless the block says ``gpt2: false``
GPT2_MARKER = Path("data/prepared/gpt2.json")
MASK = "<NAME>"

TEMPLATES = [  # stand-in sentences (text, gender cue): None, "m" or "f"
    ("Please forward the revised gas schedule to {} before Friday.", None),
    ("{} asked whether the Q3 trading limits were approved.", None),
    ("I spoke with {} about the California power contracts this morning.", None),
    ("Mr. {} will join the call with the legal team at 2pm.", "m"),
    ("Ms. {} sent the final version of the term sheet.", "f"),
    ("Thanks {}, I will review the spreadsheet tonight.", None),
    ("Can you set up a meeting with {} and the risk group?", None),
    ("{} is out of the office until Monday; contact the desk instead.", None),
    ("Mr. {} signed off on the pipeline capacity agreement.", "m"),
    ("Ms. {} needs the updated curves by end of day.", "f"),
]

NAME_RE = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b")
SENT_RE = re.compile(r"(?<=[.!?])\s+")


def read_bodies(maildir: str | Path, limit: int | None = None):
    """Yield (path, body text) of the emails under ``maildir`` (sorted, deterministic)."""
    root = Path(maildir)
    if not root.is_dir():
        raise sources.DataUnavailable(f"Enron maildir not found at {root}. {ENRON.obtain}")
    count = 0
    files = sorted(p for p in root.rglob("*") if p.is_file())
    log.info("Enron: %d files under %s", len(files), root)
    for k, path in enumerate(files, start=1):
        if k % 50_000 == 0:  # the full CMU release has ~517k emails: show progress
            log.info("Enron: read %d / %d files", k, len(files))
        try:
            msg = email.message_from_bytes(path.read_bytes())
        except Exception as err:  # noqa: BLE001 - report which file is broken
            raise DataFormatError(f"{path}: not a readable email ({err})") from err
        payload = msg.get_payload(decode=True) if not msg.is_multipart() else None
        if payload is None:
            continue
        yield path, payload.decode("latin-1", errors="replace")
        count += 1
        if limit is not None and count >= limit:
            return


def find_names(
    text: str, first_names: set[str], last_names: set[str]
) -> list[tuple[int, int, str]]:
    """(start, end, 'First Last') spans of census first+last names in ``text``."""
    return [
        (m.start(), m.end(), m.group(0))
        for m in NAME_RE.finditer(text)
        if m.group(1) in first_names and m.group(2) in last_names
    ]


def masked_name_sequences(maildir: str | Path, *, n: int = 500, seed: int = 0, mask: str = MASK):
    """Up to n (masked sentence, true name) pairs from the corpus.

    Raises:
        DataFormatError: no usable sentence under ``maildir``, or the sampled sentences name fewer
            than two distinct people (a prior over one candidate is the certainty p = 1, which
            every bound downstream refuses with an error that does not name the data).
    """
    cn = census_names()
    firsts = set(cn["male"][0]) | set(cn["female"][0])
    lasts = set(cn["last"][0])
    rng = seeds.rng(seed)
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
        raise DataFormatError(
            f"{maildir}: no sentence with exactly one census name found in any email"
        )
    idx = rng.permutation(len(found))[:n]
    seqs, truths = zip(*[found[i] for i in sorted(idx)], strict=True)
    if len(set(truths)) < 2:
        raise DataFormatError(
            f"{maildir}: all {len(truths)} sampled name sentences (from {len(found)} emails) name the same "
            f"person, {truths[0]!r}; the PII prior needs at least two distinct names. Is this a real maildir?"
        )
    return list(seqs), list(truths)


def synthetic_sequences(n: int, seed: int) -> tuple[list[str], list[str]]:
    """The stand-in: n email-like sentences, each with one full name drawn from census frequencies."""
    cn = census_names()
    rng = seeds.rng(seed)
    seqs, truths = [], []
    for _ in range(n):
        text, cue = TEMPLATES[rng.integers(len(TEMPLATES))]
        sex = cue or ("m" if rng.random() < 0.5 else "f")
        nm, fr = cn["male" if sex == "m" else "female"]
        first = nm[rng.choice(nm.size, p=fr / fr.sum())]
        ln, lf = cn["last"]
        last = ln[rng.choice(ln.size, p=lf / lf.sum())]
        seqs.append(text.format(MASK))
        truths.append(f"{first} {last}")
    return seqs, truths


def real_files(block: Mapping[str, Any]) -> list[Path]:
    """The maildir (a folder) is the real data."""
    return [Path(block.get("path", DEFAULT_PATH))]


def load(
    block: Mapping[str, Any], *, n: int = 500, seed: int = 0
) -> tuple[list[str], list[str], str]:
    """(masked sequences, true names, source) from the Enron maildir or the stand-in; source
    ``real`` | ``real-unverified`` (:func:`privrisk.data.sources.label`) | ``standin``."""
    source = sources.label("enron", block)
    if source in verified.REAL_SOURCES:
        seqs, truths = masked_name_sequences(real_files(block)[0], n=n, seed=seed)
    else:
        seqs, truths = synthetic_sequences(n, seed)
    return seqs, truths, source


# --- the dataset: download table, conversion, description ---


def convert(archives: Mapping[str, Path], block, outputs: list[Path], *, what: str) -> None:
    """Unpack the tarball's ``maildir/`` to the block's path (a folder, renamed when complete)."""
    (out,) = outputs
    if out.exists():
        return
    (archive,) = archives.values()
    with atomic_output(out) as part, tarfile.open(archive, "r:gz") as tar:
        part.mkdir(parents=True)
        n = 0

        def members():
            nonlocal n
            for m in tar:
                if (
                    m.name.startswith("maildir/")
                    and m.name != "maildir/"
                    and (m.isfile() or m.isdir())
                ):
                    m.name = m.name[len("maildir/") :]
                    n += m.isfile()
                    if n and n % 50_000 == 0 and m.isfile():
                        log.info("%s: %d files unpacked", what, n)
                    yield m

        tar.extractall(part, members=members(), filter="data")
        if n == 0:
            raise ValueError(f"{what}: {archive} has no maildir/ files; not the CMU Enron tarball?")
        log.info("%s: %d e-mails unpacked to %s", what, n, out)


def gpt2_inputs(block: Mapping[str, Any]) -> list[Path]:
    """The GPT-2 marker, unless the block scores names by census frequencies (``gpt2: false``)."""
    return [GPT2_MARKER] if block.get("gpt2", True) else []


ENRON = Dataset(
    name="enron",
    real_files=real_files,
    fallback="standin",
    obtain=(
        "Download enron_mail_20150507.tar.gz from https://www.cs.cmu.edu/~enron/ and extract it "
        "so that its maildir/ folder is at the configured path (swanberg2025.data.enron.path)."
    ),
    # CMU publishes no checksum for the May 2015 release (we found none to pin)
    remotes=(
        Remote(
            "enron_mail_20150507.tar.gz",
            "https://www.cs.cmu.edu/~enron/enron_mail_20150507.tar.gz",
            None,
            "423 MB (2.6 GB unpacked)",
        ),
    ),
    convert=convert,
    folder=True,
    extra_inputs=gpt2_inputs,
    licence="released by FERC; CMU asks users to respect the privacy of the people involved",
)
