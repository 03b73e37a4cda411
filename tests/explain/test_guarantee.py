"""The one guarantee value (issue 49): :class:`privrisk.explain.Guarantee` parses every form once,
is what ``explain`` and ``audit`` consume, and its fields are the one list of guarantee arguments
and options of both commands."""

import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.audit import command as audit_command
from privrisk.audit.build import audit
from privrisk.explain import GUARANTEE_ARGS, BadInput, Guarantee, explain
from privrisk.explain import command as explain_command
from privrisk.explain.accounted import account
from privrisk.explain.inputs import Curve

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "audit"


def _options(ap) -> dict[str, str]:
    """dest → option string of the guarantee's options of a parser."""
    return {a.dest: a.option_strings[0] for a in ap._actions if a.dest in GUARANTEE_ARGS}


def test_the_arguments_are_the_fields_and_both_commands_take_each_as_its_flag():
    assert GUARANTEE_ARGS == tuple(f.name for f in dataclasses.fields(Guarantee))
    assert len(GUARANTEE_ARGS) == 14 and {"accountant", "pld_discretisation"} <= set(GUARANTEE_ARGS)
    want = {k: "--" + k.replace("_", "-") for k in GUARANTEE_ARGS}
    assert _options(explain_command.parser()) == want
    assert _options(audit_command.parser()) == want


# one strategy per form, as (the fields as Python values, the same as command-line words)
_num = st.floats(min_value=0.05, max_value=20, allow_nan=False)
_small = st.floats(min_value=1e-9, max_value=0.1, allow_nan=False)
_adj = st.sampled_from([None, "replace-one", "add-remove"])


@st.composite
def guarantees(draw):
    form = draw(st.sampled_from(["epsilon", "mu", "gaussian", "rho", "dpsgd"]))
    if form == "epsilon":
        g = {"epsilon": draw(_num), "delta": draw(st.one_of(st.none(), _small))}
    elif form == "mu":
        g = {"mu": draw(_num), "delta": draw(st.one_of(st.none(), _small))}
    elif form == "gaussian":
        # μ = Δ/σ <= 40, inside the card's range (MAX_MU)
        g = {"sigma": draw(st.floats(0.5, 20)), "sensitivity": draw(st.one_of(st.none(), _num))}
    elif form == "rho":
        g = {"rho": draw(_num)}
    else:
        g = {
            "noise_multiplier": draw(st.floats(0.5, 5)),
            "sample_rate": draw(st.floats(1e-4, 1)),
            "steps": draw(st.integers(1, 10_000)),
            "delta": draw(_small),
            "accountant": draw(st.sampled_from([None, "pld", "rdp"])),
        }
        if g["accountant"] != "rdp":
            g["pld_discretisation"] = draw(st.one_of(st.none(), st.floats(1e-4, 0.1)))
    g["adjacency"] = draw(_adj)
    return {k: v for k, v in g.items() if v is not None}


def _argv(fields: dict) -> list[str]:
    out = []
    for k, v in fields.items():
        out += ["--" + k.replace("_", "-"), repr(v) if isinstance(v, float) else str(v)]
    return out


@settings(max_examples=60, deadline=None)
@given(guarantees())
def test_every_flag_of_explain_and_audit_maps_to_the_same_field(fields):
    """The same words on either command line make the same value as the Python fields."""
    argv = _argv(fields)
    e = vars(explain_command.parser().parse_args(argv))
    a = vars(audit_command.parser().parse_args(["results.csv", *argv]))
    from_explain = Guarantee(**{k: e[k] for k in GUARANTEE_ARGS if e[k] is not None})
    from_audit = Guarantee(**{k: a[k] for k in GUARANTEE_ARGS if a[k] is not None})
    value = Guarantee(**fields)
    assert from_explain == from_audit == value
    for k, v in fields.items():
        got = getattr(value, k)
        assert str(got) == v if isinstance(v, str) else got == pytest.approx(v, rel=1e-15)
    assert Guarantee(**value.to_args()) == value


