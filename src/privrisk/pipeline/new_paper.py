"""``privrisk new-paper KEY``: the package, config section and tests a new paper needs.

Writes ``src/privrisk/papers/KEY/`` (``__init__.py``, ``registry.py``, ``claims.py``,
``figures.py``, ``schema.yaml``, ``quoted.yaml``, ``notes.md``), appends the section ``KEY:`` to
``config/config.yaml`` and writes ``tests/papers/KEY/`` (``test_claims.py``, ``test_pipeline.py``):
a working one-figure analytic paper (:mod:`privrisk.pipeline.new_paper_templates`) that passes the
paper contract as written, to be replaced figure by figure. Run it in the repository root. The
notes' table of the quoted numbers is written with them, by the function ``privrisk docs --write``
uses (:func:`privrisk.contract.quoted.with_table`), so the new notes are current from the start.

Everything is checked before anything is written (the key's form, that no paper, package, tests
folder or config section of that name exists, that the config file parses); the package and the
tests are made in temporary folders beside their targets and renamed into place, the config file
replaced whole, and a failure part-way removes what was already moved. A refusal is one line on
stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import new_paper_templates as T

#: author + year like the shipped keys (thudi2022, swanberg2025), optionally a letter (smith2020b)
KEY = re.compile(r"[a-z]{2,20}[0-9]{4}[a-z]?")
KEY_FORM = "lowercase letters then a four-digit year and optionally one letter, e.g. smith2024"
PAPERS = Path("src/privrisk/papers")
CONFIG = Path("config/config.yaml")
TESTS = Path("tests/papers")

NEXT = """next: replace the example with the paper's figures and claims (CONTRIBUTING.md, "Adding a
paper"); then run its tests, build it and regenerate the docs it changes:
  pytest {tests} -m "slow or not slow"
  snakemake --cores 2 {key}
  privrisk docs --write
  privrisk status --write --paper {key}
  privrisk docs --check"""


class Refused(ValueError):
    """A reason not to write anything (one line)."""


@dataclass(frozen=True)
class Targets:
    key: str
    package: Path
    config: Path
    tests: Path


def shapes() -> str:
    """The shared schema shapes (``$defs`` of the global schema) as YAML comment lines."""
    from . import config

    defs = config.load_schema()["$defs"]
    width = max(map(len, defs))
    lines = []
    for name, node in defs.items():
        what = " ".join(str(node.get("description", "")).split()) or _inline(node)
        head = f"#   {name:<{width}}  "
        lines.append(head + textwrap.shorten(what, width=100 - len(head), placeholder=" …"))
    return "\n".join(lines)


def _inline(node: dict) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in node.items()) + "}"


def render(template: str, targets: Targets, shared: str = "") -> str:
    """A template with the key, the paths written to and the shared shapes filled in."""
    for name, value in (
        ("__SHAPES__", shared),
        ("__PACKAGE__", targets.package.as_posix()),
        ("__CONFIG__", targets.config.as_posix()),
        ("__TESTS__", targets.tests.as_posix()),
        ("__KEY__", targets.key),
    ):
        template = template.replace(name, value)
    return template


def package_files(targets: Targets, shared: str) -> dict[str, str]:
    """The package's files (name -> text): the templates filled in, the quoted.yaml validated and
    shown in the notes' table as ``privrisk docs --write`` would show it."""
    from ..contract import quoted

    files = {name: render(t, targets, shared) for name, t in T.PACKAGE.items()}
    # the package is not yet where quoted.load finds it: the table is made from the text
    entries = quoted.parse(files[quoted.FILE], targets.key)
    files["notes.md"] = quoted.with_table(targets.key, files["notes.md"], entries)
    return files


def check(targets: Targets) -> None:
    """Every reason to write nothing.

    Raises:
        Refused: the key's form, an existing paper, package, tests folder or config section, a
            missing folder, an unreadable config file.
    """
    key = targets.key
    if not KEY.fullmatch(key):
        raise Refused(f"KEY {key!r}: not a paper key ({KEY_FORM})")
    from ..core.discovery import paper_keys

    if key in paper_keys():
        raise Refused(f"KEY {key!r}: a paper of that name exists")
    for what, path in (("package", targets.package), ("tests folder", targets.tests)):
        if not path.parent.is_dir():
            raise Refused(
                f"{path.parent}: no such folder for the {what} (run privrisk new-paper in the "
                "repository root)"
            )
        if path.exists():
            raise Refused(f"{path}: the {what} exists already")
    if not targets.config.parent.is_dir():
        raise Refused(f"{targets.config.parent}: no such folder for the config file")
    if targets.config.exists():
        sections = _sections(targets.config)
        if key in sections:
            raise Refused(f"{targets.config}: it has a section {key}: already")


