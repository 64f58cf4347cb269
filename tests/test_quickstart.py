"""`gridwm-judge quickstart` end to end through the CLI, at a tiny size and two judges."""

from __future__ import annotations

import json

from gridwm_judge import cli, quickstart
from gridwm_judge.dataset import profiles


def test_quickstart_cli_end_to_end(tmp_path, monkeypatch, capsys):
    tiny = profiles.quickstart_profile(
        3, 1, c_probe_sets=("baseline",), d_conditions=("clean-neutral",), n_controls=2,
        n_hard_per_family=1,
    )
    monkeypatch.setitem(profiles.PROFILES, "quickstart", tiny)
    monkeypatch.setattr(quickstart, "BASELINES", ("always-yes", "oracle"))
    out = tmp_path / "qs"
    assert cli.main(["quickstart", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
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
