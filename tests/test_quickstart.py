"""`gridwm-judge quickstart` end to end through the CLI: the session's one real quickstart
(``quickstart_run`` in conftest.py: the default profile, the nine baseline judges)."""

from __future__ import annotations

import json

from gridwm_judge import cli, quickstart


def test_quickstart_cli_end_to_end(quickstart_run, capsys):
    assert quickstart_run.code == 0
    printed, out = quickstart_run.printed, quickstart_run.result.out
    assert "Headline" in printed and "baseline:oracle" in printed
    assert "success-biased" in printed  # always-yes is flagged in the table itself
    assert str(out) in printed and "quickstart finished in" in printed
    assert (out / "report" / "index.md").is_file()
    assert json.loads((out / "dataset" / "validation.json").read_text())
    for judge in ("always-yes", "oracle"):
        assert (out / "runs" / judge / "scores.json").is_file()
    # a second run into the same folder refuses instead of mixing results
    assert cli.main(["quickstart", "--out", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_default_out_is_new_folder_under_cwd(tmp_path):
    path = quickstart.default_out(tmp_path)
    assert path.parent == tmp_path and path.name.startswith("gwj-quickstart-")
    assert not path.exists()


def test_an_interrupted_quickstart_leaves_no_folder(tmp_path, monkeypatch):
    import pytest

    from gridwm_judge import quickstart

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(quickstart, "build_dataset", interrupted)
    out = tmp_path / "qs"
    with pytest.raises(KeyboardInterrupt):
        quickstart.run_quickstart(out, log=lambda msg: None)
    assert not out.exists()
