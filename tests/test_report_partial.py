"""Reports of partial runs tell them apart from invalid answers (issue 10)."""

from __future__ import annotations

from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main


def test_a_partial_run_says_not_run_and_shows_no_empty_panel(tmp_path):
    """Issue 10: a judge run only on C and D is 'not run' on A, B, E, never 'invalid'."""
    smoke = write_smoke_dataset(tmp_path / "smoke")
    run = tmp_path / "cd"
    assert main(["eval", "--dataset", str(smoke), "--tasks", "c,d", "--judge",
                 "baseline:random", "--out", str(run), "--no-progress"]) == 0
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    controls = (tmp_path / "rep" / "tables" / "controls.md").read_text()
    [row] = [line for line in controls.splitlines() if line.startswith("| baseline:random")]
    assert "A not run, B not run, E not run" in row and "/" not in row.split("|")[-2]
    assert "invalid" not in row
    assert (tmp_path / "rep" / "figures" / "fig5_controls.png").stat().st_size > 0
