"""The bad-input corpus over the commands that read a user's files (``privrisk config``, ``data``,
``complete``, ``docs``, ``explain``, ``audit``, ``atlas``): every file or folder a flag takes,
given each thing a careless or hostile user might give (a named pipe, ``/dev/zero``, a folder, a
missing file, a 300-character name, a file over the size limit, bytes that are not UTF-8, a
document nested 100,000 deep, a file of another kind: scores given to ``--rdp``), and every output
a flag names, given what must not be written over (an input of the same command, a folder, a
device, a pipe, a missing folder), is refused in one line on stderr naming it, exit 2, never a
hang or a traceback.

The flags come from each command's own ``--help``: a flag added later that takes a value is
either listed here with the kind of path it takes or named as taking none (test below), so a new
reader is in the corpus by construction."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys

import pytest

from privrisk.pipeline import cli, completeness
from tests.conftest import REPO

#: command -> {flag (or "FILE"/"file", the positional): "file" | "folder" | "output" | ...}
PATH_FLAGS = {
    "config": {"FILE": "file"},
    "data": {"FILE": "file"},
    "complete": {"--configfile": "file", "-s": "script", "-d": "folder"},
    "docs": {"--results": "folder"},
    "explain": {
        "--rdp": "text",
        "--profile": "text",
        "--prior-file": "text",
        "--load": "json",
        "--audit": "attack",
        "--html": "output",
    },
    "audit": {"file": "attack", "--rdp": "text", "--profile": "text", "--out": "output"},
    "atlas": {"--html": "output"},
}
#: flags that take a value that is no path (so they are outside the corpus on purpose)
_GUARANTEE = {"--epsilon", "--delta", "--mu", "--sigma", "--sensitivity", "--noise-multiplier",
              "--sample-rate", "--steps", "--rho", "--adjacency", "--accountant",
              "--pld-discretisation", "--confidence", "--importer", "--guesses"}  # fmt: skip
NOT_PATHS = {
    "complete": {"--config", "targets"},
    "explain": _GUARANTEE
    | {
        "--deployment",
        "--periods",
        "--base-rate",
        "--prior",
        "--values",
        "--targets",
        "--records",
        "--unit",
        "--attribute-range",
        "--max-risk",
    },  # fmt: skip
    "audit": _GUARANTEE | {"--one-run-method", "--methods"},
    "atlas": {
        "--organisation",
        "--unit",
        "--model",
        "--key",
        "--periods",
        "--prior",
        "--reconstruction-prior",
    },  # fmt: skip
}
#: flags that make the command do something else (their values are not files either)
SWITCHES = {"--no-defaults", "--readme", "--write", "--check", "-h", "--help", "--json",
            "--one-run", "--one-model", "--markdown", "--lint"}  # fmt: skip
#: what else a flag needs beside it to be read (a guarantee, the audit's file)
CONTEXT = {
    ("explain", "--prior-file"): ["--epsilon", "1"],
    ("explain", "--audit"): ["--epsilon", "1"],
    ("explain", "--html"): ["--epsilon", "1", "--prior-file", "{PRIORS}"],
    ("audit", "--rdp"): ["{SCORES}", "--delta", "1e-5"],
    ("audit", "--profile"): ["{SCORES}", "--delta", "1e-5"],
    ("audit", "--out"): ["{SCORES}"],
}


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
    elif kind == "deep_json":
        (path := tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "oversized_audit":  # over the audit's 4 GiB cap, sparse
        with open(path := tmp_path / "huge.csv", "wb") as f:
            f.truncate((4 << 30) + 1)
    elif kind == "scores":  # a file of another kind: membership scores
        (path := tmp_path / "scores.csv").write_text(SCORES_CSV)
    elif kind == "rdp_curve":  # a file of another kind: an RDP curve given as attack results
        (path := tmp_path / "curve.csv").write_text("order,rdp\n2,0.2\n4,0.4\n8,0.8\n")
    elif kind == "card":  # a saved card where attack results are expected
        (path := tmp_path / "card.json").write_text('{"schema": "privrisk.riskcard"}\n')
    elif kind == "audit_report":  # an audit report where a card is expected
        (path := tmp_path / "report.json").write_text('{"schema": "privrisk.audit/3"}\n')
    elif kind == "char_device":  # an output onto a device: one made here, like /dev/full (1, 7),
        # never the system's own (an unguarded writer renamed its page over /dev/full)
        try:
            os.mknod(path := tmp_path / "full", 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        except PermissionError:
            pytest.skip("making a device node needs root (CAP_MKNOD)")
    elif kind == "missing_folder":
        path = tmp_path / "no_such_folder" / "out.html"
    elif kind == "the_input":  # an output onto a file the same command reads
        return "{INPUT}"
    else:
        raise AssertionError(kind)
    return str(path)


#: what every file-reading flag must refuse: a file it cannot read as a file
UNREADABLE = ["fifo", "dev_zero", "directory", "missing", "long_name"]
#: ... and, read as text, one too large or not text
UNREADABLE_TEXT = [*UNREADABLE, "oversized", "not_utf8"]
#: what each kind of flag must refuse
KINDS = {
    "file": [*UNREADABLE_TEXT, "deep"],
    # a Snakefile is read by Snakemake, not by us: checked to be a regular file
    "script": UNREADABLE,
    "folder": ["missing", "long_name", "regular", "dev_zero", "fifo"],
    # explain's small text files (a curve, priors) and a saved card: also a file of another kind
    "text": [*UNREADABLE_TEXT, "scores", "card"],
    "json": [*UNREADABLE_TEXT, "deep_json", "scores", "audit_report"],
    # attack results (read as bytes, capped at 4 GiB): a curve, a card or a report is named
    "attack": [*UNREADABLE, "oversized_audit", "rdp_curve", "card", "audit_report"],
    # ... and a file of another kind there (scores: `--html scores.csv` replaced them)
    "output": [
        "fifo",
        "char_device",
        "directory",
        "missing_folder",
        "long_name",
        "the_input",
        "scores",
    ],  # fmt: skip
}
#: a scores file the commands accept (the audit's file where a flag needs one beside it)
SCORES_CSV = "score,member\n" + "".join(f"{0.1 * (i % 7) + (i % 2)},{i % 2}\n" for i in range(60))

CASES = [
    pytest.param(command, flag, kind, id=f"{command}-{flag}-{kind}")
    for command, flags in PATH_FLAGS.items()
    for flag, what in flags.items()
    for kind in KINDS[what]
]


def _argv(command: str, flag: str, path: str, tmp_path) -> list[str]:
    """The command line: the flag given ``path``, beside what it needs to be read; an output
    given ``{INPUT}`` names the file the command reads beside it."""
    (scores := tmp_path / "good_scores.csv").write_text(SCORES_CSV)
    (priors := tmp_path / "good_priors.csv").write_text("0.1\n0.2\n")
    fill = {"{SCORES}": str(scores), "{PRIORS}": str(priors)}
    context = [fill.get(a, a) for a in CONTEXT.get((command, flag), [])]
    if path == "{INPUT}":
        path = next((a for a in context if a in fill.values()), None) or str(scores)
        if command == "atlas":  # atlas reads no user file: its bundled data is the input
            pytest.skip("privrisk atlas reads no file of the user's")
    given = [path] if flag in ("FILE", "file") else [flag, path]
    return [command, *(["--check"] if command == "docs" else []), *context, *given]


@pytest.mark.parametrize(("command", "flag", "kind"), CASES)
def test_a_bad_path_is_one_line_and_exit_2(command, flag, kind, tmp_path, monkeypatch, capsys):
    # nothing here may start Snakemake (the refusal comes first): it would take seconds
    monkeypatch.setattr(completeness, "summary", _no_snakemake)
    monkeypatch.chdir(REPO)
    what = PATH_FLAGS[command][flag]
    argv = _argv(command, flag, _bad(tmp_path, kind), tmp_path)
    path = argv[-1]
    before = {p: p.stat().st_mtime_ns for p in tmp_path.iterdir() if p.is_file()}
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert len(lines[0]) < 500, lines[0]
    shown = path if len(path) <= 120 else path[:60]
    assert shown in lines[0], lines[0]
    assert lines[0].count(flag) <= 1 or flag in ("FILE", "file")
    if kind == "oversized":
        assert re.search(r"over the \d+(\.\d+)? MiB limit", lines[0]), lines[0]
    if kind == "oversized_audit":
        assert "over the 4 GiB limit" in lines[0], lines[0]
    if kind in ("scores", "rdp_curve", "card", "audit_report") and what == "output":
        assert "the file there looks like membership scores" in lines[0], lines[0]
    elif kind in ("scores", "rdp_curve", "card", "audit_report"):
        assert "looks like" in lines[0] and "expected" in lines[0], lines[0]
    assert out == ""
    # nothing written: no file changed, none added (a temporary file included)
    after = {p: p.stat().st_mtime_ns for p in tmp_path.iterdir() if p.is_file()}
    assert after == before


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
        elif section not in (None, "usage", "examples") and re.match(r"  \S", line):
            head = line.split("  ")[1]
            if section == "positional arguments":
                args.append({head.split()[0]})
            else:
                args.append(set(re.findall(r"(?:^|, )(-{1,2}[\w-]+)", head)))
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


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory", "missing", "long_name"])
def test_the_explain_docs_page_refused_in_one_line(kind, tmp_path, capsys):
    """``python -m privrisk.explain.docs PAGE``: the page is read through the guarded reader."""
    from privrisk.explain import docs

    path = _bad(tmp_path, kind)
    assert docs.main([path, "--check"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("page ") and (path if len(path) <= 120 else path[:60]) in err


def test_the_explain_docs_write_refused_is_one_line_and_leaves_the_page(
    tmp_path, monkeypatch, capsys
):
    """A write that fails (a full disk: safe_io's writer raises FileRefused) is one line, exit 2,
    the page unchanged, no temporary file left; it was an uncaught FileRefused before."""
    from privrisk.core import safe_io
    from privrisk.explain import docs

    page = tmp_path / "page.md"
    page.write_text("<!-- explain:headline --epsilon 1 -->\nstale\n<!-- /explain -->\n")
    text = page.read_text()
    assert docs.stale_blocks(text)  # so --write has something to write

    def full_disk(path, data, **kwargs):
        raise safe_io.FileRefused(f"page {path}: cannot be written (no space left on device)")

    monkeypatch.setattr(safe_io, "write_output", full_disk)
    assert docs.main([str(page), "--write"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"page {page}: cannot be written (no space left on device)\n")
    assert page.read_text() == text and sorted(tmp_path.iterdir()) == [page]


# --- content: a file of the right kind whose content is ambiguous or wrong --------------------

#: every command line that reads attack results, given the file (a new reader goes here)
ATTACK_READERS = {
    "audit": lambda p: ["audit", p],
    "explain --audit": lambda p: ["explain", "--epsilon", "1", "--audit", p],
}
#: every command line that reads a curve file, given the file and the flag
CURVE_READERS = {
    "explain": lambda flag, p: ["explain", flag, p, "--delta", "1e-5"],
    "audit": lambda flag, p: ["audit", "{SCORES}", flag, p, "--delta", "1e-5"],
}


def _rows(header: str, row: str, n: int = 40) -> str:
    lines = [row.format(s=i * 0.1, m=i % 2, neg=-i * 0.1, flip=1 - i % 2, g="ab"[i % 2])
             for i in range(n)]  # fmt: skip
    return header + "\n" + "\n".join(lines) + "\n"


def _complex_npz(path):
    import numpy as np

    np.savez(path, score=np.arange(40) * 0.1 + 1j, member=np.arange(40) % 2)


#: case -> (file name, its content (text, or a function writing it), what the line must say)
ATTACK_CONTENT = {
    "duplicate-score": ("s.csv", _rows("score,member,score", "{s},{m},{neg}"),
                        "column 'score' appears 2 times"),
    "duplicate-member": ("s.csv", _rows("score,member, member", "{s},{m},{flip}"),
                         "column 'member' appears 2 times"),
    "two-layouts": ("s.csv", _rows("score,member,hit,prior", "{s},{m},{m},0.3"),
                    "both membership columns"),
    "blank-group": ("s.csv", _rows("score,member,group", "{s},{m},") , "blank"),
    "complex-scores": ("s.npz", _complex_npz, "must be real numbers"),
    "header-only": ("s.csv", "score,member\n", "no rows"),
    "nan-score": ("s.csv", _rows("score,member", "nan,{m}"), "NaN"),
    "member-not-binary": ("s.csv", _rows("score,member", "{s},2"), "must be 0 or 1"),
    "too-few": ("s.csv", _rows("score,member", "{s},{m}", n=8), "at least 10 of each"),
    "no-known-columns": ("s.csv", _rows("a,b", "{s},{m}"), "needs columns 'score' and 'member'"),
    "an-rdp-curve": ("s.csv", "order,rdp\n2,0.2\n4,0.4\n", "looks like an RDP curve"),
    "unknown-type": ("s.txt", "score,member\n", "unknown file type"),
}  # fmt: skip
#: case -> (content of a curve file, what the line must say), for --rdp and --profile
CURVE_CONTENT = {
    "nan": ("2,nan\n4,0.4\n", "NaN"),
    "three-columns": ("2,0.2,1\n", "expected two columns"),
    "not-numbers": ("2,0.2\nx,y\n", "not two numbers"),
    "empty": ("# nothing\n", "no rows"),
    "scores": (SCORES_CSV, "looks like membership scores"),
}


@pytest.mark.parametrize("case", sorted(ATTACK_CONTENT))
@pytest.mark.parametrize("reader", sorted(ATTACK_READERS))
def test_bad_attack_results_are_one_line_through_every_reader(reader, case, tmp_path, capsys):
    name, content, needle = ATTACK_CONTENT[case]
    path = tmp_path / name
    if callable(content):
        content(path)
    else:
        path.write_text(content)
    before = sorted(tmp_path.iterdir())
    assert cli.main(ATTACK_READERS[reader](str(path))) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and "Traceback" not in err, err
    assert str(path) in lines[0] and needle in lines[0], lines[0]
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize("case", sorted(CURVE_CONTENT))
@pytest.mark.parametrize("flag", ["--rdp", "--profile"])
@pytest.mark.parametrize("reader", sorted(CURVE_READERS))
def test_a_bad_curve_file_is_one_line_through_every_reader(reader, flag, case, tmp_path, capsys):
    content, needle = CURVE_CONTENT[case]
    (path := tmp_path / "curve.csv").write_text(content)
    (scores := tmp_path / "scores.csv").write_text(SCORES_CSV)
    argv = [a.replace("{SCORES}", str(scores)) for a in CURVE_READERS[reader](flag, str(path))]
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and "Traceback" not in err, err
    assert f"{flag}: " in lines[0] and needle in lines[0], lines[0]


@pytest.mark.parametrize("confidence", ["1e-300", "0.4", "0.9999999", "1", "nan", "x"])
@pytest.mark.parametrize("reader", sorted(ATTACK_READERS))
def test_a_confidence_outside_the_sane_range_through_every_reader(
    reader, confidence, tmp_path, capsys
):
    (path := tmp_path / "scores.csv").write_text(SCORES_CSV)
    assert cli.main([*ATTACK_READERS[reader](str(path)), "--confidence", confidence]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and "--confidence" in lines[0], err
