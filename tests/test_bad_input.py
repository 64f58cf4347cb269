"""Bad input across commands: one clear line, exit 2, and nothing written."""

from gridwm_judge.cli import main
from gridwm_judge.dataset import build_dataset


def test_eval_with_an_unknown_judge_name_leaves_no_run_folder(tmp_path, capsys):
    dataset = tmp_path / "ds"
    build_dataset(dataset, "smoke", configs=["task_c"])
    out = tmp_path / "run"
    code = main(
        ["eval", "--dataset", str(dataset), "--tasks", "c", "--judge", "baseline:oracel",
         "--out", str(out)]
    )
    assert code == 2
    assert "did you mean 'oracle'" in capsys.readouterr().err
    assert not out.exists()


def test_build_rejects_a_negative_sampling_seed_before_writing(tmp_path, capsys):
    out = tmp_path / "ds"
    assert main(["build", "--profile", "smoke", "--sampling-seed", "-1", "--out", str(out)]) == 2
    assert "sampling_seed must be a non-negative integer" in capsys.readouterr().err
    assert not out.exists()


def test_report_refuses_a_file_as_out(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    target = tmp_path / "afile"
    target.write_text("keep me")
    assert main(["report", str(run), "--out", str(target)]) == 2
    assert target.read_text() == "keep me"
    assert capsys.readouterr().err.startswith("gridwm-judge report: error:")
