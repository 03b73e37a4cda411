"""A local HTTP server standing in for the internet, and small archives in each dataset's real layout.

Used by tests/data/test_download.py and tests/test_prepare_rules.py (no test touches the network).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import pickle
import struct
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from privrisk.data import acs, fire


class Server:
    """Serves ``files`` (URL path -> bytes) on 127.0.0.1 with HTTP Range support.

    ``drop_first``: paths whose first GET announces the full length, sends half and closes the
    connection (an interrupted download). ``ignore_range``: answer every GET with the whole file
    (HTTP 200), as servers that cannot resume do. ``requests`` records (path, Range header).
    """

    def __init__(self, files: dict[str, bytes], *, drop_first=(), ignore_range=False):
        self.files, self.drop_first, self.ignore_range = dict(files), set(drop_first), ignore_range
        self.requests: list[tuple[str, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_GET(self):
                path = self.path.split("?")[0]
                rng = self.headers.get("Range")
                server.requests.append((path, rng))
                if path not in server.files:
                    self.send_error(404)
                    return
                body = server.files[path]
                start = 0
                if rng and not server.ignore_range:
                    start = int(rng.removeprefix("bytes=").split("-")[0])
                    if start >= len(body):
                        self.send_error(416)
                        return
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                if path in server.drop_first:
                    server.drop_first.discard(path)
                    self.wfile.write(body[start : start + (len(body) - start) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body[start:])

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # shutdown() waits for serve_forever's next poll: the default 0.5 s cost each test 0.5 s
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def md5(data: bytes) -> str:
    return "md5:" + hashlib.md5(data).hexdigest()  # noqa: S324 - the publishers' checksum


def overrides(files: dict[str, bytes], base: str, prefix: str = "/") -> dict:
    """A data block's ``urls`` / ``checksums`` pointing at the local server."""
    return {
        "urls": {n: f"{base}{prefix}{n}" for n in files},
        "checksums": {n: md5(b) for n, b in files.items()},
    }


# --- archives in each dataset's real layout --------------------------------------------------------


def _idx(arr: np.ndarray) -> bytes:
    head = struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    return gzip.compress(head + arr.astype(np.uint8).tobytes())


def mnist_files(n_train: int = 6, n_test: int = 4) -> dict[str, bytes]:
    """torchvision's four gzipped idx files (tiny): pixel value = image index, label = index % 10."""

    def images(n, offset):
        return np.broadcast_to((np.arange(n) + offset)[:, None, None], (n, 28, 28))

    return {
        "train-images-idx3-ubyte.gz": _idx(images(n_train, 0)),
        "train-labels-idx1-ubyte.gz": _idx(np.arange(n_train) % 10),
        "t10k-images-idx3-ubyte.gz": _idx(images(n_test, n_train)),
        "t10k-labels-idx1-ubyte.gz": _idx(np.arange(n_train, n_train + n_test) % 10),
    }


def _tar(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def cifar10_files(per_batch: int = 3) -> dict[str, bytes]:
    """The python tarball: ``cifar-10-batches-py/`` with 5 training batches, a test batch, meta."""
    members = {}
    for k, name in enumerate([f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]):
        data = np.full((per_batch, 3072), k, dtype=np.uint8)
        members[f"cifar-10-batches-py/{name}"] = pickle.dumps(
            {b"batch_label": name.encode(), b"labels": [k] * per_batch, b"data": data}
        )
    members["cifar-10-batches-py/batches.meta"] = pickle.dumps(
        {b"label_names": [b"c%d" % i for i in range(10)]}
    )
    return {"cifar-10-python.tar.gz": _tar(members)}


def dermamnist_files() -> dict[str, bytes]:
    """MedMNIST+ layout: {train,val,test}_{images,labels}, 64×64 RGB uint8, labels (n, 1)."""
    buf = io.BytesIO()
    arrays = {}
    for split, n in (("train", 5), ("val", 2), ("test", 3)):
        arrays[f"{split}_images"] = np.zeros((n, 64, 64, 3), dtype=np.uint8)
        arrays[f"{split}_labels"] = (np.arange(n) % 7)[:, None].astype(np.uint8)
    np.savez_compressed(buf, **arrays)
    return {"dermamnist_64.npz": buf.getvalue()}


def acs_files(rows: int = 200) -> dict[str, bytes]:
    """The Census zip ``csv_pca.zip`` holding ``psam_p06.csv`` (16 columns + ST + an extra one)."""
    rng = np.random.default_rng(1)
    cols = {c: rng.choice([v for v in vals if v >= 0], rows) for c, vals in acs.VALUES.items()}
    cols["AGEP"] = rng.integers(0, 95, rows)
    lines = [",".join(["RT", "ST", *acs.COLUMNS])]
    for i in range(rows):
        lines.append(",".join(["P", "06", *(str(cols[c][i]) for c in acs.COLUMNS)]))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("psam_p06.csv", "\n".join(lines) + "\n")
        zf.writestr("ACS2018_PUMS_README.pdf", b"%PDF-1.4 not really")
    return {"csv_pca.zip": buf.getvalue()}


def fire_files(rows: int = 300) -> dict[str, bytes]:
    """The city's export: the 10 columns among others, some rows with a missing value."""
    rng = np.random.default_rng(2)
    header = ["Call Number", *fire.COLUMNS, "Address"]
    lines = [",".join(f'"{h}"' for h in header)]
    for i in range(rows):
        vals = [f"{c[:3]}{rng.integers(0, min(k, 4))}" for c, k in fire.DOMAIN_SIZES.items()]
        if i % 10 == 0:
            vals[2] = ""  # a missing City: dropped by the preparation
        lines.append(",".join([str(100000 + i), *vals, f'"{i} Market St"']))
    return {"nuek-vuh3.csv": ("\n".join(lines) + "\n").encode()}


ENRON_NAMES = [
    "John Smith",
    "Mary Johnson",
    "Robert Brown",
    "Linda Davis",
    "James Miller",
    "Susan Wilson",
]
ENRON_BODY = (
    "Subject: gas\n\nHi team. I spoke with {} about the California power contracts "
    "this morning. Please send the curves by Friday.\n"
)


def enron_files(users: int = 3) -> dict[str, bytes]:
    """The CMU tarball: ``maildir/<user>/<folder>/<n>.`` RFC 822 files, one name per e-mail."""
    members = {
        f"maildir/user-{u}/inbox/{k}.": f"From: a@enron.com\n{ENRON_BODY.format(ENRON_NAMES[2 * u + k - 1])}".encode()
        for u in range(users)
        for k in (1, 2)
    }
    return {"enron_mail_20150507.tar.gz": _tar(members)}


BUILDERS = {
    "mnist": mnist_files,
    "cifar10": cifar10_files,
    "dermamnist": dermamnist_files,
    "acs": acs_files,
    "fire": fire_files,
    "enron": enron_files,
}
