"""Priors over secrets: analytic Zipf, the PII prior (stand-in and Enron path), the 10-value scaling."""

import numpy as np
import pytest

from privrisk.priors import canary, password_summary, pii, scaled_prior
from tests.data.test_enron import write_maildir


def test_harmonic_closed_form():
    n, s = 10_000, 1.1
    assert canary.harmonic(n, s) == pytest.approx(np.sum(np.arange(1, n + 1) ** -s), rel=1e-12)


def test_password_summary():
    pw = password_summary()
    assert pw["max"] == pytest.approx(0.1072, abs=1e-4)  # spec: 1/H_{1e9, 1.1}
    assert pw["min"] < pw["median"] < 1e-9 < pw["max"]
    assert password_summary(support=1e3)["max"] == pytest.approx(0.179, abs=1e-3)
    assert password_summary(s=1.2)["max"] == pytest.approx(0.181, abs=1e-3)
    with pytest.raises(ValueError):
        canary.zipf_prior(0)


def test_scaled_priors():
    np.testing.assert_allclose(
        scaled_prior("password"),
        [0.3731, 0.1741, 0.1114, 0.0812, 0.0635, 0.0520, 0.0439, 0.0379, 0.0333, 0.0296],
        atol=1e-4,
    )
    np.testing.assert_allclose(scaled_prior("uniform"), 0.1)
    p = scaled_prior("pii", pii_pooled=np.array([0.5, 0.1] + [0.02] * 20))
    assert p.sum() == pytest.approx(1) and p[0] == pytest.approx(0.5 / 0.76)
    with pytest.raises(ValueError, match="unknown prior"):
        scaled_prior("names")


def test_pii_standin_prior_is_skewed_and_deterministic():
    a = pii.build(source="standin", n_sequences=300, seed=5)
    b = pii.build(source="standin", n_sequences=300, seed=5)
    np.testing.assert_array_equal(a.priors, b.priors)
    np.testing.assert_allclose(a.priors.sum(axis=1), 1)
    s = a.summary()
    assert s["p10"] < s["median"] < s["max"] and s["max"] > 100 * s["median"] * 0.01
    assert a.source == "standin" and a.scorer == "namefreq"
    assert all(pii.MASK in q for q in a.sequences)


def test_gender_cue_shifts_the_prior():
    cands = np.array(["James Smith", "Mary Smith"])
    logs = pii.namefreq_scores([f"Mr. {pii.MASK} called.", f"Ms. {pii.MASK} called."], cands)
    pr = pii.normalise(logs)
    assert pr[0, 0] > 0.9 and pr[1, 1] > 0.9


def test_prior_summaries():
    from privrisk.priors import prior_summary, zipf_quantile_prior

    u = prior_summary("uniform")
    assert u["min"] == u["p10"] == u["median"] == u["max"] == 1e-9
    pw = prior_summary("password")
    assert pw["median"] == pytest.approx(zipf_quantile_prior(0.5)) and pw["max"] == pytest.approx(
        zipf_quantile_prior(1)
    )
    assert pw["min"] < pw["p10"] < pw["median"] < pw["max"]
    # p10: rank 9e8 of Zipf(1.1) over 1e9, computed by hand
    assert pw["p10"] == pytest.approx(9e8**-1.1 / canary.harmonic(1e9, 1.1), rel=1e-12)
    s = prior_summary("pii", source="standin", n_sequences=200, seed=1)
    assert s["p10"] <= s["median"] <= s["max"] and "standin" in s["description"]
    with pytest.raises(ValueError):
        prior_summary("names")


def test_scaled_pii_forwards_build_options_and_rejects_stray_options():
    a = scaled_prior("pii", source="standin", n_sequences=200, seed=1)
    b = scaled_prior("pii", pii_pooled=pii.build(source="standin", n_sequences=200, seed=1).pooled)
    np.testing.assert_allclose(a, b)
    assert a.size == 10 and np.all(np.diff(a) <= 0)
    with pytest.raises(TypeError):
        scaled_prior("password", n_sequences=3)


