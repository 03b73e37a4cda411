"""Quoted numbers as data (privrisk.contract.quoted): every paper's quoted.yaml is valid, every entry
is used by the paper's code and every id the code quotes has an entry, the notes' tables are
current, a row made from an entry is the row numeric() makes from the same values, and a bad file
or call is one line naming the file and the claim id."""

from __future__ import annotations

import ast
import dataclasses

import pytest

from privrisk.contract import claims, quoted
from privrisk.core import discovery

PAPERS = quoted.papers()


def _quoted_ids_in_code(key: str) -> tuple[set[str], list[str]]:
    """The claim ids the paper's modules pass to ``.quoted(...)`` (every string constant of the
    first argument: a literal, or a literal in a dict chosen by a value), and the calls whose first
    argument holds no literal (an id the test could not check)."""
    ids, unchecked = set(), []
    for f in sorted(discovery.files(key).iterdir(), key=lambda f: f.name):
        if not f.name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "quoted"
                and node.args
            ):
                continue
            found = {
                n.value
                for n in ast.walk(node.args[0])
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
            if not found or any(isinstance(n, ast.JoinedStr) for n in ast.walk(node.args[0])):
                unchecked.append(f"{f.name}:{node.lineno}")
            ids |= found
    return ids, unchecked


def test_every_paper_has_quoted_numbers():
    """The five papers' quoted numbers, pinned (a lost entry fails here); a paper added later
    (``privrisk new-paper``) brings its own file and is checked by the tests below."""
    shipped = {"thudi2022": 13, "lowy2024": 10, "pankova2022": 7, "swanberg2025": 19, "xu2022": 3}
    assert set(shipped) <= set(PAPERS)
    assert {k: len(quoted.load(k)) for k in shipped} == shipped


@pytest.mark.parametrize("key", PAPERS)
def test_every_entry_is_quoted_by_the_code_and_every_quoted_id_has_an_entry(key):
    in_code, unchecked = _quoted_ids_in_code(key)
    assert not unchecked, f"{key}: .quoted() with a computed id (give it as a literal): {unchecked}"
    in_file = set(quoted.load(key))
    assert in_file - in_code == set(), f"{quoted.shown(key)}: entries no code quotes"
    assert in_code - in_file == set(), f"{key}: ids quoted by the code with no entry"


@pytest.mark.parametrize("key", PAPERS)
def test_the_notes_show_the_quoted_numbers_as_they_are(key):
    notes = (discovery.files(key) / "notes.md").read_text(encoding="utf-8")
    assert quoted.with_table(key, notes) == notes, "stale table: privrisk docs --write"
    for cid in quoted.load(key):
        assert f"| `{cid}` |" in notes


@pytest.mark.parametrize("key", PAPERS)
def test_every_entry_says_where_in_the_paper(key):
    for cid, e in quoted.load(key).items():
        src = e["source"]
        assert src["where"].strip(), (key, cid)
        # a page we could not find is said so, never invented
        assert isinstance(src["page"], int) or "not known" in src["page"], (key, cid)


def _row(claim: claims.Claim) -> tuple:
    """A row with each value's type (15 and 15.0 write differently in a CSV)."""
    return tuple((type(v).__name__, repr(v)) for v in dataclasses.astuple(claim))


#: lowy2024 Figure 2 at the setting its quoted numbers are quoted at (config.yaml)
FIG2 = {"claim_clip": 50, "eps_x": 10, "n": 6, "trials": 1000}


@pytest.mark.parametrize("se", [0.0, 0.004])
def test_a_quoted_row_is_the_numeric_row_of_the_same_values(se):
    led = claims.Ledger("lowy2024")
    new = led.quoted("fig2_eps_tilde_C50", ours=0.1215, se=se, params=FIG2)
    old = led.numeric(
        figure="fig2",
        claim_id="fig2_eps_tilde_C50",
        claim="At C = 50 a 10-DP (ε(X) = 10) mechanism is 0.123-PMP",
        paper_value=0.123,
        ours=0.1215,
        se=se,
        tolerance=0.006,
    )
    assert _row(new) == _row(old)
    assert claims.to_frame([new]).to_csv() == claims.to_frame([old]).to_csv()


def test_int_values_stay_ints_in_the_row():
    row = claims.Ledger("pankova2022").quoted("avg_table_b", ours=15.0)
    assert (row.paper_value, row.tolerance, row.status) == (15, 0, "reproduced")
    assert type(row.paper_value) is int and type(row.tolerance) is int


# --- a number quoted at one setting is a row only at that setting ------------------------------


def test_a_row_exists_exactly_at_the_setting_over_random_params():
    """The property: a row ⇔ every key of the entry's setting has its value in the figure's
    params (other keys free), over 300 random configs around the setting."""
    import random

    led = claims.Ledger("lowy2024")
    setting = quoted.load("lowy2024")["fig5_eps_tilde_C100"]["setting"]
    assert setting == {"fixed": "global", "claim_clip": 100, "epsilon": 5}
    rng = random.Random(7)
    choices = {"fixed": ["global", "restricted"], "claim_clip": [50, 100, 100.0, 200]}
    choices["epsilon"] = [5, 5.0, 2, 10]
    seen = set()
    for _ in range(300):
        params = {k: rng.choice(v) for k, v in choices.items()} | {"n": rng.choice([50, 100])}
        row = led.quoted("fig5_eps_tilde_C100", ours=1.9, se=0.01, params=params)
        at = all(params[k] == v for k, v in setting.items())
        assert (row is not None) == at, params
        seen.add(at)
        if row is not None:
            assert row.claim.startswith("At C = 100 a DP parameter ε = 5")
    assert seen == {True, False}


def test_a_setting_needs_the_params_and_an_entry_without_one_refuses_them():
    led = claims.Ledger("lowy2024")
    with pytest.raises(quoted.QuotedError, match=r"fig2_eps_C50: quoted at a setting .*params"):
        led.quoted("fig2_eps_C50", ours=10.0)
    with pytest.raises(quoted.QuotedError, match=r"setting eps_x not in the figure's params"):
        led.quoted("fig2_eps_C50", ours=10.0, params={"claim_clip": 50})
    with pytest.raises(quoted.QuotedError, match=r"success_eps7: the code passes params"):
        led.quoted("success_eps7", ours=0.99, params=FIG2)


# --- one line naming the file and the claim id ------------------------------------------------


def test_an_id_with_no_entry_names_the_file_and_the_id():
    with pytest.raises(quoted.QuotedError) as err:
        claims.Ledger("thudi2022").quoted("no_such_claim", ours=1.0)
    assert str(err.value) == (
        "privrisk/papers/thudi2022/quoted.yaml: no entry 'no_such_claim' (the code quotes it)"
    )


def test_a_computed_field_must_be_given_and_a_fixed_one_must_not():
    led = claims.Ledger("thudi2022")
    with pytest.raises(quoted.QuotedError, match=r"argmax_threshold: computed tolerance not given"):
        led.quoted("argmax_threshold", ours=-0.5)
    with pytest.raises(quoted.QuotedError, match=r"ours_eps1: the code gives tolerance, which"):
        led.quoted("ours_eps1", ours=0.73, tolerance=1.0)


def test_a_paper_without_a_file_is_named():
    with pytest.raises(quoted.QuotedError) as err:
        quoted.load("no_such_paper_key")
    assert "\n" not in str(err.value) and "no_such_paper_key/quoted.yaml" in str(err.value)


ENTRY = "  figure: f\n  claim: c\n  paper_value: 1.0\n  tolerance: 0.1\n  source: {where: Fig 1, page: 3}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            f"a:\n{ENTRY}a:\n{ENTRY}",
            "privrisk/papers/k/quoted.yaml: duplicate claim id 'a' (line 7)",
        ),
        (f"a:\n{ENTRY}  colour: red\n", "privrisk/papers/k/quoted.yaml: a: Additional properties"),
        (
            "a:\n  figure: f\n  claim: c\n  tolerance: 0.1\n  source: {where: Fig 1, page: 3}\n",
            "privrisk/papers/k/quoted.yaml: a: no paper_value (give it or name it under computed)",
        ),
        (
            f"a:\n{ENTRY}  computed: {{tolerance: from the config}}\n",
            "privrisk/papers/k/quoted.yaml: a: tolerance both given and computed",
        ),
        (
            "a:\n  figure: f\n  claim: c\n  paper_value: 1.0\n  tolerance: 0.1\n"
            "  source: {where: Fig 1}\n",
            "privrisk/papers/k/quoted.yaml: a.source: 'page' is a required property",
        ),
        (
            "a:\n  figure: f\n  claim: c\n  paper_value: .nan\n  tolerance: 0.1\n"
            "  source: {where: Fig 1, page: 3}\n",
            "privrisk/papers/k/quoted.yaml: a.paper_value: NaN",
        ),
        ("a: [1\n", "privrisk/papers/k/quoted.yaml: not YAML"),
        ("- 1\n", "privrisk/papers/k/quoted.yaml: <top level>: [1] is not of type 'object'"),
    ],
)
def test_a_bad_file_is_one_line_naming_it_and_the_entry(text, message):
    with pytest.raises(quoted.QuotedError) as err:
        quoted.parse(text, "k")
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_the_notes_need_their_markers():
    with pytest.raises(ValueError, match=r"privrisk/papers/xu2022/notes.md: needs exactly one"):
        quoted.with_table("xu2022", "# notes without the block\n")
