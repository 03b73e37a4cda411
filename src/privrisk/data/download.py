"""Download a file once, verify it, and never leave a partial file where a complete one is expected.

:func:`fetch` is the one way a dataset file gets onto disk (design.md §6):

* the bytes go to ``<file>.part``; an interrupted transfer is resumed with an HTTP ``Range``
  request (up to ``retries`` times, and on the next run), or restarted from zero when the server
  does not honour the range;
* the checksum (MD5 or SHA-256, pinned in each dataset's download table: the ``remotes`` of its
  :class:`~privrisk.data.dataset.Dataset`) is checked on the ``.part`` file, which is renamed to
  ``<file>`` only when it matches; on a mismatch the ``.part`` is deleted (the next attempt starts
  clean) and :class:`ChecksumMismatch` says what, from where, expected vs got, and how to place
  the file by hand;
* a file already at ``<file>`` (placed by hand, or an earlier download) with the right checksum
  is used without any network access;
* files whose publisher gives no checksum (the Census PUMS zip, the CMU Enron tarball, the SF
  Fire export, which changes daily) are trusted on first use: the SHA-256 of the first complete
  download is written to ``<file>.sha256`` and checked on every later use;
* offline, :class:`DownloadError` names the URL, the reason and where to put the file by hand.

Progress (bytes, percentage when the size is known, rate) goes to the ``privrisk.data.download``
logger, i.e. the job's log file under Snakemake and stderr on the command line.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

from .dataset import Remote

log = logging.getLogger(__name__)

CHUNK = 1 << 20


class DownloadError(OSError):
    """A file could not be downloaded (offline, HTTP error, connection lost too often)."""


class ChecksumMismatch(DownloadError):
    """A downloaded or hand-placed file does not have the pinned checksum."""


def file_digest(path: str | Path, algo: str) -> str:
    h = hashlib.new(algo)
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _human(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1000
    return f"{n:.1f} GB"


def _hand_placement(remote: Remote, dest: Path, what: str) -> str:
    check = remote.checksum or "(no published checksum)"
    return (
        f"To place it by hand, download {remote.url} on a machine that is online and copy it to "
        f"{dest} (expected {check}); it is then used without downloading. Or set {what}'s source "
        f"to auto or its fallback."
    )


def verify(remote: Remote, path: Path, what: str, dest: Path) -> None:
    """Raise :class:`ChecksumMismatch` unless ``path`` has the remote's (or the recorded) checksum."""
    expected = remote.checksum
    recorded = Path(f"{dest}.sha256")
    if expected is None and recorded.is_file():
        expected = "sha256:" + recorded.read_text().split()[0]
    if expected is None:
        return
    algo, _, digest = expected.partition(":")
    got = file_digest(path, algo)
    if got != digest.lower():
        source = "pinned" if remote.checksum else f"recorded at first download in {recorded}"
        raise ChecksumMismatch(
            f"{what}: {path} (from {remote.url}) has {algo} {got}, expected {digest} ({source}). "
            f"{'The partial download was deleted; run again to download it afresh. ' if path != dest else ''}"
            f"If the file was placed by hand, it is not the published file: remove it. "
            + _hand_placement(remote, dest, what)
        )


def _open(url: str, start: int, timeout: float):
    req = urllib.request.Request(url, headers={"User-Agent": "privrisk-data"})
    if start:
        req.add_header("Range", f"bytes={start}-")
    return urllib.request.urlopen(req, timeout=timeout)  # noqa: S310 - URLs come from our tables/config


