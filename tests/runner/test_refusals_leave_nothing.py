"""A refused (or failed) command leaves the file system as it found it: no run, report, dataset or
quickstart folder, and none of the parent folders of a deep ``--out`` either. Each command that
writes an ``--out`` is refused at the latest point it can be (after its output folder would be
made), in an empty working folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main

DEEP = "deep/a/b/c"


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("refusals") / "smoke")


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GRIDWM_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    (tmp_path / "emptyrun").mkdir()  # a folder eval did not write
    return tmp_path


def refused(work: Path, capsys, argv: list[str], says: str) -> None:
    before = tree(work)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err
    assert tree(work) == before


@pytest.mark.parametrize(("judge", "says"), [
    ("baseline:alwaysyes", "did you mean 'always-yes'"),
    ("hf:./no-such-model", "no such folder"),              # refused while loading the judge
    ("anthropic:claude-x", "needs an API key"),            # ditto, after the folder's checks
])
def test_eval(work, smoke, capsys, judge, says):
    refused(work, capsys, ["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", judge,
                           "--out", f"{DEEP}/run", "--no-progress"], says)


@pytest.mark.parametrize(("run", "says"), [("no-such-run", "does not exist"),
                                           ("emptyrun", "holds neither scores.json")])
def test_report(work, capsys, run, says):
    refused(work, capsys, ["report", run, "--out", f"{DEEP}/report"], says)


def test_score(work, smoke, capsys):
    refused(work, capsys, ["score", "--dataset", str(smoke), "--predictions",
                           "emptyrun/predictions.jsonl", "--out", f"{DEEP}/scores"],
            "does not exist")


def test_build(work, capsys, monkeypatch):
    refused(work, capsys, ["build", "--profile", "smoke", "--configs", "task_z",
                           "--out", f"{DEEP}/ds"], "unknown config 'task_z'")

    def refuse(*args, **kwargs):  # a build that fails after its staging folder is made
        raise ValueError("no groups today")

    monkeypatch.setattr("gridwm_judge.dataset.export.GroupPool", refuse)
    refused(work, capsys, ["build", "--profile", "smoke", "--out", f"{DEEP}/ds"],
            "no groups today")


def test_quickstart(work, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise ValueError("no dataset today")

    monkeypatch.setattr("gridwm_judge.quickstart.build_dataset", refuse)
    refused(work, capsys, ["quickstart", "--out", f"{DEEP}/qs"], "no dataset today")


def test_groups(work, capsys):
    refused(work, capsys, ["groups", "--family", "doorkey", "--n", "1",
                           "--out", f"{DEEP}/groups.jsonl"], "does not exist")


def test_import_inspect(work, capsys):
    refused(work, capsys, ["import-inspect", "no-such.eval", "--out", f"{DEEP}/run"],
            "does not exist")
