"""Obtain each dataset's real files: download (verified), unpack and convert to what its loader reads.

One table of downloadable files per dataset (:data:`TABLES`: URL, checksum, file name) and one
conversion per dataset (:mod:`privrisk.data.prepare_convert`). The files produced are exactly the
loader's ``real_files(block)`` (so the pipeline's ``prepare_<dataset>`` rule, generated from
:func:`rule_specs` by ``workflow/rules/data.smk``, is what produces a figure's data inputs);
the downloaded archives sit beside them, in the layout torchvision / folktables / MedMNIST use:

=========== ================================================ =========================================
dataset     downloaded to (``archive_dir``)                  prepared (the loader's ``real_files``)
=========== ================================================ =========================================
mnist       ``<path>/*-ubyte.gz`` (torchvision's 4 files)    ``<path>/*-ubyte`` (decompressed)
cifar10     ``<parent of path>/cifar-10-python.tar.gz``      ``<path>/data_batch_1..5, test_batch``
dermamnist  ``<path>/dermamnist_64.npz``                     the same file (MedMNIST+ 64×64)
acs         ``<parent of path>/csv_pca.zip`` (folktables)    ``<path>`` = ``psam_p06.csv`` (extracted)
fire        ``<parent of path>/nuek-vuh3.csv`` (export)      ``<path>``: the 10 columns, sub-sampled
enron       ``<parent of path>/enron_mail_20150507.tar.gz``  ``<path>`` = the ``maildir/`` folder
=========== ================================================ =========================================

A data block may override a file's URL or checksum: ``urls: {<file name>: <url>}``,
``checksums: {<file name>: "md5:<hex>" | "sha256:<hex>"}`` (used by the offline tests, and by a
user with a mirror). GPT-2 small (the PII prior's scorer) is not a file of ours: :func:`prepare_gpt2`
puts it into the Hugging Face cache with ``transformers`` and writes a marker file.

Command line (what the rules run; also usable by hand)::

    python -m privrisk.data.prepare mnist --block '{"path": "data/raw/mnist"}'
    python -m privrisk.data.prepare gpt2
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import prepare_convert as convert
from . import sources
from .download import Remote, fetch

log = logging.getLogger(__name__)

_TORCHVISION_MNIST = "https://ossci-datasets.s3.amazonaws.com/mnist/"

#: dataset -> its downloadable files (URLs and MD5s as in torchvision / medmnist.INFO)
TABLES: dict[str, tuple[Remote, ...]] = {
    "mnist": tuple(
        Remote(name, _TORCHVISION_MNIST + name, f"md5:{md5}", size)
        for name, md5, size in (
            ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873", "9.9 MB"),
            ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432", "29 kB"),
            ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3", "1.6 MB"),
            ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c", "5 kB"),
        )
    ),
    "cifar10": (
        Remote(
            "cifar-10-python.tar.gz",
            "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
            "md5:c58f30108f718f92721af3b95e74349a",
            "163 MB",
        ),
    ),
    "dermamnist": (
        Remote(
            "dermamnist_64.npz",
            "https://zenodo.org/records/10519652/files/dermamnist_64.npz?download=1",
            "md5:b70a2f5635c6199aeaa28c31d7202e1f",
            "about 60 MB",
        ),
    ),
    # folktables' URL for 2018 1-Year California persons; the Census publishes no checksum.
    "acs": (
        Remote(
            "csv_pca.zip",
            "https://www2.census.gov/programs-surveys/acs/data/pums/2018/1-Year/csv_pca.zip",
            None,
            "about 80 MB (psam_p06.csv about 600 MB)",
        ),
    ),
    # The city's export of dataset nuek-vuh3 grows daily: no fixed checksum can exist.
    "fire": (
        Remote(
            "nuek-vuh3.csv",
            "https://data.sfgov.org/api/views/nuek-vuh3/rows.csv?accessType=DOWNLOAD",
            None,
            "several GB, growing",
        ),
    ),
    # CMU publishes no checksum for the May 2015 release (we found none to pin).
    "enron": (
        Remote(
            "enron_mail_20150507.tar.gz",
            "https://www.cs.cmu.edu/~enron/enron_mail_20150507.tar.gz",
            None,
            "423 MB (2.6 GB unpacked)",
        ),
    ),
}

from .fire import PREPARE_ROWS as FIRE_PREPARE_ROWS  # noqa: E402,F401  (re-exported)

GPT2_MARKER = sources.GPT2_MARKER
#: the data-block keys a preparation reads
PREPARE_KEYS = ("path", "urls", "checksums", "prepare_rows")
GPT2_DOC = "data/README.md (section GPT-2)"


def _block_path(block: Mapping[str, Any], name: str) -> Path:
    return Path(block["path"]) if "path" in block else sources.real_files(name, block)[0]


def archive_dir(name: str, block: Mapping[str, Any]) -> Path:
    """Where the downloaded files of ``name`` go (see the module's table)."""
    path = _block_path(block, name)
    return path if name in ("mnist", "dermamnist") else path.parent


def remotes(name: str, block: Mapping[str, Any]) -> list[Remote]:
    """The dataset's table with the block's ``urls`` / ``checksums`` overrides applied."""
    if name not in TABLES:
        raise ValueError(f"no download table for dataset {name!r}; known: {', '.join(TABLES)}")
    urls, sums = block.get("urls") or {}, block.get("checksums") or {}
    unknown = (set(urls) | set(sums)) - {r.name for r in TABLES[name]}
    if unknown:
        raise ValueError(
            f"{name}: urls/checksums name unknown file(s) {sorted(unknown)}; "
            f"the files are {[r.name for r in TABLES[name]]}"
        )
    return [
        Remote(r.name, urls.get(r.name, r.url), sums.get(r.name, r.checksum), r.size)
        for r in TABLES[name]
    ]


CONVERT: dict[str, Callable[..., None]] = {
    "mnist": convert.mnist,
    "cifar10": convert.cifar10,
    "dermamnist": convert.dermamnist,
    "acs": convert.acs,
    "fire": convert.fire,
    "enron": convert.enron,
}


def prepare(
    name: str, block: Mapping[str, Any], outputs: list[Path] | None = None, *, what: str = ""
) -> list[Path]:
    """Download (once, verified) and convert dataset ``name``; returns the prepared files.

    ``outputs`` defaults to the loader's ``real_files(block)``. Raises DownloadError /
    ChecksumMismatch (from :func:`privrisk.data.download.fetch`) or ValueError on a malformed archive.
    """
    outputs = [Path(p) for p in (outputs or sources.real_files(name, block))]
    what = what or name
    folder = archive_dir(name, block)
    archives = {r.name: fetch(r, folder, what=what) for r in remotes(name, block)}
    CONVERT[name](archives, block, outputs, what=what)
    missing = [str(p) for p in outputs if not p.exists()]
    if missing:
        raise ValueError(f"{what}: preparation did not produce {missing}")
    return outputs


def prepare_gpt2(marker: str | Path = GPT2_MARKER, *, model: str = "gpt2") -> Path:
    """Put GPT-2 small into the user's Hugging Face cache; write ``marker`` (JSON) when it loads.

    Raises:
        RuntimeError: ``transformers`` is missing, or the hub cannot be reached (offline) and the
            weights are not cached; the message says what to do.
    """
    try:
        from transformers import GPT2LMHeadModel, GPT2TokenizerFast
    except ImportError as err:
        raise RuntimeError(
            "GPT-2 small (the PII prior's scorer) needs transformers: pip install -e '.[real]'. Or set "
            "swanberg2025.data.enron.gpt2: false to score the Enron names by census frequencies."
        ) from err
    try:
        GPT2TokenizerFast.from_pretrained(model)
        lm = GPT2LMHeadModel.from_pretrained(model)
    except OSError as err:
        raise RuntimeError(
            f"could not get {model!r} from the Hugging Face hub nor from the local cache ({err}). Is this "
            f"machine offline? Run `python -m privrisk.data.prepare gpt2` once online (it fills "
            f"~/.cache/huggingface, or $HF_HOME), or copy that cache here; see {GPT2_DOC}. Or set "
            f"swanberg2025.data.enron.gpt2: false."
        ) from err
    marker = Path(marker)
    marker.parent.mkdir(parents=True, exist_ok=True)
    info = {
        "model": model,
        "parameters": int(sum(p.numel() for p in lm.parameters())),
        "commit": getattr(lm.config, "_commit_hash", None),
    }
    marker.write_text(json.dumps(info, indent=1) + "\n")
    return marker


@dataclass(frozen=True)
class RuleSpec:
    """One ``prepare_<dataset>`` rule: the config block it serves and the files it makes."""

    dataset: str
    where: str  # "<paper>.data.<dataset>"
    block: dict
    outputs: tuple[str, ...]
    directory: bool  # the output is a folder (Enron's maildir)


def rule_specs(config: Mapping[str, Any]) -> list[RuleSpec]:
    """A rule per data block (of every paper) whose dataset has a download table and a loader."""
    specs, seen = [], {}
    for paper, section in config.items():
        blocks = section.get("data", {}) if isinstance(section, Mapping) else {}
        for name, block in blocks.items():
            if name not in TABLES or name not in sources.DATASETS or not isinstance(block, Mapping):
                continue
            outs = tuple(str(p) for p in sources.real_files(name, block))
            if name in seen:  # the same dataset in two papers: one rule, unless the paths differ
                if seen[name] != outs:
                    raise ValueError(
                        f"dataset {name} configured with different paths in two papers: "
                        f"{seen[name]} vs {outs}"
                    )
                continue
            seen[name] = outs
            # only the keys the preparation reads: Snakemake reruns a rule whose params change, and a
            # loader option (raw_rows, standin_size) or the source must not re-extract gigabytes
            keys = {k: block[k] for k in PREPARE_KEYS if k in block}
            specs.append(RuleSpec(name, f"{paper}.data.{name}", keys, outs, name == "enron"))
    return specs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m privrisk.data.prepare", description=__doc__.split("\n")[0]
    )
    ap.add_argument("dataset", choices=[*TABLES, "gpt2"])
    ap.add_argument(
        "--block", default="{}", help="the data block as JSON (path, urls, checksums, ...)"
    )
    args = ap.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
    try:
        if args.dataset == "gpt2":
            done = [prepare_gpt2()]
        else:
            done = prepare(args.dataset, json.loads(args.block))
    except KeyError as err:
        print(
            f'error: the block needs {err} (e.g. --block \'{{"path": "data/raw/{args.dataset}"}}\')',
            file=sys.stderr,
        )
        return 1
    except (OSError, RuntimeError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print("\n".join(map(str, done)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
