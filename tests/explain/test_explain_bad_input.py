"""Every bad input gets one line naming the argument, exit status 2, and nothing written (no
card on stdout, no HTML file); the API raises BadInput naming the same argument."""

import pytest

from privrisk.explain import BadInput, explain
from privrisk.pipeline import cli

DPSGD = ["--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "100"]

CASES = [
    # (command-line arguments, the flag the message must name)
    (["--epsilon", "-1"], "--epsilon"),
    (["--epsilon", "nan"], "--epsilon"),
    (["--epsilon", "three"], "--epsilon"),
    (["--epsilon", "1", "--delta", "1"], "--delta"),
    (["--epsilon", "1", "--delta", "-0.1"], "--delta"),
    (["--epsilon", "1", "--delta", "1.5"], "--delta"),
    (["--epsilon", "1", "--prior", "0"], "--prior"),
    (["--epsilon", "1", "--prior", "1.5"], "--prior"),
    (["--epsilon", "1", "--prior", "-0.2"], "--prior"),
    (["--epsilon", "1", "--mu", "1"], "--mu"),
    (["--epsilon", "1", "--sigma", "2"], "--sigma"),
    (["--mu", "1", *DPSGD, "--delta", "1e-5"], "--noise-multiplier"),
    ([], "--epsilon"),
    (["--delta", "1e-5"], "--epsilon"),
    (["--sensitivity", "2"], "--sigma"),
    (["--mu", "-1"], "--mu"),
    (["--mu", "1", "--delta", "0"], "--delta"),
    (["--sigma", "0"], "--sigma"),
    (DPSGD, "--delta"),
    (["--noise-multiplier", "1.1", "--steps", "100", "--delta", "1e-5"], "--sample-rate"),
    ([*DPSGD[:4], "--steps", "1.5", "--delta", "1e-5"], "--steps"),
    (["--noise-multiplier", "1", "--sample-rate", "0", "--steps", "9", "--delta", "1e-5"], "--sample-rate"),
    (["--noise-multiplier", "1", "--sample-rate", "2", "--steps", "9", "--delta", "1e-5"], "--sample-rate"),
    (["--noise-multiplier", "0", "--sample-rate", ".1", "--steps", "9", "--delta", "1e-5"], "--noise-multiplier"),
    (["--epsilon", "1", "--adjacency", "neighbours"], "--adjacency"),
    (["--epsilon", "1", "--base-rate", "1"], "--base-rate"),
    (["--epsilon", "1", "--prior", "0.1", "--values", "10"], "--values"),
    (["--epsilon", "1", "--values", "0"], "--values"),
    (["--epsilon", "1", "--values", "2.5"], "--values"),
    (["--epsilon", "1", "--targets", "0"], "--targets"),
    (["--epsilon", "1", "--targets", "100001"], "--targets"),
    (["--epsilon", "1", "--attribute-range", "1"], "--attribute-range"),
    (["--epsilon", "1", "--max-risk", "beta"], "--max-risk"),
    (["--epsilon", "1", "--max-risk", "reconstruction.beta=2"], "--max-risk"),
    (["--epsilon", "1", "--max-risk", "nonsense=0.1"], "--max-risk"),
    ([*DPSGD, "--delta", "1e-5", "--max-risk", "membership.positive_accuracy=0.5"], "--max-risk"),
    # issue 30's seven: each once a traceback, a hang or a NaN on the card
    (["--epsilon", "1", "--prior", "1e-320"], "--prior"),
    ([*DPSGD[:4], "--steps", "1e12", "--delta", "1e-5"], "--steps"),
    ([*DPSGD[:4], "--steps", "1e30", "--delta", "1e-5"], "--steps"),
    (["--noise-multiplier", "0.01", *DPSGD[2:], "--delta", "1e-5"], "--noise-multiplier"),
    ([*DPSGD, "--delta", "1e-5", "--pld-discretisation", "1e-9"], "--pld-discretisation"),
    (["--epsilon", "1e308"], "--epsilon"),
    (["--epsilon", "1", "--pld-discretisation", "1e-3"], "--pld-discretisation"),
    # and their relatives
    (["--mu", "1e308"], "--mu"),
    (["--sigma", "1e-308"], "--sigma"),
    (["--rho", "1e308"], "--rho"),
    (["--rho", "-1"], "--rho"),
    (["--epsilon", "1", "--base-rate", "1e-320"], "--base-rate"),
    (["--epsilon", "1", "--rho", "0.1"], "--rho"),
    (["--rdp", "/nonexistent/rdp.csv"], "--rdp"),
    (["--profile", "/nonexistent/profile.csv"], "--profile"),
    (["--load", "/nonexistent/card.json"], "--load"),
    (["--load", "/nonexistent/card.json", "--epsilon", "1"], "--load"),
    # issue 38's: the accountant, a target count that overflows, an empty adjacency
    (["--epsilon", "1", "--accountant", "rdp"], "--accountant"),
    ([*DPSGD, "--delta", "1e-5", "--accountant", "exact"], "--accountant"),
    ([*DPSGD, "--delta", "1e-5", "--accountant", "rdp", "--pld-discretisation", "1e-3"],
     "--pld-discretisation"),
    (["--epsilon", "1", "--targets", "1e300"], "--targets"),
    (["--epsilon", "1", "--adjacency", ""], "--adjacency"),
    (["--epsilon", "1", "--base-rate", "true"], "--base-rate"),
]  # fmt: skip


def _run(capsys, tmp_path, args):
    """One invocation; a hang (the old --steps 1e12) fails the test instead of the run."""
    html = tmp_path / "card.html"
    code = cli.main(["explain", *args, "--html", str(html)])
    out, err = capsys.readouterr()
    return code, out, err, html


@pytest.mark.parametrize("args,flag", CASES, ids=[" ".join(a) or "none" for a, _ in CASES])
def test_bad_input_one_line_naming_the_argument_nothing_written(capsys, tmp_path, args, flag):
    code, out, err, html = _run(capsys, tmp_path, args)
    assert code == 2
    assert out == "" and not html.exists() and not list(tmp_path.iterdir())
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("privrisk explain: error: ") and flag in lines[0], lines[0]


def _prior_file(tmp_path, text):
    f = tmp_path / "priors.csv"
    f.write_text(text)
    return f


@pytest.mark.parametrize(
    "text,why",
    [
        ("0.1,0.2\n0.3,0.4\n", "one column"),  # a 2-column table: the wrong shape
        ("prior\tother\n0.1\t0.2\n", "one column"),
        ("0.1\n0.2 0.3\n", "line 2 has 2 fields"),  # ragged
        ("", "no priors"),
        ("prior\n", "no priors"),
        ("0.1\nabc\n", "not a number"),
        ("0.1\n1.5\n", "outside [1e-300, 1]"),
        ("0.1\n0\n", "outside [1e-300, 1]"),
    ],
)
def test_prior_file_with_the_wrong_shape_or_values(capsys, tmp_path, text, why):
    f = _prior_file(tmp_path, text)
    html = tmp_path / "card.html"
    code = cli.main(["explain", "--epsilon", "1", "--prior-file", str(f), "--html", str(html)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not html.exists()
    assert len(err.strip().splitlines()) == 1
    assert "--prior-file" in err and why in err, err
    with pytest.raises(BadInput) as info:
        explain(epsilon=1, prior_file=f)
    assert info.value.argument == "prior_file"


def test_prior_file_missing_and_targets_beside_it(capsys, tmp_path):
    code = cli.main(["explain", "--epsilon", "1", "--prior-file", str(tmp_path / "none.csv")])
    assert code == 2 and "--prior-file" in capsys.readouterr().err
    f = _prior_file(tmp_path, "0.1\n0.2\n")
    code = cli.main(["explain", "--epsilon", "1", "--prior-file", str(f), "--targets", "5"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "--targets" in err


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        ({"epsilon": -0.5}, "epsilon"),
        ({"epsilon": 1, "delta": 1.0}, "delta"),
        ({"epsilon": 1, "prior": 0.0}, "prior"),
        ({"epsilon": 1, "prior": 2}, "prior"),
        ({"epsilon": 1, "mu": 1}, "mu"),
        ({"epsilon": 1, "noise_multiplier": 1, "sample_rate": 0.1, "steps": 5}, "noise_multiplier"),
        ({"epsilon": 1, "priors": [0.5, 1.2]}, "priors"),
        ({"epsilon": 1, "priors": []}, "priors"),
    ],
)
def test_api_raises_bad_input_naming_the_argument(kwargs, argument):
    with pytest.raises(BadInput) as info:
        explain(**kwargs)
    assert info.value.argument == argument
    assert info.value.flag == "--" + argument.replace("_", "-")


def test_argparse_errors_are_one_line_too(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["explain", "--epsilon"])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "--epsilon" in err
    with pytest.raises(SystemExit):
        cli.main(["explain", "--epsilon", "1", "--no-such-flag", "2"])
    assert "--no-such-flag" in capsys.readouterr().err


def test_unwritable_html_path_writes_nothing(capsys, tmp_path):
    target = tmp_path / "missing-dir" / "card.html"
    code = cli.main(["explain", "--epsilon", "1", "--html", str(target)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "--html" in err and not target.parent.exists()


@pytest.mark.parametrize("flag", ["--prior-file", "--rdp", "--profile", "--load"])
def test_a_directory_where_a_file_belongs_is_named_as_such(capsys, tmp_path, flag):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    args = [flag, str(folder)] if flag != "--prior-file" else ["--epsilon", "1", flag, str(folder)]
    assert cli.main(["explain", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"error: {flag}: " in err and "is a directory" in err, err


@pytest.mark.parametrize("target", [".", "", "a-folder", "a-folder/", "missing/card.html"])
def test_html_to_a_folder_or_nowhere_is_refused_before_anything_is_computed(
    capsys, tmp_path, monkeypatch, target
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-folder").mkdir()
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert cli.main(["explain", "--epsilon", "1", "--html", target]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "error: --html: " in err, err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
