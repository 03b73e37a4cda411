"""The ``privrisk`` command: the claims ledger, where each dataset comes from, the config reference.

privrisk claims [LEDGER] [--paper KEY] [--status S] [--markdown OUT] [--check]
privrisk data [CONFIG ...]        which source each dataset block resolves to, and why
privrisk config [CONFIG ...]      validate config files (or --readme: print the reference)
privrisk status [--write|--check] the README's status table from results/ (privrisk.status)
privrisk explain --epsilon 3 --prior 0.1   what does my ε mean? (privrisk explain --help)
privrisk explain --mu 1 --audit FILE       the card with an audit's lower bounds under it
privrisk audit FILE [--epsilon 1 ...]      lower bounds from attack results (privrisk audit --help)

The subcommands' modules are imported when they run: ``explain`` must start in well under a
second and never load pandas, jsonschema or torch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def data_status(cfg: dict) -> list[str]:
    """One line per data block of every paper: dataset, configured source, resolved source, files."""
    from . import workflow
    from .data import sources

    lines = []
    for paper in workflow.PAPERS:
        for name, block in cfg.get(paper, {}).get("data", {}).items():
            if name not in sources.DATASETS:
                continue
            files = sources.real_files(name, block)
            present = sum(p.exists() for p in files)
            try:
                used = sources.resolve(name, block)
            except sources.DataUnavailable as err:
                used = f"UNAVAILABLE ({err})"
            lines.append(
                f"{paper}.data.{name}: source {block.get('source', 'auto')} -> {used}; "
                f"real files present {present}/{len(files)} under {block.get('path')}"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(prog="privrisk", description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["claims", "data", "config", "status", "explain", "audit"])
    if not argv or argv[0] in ("-h", "--help"):
        ap.print_help()
        return 0
    command, rest = argv[0], argv[1:]
    if command == "explain":
        from .audit import command as audit_command

        if audit_command.wants_audit(rest):  # the card beside an audit: audit sits above explain
            return audit_command.explain_main(rest)
        from .explain import command as explain_command

        return explain_command.main(rest)
    if command == "audit":
        from .audit import command as audit_command

        return audit_command.main(rest)
    from . import claims, config

    if command == "claims":
        return claims.main(rest)
    if command == "status":
        from . import status

        return status.main(rest)
    sub = argparse.ArgumentParser(prog=f"privrisk {command}")
    sub.add_argument(
        "files", nargs="*", help="config files merged in order (default config/config.yaml)"
    )
    if command == "config":
        sub.add_argument(
            "--readme",
            action="store_true",
            help="print config/README.md, generated from the schemas",
        )
    elif command != "data":
        ap.error(f"unknown command {command!r}")
    args = sub.parse_args(rest)
    if getattr(args, "readme", False):
        print(config.readme(), end="")
        return 0
    try:
        cfg = config.load(*(args.files or [Path("config/config.yaml")]))
    except config.ConfigError as err:
        print(err, file=sys.stderr)
        return 1
    if command == "config":
        print("config valid")
    else:
        print("\n".join(data_status(cfg)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
