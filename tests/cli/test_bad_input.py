"""Bad input and labelling across commands: clear one-line errors, nothing half-written."""

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


def test_build_refuses_an_unknown_nocue_style_before_writing(tmp_path, capsys):
    out = tmp_path / "ds"
    assert main(["build", "--profile", "smoke", "--nocue-style", "fog", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("gridwm-judge build: error: unknown --nocue-style 'fog'; expected "
                           "one of clean, occlude")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_report_refuses_a_file_as_out(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    target = tmp_path / "afile"
    target.write_text("keep me")
    assert main(["report", str(run), "--out", str(target)]) == 2
    assert target.read_text() == "keep me"
    assert capsys.readouterr().err.startswith("gridwm-judge report: error:")


def test_score_does_not_call_the_oracle_action_ignorant(tmp_path, capsys):
    dataset = tmp_path / "ds"
    build_dataset(dataset, "smoke", configs=["task_a"])
    run = tmp_path / "oracle"
    args = ["--dataset", str(dataset), "--tasks", "a"]
    assert main(["eval", *args, "--judge", "baseline:oracle", "--out", str(run)]) == 0
    assert main(["score", "--dataset", str(dataset), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(run), "--n-resamples", "200"]) == 0
    assert "failure modes: none" in capsys.readouterr().out


def test_eval_rejects_limit_zero_and_a_file_as_dataset(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("")
    common = ["--tasks", "c", "--judge", "baseline:oracle", "--out", str(tmp_path / "run")]
    assert main(["eval", "--dataset", str(afile), *common]) == 2
    assert "is a file, not a dataset folder" in capsys.readouterr().err
    assert main(["eval", "--dataset", str(tmp_path), *common, "--limit", "0"]) == 2
    assert "--limit must be >= 1" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_report_and_score_refuse_fewer_than_one_resample(tmp_path, capsys):
    """``--n-resamples 0`` (or negative) is one line naming the flag, before anything is read
    or written: a report whose runs have scores.json would otherwise accept it silently."""
    run = tmp_path / "run"
    run.mkdir()
    for n in ("0", "-5"):
        out = tmp_path / f"rep{n}"
        assert main(["report", str(run), "--out", str(out), "--n-resamples", n]) == 2
        err = capsys.readouterr().err.strip()
        assert err == ("gridwm-judge report: error: the number of bootstrap resamples "
                       f"(--n-resamples) must be a whole number >= 1, got {n}")
        assert not out.exists()
        out = tmp_path / f"scores{n}"
        assert main(["score", "--dataset", str(tmp_path), "--predictions",
                     str(run / "predictions.jsonl"), "--out", str(out), "--n-resamples", n]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("gridwm-judge score: error: the number of bootstrap resamples")
        assert "\n" not in err and not out.exists()
