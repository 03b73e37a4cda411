"""Every qualitative statement of pankova2022 on a constructed curve where it holds and one where
it is false: no check is always true."""

from __future__ import annotations

import numpy as np
import pytest

from privrisk.papers.pankova2022 import claims

X = np.linspace(0.1, 3, 30)
KW = dict(figure="f", claim_id="c", claim="s")


def test_agrees():
    closed = 1 / (1 + np.exp(X / 2))
    assert (
        claims.agrees(numeric=closed + 5e-4, closed_form=closed, atol=1e-3, **KW).status
        == "qualitative-ok"
    )
    assert (
        claims.agrees(numeric=np.full_like(X, 0.5), closed_form=closed, atol=1e-3, **KW).status
        == "qualitative-fails"
    )


def test_below():
    bound = 1 / (1 + np.exp(-X))
    assert claims.below(x=X, values=bound - 0.01, bound=bound, **KW).status == "qualitative-ok"
    above = bound.copy()
    above[5] += 0.02  # an attack above the bound at one ε
    assert claims.below(x=X, values=above, bound=bound, **KW).status == "qualitative-fails"


def test_looser():
    tight = 1 / (1 + 19 * np.exp(-X))
    assert (
        claims.looser(x=X, loose=np.minimum(3 * tight, 1), tight=tight, **KW).status
        == "qualitative-ok"
    )
    assert (
        claims.looser(x=X, loose=tight * 1.01, tight=tight, **KW).status == "qualitative-fails"
    )  # barely
    assert (
        claims.looser(x=X, loose=tight * 0.9, tight=tight, **KW).status == "qualitative-fails"
    )  # tighter


def test_exceeds():
    ref = 0.05 * X
    assert claims.exceeds(x=X, values=2 * ref, reference=ref, **KW).status == "qualitative-ok"
    assert (
        claims.exceeds(x=X, values=ref, reference=ref, **KW).status == "qualitative-fails"
    )  # equal: not larger
    smaller = 2 * ref
    smaller[3] = 0.9 * ref[3]
    assert claims.exceeds(x=X, values=smaller, reference=ref, **KW).status == "qualitative-fails"


@pytest.mark.parametrize(
    ("rate", "half", "status"),
    [
        (0.50, 0.01, "qualitative-ok"),  # interval wholly below the bound 0.6
        (0.70, 0.01, "qualitative-fails"),  # wholly above
        (0.59, 0.02, "uninformative"),  # straddles it
    ],
)
def test_attack_below_bound(rate, half, status):
    x = np.array([1.0])
    c = claims.attack_below_bound(
        figure="f",
        claim_id="c",
        claim="s",
        x=x,
        rate=[rate],
        lo=[rate - half],
        hi=[rate + half],
        bound=[0.6],
        what="attack",
    )
    assert c.status == status
