"""The one queries format: every run's member mask and query values round-trip with the record,
and malformed arrays are refused naming the query."""

import json

import numpy as np
import pytest

from privrisk.estimators import queries as Q


def test_roundtrip_and_split(tmp_path):
    member = np.array([[True, False, True, False], [False, True, False, True]])
    d = np.arange(8.0).reshape(2, 4)
    nn = np.arange(16.0).reshape(2, 4, 2)
    path = tmp_path / "m_queries.npz"
    Q.save(
        path,
        member=member,
        values={"d": d, "nn": nn},
        record={"n": 4, "x": np.float64(1.5)},
        corrupted=member,
    )
    assert json.loads((tmp_path / "m_record.json").read_text()) == {"n": 4, "x": 1.5}
    qs = Q.load(path)
    assert qs.runs == 2 and qs.values["d"].shape == (2, 4, 1) and qs.record["n"] == 4
    a, b = qs.split("d", 1)
    assert a[:, 0].tolist() == [5.0, 7.0] and b[:, 0].tolist() == [4.0, 6.0]
    a, _ = qs.split("nn", 0, 1)
    assert a.shape == (2, 1) and a[:, 0].tolist() == [1.0, 5.0]
    assert (qs.arrays["corrupted"] == member).all()
    with pytest.raises(KeyError, match="no query 'x'"):
        qs.split("x", 0)
    assert not list(tmp_path.glob("*.tmp*"))  # written under temporary names, then renamed


def test_malformed_queries_are_refused(tmp_path):
    member = np.array([[True, False, False]])
    with pytest.raises(ValueError, match="query 'd' has shape"):
        Q.save(tmp_path / "a_queries.npz", member=member, values={"d": np.zeros((1, 4))}, record={})
    with pytest.raises(ValueError, match="non-finite"):
        Q.save(
            tmp_path / "a_queries.npz",
            member=member,
            values={"d": np.array([[0, np.nan, 1]])},
            record={},
        )
    with pytest.raises(ValueError, match="members and hold-out"):
        Q.save(
            tmp_path / "a_queries.npz",
            member=np.ones((1, 3), bool),
            values={"d": np.zeros((1, 3))},
            record={},
        )
    with pytest.raises(ValueError, match="reserved"):
        Q.save(
            tmp_path / "a_queries.npz",
            member=member,
            values={"d": np.zeros((1, 3))},
            record={},
            q_x=member,
        )
