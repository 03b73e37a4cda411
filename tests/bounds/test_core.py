"""The shared posterior formula σ(s + logit p) and the three papers' bounds that are built on it."""

import numpy as np
import pytest

from privrisk.bounds import attribute, core, membership, reconstruction


def test_three_papers_share_one_bound():
    eps = np.array([0.0, 0.3, 1.0, 4.0, 30.0, np.inf])[:, None]
    p = np.array([0.0, 1e-9, 0.1, 0.5, 0.99, 1.0])[None, :]
    u = membership.positive_accuracy_upper(epsilon=eps, p=p)
    np.testing.assert_allclose(u, reconstruction.beta_pure(epsilon=eps, p=p), rtol=1e-15)
    np.testing.assert_allclose(
        u, attribute.posterior_simplified(epsilon=eps, p=p, R=1.0), rtol=1e-15
    )


def test_sigmoid_shift_edges_and_closed_form():
    assert core.sigmoid_shift(np.inf, 0.0) == 0.0
    assert core.sigmoid_shift(-np.inf, 1.0) == 1.0
    assert core.sigmoid_shift(np.inf, 0.2) == 1.0 and core.sigmoid_shift(-np.inf, 0.2) == 0.0
    assert core.sigmoid_shift(1.0, 0.25) == pytest.approx(0.25 * np.e / (0.25 * np.e + 0.75))
    with pytest.raises(ValueError, match="p must"):
        core.check_epsilon_p(epsilon=1.0, p=1.5)
