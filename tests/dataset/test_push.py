"""`gridwm-judge push` up to the upload call (the Hub is unreachable here)."""

import pytest

from gridwm_judge.cli import main
from gridwm_judge.dataset import push


class FakeApi:
    def __init__(self):
        self.calls = []

    def create_repo(self, repo_id, **kw):
        self.calls.append(("create_repo", repo_id, kw))

    def create_branch(self, repo_id, **kw):
        self.calls.append(("create_branch", repo_id, kw))

    def create_commit(self, **kw):
        self.calls.append(("create_commit", kw["repo_id"], kw))

        class Info:
            oid = "abc123"
            commit_url = f"https://huggingface.co/datasets/{kw['repo_id']}/commit/abc123"

        return Info()


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "data" / "task_c").mkdir(parents=True)
    (tmp_path / "data" / "task_c" / "test-00000-of-00001.parquet").write_bytes(b"PAR1")
    (tmp_path / "data" / "task_c_hard").mkdir(parents=True)
    (tmp_path / "data" / "task_c_hard" / "test-00000-of-00001.parquet").write_bytes(b"PAR2")
    (tmp_path / "README.md").write_text("---\nlicense: apache-2.0\n---\n")
    return tmp_path


def test_one_commit_to_a_dataset_repo(folder):
    api = FakeApi()
    res = push.push_folder(folder, "me/gwj", private=True, revision="v1", token="hf_x", api=api)
    assert [c[0] for c in api.calls] == ["create_repo", "create_branch", "create_commit"]
    create = api.calls[0][2]
    assert create["repo_type"] == "dataset" and create["private"] is True and create["exist_ok"]
    commit = api.calls[2][2]
    assert commit["repo_type"] == "dataset"
    assert commit["revision"] == "v1" and commit["token"] == "hf_x"
    added = {op.path_in_repo: op.path_or_fileobj for op in commit["operations"]}
    assert sorted(added) == ["README.md", "data/task_c/test-00000-of-00001.parquet",
                             "data/task_c_hard/test-00000-of-00001.parquet", "eval.yaml"]
    assert added["README.md"] == str(folder / "README.md")
    assert res.commit == "abc123" and res.url.endswith("/commit/abc123")


def test_the_commit_declares_the_benchmark_in_eval_yaml(folder):
    """eval.yaml holds exactly the Hub's documented keys and one task per published figure
    of the configs in the folder, each naming its config and split."""
    import yaml

    from gridwm_judge.headlines import headlines

    api = FakeApi()
    push.push_folder(folder, "me/gwj", token="hf_x", api=api)
    [op] = [op for op in api.calls[-1][2]["operations"] if op.path_in_repo == "eval.yaml"]
    doc = yaml.safe_load(op.path_or_fileobj.decode())
    assert set(doc) == {"name", "description", "evaluation_framework", "tasks"}
    assert doc["evaluation_framework"] == "gridwm-judge"
    assert all(set(t) == {"id", "config", "split"} and t["split"] == "test"
               for t in doc["tasks"])
    ids = [t["id"] for t in doc["tasks"]]
    assert ids == [h.id for h in headlines(["task_c", "task_c_hard"])]
    assert {"task_c-idr_raw", "task_c-ns_min", "task_c-vcc_rep", "task_c_hard-idr_raw"} <= set(ids)
    # a hard-CF config holds the neutral presentation only: no stability figures
    assert "task_c_hard-ns_min" not in ids and "task_a-acc_a1" not in ids
    assert {t["config"] for t in doc["tasks"]} == {"task_c", "task_c_hard"}


def test_a_folder_with_its_own_eval_yaml_keeps_it(folder):
    (folder / "eval.yaml").write_text("name: mine\n")
    api = FakeApi()
    push.push_folder(folder, "me/gwj", token="hf_x", api=api)
    ops = [op for op in api.calls[-1][2]["operations"] if op.path_in_repo == "eval.yaml"]
    assert [op.path_or_fileobj for op in ops] == [str(folder / "eval.yaml")]


