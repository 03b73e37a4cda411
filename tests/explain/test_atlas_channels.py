"""Local-DP deployments through their channel: randomized response is the ε-DP bound; the count
mean sketches are pinned against brute-force enumeration of small instances; every channel stays
under the ε-DP bound of its ε; the atlas uses the channel where its source publishes it and says
"shown as ε-DP" where it does not."""

from __future__ import annotations

import copy
import itertools
import math

import numpy as np
import pytest
import yaml

from privrisk.explain import explain
from privrisk.explain.atlas import cards, channels, schema


def _rr_bound(eps, p):  # the ε-DP bound on one guess of a yes/no secret, replace-one
    return explain(epsilon=eps, prior=p, adjacency="replace-one").row("reconstruction.beta").value


@pytest.mark.parametrize("eps", [0.5, 2.0, 8.0])
def test_randomized_response_is_the_eps_dp_bound(eps):
    ch = channels.Channel("rr", eps)
    assert ch.advantage() == pytest.approx(math.tanh(eps / 2), rel=1e-12)
    # a yes/no secret at even odds: the ε-DP bound is reached (randomized response is extremal)
    assert ch.binary_success(0.5) == pytest.approx(_rr_bound(eps, 0.5), rel=1e-9)
    for p in (0.6, 0.9):  # at other odds, below it (the bound is the posterior's, not a guess's)
        assert max(p, 1 - p) <= ch.binary_success(p) <= _rr_bound(eps, p) + 1e-12
    assert ch.reconstruction(0.5) == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))


def _cms_likelihoods(eps, m):
    """P(y | bucket b) for every y in {±1}^m (rows) and bucket b (columns), by enumeration."""
    q = math.exp(eps / 2) / (1 + math.exp(eps / 2))
    ys = np.array(list(itertools.product((1, -1), repeat=m)))
    P = np.ones((len(ys), m))
    for b in range(m):
        x = -np.ones(m)
        x[b] = 1
        P[:, b] = np.prod(np.where(ys == x, q, 1 - q), axis=1)
    return P


@pytest.mark.parametrize("eps, m", [(1.0, 3), (4.0, 4), (8.0, 5)])
def test_cms_against_enumeration(eps, m):
    P = _cms_likelihoods(eps, m)
    ch = channels.Channel("cms", eps, m)
    assert ch.advantage() == pytest.approx(0.5 * np.abs(P[:, 0] - P[:, 1]).sum(), rel=1e-12)
    for p in (0.2, 0.5):
        brute = np.maximum(p * P[:, 0], (1 - p) * P[:, 1]).sum()
        assert ch.binary_success(p) == pytest.approx(brute, rel=1e-12)
    assert ch.guess_sum() == pytest.approx(P.max(axis=1).sum(), rel=1e-12)


def _hadamard(m):
    H = np.array([[1]])
    while H.shape[0] < m:
        H = np.block([[H, H], [H, -H]])
    return H


@pytest.mark.parametrize("eps, m", [(1.0, 4), (4.0, 8)])
def test_hcms_against_enumeration(eps, m):
    q = math.exp(eps) / (1 + math.exp(eps))
    H = _hadamard(m)
    # outputs (l, bit), l uniform over the m coordinates; P[output, row]
    P = np.array(
        [
            [(q if bit == H[x, l] else 1 - q) / m for x in range(m)]
            for l in range(m)
            for bit in (1, -1)
        ]
    )
    ch = channels.Channel("hcms", eps)
    for a, b in [(1, 2), (0, 3)]:
        assert ch.advantage() == pytest.approx(0.5 * np.abs(P[:, a] - P[:, b]).sum(), rel=1e-12)
        brute = np.maximum(0.3 * P[:, a], 0.7 * P[:, b]).sum()
        assert ch.binary_success(0.3) == pytest.approx(brute, rel=1e-12)
    # one bit: S <= 2q (the all-ones first column makes it a little less for this H)
    assert P.max(axis=1).sum() <= ch.guess_sum() + 1e-12


