"""`gridwm-judge leaderboard` as a user runs it: from run folders, from a Hub results repo
(fetched through a fake API, as push's tests do), and `--push-space` (the commit recorded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridwm_judge.cli import main
from gridwm_judge.publish import gather, plan_publish, write_local
from gridwm_judge.publish.hub_io import SPACE_README, TABLE_FILES


@pytest.fixture(scope="module")
def run_dirs(quickstart_run) -> list[Path]:
    runs = quickstart_run.result.out / "runs"
    return [runs / n for n in ("oracle", "random", "always-yes", "last-frame", "first-frame")]


def test_from_run_folders_to_a_static_space(run_dirs, tmp_path, monkeypatch, capsys):
    import huggingface_hub

    calls = []
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_x")
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo",
                        lambda self, repo_id, **k: calls.append(("create_repo", repo_id, k)))
    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit",
                        lambda self, **k: calls.append(("create_commit", k["repo_id"], k)))
    out = tmp_path / "board"
    out.mkdir()
    (out / ".env").write_text("HF_TOKEN=hf_secret\n")  # the folder's other files stay here
    (out / "notes.txt").write_text("mine\n")
    code = main(["leaderboard", *map(str, run_dirs), "--out", str(out),
                 "--push-space", "me/gwj-board"])
    printed = capsys.readouterr().out
    assert code == 0 and "1 ranking(s), 2 judge(s) ranked" in printed
    assert (out / "index.html").is_file() and (out / "leaderboard.md").is_file()
    [create, commit] = calls
    assert create[2]["repo_type"] == "space" and create[2]["space_sdk"] == "static"
    ops = {op.path_in_repo: op.path_or_fileobj for op in commit[2]["operations"]}
    assert sorted(ops) == ["README.md", "index.html", "leaderboard.md"]
    assert ops["README.md"] == SPACE_README.encode() and b"sdk: static" in ops["README.md"]
    assert commit[2]["repo_type"] == "space"


def test_from_a_hub_results_repo(run_dirs, tmp_path, monkeypatch, capsys):
    import huggingface_hub

    local = tmp_path / "pub"
    write_local(plan_publish(gather(run_dirs), "me/results"), local)
    asked = []

    def snapshot_download(self, repo_id, **kw):
        asked.append((repo_id, kw))
        return str(local / "results")

    monkeypatch.setattr(huggingface_hub.HfApi, "snapshot_download", snapshot_download)
    out = tmp_path / "board"
    assert main(["leaderboard", "me/results", "--out", str(out)]) == 0
    assert asked == [("me/results", {"repo_type": "dataset",
                                     "allow_patterns": list(TABLE_FILES)})]
    md = (out / "leaderboard.md").read_text()
    assert "baseline:random" in md and "baseline:always-yes" in md
    capsys.readouterr()
    # a repo that is not a results repo, and a typo that is neither a folder nor a repo id
    monkeypatch.setattr(huggingface_hub.HfApi, "snapshot_download",
                        lambda self, repo_id, **kw: str(tmp_path))
    assert main(["leaderboard", "me/other", "--out", str(tmp_path / "b2")]) == 2
    assert "not a GridWM-Judge results repo" in capsys.readouterr().err
    assert main(["leaderboard", "runz", "--out", str(tmp_path / "b3")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "'runz' is no folder here" in line
    assert not (tmp_path / "b2").exists() and not (tmp_path / "b3").exists()
