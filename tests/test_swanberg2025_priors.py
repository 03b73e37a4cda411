"""Priors over secrets: analytic Zipf, the PII prior (stand-in and Enron path), the 10-value scaling."""

import numpy as np
import pytest

from privrisk.data import enron
from privrisk.priors import canary, password_summary, pii, scaled_prior


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
    np.testing.assert_allclose(scaled_prior("password"), [0.3731, 0.1741, 0.1114, 0.0812, 0.0635, 0.0520, 0.0439,
                                                          0.0379, 0.0333, 0.0296], atol=1e-4)
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


def _write_maildir(root):
    msgs = {
        "allen-p/inbox/1.": "Subject: gas\n\nPlease ask John Smith about the schedule for next week today. Thanks.",
        "allen-p/inbox/2.": "Subject: hi\n\nMary Johnson will send the signed contract to the desk tomorrow morning.",
        "bass-e/sent/1.": "Subject: x\n\nNo names here at all in this rather short note about gas prices.",
        "bass-e/sent/2.": "Subject: y\n\nI met Robert Brown and Linda Davis at the meeting yesterday afternoon ok.",
    }
    for rel, text in msgs.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_enron_loader_on_a_small_maildir(tmp_path):
    md = tmp_path / "raw" / "enron" / "maildir"
    _write_maildir(md)
    seqs, truths = enron.masked_name_sequences(md, n=10, seed=0)
    assert sorted(truths) == ["John Smith", "Mary Johnson"]  # the two-name sentence is skipped
    assert all(pii.MASK in s for s in seqs)
    prior = pii.build(source="auto", raw_dir=tmp_path / "raw", n_sequences=10, scorer="namefreq")
    assert prior.source == "real" and prior.candidates.size == 2


def test_enron_missing_dir_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="maildir"):
        list(enron.read_bodies(tmp_path / "nope"))
    with pytest.raises(ValueError, match="no sentence"):
        (tmp_path / "m" / "u").mkdir(parents=True)
        (tmp_path / "m" / "u" / "1.").write_text("Subject: a\n\nnothing to see")
        enron.masked_name_sequences(tmp_path / "m")