@pytest.mark.parametrize("kind, m", [("rr", None), ("cms", 16), ("cms", 1024), ("hcms", None)])
@pytest.mark.parametrize("eps", [0.5, 4.0, 8.0])
def test_every_channel_is_within_the_eps_dp_bound(kind, m, eps):
    ch = channels.Channel(kind, eps, m)
    assert ch.advantage() <= math.tanh(eps / 2) + 1e-12
    for p in (0.5, 0.7, 0.95):  # a yes/no secret whose likelier value has prior p
        assert ch.binary_success(p) <= _rr_bound(eps, p) + 1e-9
    for p in (0.01, 0.3, 0.5):  # a secret whose likeliest value has prior p
        assert p <= ch.reconstruction(p) <= _rr_bound(eps, p) + 1e-9


def test_atlas_reads_published_channels_and_says_so_elsewhere():
    atlas = schema.load()
    (auto,) = cards.entry_headlines(atlas.entry("apple-autoplay"))
    ch = channels.Channel("cms", 8.0, 1024)
    assert auto.membership_advantage == ch.advantage()
    assert auto.posterior == ch.binary_success(cards.PRIOR)
    assert auto.reconstruction == ch.reconstruction(cards.RECONSTRUCTION_PRIOR)
    assert "through its channel" in auto.note and "m = 1,024" in auto.note
    (hc,) = cards.entry_headlines(atlas.entry("apple-safari-energy"))
    assert hc.membership_advantage == pytest.approx(math.tanh(2.0) / 2)
    (emoji,) = cards.entry_headlines(atlas.entry("apple-emoji"))  # CMS, but no m printed
    assert "shown as ε-DP" in emoji.note
    for e in atlas.entries:
        if e.published and e.model != "central":
            for h in cards.entry_headlines(e):
                assert "through its channel" in h.note or "ε-DP" in h.note, h.key
    # a channel reads a stated mechanism only: central entries have none
    assert not [p for e in atlas.entries if e.model == "central" for p in e.parameters if p.channel]


RAW = yaml.safe_load(schema.DATA.read_text(encoding="utf-8"))


def _with(key, channel):
    doc = copy.deepcopy(RAW)
    e = next(x for x in doc["entries"] if x["key"] == key)
    e["parameters"][0]["channel"] = channel
    return doc


@pytest.mark.parametrize(
    "key, channel, message",
    [
        ("apple-emoji", {"kind": "cms", "text": "x"}, "cms needs m"),
        ("apple-emoji", {"kind": "olh", "text": "x"}, "kind one of"),
        ("apple-emoji", {"kind": "rr", "m": 4, "text": "x"}, "m applies only to cms"),
        ("apple-emoji", {"kind": "rr"}, "text"),
        ("google-mobility", {"kind": "rr", "text": "x"}, "only a local randomizer"),
        ("enpa", {"kind": "rr", "text": "x"}, "pure ε only"),
    ],
)
def test_bad_channels_are_refused_in_one_line(key, channel, message):
    with pytest.raises(schema.AtlasError, match=message):
        schema.validate(_with(key, channel))


def test_json_names_the_channel(capsys):
    import json

    from privrisk.explain.atlas import command

    assert command.main(["--json", "--key", "apple-healthkit"]) == 0
    d = json.loads(capsys.readouterr().out)
    (e,) = [x for x in d["entries"] if x["key"] == "apple-healthkit"]
    card = e["cards"][0]
    assert card["channel"] == channels.Channel("cms", 2.0, 256).name
    assert card["membership_advantage"] == channels.Channel("cms", 2.0, 256).advantage()


def test_the_deployment_card_states_the_channel_or_that_there_is_none():
    c = explain(deployment="apple-autoplay")
    text = c.setting("atlas.channel").text
    ch = channels.Channel("cms", 8.0, 1024)
    assert ch.name in text and f"{ch.reconstruction(0.01):.3g}" in text
    assert (
        "not published in enough detail"
        in explain(deployment="apple-emoji").setting("atlas.channel").text
    )
    with pytest.raises(KeyError):
        explain(deployment="census-dhc-2020").setting("atlas.channel")
