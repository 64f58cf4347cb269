"""--overwrite replaces only a folder gridwm-judge wrote, never the inputs or the current folder
(found in review: `report RUN --out RUN --overwrite` deleted the run)."""

from __future__ import annotations

import os

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.judges.base import JudgeOptions


@pytest.fixture
def run(tmp_path):
    smoke = write_smoke_dataset(tmp_path / "smoke")
    run = tmp_path / "run"
    assert main(["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", "baseline:random",
                 "--out", str(run), "--no-progress"]) == 0
    return run


def test_report_never_overwrites_its_inputs_or_a_foreign_folder(run, tmp_path, capsys,
                                                                  monkeypatch):
    before = sorted(p.name for p in run.iterdir())
    assert main(["report", str(run), "--out", str(run), "--overwrite"]) == 2
    assert "holds the input" in capsys.readouterr().err
    assert sorted(p.name for p in run.iterdir()) == before
    thesis = tmp_path / "thesis"
    thesis.mkdir()
    (thesis / "mythesis.tex").write_text("\\section{x}")
    assert main(["report", str(run), "--out", str(thesis), "--overwrite"]) == 2
    assert "has no index.md" in capsys.readouterr().err
    assert (thesis / "mythesis.tex").exists()
    monkeypatch.chdir(thesis)
    assert main(["report", str(run), "--out", ".", "--overwrite"]) == 2
    assert "current folder" in capsys.readouterr().err
    # a report folder is replaced by a new report
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    assert main(["report", str(run), "--out", str(tmp_path / "rep"), "--overwrite"]) == 0


def test_build_overwrites_only_a_dataset_folder(tmp_path, capsys):
    keep = tmp_path / "mine"
    (keep / "sub").mkdir(parents=True)
    (keep / "sub" / "keep.txt").write_text("x")
    assert main(["build", "--profile", "smoke", "--out", str(keep), "--overwrite"]) == 2
    assert "has no validation.json" in capsys.readouterr().err
    assert (keep / "sub" / "keep.txt").exists()
    assert sorted(os.listdir(tmp_path)) == ["mine"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"retries": -1}, "--retries must be an integer >= 0"),
    ({"timeout_s": 0.0}, "--timeout must be > 0"),
    ({"batch_size": 0}, "--batch-size must be an integer >= 1"),
    ({"workers": 0}, "--workers must be an integer >= 1"),
    ({"rps": -1.0}, "--rps must be > 0"),
])
def test_bad_judge_options_are_refused_before_any_request(kwargs, message):
    with pytest.raises(ValueError, match=message):
        JudgeOptions(**kwargs)
