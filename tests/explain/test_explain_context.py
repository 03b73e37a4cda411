"""Is my ε acceptable? Every card places the guarantee among the published deployments of the same
unit, says what would change the reading (table size, prior, attacker knowledge), asks for
--records N and uses it for the reconstruction count, and keeps the worst-case sentence."""

from __future__ import annotations

import json
import math

import pytest

from privrisk.explain import context, explain
from privrisk.explain.rows import prob
from privrisk.pipeline import cli


def _ctx(card):
    (sec,) = [s for s in card.sections if s.key == "context"]
    return sec


def test_nearest_published_deployments_of_the_unit_side_by_side():
    card = explain(epsilon=8, unit="person")
    sec = _ctx(card)
    near = [r for r in sec.rows if r.key.startswith("context.nearest.")]
    assert len(near) == context.NEAREST
    pool = [d for d in context.published() if d["unit"] == "person"]
    dist = sorted(abs(math.log(d["epsilon"] / 8)) for d in pool)
    assert sorted(abs(math.log(r.value / 8)) for r in near) == pytest.approx(dist[: len(near)])
    assert all("unit: person" in r.attacker for r in near)
    # side by side: this guarantee among them, in order of ε
    values = [r.value for r in sec.rows]
    assert (
        values == sorted(values)
        and sec.rows[[r.key for r in sec.rows].index("context.this")].value == 8
    )
    # each with its period and the command for its own card
    assert all(("per " in r.text) and "--deployment" in r.attacker for r in near)


def test_published_epsilons_are_as_printed_or_converted():
    by_key = {d["key"]: d for d in context.published()}
    assert by_key["census-dhc-2020/persons"]["epsilon"] == 26.34  # printed beside its ρ
    from privrisk.explain.atlas import adapter

    d = by_key["census-sdhc-2020"]  # ρ only: the tight conversion at 10⁻⁵
    assert d["epsilon"] == pytest.approx(adapter.zcdp_tight(2.515, 1e-5)) and d["delta"] == 1e-5


def test_without_a_unit_every_unit_is_compared_and_the_card_says_so():
    sec = _ctx(explain(epsilon=1))
    assert any("Unit: not given" in n and "--unit" in n for n in sec.notes)
    assert any(r.key.startswith("context.nearest.") for r in sec.rows)


def test_a_deployment_is_compared_with_others_of_its_unit():
    card = explain(deployment="census-dhc-2020/persons")
    near = [r for r in _ctx(card).rows if r.key.startswith("context.nearest.")]
    assert near and all("unit: person" in r.attacker for r in near)
    assert not any("census-dhc-2020" in r.source for r in near)  # not itself


def test_records_sets_the_count_row_and_is_asked_for():
    plain = explain(epsilon=3, prior=0.1)
    assert "give --records N" in plain.setting("records").text
    assert any(n.startswith("How many people are in your table?") for n in _ctx(plain).notes)
    card = explain(epsilon=3, prior=0.1, records=10_000)
    q = card.row("reconstruction.quantiles")
    assert "of 10,000" in q.label and card.setting("targets").value == 10_000
    ref = explain(epsilon=3, prior=0.1, targets=10_000)
    assert q.values == ref.row("reconstruction.quantiles").values
    assert any(f"at most {int(q.value):,} are reconstructed" in n for n in _ctx(card).notes)
    big = explain(epsilon=3, prior=0.1, records=2_000_000)
    assert (
        big.setting("targets").value == 100_000 and "100,000 of them" in big.setting("records").text
    )


def test_prior_note_is_the_beta_row_at_other_priors():
    card = explain(epsilon=2)
    (note,) = [n for n in _ctx(card).notes if n.startswith("The attribute's prior")]
    for p in context.OTHER_PRIORS:
        b = explain(epsilon=2, prior=p).row("reconstruction.beta").value
        assert f"{prob(b)} at prior {prob(p)}" in note


def test_worst_case_sentence_kept_and_no_reassurance_at_the_end():
    card = explain(epsilon=8, records=10_000)
    assert card.reading.startswith("No meaningful worst-case protection")
    assert "usually do worse" not in card.reading
    assert card.reading.endswith("the guarantee promises no more than these bounds.")
    notes = _ctx(card).notes
    assert "not promised to do worse" in notes[-1]


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["--epsilon", "1", "--unit", "galaxy"], "--unit"),
        (["--epsilon", "1", "--records", "0"], "--records"),
        (["--epsilon", "1", "--records", "ten"], "--records"),
        (["--epsilon", "1", "--records", "10", "--targets", "11"], "--targets"),
    ],
)
def test_bad_context_input_is_one_line_exit_2(capsys, argv, flag):
    assert cli.main(["explain", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"privrisk explain: error: {flag}")


def test_saved_card_with_context_loads(tmp_path, capsys):
    assert (
        cli.main(["explain", "--epsilon", "8", "--records", "500", "--unit", "user", "--json"]) == 0
    )
    out = capsys.readouterr().out
    path = tmp_path / "c.json"
    path.write_text(out)
    assert cli.main(["explain", "--load", str(path)]) == 0
    capsys.readouterr()
    d = json.loads(out)
    (sec,) = [s for s in d["sections"] if s["key"] == "context"]
    sec["rows"][0]["value"] = 123.0
    path.write_text(json.dumps(d))
    assert cli.main(["explain", "--load", str(path)]) == 2
