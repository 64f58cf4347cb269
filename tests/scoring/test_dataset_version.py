"""score refusing predictions asked from another dataset version says so, and how to rebuild
the version they were asked from."""

from __future__ import annotations

import json

import pytest

from gridwm_judge.cli import main
from gridwm_judge.dataset.export import build_dataset
from gridwm_judge.install import REPOSITORY
from gridwm_judge.schema import DATASET_VERSION


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory):
    root = tmp_path_factory.mktemp("ds")
    build_dataset(root / "occlude", "smoke", configs=["task_c"], nocue_style="occlude")
    build_dataset(root / "clean", "smoke", configs=["task_c"])
    return root / "occlude", root / "clean"


def test_the_build_records_its_version(two_builds):
    for ds in two_builds:
        assert json.loads((ds / "validation.json").read_text())["dataset_version"] == (
            DATASET_VERSION)
        assert f"dataset version **{DATASET_VERSION}**" in (ds / "README.md").read_text()


def test_an_unversioned_run_scored_against_this_version_names_the_change(two_builds, tmp_path,
                                                                         capsys):
    old, new = two_builds
    run = tmp_path / "yes"
    assert main(["eval", "--dataset", str(old), "--tasks", "c", "--judge",
                 "baseline:always-yes", "--out", str(run), "--no-progress"]) == 0
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["dataset_provenance"]["dataset_version"] == DATASET_VERSION
    # a run made before versions were recorded carries none, and its builder's package 0.1.0
    del manifest["dataset_provenance"]["dataset_version"]
    manifest["dataset_provenance"]["package_version"] = "0.1.0"
    (run / "run.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["score", "--dataset", str(new), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert "answered a different item" in err
    assert f"asked from dataset version 0.1.0, the dataset given is version {DATASET_VERSION}" in (
        err)
    assert f'pip install "gridwm-judge @ git+{REPOSITORY}@v0.1.0"' in err
    assert "--profile smoke --seed 830000" in err
    assert "--nocue-style occlude" in err
    assert not (tmp_path / "s").exists()
    # the same run against the dataset it was asked from scores
    assert main(["score", "--dataset", str(old), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(tmp_path / "s")]) == 0


def test_a_run_from_the_other_nocue_style_names_it(two_builds, tmp_path, capsys):
    old, new = two_builds
    run = tmp_path / "yes"
    assert main(["eval", "--dataset", str(old), "--tasks", "c", "--judge",
                 "baseline:always-yes", "--out", str(run), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["score", "--dataset", str(new), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert "was asked from a --nocue-style occlude build, the dataset given is clean" in err
    assert "--nocue-style occlude --out DIR" in err
