"""`gridwm-judge push-metrics` up to the upload call (the Hub is unreachable here): one Space
per evaluate module, holding what `evaluate.load("NAMESPACE/idr")` fetches."""

from __future__ import annotations

import pytest
import yaml

from gridwm_judge.cli import main
from gridwm_judge.integrations import hub_metrics
from gridwm_judge.integrations.standalone_metric import standalone_source
from gridwm_judge.resources import resource_path

MODULES = ("idr", "jcr", "les", "ns", "task_a", "vcc")


class FakeApi:
    def __init__(self):
        self.calls = []
        self.staged = {}

    def create_repo(self, repo_id, **kw):
        self.calls.append(("create_repo", repo_id, kw))

    def upload_folder(self, **kw):
        self.calls.append(("upload_folder", kw["repo_id"], kw))
        from pathlib import Path

        folder = Path(kw["folder_path"])
        self.staged[kw["repo_id"]] = {p.name: p.read_bytes() for p in folder.iterdir()}

        class Info:
            oid = "abc123"
            commit_url = f"https://huggingface.co/spaces/{kw['repo_id']}/commit/abc123"

        return Info()


def test_one_space_per_module_with_what_evaluate_load_fetches():
    api = FakeApi()
    pushed = hub_metrics.push_metrics("my-org", token="hf_x", api=api)
    assert [p.repo_id for p in pushed] == [f"my-org/{m}" for m in MODULES]
    creates = [c for c in api.calls if c[0] == "create_repo"]
    assert all(c[2]["repo_type"] == "space" and c[2]["space_sdk"] == "gradio" and
               c[2]["exist_ok"] for c in creates)
    uploads = [c[2] for c in api.calls if c[0] == "upload_folder"]
    assert all(u["repo_type"] == "space" and u["token"] == "hf_x" for u in uploads)
    files = api.staged["my-org/idr"]
    assert set(files) == {"idr.py", "README.md", "app.py", "requirements.txt"}
    # evaluate.load("my-org/idr") fetches spaces/my-org/idr/resolve/main/idr.py: the module
    # with the package code it uses inlined (tests/integrations/test_standalone_metrics.py)
    assert files["idr.py"].decode() == standalone_source(
        resource_path("metrics", "idr") / "idr.py", load_as="my-org/idr")
    assert b'evaluate.load("my-org/idr")' in files["app.py"]
    card = files["README.md"].decode()
    meta = yaml.safe_load(card.split("---")[1])
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    assert meta["title"] == "IDR" and "evaluate" in meta["tags"]
    original = (resource_path("metrics", "idr") / "README.md").read_text()
    assert card.split("\n---", 1)[1].split("\n---", 1)[-1] in original  # body unchanged
    assert pushed[0].url.endswith("/commit/abc123")


def test_the_staged_space_is_a_working_evaluate_module(tmp_path):
    import evaluate

    [up] = hub_metrics.plan("my-org", ["idr"])
    folder = tmp_path / "idr"
    folder.mkdir()
    hub_metrics.stage(up, folder)
    idr = evaluate.load(str(folder))
    res = idr.compute(predictions=[1, 0, 1, 1, 0, 1], references=[1, 0, 1, 0, 1, 0],
                      group_ids=["g1", "g1", "g2", "g2", "g3", "g3"],
                      variants=["full", "cf"] * 3)
    assert res["idr_raw"] == pytest.approx(1 / 3)


def test_dry_run_lists_uploads_without_a_token(monkeypatch, capsys):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "upload_folder",
                        lambda *a, **k: pytest.fail("a dry run must not upload"))
    assert main(["push-metrics", "--namespace", "my-org", "--dry-run", "--only", "idr,ns"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("would create Space my-org/idr")
    assert "idr.py, README.md, app.py, requirements.txt" in lines[0]


def test_not_logged_in_is_one_line_and_nothing_is_created(monkeypatch, capsys):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo",
                        lambda *a, **k: pytest.fail("must not create without a token"))
    assert main(["push-metrics", "--namespace", "my-org"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hf auth login" in err[0] and "HF_TOKEN" in err[0]


def test_cli_reaches_the_upload_call(monkeypatch, capsys):
    import huggingface_hub

    seen = []
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_x")
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", lambda self, repo_id, **k: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "upload_folder",
                        lambda self, **k: seen.append(k["repo_id"]) or
                        FakeApi().upload_folder(**k))
    assert main(["push-metrics", "--namespace", "my-org", "--only", "vcc"]) == 0
    assert seen == ["my-org/vcc"]
    assert "evaluate.load('my-org/vcc')" in capsys.readouterr().out


def test_bad_namespace_and_module_names():
    with pytest.raises(ValueError, match="bad namespace 'a/b'"):
        hub_metrics.plan("a/b")
    with pytest.raises(ValueError, match="unknown metric module 'idx'"):
        hub_metrics.plan("my-org", ["idx"])
    with pytest.raises(ValueError, match="front matter"):
        hub_metrics.space_card("# no front matter\n")