def test_one_value_parsed_once_whatever_its_spelling():
    g = Guarantee(epsilon="3", delta="1e-5", adjacency="add/remove")
    assert g == Guarantee(epsilon=3, delta=1e-5, adjacency="add-remove")
    assert (g.epsilon, g.delta, g.kind, g.way) == (3.0, 1e-5, "epsilon-delta", "epsilon")
    assert g.resolved_adjacency == ("add-remove", "given")
    assert hash(g) == hash(Guarantee(epsilon=3.0, delta=1e-5, adjacency="add-remove"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.epsilon = 1.0
    d = Guarantee(noise_multiplier="1.1", sample_rate="0.01", steps="6e3", delta="1e-5")
    assert d.steps == 6000 and isinstance(d.steps, int) and d.accountant is None
    assert d.resolved_adjacency == ("add-remove", "default") and d.kind == "dpsgd"
    assert Guarantee(epsilon="inf").to_args() == {"epsilon": "inf"}
    assert math.isinf(Guarantee(**Guarantee(epsilon="inf").to_args()).epsilon)
    assert Guarantee(mu=1).delta_or_default == 1e-5 and Guarantee(epsilon=1).delta_or_default == 0


@pytest.mark.parametrize(
    "fields, argument, words",
    [
        ({}, "epsilon", "no guarantee given"),
        ({"epsilon": 1, "mu": 1}, "mu", "more than one way"),
        ({"epsilon": "x"}, "epsilon", "must be a number"),
        ({"epsilon": 1, "delta": 1.5}, "delta", "[0, 1)"),
        ({"epsilon": 2000}, "epsilon", "above 1000"),
        ({"mu": -1}, "mu", ">= 0"),
        ({"sensitivity": 1}, "sigma", "needs --sigma"),
        ({"rho": 1, "delta": 0}, "delta", "must be > 0"),
        ({"epsilon": 1, "adjacency": "neighbours"}, "adjacency", "must be one of"),
        ({"epsilon": 1, "accountant": "rdp"}, "accountant", "only to a DP-SGD"),
        ({"epsilon": 1, "pld_discretisation": 1e-3}, "pld_discretisation", "only to a DP-SGD"),
        ({"noise_multiplier": 1, "sample_rate": 0.01}, "steps", "missing --steps"),
        ({"noise_multiplier": 1, "sample_rate": 0.01, "steps": 10}, "delta", "needs --delta"),
        (
            {"noise_multiplier": 1, "sample_rate": 2, "steps": 10, "delta": 1e-5},
            "sample_rate",
            "<= 1",
        ),
        (
            {"noise_multiplier": 1, "sample_rate": 0.1, "steps": 1.5, "delta": 1e-5},
            "steps",
            "whole",
        ),
        (
            {
                "noise_multiplier": 1,
                "sample_rate": 0.1,
                "steps": 9,
                "delta": 1e-5,
                "accountant": "moments",
            },
            "accountant",
            "pld, rdp",
        ),  # fmt: skip
        (
            {
                "noise_multiplier": 1,
                "sample_rate": 0.1,
                "steps": 9,
                "delta": 1e-5,
                "accountant": "rdp",
                "pld_discretisation": 1e-3,
            },
            "pld_discretisation",
            "PLD",
        ),  # fmt: skip
        (
            {"noise_multiplier": 1, "sample_rate": 0.1, "steps": 1e8, "delta": 1e-5},
            "steps",
            "at most",
        ),
        ({"rdp": Curve("c", ((0.5, 1.0),))}, "rdp", "orders must be > 1"),
        ({"profile": Curve("p", ((0.0, 0.1), (1.0, 0.2)))}, "profile", "must not grow"),
        ({"profile": Curve("p", ((0.0, 1.5),))}, "profile", "pair 1"),
        (
            {"rdp": Curve("c", ((2.0, 1.0),), "add-remove"), "adjacency": "replace-one"},
            "adjacency",
            "contradicts",
        ),  # fmt: skip
    ],
)
def test_a_bad_field_is_one_line_naming_it(fields, argument, words):
    with pytest.raises(BadInput) as err:
        Guarantee(**fields)
    assert err.value.argument == argument
    assert words in err.value.message and "\n" not in err.value.message


def test_explain_and_audit_take_the_value_as_they_take_its_fields():
    g = Guarantee(epsilon=1, delta=1e-5)
    # the same card (its recorded inputs are the value's numbers: 1.0, not the 1 typed)
    assert explain(g, prior=0.1) == explain(epsilon=1, delta=1e-5, prior=0.1)
    assert explain(g).inputs == {"epsilon": 1.0, "delta": 1e-5}
    with pytest.raises(BadInput, match="given already"):
        explain(g, epsilon=2)
    with pytest.raises(TypeError):
        explain(epsilon=1, colour="red")
    csv = EXAMPLES / "reconstruction.csv"
    by_value, by_fields = audit(csv, guarantee=Guarantee(epsilon=0.5)), audit(csv, epsilon=0.5)
    assert by_value.verdict == by_fields.verdict and by_value.p_value == by_fields.p_value
    assert by_value.claim == by_fields.claim
    with pytest.raises(TypeError):
        audit(csv, colour="red")


def test_audit_takes_the_dpsgd_accountant_and_pld_grid(capsys):
    """``privrisk audit --accountant rdp`` raised TypeError before the one value (issue 49)."""
    dpsgd = ["--noise-multiplier", "1.1", "--sample-rate", "0.01", "--steps", "600"]
    argv = [str(EXAMPLES / "scores.csv"), *dpsgd, "--delta", "1e-5"]
    assert audit_command.main([*argv, "--accountant", "rdp", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"accountant": "rdp"' in out and "DP-SGD" in out
    assert audit_command.main([*argv, "--pld-discretisation", "1e-3"]) == 0
    assert audit_command.main([*argv, "--accountant", "moments"]) == 2
    assert "--accountant: must be one of pld, rdp" in capsys.readouterr().err


def test_the_accounted_value_carries_the_value():
    g = Guarantee(rho=0.5, adjacency="add-remove")
    acc = account(g)
    assert acc.value is g and acc.kind == "zcdp" and acc.stated == g.stated == {"rho": 0.5}
    assert acc.adjacency == "add-remove" and not acc.adjacency_default
