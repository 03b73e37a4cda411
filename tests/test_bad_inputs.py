"""The bad-input corpus over the commands of the pipeline layer (``privrisk config``, ``data``,
``complete``, ``docs``): every file or folder a flag takes, given each thing a careless or hostile
user might give (a named pipe, ``/dev/zero``, a folder, a missing file, a 300-character name, a
file over the size limit, bytes that are not UTF-8, YAML nested 100,000 deep), is refused in one
line on stderr naming it, exit 2, never a hang or a traceback.

The flags come from each command's own ``--help``: a flag added later that takes a value is
either listed here with the kind of path it takes or named as taking none (test below), so a new
reader is in the corpus by construction."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from privrisk.pipeline import cli, completeness
from tests.conftest import REPO

#: command -> {flag (or "FILE", the positional): "file" | "folder"}
PATH_FLAGS = {
    "config": {"FILE": "file"},
    "data": {"FILE": "file"},
    "complete": {"--configfile": "file", "-s": "script", "-d": "folder"},
    "docs": {"--results": "folder"},
}
#: flags that take a value that is no path (so they are outside the corpus on purpose)
NOT_PATHS = {"complete": {"--config", "targets"}}
#: flags that make the command do something else (their values are not files either)
SWITCHES = {"--no-defaults", "--readme", "--write", "--check", "-h", "--help"}


def _bad(tmp_path, kind: str) -> str:
    """A path of the given kind, made under tmp_path (or a device)."""
    if kind == "fifo":
        os.mkfifo(path := tmp_path / "named_pipe.yaml")
    elif kind == "dev_zero":
        return "/dev/zero"
    elif kind == "directory":
        (path := tmp_path / "a_folder.yaml").mkdir()
    elif kind == "missing":
        path = tmp_path / "missing.yaml"
    elif kind == "long_name":
        path = tmp_path / ("n" * 300 + ".yaml")
    elif kind == "oversized":
        with open(path := tmp_path / "huge.yaml", "wb") as f:
            f.truncate(64 << 20)  # sparse: nothing written, 64 MiB as stat sees it
    elif kind == "not_utf8":
        (path := tmp_path / "latin1.yaml").write_bytes(b"seed: caf\xe9\n")
    elif kind == "deep":
        (path := tmp_path / "deep.yaml").write_text("a: " + "[" * 100_000 + "]" * 100_000)
    elif kind == "regular":  # a folder flag given a file
        (path := tmp_path / "a_file.txt").write_text("seed: 1\n")
    else:
        raise AssertionError(kind)
    return str(path)


#: what each kind of flag must refuse
KINDS = {
    "file": [
        "fifo",
        "dev_zero",
        "directory",
        "missing",
        "long_name",
        "oversized",
        "not_utf8",
        "deep",
    ],
    # a Snakefile is read by Snakemake, not by us: checked to be a regular file
    "script": ["fifo", "dev_zero", "directory", "missing", "long_name"],
    "folder": ["missing", "long_name", "regular", "dev_zero", "fifo"],
}

CASES = [
    pytest.param(command, flag, kind, id=f"{command}-{flag}-{kind}")
    for command, flags in PATH_FLAGS.items()
    for flag, what in flags.items()
    for kind in KINDS[what]
]


def _argv(command: str, flag: str, path: str) -> list[str]:
    given = [path] if flag == "FILE" else [flag, path]
    return [command, *(["--check"] if command == "docs" else []), *given]


@pytest.mark.parametrize(("command", "flag", "kind"), CASES)
def test_a_bad_path_is_one_line_and_exit_2(command, flag, kind, tmp_path, monkeypatch, capsys):
    # nothing here may start Snakemake (the refusal comes first): it would take seconds
    monkeypatch.setattr(completeness, "summary", _no_snakemake)
    monkeypatch.chdir(REPO)
    path = _bad(tmp_path, kind)
    assert cli.main(_argv(command, flag, path)) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert len(lines[0]) < 400, lines[0]
    shown = path if len(path) <= 120 else path[:60]
    assert shown in lines[0], lines[0]
    if kind == "oversized":
        assert "over the 4 MiB limit" in lines[0]
    assert out == ""


def _no_snakemake(*args, **kwargs):
    raise AssertionError("a bad path must be refused before Snakemake is asked")


def _help_flags(command: str, capsys) -> list[set[str]]:
    """Each argument ``privrisk COMMAND --help`` lists, as the set of its names (``-d``,
    ``--directory``; a positional's metavar)."""
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = capsys.readouterr().out
    args, section = [], None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line.rstrip(":")
        elif section in ("positional arguments", "options") and re.match(r"  \S", line):
            head = line.split("  ")[1]
            if section == "options":
                args.append(set(re.findall(r"(?:^|, )(-{1,2}[\w-]+)", head)))
            else:
                args.append({head.split()[0]})
    return args


@pytest.mark.parametrize("command", sorted(PATH_FLAGS))
def test_every_flag_of_the_command_is_in_the_corpus_or_named_as_no_path(command, capsys):
    args = _help_flags(command, capsys)
    known = set(PATH_FLAGS[command]) | NOT_PATHS.get(command, set()) | SWITCHES
    outside = [names for names in args if not names & known]
    assert not outside, f"privrisk {command}: arguments outside the corpus: {outside}"
    listed = set().union(*args)
    assert set(PATH_FLAGS[command]) <= listed  # the corpus names only real flags


def test_a_named_pipe_does_not_hang_the_command_line(tmp_path):
    """End to end, in a process of its own: `privrisk config PIPE` hung before (no regular-file
    check); now it is refused at once."""
    os.mkfifo(fifo := tmp_path / "config.yaml")
    proc = subprocess.run(
        [sys.executable, "-m", "privrisk", "config", str(fifo)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src")),
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"config file {fifo}: is a named pipe (FIFO), not a regular file\n"
