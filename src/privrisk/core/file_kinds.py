"""What kind of file a user gave, read from its first bytes, so that a flag given a file of another
kind says so instead of failing on a check that happens to catch it (or, worse, none).

``privrisk explain --rdp scores.csv`` read the scores file as an RDP curve: it was refused only
because its second column (0/1 membership) broke a check on RDP values, and the message ("orders
must be > 1") pointed at the wrong problem. :func:`mismatch` names it: "looks like membership
scores (columns score, member), expected an RDP curve (two columns, order α and ε_α)".

Only kinds with clear evidence are named: a column header (``score``/``member``, ``hit``/``prior``,
``order``/``alpha``, ``epsilon``/``delta``, ``prior``), a file signature (NPZ/zip, Parquet, HTML)
or a JSON schema (a saved card, an audit report). A header-less file of numbers is not guessed at:
the flag's own reader checks it as before.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: how much of a file is looked at (headers, signatures, a JSON's first keys)
HEAD = 64 << 10

#: kind -> what a flag that wants it says it expected
EXPECTED = {
    "rdp": "an RDP curve (two columns, order α and ε_α)",
    "profile": "a privacy profile (two columns, ε and δ(ε))",
    "priors": "per-target priors (one number per line)",
    "card": "a saved risk card (what privrisk explain --json writes)",
    "attack": "attack results (columns score and member, or hit and prior; CSV, Parquet, NPZ, "
    "LeakPro JSON or a LiRA folder)",
}

_RDP_ORDER = {"alpha", "α", "order", "orders", "lambda", "λ", "alphas"}
_DELTA = re.compile(r"^(delta|δ)\b")
_SPLIT = re.compile(r"[,;\t ]+")


@dataclass(frozen=True)
class Sniffed:
    """A kind (a key of :data:`EXPECTED`, or ``report``/``html``/``archive``/``parquet``, which no
    flag of ours reads as such), what it is in words, and the evidence."""

    kind: str
    what: str
    evidence: str


def _header(text: str) -> list[str] | None:
    """The fields of the first line that is neither blank nor a ``#`` comment."""
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            return [f.strip().strip("'\"").lower() for f in _SPLIT.split(line) if f.strip()]
    return None


def _columns(fields: list[str]) -> str:
    return "columns " + ", ".join(fields[:6]) + (", …" if len(fields) > 6 else "")


def _json(text: str) -> Sniffed | None:
    try:  # the whole head: a JSON too long for it is not one of ours to name
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        m = re.search(r'"schema"\s*:\s*"([^"]{1,80})"', text[:4096])
        schema = m[1] if m else None
    else:
        schema = value.get("schema")
        if schema is None and {"card", "audit"} <= set(value):
            return Sniffed("card", "a saved risk card with its audit", "keys card, audit")
    if schema == "privrisk.riskcard":
        return Sniffed("card", "a saved risk card", "schema privrisk.riskcard")
    if isinstance(schema, str) and schema.startswith("privrisk.audit"):
        return Sniffed(
            "report", "an audit report", f"schema {schema}, as privrisk audit --json writes"
        )
    return None


def sniff(data: bytes | str) -> Sniffed | None:
    """The kind of a file from its content (or its first :data:`HEAD` bytes); None when there is
    no clear evidence of any kind."""
    if isinstance(data, bytes):
        head = data[:HEAD]
        if head.startswith(b"PK\x03\x04"):
            return Sniffed("archive", "an NPZ (zip) archive", "zip signature")
        if head.startswith(b"PAR1"):
            return Sniffed("parquet", "a Parquet table", "Parquet signature")
        text = head.decode("utf-8", "replace")
    else:
        text = data[:HEAD]
    text = text.lstrip("\ufeff")
    start = text.lstrip()[:15].lower()
    if start.startswith(("<!doctype html", "<html")):
        return Sniffed("html", "an HTML page", "it starts with " + text.lstrip()[:15])
    if start.startswith("{"):
        return _json(text)
    fields = _header(text)
    if not fields:
        return None
    names = set(fields)
    if {"score", "member"} <= names:
        return Sniffed("attack", "membership scores", _columns(fields))
    if {"hit", "prior"} <= names:
        return Sniffed("attack", "reconstruction outcomes", _columns(fields))
    if len(fields) == 2 and names & _RDP_ORDER:
        return Sniffed("rdp", "an RDP curve", _columns(fields))
    if len(fields) == 2 and any(_DELTA.match(f) for f in fields):
        return Sniffed("profile", "a privacy profile", _columns(fields))
    if fields in (["prior"], ["priors"]):
        return Sniffed("priors", "per-target priors", _columns(fields))
    return None


def mismatch(data: bytes | str, expected: str, *, also: tuple[str, ...] = ()) -> str | None:
    """``"looks like KIND (evidence), expected WHAT"`` when ``data`` is clearly a file of another
    kind than ``expected`` (a key of :data:`EXPECTED`; ``also``: other kinds the reader takes);
    None when it is of that kind or shows no clear kind."""
    found = sniff(data)
    if found is None or found.kind == expected or found.kind in also:
        return None
    return f"looks like {found.what} ({found.evidence}), expected {EXPECTED[expected]}"


#: what an output of each kind is, in a message
WRITTEN = {"html": "an HTML page", "report": "an audit report"}


def check_output_kind(path, kind: str, *, what: str) -> None:
    """Refuse (:class:`~privrisk.core.safe_io.FileRefused`, one line naming ``what`` and the
    path) an output ``path`` where a regular file clearly of another kind than ``kind`` already
    is: ``--html scores.csv`` replaced the scores with a page. Absent, unreadable, not regular
    (:func:`~privrisk.core.safe_io.check_output` refuses those) or of no clear kind: no refusal."""
    import os
    import stat

    from .safe_io import FileRefused, shown

    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return
    try:
        head = os.read(fd, HEAD) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        head = None
    finally:
        os.close(fd)
    found = None if head is None else sniff(head)
    if found is not None and found.kind != kind:
        raise FileRefused(
            f"{what} {shown(path)}: the file there looks like {found.what} ({found.evidence}); "
            f"writing {WRITTEN.get(kind, kind)} over it would destroy it: name another file"
        )
