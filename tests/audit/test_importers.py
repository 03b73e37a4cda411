"""Importers, each tested on a fixture written the way the tool itself writes it.

* ML Privacy Meter (``audit.py``, ``get_audit_results``): ``np.savez(f"{report_dir}/
  attack_result_{model_idx}", fpr=…, tpr=…, auc=…, one_tenth_fpr=…, zero_fpr=…,
  scores=mia_scores.ravel(), memberships=target_memberships.ravel())`` with the ROC from
  ``sklearn.metrics.roc_curve`` and memberships a boolean row of its membership matrix.
* LeakPro (``MIAResult.save``): ``json.dump(self.result.model_dump(), f, default=json_fallback)``
  of ``MIAResultSchema`` (fields below), ndarray → list through the fallback.
* jax_privacy: ``CanaryScoreAuditor(in_canary_scores, out_canary_scores)`` takes two arrays; the
  fixture holds them under those names.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from privrisk.audit import audit
from privrisk.audit.errors import AuditInputError


@pytest.fixture
def scores():
    rng = np.random.default_rng(4)
    inside, outside = rng.normal(1.0, 1.0, 300), rng.normal(0.0, 1.0, 400)
    return inside, outside


def _reference(inside, outside, **kw):
    return audit(
        {
            "score": np.r_[inside, outside],
            "member": np.r_[np.ones(inside.size), np.zeros(outside.size)],
        },
        **kw,
    )


def _same(a, b):
    assert a.epsilon_lower == b.epsilon_lower
    assert a.mu_lower == b.mu_lower
    assert (a.n_members, a.n_nonmembers) == (b.n_members, b.n_nonmembers)
    assert a.groups[0].tpr_at_fpr == b.groups[0].tpr_at_fpr


def test_ml_privacy_meter_attack_result_npz(tmp_path, scores):
    from sklearn.metrics import auc, roc_curve

    inside, outside = scores
    order = np.random.default_rng(0).permutation(inside.size + outside.size)
    mia_scores = np.r_[inside, outside][order]
    memberships = np.r_[np.ones(inside.size, bool), np.zeros(outside.size, bool)][order]
    fpr, tpr, _ = roc_curve(memberships.ravel(), mia_scores.ravel())
    path = tmp_path / "attack_result_0.npz"
    np.savez(
        tmp_path / "attack_result_0",
        fpr=fpr,
        tpr=tpr,
        auc=auc(fpr, tpr),
        one_tenth_fpr=tpr[np.where(fpr <= 0.001)[0][-1]],
        zero_fpr=tpr[np.where(fpr <= 0.0)[0][-1]],
        scores=mia_scores.ravel(),
        memberships=memberships.ravel(),
    )
    r = audit(path, epsilon=1)
    assert r.inputs["importer"] == "ml-privacy-meter"
    _same(r, _reference(inside, outside, epsilon=1))
    assert r.p_value == _reference(inside, outside, epsilon=1).p_value


def _leakpro_dump(true_membership, signal_values):
    """MIAResult.from_full_scores(...).result.model_dump(), as LeakPro computes it."""
    true = np.ravel(true_membership)
    sig = np.ravel(signal_values)
    idx = np.argsort(-sig)
    lab, srt = true[idx], sig[idx]
    tp_c, fp_c = np.cumsum(lab == 1), np.cumsum(lab == 0)
    _, first = np.unique(srt, return_index=True)
    first = first[::-1]
    tp, fp = tp_c[first], fp_c[first]
    fn, tn = np.sum(lab == 1) - tp, np.sum(lab == 0) - fp
    fpr, tpr = fp / (fp + tn), tp / (tp + fn)
    return {
        "result_name": "rmia",
        "result_type": "MIAResult",
        "id": "rmia-num_shadow_models=4",
        "tpr": tpr,
        "fpr": fpr,
        "roc_auc": float(np.trapezoid(tpr, fpr)),
        "accuracy": (tp + tn) / np.maximum(tp + fp + tn + fn, 1),
        "fixed_fpr": {"TPR@0%FPR": 0.0, "TPR@0.1%FPR": 0.01, "TPR@1%FPR": 0.05, "TPR@10%FPR": 0.3},
        "signal_values": sig,
        "true_labels": true.astype(int),
        "config": {"num_shadow_models": 4},
        "tp": tp,
        "fp": fp,
        "tn": tn,
        "fn": fn,
    }


def _json_fallback(obj):
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.integer | np.floating):
        return obj.item()
    raise TypeError(type(obj))


def test_leakpro_mia_result_json(tmp_path, scores):
    inside, outside = scores
    true = np.r_[np.ones(inside.size), np.zeros(outside.size)]
    path = tmp_path / "data_objects" / "6f1c2a.json"
    path.parent.mkdir()
    with open(path, "w") as f:
        json.dump(_leakpro_dump(true, np.r_[inside, outside]), f, default=_json_fallback)
    r = audit(path, mu=0.5)
    assert r.inputs["importer"] == "leakpro"
    _same(r, _reference(inside, outside, mu=0.5))


def test_leakpro_result_without_scores_is_refused(tmp_path, scores):
    inside, outside = scores
    d = _leakpro_dump(np.r_[np.ones(inside.size), np.zeros(outside.size)], np.r_[inside, outside])
    d["signal_values"] = None  # MIAResult.from_confusion_counts
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d, default=_json_fallback))
    with pytest.raises(AuditInputError, match="no signal_values"):
        audit(path)


def test_jax_privacy_canary_score_arrays(tmp_path, scores):
    inside, outside = scores
    path = tmp_path / "canaries.npz"
    np.savez(path, in_canary_scores=inside, out_canary_scores=outside)
    r = audit(path)
    assert r.inputs["importer"] == "jax-privacy"
    _same(r, _reference(inside, outside))


def test_explicit_importer_overrides_detection_and_checks_the_keys(tmp_path, scores):
    inside, outside = scores
    path = tmp_path / "c.npz"
    np.savez(path, in_canary_scores=inside, out_canary_scores=outside)
    with pytest.raises(AuditInputError, match="not a ML Privacy Meter"):
        audit(path, importer="ml-privacy-meter")


def test_table_formats_agree(tmp_path, scores):
    import pandas as pd

    inside, outside = scores
    frame = pd.DataFrame(
        {
            "score": np.r_[inside, outside],
            "member": np.r_[np.ones(inside.size), np.zeros(outside.size)].astype(int),
        }
    )
    frame.to_csv(tmp_path / "s.csv", index=False)
    np.savez(tmp_path / "s.npz", score=frame["score"].to_numpy(), member=frame["member"].to_numpy())
    a, b = audit(tmp_path / "s.csv"), audit(tmp_path / "s.npz")
    _same(a, _reference(inside, outside))
    _same(b, _reference(inside, outside))
    pytest.importorskip("pyarrow")
    frame.to_parquet(tmp_path / "s.parquet")
    _same(audit(tmp_path / "s.parquet"), _reference(inside, outside))


def test_ml_privacy_meter_one_run_dp_file(tmp_path, scores):
    """``get_all_dp_audit_results`` saves ``attack_result_average_dp.npz`` with its own ε grid
    beside the same ``scores`` and ``memberships``: the importer reads the scores, not its ε."""
    inside, outside = scores
    mia_scores = np.r_[inside, outside]
    memberships = np.r_[np.ones(inside.size), np.zeros(outside.size)]
    np.savez(
        tmp_path / "attack_result_average_dp",
        eps=[0.1, 0.4],
        correct_num=[10, 30],
        k_neg=[0, 26],
        k_pos=[26, 52],
        total_num=mia_scores.size,
        scores=mia_scores.ravel(),
        memberships=memberships.ravel(),
    )
    r = audit(tmp_path / "attack_result_average_dp.npz")
    assert r.inputs["importer"] == "ml-privacy-meter" and r.kind == "membership"
    assert (r.n_members, r.n_nonmembers) == (inside.size, outside.size)
    # 300 of 700 canaries included: not the fair coin per canary Steinke et al.'s bound needs
    with pytest.raises(AuditInputError, match="probability 1/2"):
        audit(tmp_path / "attack_result_average_dp.npz", one_run=True)


def _lira_dir(tmp_path, models=32, examples=200, augs=2, seed=0):
    """A LiRA log directory as its code writes it: experiment-<i>_<n>/keep.npy (train.py) and
    experiment-<i>_<n>/scores/<epoch>.npy of shape (examples, augmentations) (score.py)."""
    rng = np.random.default_rng(seed)
    root = tmp_path / "exp" / "cifar10"
    offset = rng.normal(0, 2, examples)  # per-example difficulty: why LiRA fits per example
    for i in range(models):
        keep = rng.random(examples) < 0.5
        d = root / f"experiment-{i}_{models}"
        (d / "scores").mkdir(parents=True)
        np.save(d / "keep.npy", keep)
        s = offset[:, None] + 1.5 * keep[:, None] + rng.normal(0, 1, (examples, augs))
        np.save(d / "scores" / "0000000010.npy", s - 5)  # an earlier epoch: not the one read
        np.save(d / "scores" / "0000000100.npy", s)
    return root


def _lira_reference(root):
    """plot.py's load_data + generate_ours (online, ntest = 1), transcribed loop for loop."""
    from scipy import stats

    scores, keep = [], []
    for d in sorted(root.iterdir()):
        last = sorted((d / "scores").iterdir())[-1]
        scores.append(np.load(last))
        keep.append(np.load(d / "keep.npy"))
    scores, keep = np.array(scores), np.array(keep)[:, : np.array(scores).shape[1]]
    shadow_k, shadow_s = keep[:-1], scores[:-1]
    dat_in = [shadow_s[shadow_k[:, j], j, :] for j in range(scores.shape[1])]
    dat_out = [shadow_s[~shadow_k[:, j], j, :] for j in range(scores.shape[1])]
    in_size = min(map(len, dat_in))
    out_size = min(map(len, dat_out))
    dat_in = np.array([x[:in_size] for x in dat_in])
    dat_out = np.array([x[:out_size] for x in dat_out])
    mean_in, mean_out = np.median(dat_in, 1), np.median(dat_out, 1)
    std_in, std_out = np.std(dat_in, 1), np.std(dat_out, 1)
    sc = scores[-1]
    pr_in = -stats.norm.logpdf(sc, mean_in, std_in + 1e-30)
    pr_out = -stats.norm.logpdf(sc, mean_out, std_out + 1e-30)
    return -(pr_in - pr_out).mean(1), keep[-1]  # plot.py sweeps -prediction: higher = member


def test_lira_directory_is_read_as_its_code_scores_it(tmp_path):
    root = _lira_dir(tmp_path)
    want_score, want_member = _lira_reference(root)
    r = audit(root)
    assert r.inputs["importer"] == "lira" and r.kind == "membership"
    assert (r.n_members, r.n_nonmembers) == (int(want_member.sum()), int((~want_member).sum()))
    from privrisk.audit.lira import read_lira

    cols, _ = read_lira(root)
    np.testing.assert_allclose(cols["score"], want_score, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(cols["member"].astype(bool), want_member)
    assert r.groups[0].auc > 0.7  # the attack works on this fixture
    assert any("one trained model" in a for a in r.assumptions)


def test_lira_needs_shadow_models(tmp_path):
    root = _lira_dir(tmp_path, models=2)
    with pytest.raises(AuditInputError, match="shadow"):
        audit(root)
