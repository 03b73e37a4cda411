"""A record made from a real (tiny) Snakemake run of an overlay on one cheap paper, lowy2024,
whose figures draw their own trials: covered figures from the overlay, benchmarks from
Snakemake's files, ``--check --full`` reruns them and passes; an edited recorded number fails."""

from __future__ import annotations

import json

import pytest

from privrisk.core import records as rec
from privrisk.pipeline import records
from tests.conftest import REPO, TINY

pytestmark = pytest.mark.slow


def test_record_of_a_tiny_snakemake_run(pipeline, tmp_path, capsys, monkeypatch):
    overlay = tmp_path / "plan.yaml"
    overlay.write_text("lowy2024:\n  fig2: {trials: 4}\n")
    work = tmp_path / "run"
    work.mkdir()
    pipeline(
        work,
        "results/lowy2024/fig2.pdf",
        "results/lowy2024/fig5.pdf",
        configfiles=(*TINY, str(overlay)),
        config_overrides=("seed=5",),
    )
    root = tmp_path / "records"
    monkeypatch.setenv(rec.ENV, str(root))
    args = ["make", "r", "--results", str(work / "results"), "--overlay", str(overlay)]
    args += [f"--configfile={REPO / c}" for c in TINY]
    assert records.main(args) == 0, capsys.readouterr()
    man = rec.manifest("r")
    # Figure 5 recomputes Figure 2's curves: the overlay covers both; the seed from provenance
    assert man["figures"] == ["lowy2024/fig2", "lowy2024/fig5"] and man["seeds"] == [5]
    assert man["jobs"]["5"]["lowy2024/fig2"]["cpu_s"] > 0  # Snakemake's benchmark
    assert man["planned"]["lowy2024/fig2_ratios_C50"] == {
        "key": "lowy2024.fig2.trials",
        "n": 4,
        "unit": "samples",
    }
    capsys.readouterr()
    assert records.main(["--check", "r", "--full", "--rerun-seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "seed 5 lowy2024/fig2: recomputed" in out and "byte-identical to the record" in out
    # a status --refresh derived with newer rules than the recorded row's is kept as derived
    # where the figure is not rerun (it draws its own trials), not reported as a move
    der = json.loads((root / "r" / rec.STATUSES).read_text())
    key = "lowy2024/fig2_ratios_shrink"
    old = der["claims"][key]["statuses"]["5"]
    der["claims"][key]["statuses"]["5"] = "uninformative" if old != "uninformative" else "differs"
    (root / "r" / rec.STATUSES).write_text(json.dumps(der))
    assert records.main(["--check", "r", "--no-rerun"]) == 0
    capsys.readouterr()
    rows = root / "r" / "seed-5" / "lowy2024" / "fig2.csv"
    rows.write_text(rows.read_text().replace("0.", "0.9", 1))
    assert records.main(["--check", "r", "--no-rerun"]) == 1
    assert f"FAIL {rows}: its bytes differ from the manifest's SHA-256" in capsys.readouterr().out
    assert json.loads((root / "r" / rec.STATUSES).read_text())["derived_by"] == "recorded"
