"""The Enron loader: masked-name sequences from a maildir, the stand-in, and how the source is chosen."""

import numpy as np
import pytest

from privrisk.data import enron, sources
from privrisk.data.sources import DataUnavailable
from privrisk.priors import pii


def write_maildir(root):
    """A small CMU-style maildir: two usable emails, one without names, one with two names."""
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
    write_maildir(md)
    seqs, truths = enron.masked_name_sequences(md, n=10, seed=0)
    assert sorted(truths) == ["John Smith", "Mary Johnson"]  # the two-name sentence is skipped
    assert all(pii.MASK in s for s in seqs)
    prior = pii.build(source="auto", path=md, n_sequences=10, scorer="namefreq")
    assert prior.source == "real-unverified" and prior.candidates.size == 2


def test_enron_missing_dir_is_a_clear_error(tmp_path):
    with pytest.raises(DataUnavailable, match="maildir"):
        list(enron.read_bodies(tmp_path / "nope"))
    with pytest.raises(DataUnavailable, match="maildir"):
        enron.load({"source": "real", "path": str(tmp_path / "nope")})
    with pytest.raises(ValueError, match="no sentence"):
        (tmp_path / "m" / "u").mkdir(parents=True)
        (tmp_path / "m" / "u" / "1.").write_text("Subject: a\n\nnothing to see")
        enron.masked_name_sequences(tmp_path / "m")


def test_source_resolution_and_standin(tmp_path):
    md = tmp_path / "maildir"
    block = {"source": "auto", "path": str(md)}
    assert (
        sources.resolve("enron", block) == "standin" and sources.rule_inputs("enron", block) == []
    )
    seqs, truths, src = enron.load(block, n=20, seed=3)
    assert (
        src == "standin" and len(seqs) == len(truths) == 20 and all(enron.MASK in s for s in seqs)
    )
    assert (seqs, truths) == enron.synthetic_sequences(20, 3)
    write_maildir(md)
    assert sources.resolve("enron", block) == "real" and sources.rule_inputs("enron", block) == [
        str(md)
    ]
    _, truths, src = enron.load(block, n=10, seed=0)
    assert src == "real-unverified" and sorted(truths) == ["John Smith", "Mary Johnson"]
    assert enron.load({"source": "standin", "path": str(md)}, n=5, seed=0)[2] == "standin"
    with pytest.raises(ValueError, match="bundled-real"):
        enron.load({"source": "bundled-real", "path": str(md)})
    assert np.isfinite(pii.build(source="standin", path=md, n_sequences=20, seed=0).priors).all()
