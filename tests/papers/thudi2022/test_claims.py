"""Every qualitative statement of thudi2022 on a constructed curve where it holds and one where
it is false: no check is always true."""

from __future__ import annotations

import numpy as np

from privrisk.papers.thudi2022 import claims

T = np.linspace(1 / 6, 1, 200)
P = np.linspace(0.001, 0.999, 999)
KW = dict(figure="f", claim_id="c", claim="s")


def test_unbounded_vs_constant():
    assert (
        claims.unbounded_vs_constant(t=T, grows=(1 - T) / T, bounded=np.exp(-T), **KW).status
        == "qualitative-ok"
    )
    # two bounded curves: the statement is false
    assert (
        claims.unbounded_vs_constant(t=T, grows=1.5 * np.exp(-T), bounded=np.exp(-T), **KW).status
        == "qualitative-fails"
    )


def test_lowest():
    x = np.linspace(0, 5, 50)
    ours, other = 1 / (1 + np.exp(-x)), 1 - np.exp(-x) / 2
    assert claims.lowest(x=x, ours=ours, others={"o": other}, **KW).status == "qualitative-ok"
    assert claims.lowest(x=x, ours=other, others={"o": ours}, **KW).status == "qualitative-fails"
    assert (
        claims.lowest(x=x, ours=ours, others={"o": ours}, **KW).status == "qualitative-fails"
    )  # never lower


def test_closer_to():
    x = np.linspace(0, 5, 51)
    ours = 1 / (1 + np.exp(-x))
    sab, erl = np.minimum(0.5 + x / 4, 1), 1 - np.exp(-x) / 2
    ok = claims.closer_to(x=x, ours=ours, small=("S", sab), large=("E", erl), **KW)
    assert ok.status == "qualitative-ok"
    swapped = claims.closer_to(x=x, ours=ours, small=("E", erl), large=("S", sab), **KW)
    assert swapped.status == "qualitative-fails"


def test_increasing():
    assert claims.increasing(x=P, curves={"a": P**0.5}, **KW).status == "qualitative-ok"
    assert (
        claims.increasing(x=P, curves={"a": P**0.5, "b": np.sin(3 * P)}, **KW).status
        == "qualitative-fails"
    )


def test_bump():
    hump = P * (1 - P) ** 3
    assert claims.bump(p=P, y=hump, away_from=0.5, **KW).status == "qualitative-ok"
    assert claims.bump(p=P, y=P, **KW).status == "qualitative-fails"  # monotone
    assert (
        claims.bump(p=P, y=P * (1 - P), away_from=0.5, **KW).status == "qualitative-fails"
    )  # peak at 0.5


def test_tends_to():
    a = np.linspace(-100, 100, 401)
    assert (
        claims.tends_to(x=a, y=1 / (1 + np.exp(a / 20)), limit=1, **KW).status == "qualitative-ok"
    )
    assert (
        claims.tends_to(x=a, y=0.8 / (1 + np.exp(a / 20)), limit=1, **KW).status
        == "qualitative-fails"
    )


def test_high_then_marginally_lower():
    c = np.linspace(0.5, 200, 100)
    assert (
        claims.high_then_marginally_lower(
            c=c, ours=np.maximum(1e4 / c, 0.8 * c), linear=c, **KW
        ).status
        == "qualitative-ok"
    )
    assert (
        claims.high_then_marginally_lower(c=c, ours=6000 / c, linear=c, **KW).status
        == "qualitative-fails"
    )
    assert (
        claims.high_then_marginally_lower(c=c, ours=2 * c, linear=c, **KW).status
        == "qualitative-fails"
    )
