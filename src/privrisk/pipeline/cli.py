"""The ``privrisk`` command: risk cards, audits, the claims ledger, the run's completeness, the config.

Each sub-command's module is imported only when it runs: ``explain`` must start in well under a
second and never load pandas, jsonschema or torch, and ``privrisk --help`` lists the commands from
the table below without importing any of them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

#: sub-command -> (one-line description, "module:function" taking the remaining arguments)
COMMANDS: dict[str, tuple[str, str]] = {
    "claims": (
        "list, filter and check the claims ledger (results/claims.csv); --record NAME: a "
        "record's statuses beside it",
        "privrisk.pipeline.records:claims_main",
    ),
    "complete": (
        "exit 0 only if every output is present, current and unedited and no lock is held",
        "privrisk.pipeline.completeness:main",
    ),
    "status": (
        "the status page (docs/status.md) from results/ (--write, --check)",
        "privrisk.contract.status:main",
    ),
    "docs": (
        "every generated doc, the status page included: --write regenerates, --check names "
        "each stale one",
        "privrisk.pipeline.docs:docs_main",
    ),
    "data": (
        "which source (real, bundled-real, standin) each dataset block resolves to, and why",
        "privrisk.pipeline.cli:data_main",
    ),
    "config": (
        "validate config files merged in order over config/config.yaml, as Snakemake does",
        "privrisk.pipeline.cli:config_main",
    ),
    "explain": (
        "what does my epsilon mean? a risk card for an epsilon (and a prior); --audit FILE adds "
        "an audit's lower bounds under it",
        "privrisk.pipeline.cli:explain_main",
    ),
    "atlas": (
        "every published DP deployment (unit, period, adjacency, source) with its risk card's "
        "numbers, the conversion each publisher used, and a lint list",
        "privrisk.explain.atlas.command:main",
    ),
    "audit": (
        "lower bounds on epsilon from attack results (scores, hits), and a verdict on a claim",
        "privrisk.audit.command:main",
    ),
    "plan": (
        "what more runs, draws or models would decide the uninformative claims: their cost and "
        "a config overlay (--write FILE) with the commands to run it; claims a record decided "
        "are left out",
        "privrisk.pipeline.records:plan_main",
    ),
    "records": (
        "runs of record (records/NAME/): make one from results folders, --check verifies the "
        "hashes, recomputes every decision and reruns one job",
        "privrisk.pipeline.records:main",
    ),
    "new-paper": (
        "write the package, config section and tests of a new paper KEY: a working one-figure "
        "example, commented where a contributor would guess",
        "privrisk.pipeline.new_paper:main",
    ),
}

#: the defaults every run starts from (the Snakefile's ``configfile:``)
DEFAULT_CONFIG = Path("config/config.yaml")


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("privrisk")
    except metadata.PackageNotFoundError:  # a checkout on PYTHONPATH, not installed
        from .. import __version__

        return __version__


def usage() -> str:
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {text}" for name, (text, _) in COMMANDS.items())
    return (
        "usage: privrisk [-h] [--version] COMMAND [ARGS ...]\n\n"
        f"{__doc__.splitlines()[0].removeprefix('The ``privrisk`` command: ')}\n\n"
        f"commands:\n{rows}\n\n"
        "options:\n  -h, --help  show this help and exit\n  --version   show the version and exit\n\n"
        "`privrisk COMMAND --help` describes one command.\n"
    )


def _function(dotted: str) -> Callable[[list[str]], int]:
    module, _, name = dotted.partition(":")
    # the import statement's own machinery (importlib.import_module bypasses what
    # `python -X importtime` reports, which the explain start-up test reads)
    return getattr(__import__(module, fromlist=[name]), name)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0
    if argv[0] == "--version":
        print(f"privrisk {version()}")
        return 0
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(
            f"usage: privrisk [-h] [--version] COMMAND [ARGS ...]\n"
            f"privrisk: error: unknown command {command!r}; choose from {', '.join(COMMANDS)}",
            file=sys.stderr,
        )
        return 2
    return int(_function(COMMANDS[command][1])(rest) or 0)


def explain_main(argv: Sequence[str]) -> int:
    """``privrisk explain``; with ``--audit FILE`` the card beside an audit (audit sits above
    explain in the layers, so the dispatch is here, not in explain)."""
    from ..audit import command as audit_command

    if audit_command.wants_audit(argv):
        return audit_command.explain_main(argv)
    from ..explain import command as explain_command

    return explain_command.main(argv)


# --- privrisk config / privrisk data -------------------------------------------------------------


def _config_parser(command: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=f"privrisk {command}",
        description=COMMANDS[command][0][0].upper() + COMMANDS[command][0][1:] + ".",
        epilog=(
            f"FILEs are merged in order over {DEFAULT_CONFIG} (later files override earlier ones, "
            "key by key), as `snakemake --configfile FILE ...` merges them over the Snakefile's "
            "config; --no-defaults reads the FILEs alone."
        ),
    )
    ap.add_argument("files", nargs="*", metavar="FILE", help="config files (YAML)")
    ap.add_argument(
        "--no-defaults",
        action="store_true",
        help=f"do not start from {DEFAULT_CONFIG}",
    )
    return ap


def _merged(args: argparse.Namespace) -> tuple[dict, list[Path]]:
    from . import config

    files = [Path(f) for f in args.files]
    # the defaults are the checkout's (the Snakefile's configfile); away from a checkout (an
    # installed wheel) the FILEs given are validated alone, and the message says which were read
    if not args.no_defaults and DEFAULT_CONFIG.is_file():
        files = [DEFAULT_CONFIG, *(f for f in files if f.resolve() != DEFAULT_CONFIG.resolve())]
    if not files:
        raise config.ConfigError(
            f"no config file given and no {DEFAULT_CONFIG} in this directory "
            "(run in the checkout, or name the files)"
        )
    return config.load(*files), files


def config_main(argv: Sequence[str]) -> int:
    ap = _config_parser("config")
    ap.add_argument(
        "--readme", action="store_true", help="print docs/config.md, generated from the schemas"
    )
    args = ap.parse_args(argv)
    from . import config

    if args.readme:
        print(config.readme(), end="")
        return 0
    try:
        _, files = _merged(args)
    except config.ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    from ..core.discovery import paper_keys

    print(
        f"config valid: {' + '.join(map(str, files))} (merged in this order); "
        f"papers: {', '.join(paper_keys())}"
    )
    return 0


def data_main(argv: Sequence[str]) -> int:
    args = _config_parser("data").parse_args(argv)
    from . import config

    try:
        cfg, _ = _merged(args)
    except config.ConfigError as err:
        print(err, file=sys.stderr)
        return 2
    print("\n".join(data_status(cfg)))
    return 0


def data_status(cfg: dict) -> list[str]:
    """One line per data block of every paper: dataset, configured source, resolved source, files."""
    from ..data import sources
    from . import workflow

    lines = []
    for paper in workflow.PAPERS:
        for name, block in cfg.get(paper, {}).get("data", {}).items():
            if name not in sources.DATASETS:
                continue
            files = sources.real_files(name, block)
            present = sum(p.exists() for p in files)
            try:
                used = sources.label(name, block)  # real only when a checksum vouches for it
            except sources.DataUnavailable as err:
                used = f"UNAVAILABLE ({err})"
            if used == "real-unverified":
                used += f" ({sources.fallback_reason(name, block)})"
            lines.append(
                f"{paper}.data.{name}: source {block.get('source', 'auto')} -> {used}; "
                f"real files present {present}/{len(files)} under {block.get('path')}"
            )
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
