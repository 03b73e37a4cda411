"""One deployment's card: the atlas reads each parameter set as the project's one guarantee value
(privrisk.explain.Guarantee), and `privrisk explain --deployment KEY` prints its full card."""

from __future__ import annotations

import dataclasses

import pytest

from privrisk.explain import Guarantee, explain
from privrisk.explain.atlas import adapter, cards, load


def test_every_parameter_set_is_read_as_the_one_guarantee_type():
    atlas = load()
    read = 0
    for e in atlas.entries:
        for p in e.parameters if e.published else ():
            try:
                r = adapter.guarantee(e, p)
            except adapter.NoCard:
                continue
            assert type(r.guarantee) is Guarantee
            read += 1
    assert read >= 30


def test_reading_is_the_guarantee_explain_takes():
    atlas = load()
    e = atlas.entry("census-dhc-2020")
    p = e.parameters[0]
    r = adapter.guarantee(e, p)
    assert r.guarantee == Guarantee(rho=p.rho, delta=p.delta, adjacency="replace-one")
    mine = adapter.card(r, prior=0.5)
    ref = explain(rho=p.rho, delta=p.delta, adjacency="replace-one", prior=0.5)
    assert mine.row("reconstruction.beta").value == ref.row("reconstruction.beta").value


def test_composed_reading_is_a_profile_guarantee():
    atlas = load()
    e = atlas.entry("google-vaccine-search")  # (ε, δ) per day: composed optimally, a profile
    r = cards._composed(e, e.parameters[0], 10, None)
    assert r.guarantee.kind == "profile"
    e = atlas.entry("wikimedia-pageviews-current")  # ρ per day: ρ adds up
    r2 = cards._composed(e, e.parameters[0], 10, None)
    assert r2.guarantee == Guarantee(rho=10 * e.parameters[0].rho, adjacency=r2.guarantee.adjacency)
    assert r.guarantee.curve.pairs[0][0] == 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.guarantee.epsilon = 1.0  # frozen: one value, never edited in place
