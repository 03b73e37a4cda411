"""Malformed Enron maildirs are refused with a DataFormatError naming the maildir."""

import pytest

from privrisk.data import enron
from privrisk.data.tabular import DataFormatError
from privrisk.priors import pii

SENTENCE = "Please ask {} about the schedule for next week today. Thanks."


def write_mails(root, names):
    for i, name in enumerate(names):
        p = root / "user" / "inbox" / f"{i + 1}."
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("Subject: s\n\n" + SENTENCE.format(name))
    return root


def test_every_mail_naming_the_same_person_is_a_clear_error(tmp_path):
    md = write_mails(tmp_path / "maildir", ["John Smith"] * 5)
    with pytest.raises(DataFormatError, match="name the same person, 'John Smith'") as err:
        enron.load({"source": "real", "path": str(md)}, n=10)
    assert str(md) in str(err.value)
    # the path the pipeline takes (the PII prior) reports the same, not "p must be in [0, 1)"
    with pytest.raises(DataFormatError, match="at least two distinct names"):
        pii.build(source="auto", path=md, n_sequences=10, scorer="namefreq")


def test_two_distinct_names_are_enough(tmp_path):
    md = write_mails(tmp_path / "maildir", ["John Smith"] * 4 + ["Mary Johnson"])
    _, truths, src = enron.load({"source": "real", "path": str(md)}, n=10)
    assert src == "real-unverified" and sorted(set(truths)) == ["John Smith", "Mary Johnson"]


def test_maildir_without_usable_sentences_names_the_folder(tmp_path):
    md = tmp_path / "maildir"
    (md / "u").mkdir(parents=True)
    (md / "u" / "1.").write_text("Subject: a\n\nnothing to see")
    with pytest.raises(DataFormatError, match="no sentence with exactly one census name") as err:
        enron.load({"source": "auto", "path": str(md)})
    assert str(md) in str(err.value)
    (md / "u" / "1.").unlink()  # an empty maildir: the same error, not an empty prior
    with pytest.raises(DataFormatError, match=str(md)):
        enron.load({"source": "auto", "path": str(md)})