def _transfer(remote: Remote, part: Path, what: str, timeout: float) -> None:
    """Append the rest of the file to ``part`` (one HTTP request); raises on a dropped connection."""
    start = part.stat().st_size if part.exists() else 0
    try:
        resp = _open(remote.url, start, timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and start:  # range past the end: the .part is unusable, start again
            log.info("%s: server refused to resume at byte %d; restarting", what, start)
            part.unlink()
            return _transfer(remote, part, what, timeout)
        raise
    with resp:
        resumed = start and resp.status == 206
        if start and not resumed:
            log.info(
                "%s: server does not resume (HTTP %d); restarting from byte 0", what, resp.status
            )
            start = 0
        length = resp.headers.get("Content-Length")
        total = start + int(length) if length is not None else None
        done, t0, last = start, time.monotonic(), 0.0
        with open(part, "ab" if resumed else "wb") as f:
            while chunk := resp.read(CHUNK):
                f.write(chunk)
                done += len(chunk)
                now = time.monotonic()
                if now - last >= 2 or (total is not None and done == total):
                    last = now
                    rate = (done - start) / max(now - t0, 1e-9)
                    pct = f" ({100 * done / total:.0f} %)" if total else ""
                    log.info(
                        "%s: %s%s of %s, %s/s",
                        remote.name,
                        _human(done),
                        pct,
                        _human(total) if total else "?",
                        _human(rate),
                    )
        if total is not None and done < total:
            raise http.client.IncompleteRead(b"", total - done)


def fetch(
    remote: Remote, dest_dir: str | Path, *, what: str = "", retries: int = 3, timeout: float = 60.0
) -> Path:
    """``dest_dir/remote.name``, downloaded (or resumed) and verified if it is not there yet.

    Args:
        remote: the file's name, URL and checksum.
        dest_dir: the folder it belongs in (created).
        what: the config block it is for, e.g. ``xu2022.data.mnist`` (used in messages).
        retries: resumptions after a dropped connection within this call.
        timeout: seconds without data before a connection counts as dropped.

    Raises:
        ChecksumMismatch: the complete file does not have the expected checksum.
        DownloadError: offline, an HTTP error, or the connection dropped more than ``retries`` times.
    """
    what = what or remote.name
    dest = Path(dest_dir) / remote.name
    part = Path(f"{dest}.part")
    if dest.is_file():
        verify(remote, dest, what, dest)
        if remote.checksum is None and not Path(f"{dest}.sha256").is_file():
            _record(dest)
        log.info("%s: %s is present and verified; not downloading", what, dest)
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    if part.exists():
        log.info("%s: resuming %s at byte %d", what, part, part.stat().st_size)
    log.info("%s: downloading %s to %s", what, remote.url, dest)
    for attempt in range(retries + 1):
        try:
            _transfer(remote, part, what, timeout)
            break
        except (http.client.IncompleteRead, ConnectionError, TimeoutError) as err:
            if attempt == retries:
                raise DownloadError(
                    f"{what}: the connection to {remote.url} dropped {retries + 1} times ({err!r}); "
                    f"{part} keeps the {part.stat().st_size if part.exists() else 0} bytes received and "
                    f"the next run resumes from there. " + _hand_placement(remote, dest, what)
                ) from err
            log.info(
                "%s: connection lost (%r); resuming (attempt %d of %d)",
                what,
                err,
                attempt + 2,
                retries + 1,
            )
        except (urllib.error.URLError, OSError) as err:  # offline, DNS, refused, HTTP 4xx/5xx
            raise DownloadError(
                f"{what}: could not download {remote.url} ({getattr(err, 'reason', err)}). Is this machine "
                f"offline? " + _hand_placement(remote, dest, what)
            ) from err
    try:
        verify(remote, part, what, dest)
    except ChecksumMismatch:
        part.unlink(missing_ok=True)
        raise
    if remote.checksum is None:
        _record(part, Path(f"{dest}.sha256"))
    os.replace(part, dest)
    log.info("%s: %s complete and verified", what, dest)
    return dest


def _record(path: Path, record: Path | None = None) -> None:
    """Trust on first use: write the SHA-256 of ``path`` next to the final file."""
    record = record or Path(f"{path}.sha256")
    digest = file_digest(path, "sha256")
    record.write_text(f"{digest}  {record.name.removesuffix('.sha256')}\n")
    log.info("%s: no published checksum; recorded sha256 %s in %s", path.name, digest, record)