def test_no_revision_no_branch(folder):
    api = FakeApi()
    push.push_folder(folder, "me/gwj", token="hf_x", api=api)
    assert [c[0] for c in api.calls] == ["create_repo", "create_commit"]
    assert api.calls[1][2]["revision"] is None


def test_missing_token_says_how_to_log_in(folder, monkeypatch, capsys):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    api = FakeApi()
    with pytest.raises(PermissionError, match="hf auth login"):
        push.push_folder(folder, "me/gwj", api=api)
    assert api.calls == []
    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit",
                        lambda *a, **k: pytest.fail("must not upload without a token"))
    assert main(["push", str(folder), "--repo-id", "me/gwj"]) == 2
    err = capsys.readouterr().err
    assert "HF_TOKEN" in err and "hf auth login" in err


def test_cli_push_reaches_the_upload_call(folder, monkeypatch, capsys):
    import huggingface_hub

    seen = {}
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_x")
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", lambda self, repo_id, **k: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit",
                        lambda self, **k: seen.update(k) or FakeApi().create_commit(**k))
    assert main(["push", str(folder), "--repo-id", "me/gwj", "--private"]) == 0
    assert seen["repo_id"] == "me/gwj" and len(seen["operations"]) == 4
    assert "pushed" in capsys.readouterr().out


def test_bad_folder_and_repo_id(tmp_path, folder):
    with pytest.raises(FileNotFoundError, match="gridwm-judge build"):
        push.push_folder(tmp_path / "missing", "me/gwj", token="t", api=FakeApi())
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="not a built dataset"):
        push.push_folder(tmp_path / "empty", "me/gwj", token="t", api=FakeApi())
    with pytest.raises(ValueError, match="USER/NAME"):
        push.push_folder(folder, "no-slash", token="t", api=FakeApi())


@pytest.mark.parametrize("failure", ["offline", "no-network"])
def test_an_unreachable_hub_is_one_line(folder, monkeypatch, capsys, failure):
    import huggingface_hub
    from huggingface_hub.errors import OfflineModeIsEnabled

    from gridwm_judge.dataset_io import hub_transport_errors

    def create_repo(self, *args, **kwargs):
        if failure == "offline":
            raise OfflineModeIsEnabled("Cannot reach https://huggingface.co: offline mode")
        raise hub_transport_errors()[-1]("[Errno -2] Name or service not known")

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_x")
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", create_repo)
    if failure == "offline":
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    else:
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    code = main(["push", str(folder), "--repo-id", "me/gwj"])
    assert code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("gridwm-judge push: error: cannot reach the Hugging Face Hub")
    # "unset HF_HUB_OFFLINE" only where it is set
    assert ("unset HF_HUB_OFFLINE" in line) == (failure == "offline")
    if failure == "no-network":
        assert "check the network connection" in line


def test_dry_run_lists_the_upload_and_never_calls_the_hub(folder, monkeypatch, capsys):
    import huggingface_hub

    def refuse(*args, **kwargs):
        raise AssertionError("a dry run contacted the Hub")

    (folder / ".cache").mkdir()
    (folder / ".cache" / "x").write_bytes(b"hidden")
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", refuse)
    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit", refuse)
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    assert main(["push", str(folder), "--repo-id", "me/gwj", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("would upload 4 files") and "me/gwj" in out
    assert "  eval.yaml  " in out and "- id: task_c-idr_raw" in out
    assert "token NOT found" in out and "hf auth login" in out
    assert "data/task_c/test-00000-of-00001.parquet" in out and ".cache" not in out
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_x")
    assert main(["push", str(folder), "--repo-id", "me/gwj", "--dry-run"]) == 0
    assert "token found" in capsys.readouterr().out
    assert main(["push", str(folder), "--repo-id", "bad", "--dry-run"]) == 2
