"""run.json is a typed, versioned record (``records.RunRecord``): eval writes it, score and
report read it, and a run.json written before it had a format still reads the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.records import RUN_FORMAT, RunRecord, ScoresRecord

UNVERSIONED = Path(__file__).parents[1] / "data" / "run_unversioned.json"
"""A run.json as eval wrote it before run.json had a format."""


def test_a_run_json_without_a_format_reads_the_same():
    old = json.loads(UNVERSIONED.read_text())
    assert "format" not in old
    run = RunRecord.read(UNVERSIONED)
    assert (run.judge, run.tasks, run.max_tokens["D"]) == ("baseline:always-yes", ("D",), 256)
    assert run.judge_settings == {"backend": "baseline", "name": "always-yes", "seed": 0}
    assert run.dataset_provenance["profile"] == "smoke" and run.as_sent["greedy"] is True
    assert run.to_json() == {"format": RUN_FORMAT, **old}  # nothing lost, nothing added
    assert RunRecord.from_json(run.to_json()) == run


def test_what_is_not_known_is_not_written():
    run = RunRecord(judge="baseline:oracle", dataset="ds", max_tokens={"C": 256})
    out = run.to_json()
    assert not {"judge_settings", "as_sent", "usage", "source"} & set(out)
    assert out["format"] == RUN_FORMAT and out["tasks"] == []
    assert run.identity() == {"judge": "baseline:oracle", "judge_options": {},
                              "judge_settings": None}
    assert run.budget("C", 9) == 256 and run.budget("D", 9) == 9


@pytest.mark.parametrize("obj, message", [
    ({"format": "gridwm-judge-run/9", "judge": "x"},
     r"run.json has format 'gridwm-judge-run/9', this version reads 'gridwm-judge-run/1': run "
     r"`gridwm-judge eval` again into a new --out folder"),
    ({"judge": {"spec": "baseline:oracle"}}, "run.json has no string 'judge' field"),
    (["judge"], "run.json has format None"),
])
def test_a_run_json_this_version_cannot_read_is_refused_in_one_line(obj, message):
    with pytest.raises(ValueError, match=message) as info:
        RunRecord.from_json(obj)
    assert "\n" not in str(info.value)


def test_eval_writes_the_record_and_score_and_report_read_it(tmp_path, capsys):
    smoke = write_smoke_dataset(tmp_path / "smoke")
    run = tmp_path / "run"
    assert main(["eval", "--dataset", str(smoke), "--tasks", "c,d", "--judge",
                 "baseline:always-yes", "--out", str(run), "--no-progress"]) == 0
    written = json.loads((run / "run.json").read_text())
    assert written["format"] == RUN_FORMAT
    record = RunRecord.read(run / "run.json")
    assert record.tasks == ("C", "D") and record.judge_settings is not None

    def scored(name: str) -> ScoresRecord:
        assert main(["score", "--dataset", str(smoke), "--predictions",
                     str(run / "predictions.jsonl"), "--out", str(tmp_path / name),
                     "--n-resamples", "50", "--no-les"]) == 0
        return ScoresRecord.read(tmp_path / name / "scores.json")

    now = scored("now")
    assert now.runs[str(run / "predictions.jsonl")] == written
    # the same run.json as written before it had a format: scored alike (request hashes
    # checked against its judge identity and budgets)
    (run / "run.json").write_text(json.dumps({k: v for k, v in written.items()
                                              if k != "format"}))
    before = scored("before")
    assert before.judges["baseline:always-yes"].results == now.judges[
        "baseline:always-yes"].results
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    assert "baseline:always-yes" in (tmp_path / "rep" / "index.md").read_text()
    # a resume reads the record it wrote and keeps it
    assert main(["eval", "--dataset", str(smoke), "--tasks", "c", "--judge",
                 "baseline:always-yes", "--out", str(run), "--no-progress"]) == 0
    again = RunRecord.read(run / "run.json")
    assert (again.tasks, again.created, again.judge_settings) == (
        ("C", "D"), record.created, record.judge_settings)
    capsys.readouterr()
