"""Reports of partial runs tell them apart from invalid answers."""

from __future__ import annotations

from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main


def test_a_partial_run_leaves_out_what_was_not_run(tmp_path):
    """A judge run only on C and D: the tables and figures of other tasks are left out (the
    index names the tasks not run), never shown as rows of "not run" or "invalid"."""
    smoke = write_smoke_dataset(tmp_path / "smoke")
    run = tmp_path / "cd"
    assert main(["eval", "--dataset", str(smoke), "--tasks", "c,d", "--judge",
                 "baseline:random", "--out", str(run), "--no-progress"]) == 0
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    rep = tmp_path / "rep"
    # no control task was run: no table of "not run" rows; the index says what was not run
    assert not (rep / "tables" / "controls.md").exists()
    index = (rep / "index.md").read_text()
    [line] = [x for x in index.splitlines() if x.startswith("Tasks run:")]
    assert line.startswith("Tasks run: C, D. Not run by any judge")
    assert {"A", "B", "E", "OS", "PA"} <= set(line.split(": ")[-1].rstrip(".").split(", "))
    # Fig. 5 reads C and D too: drawn, its control panel says A, B, E were not run
    assert (rep / "figures" / "fig5_controls.png").stat().st_size > 0
    assert not (rep / "figures" / "fig_oracle_state_differences.png").exists()
    # a C,D-only run scored against the whole dataset (its other tasks' rows counted as
    # missing) shows the same sections: a task is run when a request of it was sent
    assert main(["score", "--dataset", str(smoke), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(tmp_path / "all")]) == 0
    assert main(["report", str(tmp_path / "all"), "--out", str(tmp_path / "rep2")]) == 0
    assert sorted(p.name for p in (tmp_path / "rep2" / "tables").iterdir()) == sorted(
        p.name for p in (rep / "tables").iterdir())
    assert sorted(p.name for p in (tmp_path / "rep2" / "figures").iterdir()) == sorted(
        p.name for p in (rep / "figures").iterdir())