def _sections(path: Path) -> dict:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise Refused(f"{path}: not a readable YAML file ({type(err).__name__})") from err
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise Refused(f"{path}: not a mapping of config keys")
    return data


def config_text(targets: Targets) -> str:
    """The config file with the paper's section appended (the file's own text kept as it is)."""
    path = targets.config
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    section = render(T.SECTION, targets)
    if not old.strip():
        return section
    return old.rstrip("\n") + "\n\n" + section


def _stage(target: Path, files: dict[str, str]) -> Path:
    """The files in a new hidden folder beside ``target`` (same file system: renamed at once)."""
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    os.chmod(stage, 0o777 & ~_umask())  # mkdtemp's 0o700 would stay on the renamed folder
    for name, text in files.items():
        (stage / name).write_text(text, encoding="utf-8")
    return stage


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write(targets: Targets) -> None:
    """Check, then write the package, the tests and the config section; all or nothing."""
    check(targets)
    files = package_files(targets, shapes())
    new_config = config_text(targets)
    staged: list[Path] = []
    moved: list[Path] = []
    try:
        pkg = _stage(targets.package, files)
        staged.append(pkg)
        tests = _stage(targets.tests, {n: render(t, targets) for n, t in T.TESTS.items()})
        staged.append(tests)
        fd, tmp = tempfile.mkstemp(prefix=f".{targets.config.name}-", dir=targets.config.parent)
        staged.append(Path(tmp))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new_config)
        if targets.config.exists():
            shutil.copymode(targets.config, tmp)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        for src, dst in ((pkg, targets.package), (tests, targets.tests)):
            src.rename(dst)
            moved.append(dst)
        os.replace(tmp, targets.config)
    except BaseException:
        for path in moved:
            shutil.rmtree(path, ignore_errors=True)
        raise
    finally:
        for path in staged:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists():
                path.unlink()


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="privrisk new-paper",
        description=(
            "Write the package, config section and tests of a new paper: a working one-figure "
            "example that passes the paper contract, commented where a contributor would guess. "
            "Run it in the repository root."
        ),
        epilog=(
            f"Writes {PAPERS}/KEY/ (registry.py, claims.py, figures.py, schema.yaml, quoted.yaml, "
            "notes.md with the table of quoted.yaml), "
            f"the section KEY: at the end of {CONFIG} and {TESTS}/KEY/ (test_claims.py, "
            "test_pipeline.py); no section in config/tiny.yaml or config/paper.yaml is needed. "
            "Refuses (exit 2, writing nothing) a malformed or existing key."
        ),
    )
    ap.add_argument("key", metavar="KEY", help=f"the paper's key: {KEY_FORM}")
    ap.add_argument(
        "--papers",
        metavar="DIR",
        type=Path,
        default=PAPERS,
        help=f"the folder the package KEY/ goes into (default {PAPERS}; another folder must be "
        "named in PRIVRISK_PAPERS for the pipeline to find it)",
    )
    ap.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        default=CONFIG,
        help=f"the config file the section is appended to (default {CONFIG}; made if absent)",
    )
    ap.add_argument(
        "--tests",
        metavar="DIR",
        type=Path,
        help=f"the folder the tests are written to (default {TESTS}/KEY)",
    )
    return ap


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    targets = Targets(
        key=args.key,
        package=args.papers / args.key,
        config=args.config,
        tests=args.tests if args.tests is not None else TESTS / args.key,
    )
    try:
        write(targets)
    except Refused as err:
        print(f"privrisk new-paper: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"privrisk new-paper: {err}; nothing written", file=sys.stderr)
        return 2
    files = ", ".join(T.PACKAGE)
    print(
        f"wrote {targets.package}/ ({files}), {targets.tests}/ ({', '.join(T.TESTS)}) and the "
        f"section {targets.key}: of {targets.config}"
    )
    print(NEXT.format(key=targets.key, tests=targets.tests))
    return 0
