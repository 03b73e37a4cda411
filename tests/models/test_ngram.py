"""The lazy character n-gram model of swanberg2025 Figure 3."""

import numpy as np
import pytest
import torch

from privrisk.models import ngram
from privrisk.priors import scaled_prior


def test_model_starts_from_the_prior_and_features_are_shared():
    prior = np.stack([scaled_prior("password"), scaled_prior("uniform")])
    h, init = ngram.lazy_setup(prior, [3, 1, 4, 1, 5, 9, 2, 6], hidden=16, dtype=torch.float64)
    assert h.shape == (16,) and init["weight"].shape == (2, 10, 16)
    np.testing.assert_allclose(
        torch.softmax(ngram.lazy_logits(init, h), 1).numpy(), prior, rtol=1e-12
    )
    net = ngram.NGramMLP(hidden=16)
    with pytest.raises(ValueError, match="context"):
        net.features(torch.zeros(1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="positive"):
        ngram.lazy_setup(np.array([[1.0, 0.0]]), [1])