class _FakeLM:
    """Stands in for GPT-2: log-likelihood 5 higher for candidates whose last name the context mentions."""

    def score(self, sequences, candidates, per_token=False):
        assert not per_token
        return np.array(
            [[5.0 * (c.split()[1].lower() in s.lower()) for c in candidates] for s in sequences]
        )


def test_lm_scorer_path_with_a_mocked_model():
    seqs = [f"{pii.MASK} wrote to the Adams family.", f"Ask {pii.MASK} about the Smith account."]
    prior = pii.from_sequences(
        seqs, ["Zoe Adams", "Ann Smith"], source="real", scorer="gpt2", lm_scorer=_FakeLM()
    )
    np.testing.assert_allclose(prior.priors.sum(axis=1), 1)
    assert prior.scorer == "gpt2"
    zoe = list(prior.candidates).index("Zoe Adams")
    np.testing.assert_allclose(prior.priors[:, zoe], [1 / (1 + np.exp(-5)), 1 / (1 + np.exp(5))])
    with pytest.raises(ValueError, match="unknown scorer"):
        pii.from_sequences(seqs, ["Zoe Adams", "Ann Smith"], source="real", scorer="bert")


def test_gpt2_requested_without_weights_is_a_clear_error(tmp_path):
    md = tmp_path / "raw" / "enron" / "maildir"
    write_maildir(md)
    if pii.Gpt2Scorer.try_load() is not None:  # pragma: no cover - machines with GPT-2 weights
        pytest.skip("GPT-2 weights are available here")
    with pytest.raises(FileNotFoundError, match="gpt2"):
        pii.build(source="real", path=md, n_sequences=5, scorer="gpt2")


def test_inverse_perplexity_normalisation_is_the_per_word_tempered_likelihood():
    seqs = [f"Mr. {pii.MASK} called.", f"Please ask {pii.MASK} to send the curves today."]
    truths = ["James Smith", "Mary Jones"]
    lik = pii.from_sequences(seqs, truths, source="standin")
    ppl = pii.from_sequences(seqs, truths, source="standin", normalisation="inverse_perplexity")
    logs = pii.namefreq_scores(seqs, lik.candidates)
    words = np.array([[4.0, 4.0], [9.0, 9.0]])  # whitespace tokens of each filled-in sequence
    np.testing.assert_allclose(ppl.priors, pii.normalise(logs / words), rtol=1e-12)
    # 1/perplexity is much flatter than the likelihood
    assert (
        np.ptp(ppl.priors[0]) < np.ptp(lik.priors[0])
        and ppl.info["normalisation"] == "inverse_perplexity"
    )
    with pytest.raises(ValueError, match="normalisation"):
        pii.from_sequences(seqs, truths, source="standin", normalisation="softmax")


def test_tempered_prior_reaches_the_top_mass_and_keeps_the_order():
    from privrisk.priors import tempered

    p = np.array([0.108, 0.105, 0.1, 0.1, 0.1, 0.099, 0.098, 0.097, 0.097, 0.096])
    p = p / p.sum()
    q = tempered(p, top_mass=0.5)
    assert q.max() == pytest.approx(0.5, abs=1e-9) and q.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(np.argsort(-q, kind="stable"), np.argsort(-p, kind="stable"))
    # t = 1 is the identity; flattening works too; zeros stay zero
    np.testing.assert_allclose(tempered(p, top_mass=p.max()), p, atol=1e-9)
    assert tempered(p, top_mass=0.102).max() == pytest.approx(0.102)
    z = tempered(np.array([0.6, 0.4, 0.0]), top_mass=0.9)
    assert z[2] == 0 and z[0] == pytest.approx(0.9)
    with pytest.raises(ValueError, match="top_mass"):
        tempered(p, top_mass=0.05)
    with pytest.raises(ValueError, match="uniform"):
        tempered(np.full(4, 0.25), top_mass=0.5)
