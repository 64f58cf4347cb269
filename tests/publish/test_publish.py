"""`gridwm-judge publish`: the results repo's files and commits, the model repo's
.eval_results, re-publishing, and every refusal (the Hub is replaced by a recording fake, as
`push`'s tests do; `--local` writes the same files into a folder that load_dataset reads)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from gridwm_judge.cli import main
from gridwm_judge.headlines import headlines
from gridwm_judge.publish import gather, plan_publish, publish_to_hub, write_local
from gridwm_judge.publish.entries import PublishError
from gridwm_judge.publish.eval_results import EVAL_RESULTS_FILE, model_repo_of
from gridwm_judge.publish.results_repo import MARKER
from gridwm_judge.schema import DATASET_VERSION


class FakeApi:
    """Records every call; ``files`` is what the results repo already holds."""

    def __init__(self, files=None, model_exists=True):
        self.calls, self.files, self.model_exists = [], files, model_exists

    def repo_exists(self, repo_id, **kw):
        self.calls.append(("repo_exists", repo_id, kw))
        return self.model_exists

    def list_repo_files(self, repo_id, **kw):
        import httpx
        from huggingface_hub.errors import RepositoryNotFoundError

        self.calls.append(("list_repo_files", repo_id, kw))
        if self.files is None:
            request = httpx.Request("GET", f"https://huggingface.co/api/datasets/{repo_id}")
            raise RepositoryNotFoundError("404", response=httpx.Response(404, request=request))
        return list(self.files)

    def create_repo(self, repo_id, **kw):
        self.calls.append(("create_repo", repo_id, kw))

    def create_commit(self, **kw):
        self.calls.append(("create_commit", kw["repo_id"], kw))

        class Info:
            commit_url = f"https://huggingface.co/{kw['repo_id']}/commit/1"
            pr_url = (f"https://huggingface.co/{kw['repo_id']}/discussions/1"
                      if kw.get("create_pr") else None)

        return Info()

    def uploads(self):
        return [c for c in self.calls if c[0] == "create_commit"]


@pytest.fixture(scope="module")
def runs(quickstart_run, tmp_path_factory) -> Path:
    """A writable copy of the quickstart's scored run folders (oracle, random, last-frame)."""
    out = tmp_path_factory.mktemp("publish") / "runs"
    for name in ("oracle", "random", "last-frame"):
        shutil.copytree(quickstart_run.result.out / "runs" / name, out / name)
    return out


def _ops(call):
    return {op.path_in_repo: op for op in call[2]["operations"]}


def test_one_commit_to_the_results_repo_and_a_pr_on_the_model_repo(runs):
    entries = gather([runs / "random"])
    plan = plan_publish(entries, "me/gwj-results", model_repo="me/oracle-model",
                        benchmark_repo="me/gwj", revision="abc123")
    api = FakeApi(files=[".gitattributes"])  # what the Hub puts in a new repo
    done = publish_to_hub(plan, token="hf_x", api=api)
    assert [c[0] for c in api.calls] == ["repo_exists", "list_repo_files", "create_repo",
                                         "create_commit", "create_commit"]
    assert api.calls[0][1] == "me/oracle-model" and api.calls[0][2]["repo_type"] == "model"
    assert api.calls[2][2]["repo_type"] == "dataset" and api.calls[2][2]["exist_ok"]
    results, model = api.uploads()
    key = entries[0].key
    added = sorted(_ops(results))
    assert added[:2] == ["README.md", MARKER] or sorted(added)[0] == "README.md"
    assert sorted(re.sub(r"-[0-9a-f]{8}\.parquet$", "", f) for f in added
                  if f.startswith("data/")) == sorted(
        f"data/{t}/{key}" for t in ("groups", "predictions", "results", "runs"))
    assert set(added) == {"README.md", MARKER, *plan.run_files}
    assert results[2]["repo_type"] == "dataset" and "create_pr" not in results[2]
    assert model[1] == "me/oracle-model" and model[2]["create_pr"] is True
    assert model[2]["repo_type"] == "model"
    [op] = model[2]["operations"]
    assert op.path_in_repo == EVAL_RESULTS_FILE == ".eval_results/gridwm-judge.yaml"
    assert done.model_url.endswith("/discussions/1")


def test_eval_results_parse_with_the_hubs_own_parser(runs):
    from huggingface_hub import parse_eval_result_entries

    entries = gather([runs / "random"])
    plan = plan_publish(entries, "me/gwj-results", model_repo="me/m", benchmark_repo="me/gwj",
                        revision="abc123")
    data = yaml.safe_load(plan.model_files[EVAL_RESULTS_FILE])
    parsed = parse_eval_result_entries(data)
    declared = {h.id: h for h in headlines(entries[0].run.tasks)}
    assert parsed and {p.task_id for p in parsed} <= set(declared)
    results = entries[0].scores.results
    for p in parsed:
        assert p.dataset_id == "me/gwj" and p.dataset_revision == "abc123"
        assert p.source_url == "https://huggingface.co/datasets/me/gwj-results"
        assert p.verify_token is None and "judge baseline:random" in (p.notes or "")
        picked = declared[p.task_id].pick(results)
        assert picked is not None and p.value == pytest.approx(picked.value, abs=1e-4)
    idr = next(p for p in parsed if p.task_id == "task_c-idr_raw")
    assert idr.value == pytest.approx(
        results.one(task="C", name="idr_raw", representation="composite").value, abs=1e-4)
    assert all(d["evaluation_framework"] == "gridwm-judge" for d in data)


def test_load_dataset_reads_one_table_and_republishing_replaces(runs, tmp_path):
    from datasets import load_dataset

    out = tmp_path / "pub"
    write_local(plan_publish(gather([runs / "oracle", runs / "random"]), "me/r"), out)
    first = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    write_local(plan_publish(gather([runs / "oracle"]), "me/r"), out)  # again: replaced
    again = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert again == first
    write_local(plan_publish(gather([runs / "last-frame"]), "me/r"), out)  # a third judge
    results = load_dataset(str(out / "results"), "results", split="train").to_pandas()
    n = {e.judge: len(e.scores.results) for e in gather([runs / "oracle", runs / "random",
                                                          runs / "last-frame"])}
    assert results.groupby("judge").size().to_dict() == n
    assert results["dataset_digest"].nunique() == 1 and set(results["dataset_version"]) == {
        DATASET_VERSION}
    oracle = results[(results.judge == "baseline:oracle") & (results.task == "C")
                     & (results.name == "idr_raw") & (results.representation == "composite")
                     & results.family.isna()]
    assert oracle["value"].tolist() == [1.0] and oracle["ci_low"].tolist() == [1.0]
    runs_table = load_dataset(str(out / "results"), "runs", split="train")
    assert sorted(runs_table["judge"]) == sorted(n)
    assert all(isinstance(json.loads(c), dict) for c in runs_table["coverage"])
    groups = load_dataset(str(out / "results"), "groups", split="train").to_pandas()
    oracle_c = groups[(groups.judge == "baseline:oracle") & (groups.task == "C")
                      & (groups.representation == "composite")]
    assert len(oracle_c) == 10 and oracle_c.discriminated.all()
    preds = load_dataset(str(out / "results"), "predictions", split="train")
    assert preds.num_rows == sum(1 for p in runs.glob("*/predictions.jsonl")
                                 for line in p.read_text().splitlines() if line.strip())


def test_no_secret_from_the_run_folder_is_uploaded(runs, tmp_path, monkeypatch):
    secret = "sk-live-0123456789abcdef"
    run_dir = tmp_path / "oracle"
    shutil.copytree(runs / "oracle", run_dir)
    scores = json.loads((run_dir / "scores.json").read_text())
    for obj in [json.loads((run_dir / "run.json").read_text()), *scores["runs"].values()]:
        obj["operational"]["base_url"] = f"https://user:{secret}@api.example.com/v1"
        obj["judge_options"]["extra"] = {"api_key": secret}
    (run_dir / "run.json").write_text(json.dumps(obj))
    scores["runs"] = {str(run_dir / "predictions.jsonl"): obj}
    (run_dir / "scores.json").write_text(json.dumps(scores))
    lines = (run_dir / "predictions.jsonl").read_text().splitlines()
    bad = json.loads(lines[0]) | {"error": f"401: Authorization: Bearer {secret}"}
    (run_dir / "predictions.jsonl").write_text("\n".join([json.dumps(bad), *lines[1:]]) + "\n")
    plan = plan_publish(gather([run_dir]), "me/r")
    for name, data in plan.run_files.items():
        assert secret.encode() not in data, name


def test_dry_run_lists_files_and_rows_and_never_contacts_the_hub(runs, monkeypatch, capsys):
    import huggingface_hub

    def refuse(*a, **k):
        raise AssertionError("a dry run contacted the Hub")

    for name in ("create_repo", "create_commit", "list_repo_files", "repo_exists"):
        monkeypatch.setattr(huggingface_hub.HfApi, name, refuse)
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    code = main(["publish", str(runs / "random"), "--results-repo", "me/r", "--model-repo",
                 "me/m", "--benchmark-repo", "me/gwj", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("would publish 1 run(s) (baseline:random)")
    assert "results rows" in out and "token NOT found" in out
    assert "data/results/baseline-random-" in out and MARKER in out
    assert "would open a pull request on model repo me/m" in out and "task_id: task_c-idr_raw" \
        in out


def test_cli_local_writes_what_load_dataset_reads(runs, tmp_path, capsys):
    from datasets import load_dataset

    code = main(["publish", str(runs / "random"), "--results-repo", "me/r", "--model-repo",
                 "me/m", "--benchmark-repo", "me/gwj", "--local", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "model" / EVAL_RESULTS_FILE).is_file()
    table = load_dataset(str(tmp_path / "out" / "results"), "results", split="train")
    assert set(table["judge"]) == {"baseline:random"}


def _on_another_dataset(run: Path, out: Path) -> Path:
    """A copy of ``run`` that answered (and was scored against) another dataset digest."""
    shutil.copytree(run, out)
    other = "sha256:" + "9" * 64
    obj = json.loads((out / "run.json").read_text()) | {"dataset_fingerprint": other}
    (out / "run.json").write_text(json.dumps(obj))
    scores = json.loads((out / "scores.json").read_text())
    scores["dataset_fingerprint"] = other
    scores["runs"] = {str(out / "predictions.jsonl"): obj}
    (out / "scores.json").write_text(json.dumps(scores))
    return out


def test_a_local_model_path_is_never_published(runs, tmp_path):
    from gridwm_judge.publish.entries import public_judge

    path = "/home/alice/ckpts/qwen2-vl"
    run_dir = tmp_path / "local"
    shutil.copytree(runs / "random", run_dir)
    judge = f"hf:{path}"
    obj = json.loads((run_dir / "run.json").read_text()) | {"judge": judge}
    obj["judge_settings"] = {**obj["judge_settings"], "model": path}
    (run_dir / "run.json").write_text(json.dumps(obj))
    scores = json.loads((run_dir / "scores.json").read_text())
    scores["judges"] = {judge: scores["judges"]["baseline:random"]}
    scores["runs"] = {str(run_dir / "predictions.jsonl"): obj}
    (run_dir / "scores.json").write_text(json.dumps(scores))
    lines = [json.loads(x) | {"judge": judge}
             for x in (run_dir / "predictions.jsonl").read_text().splitlines()]
    (run_dir / "predictions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    plan = plan_publish(gather([run_dir]), "me/r")
    public = public_judge(judge)
    assert public.startswith("hf:local/qwen2-vl-") and "alice" not in public
    for name, data in plan.run_files.items():
        assert b"alice" not in data and "alice" not in name, name


def _one_line_refusal(capsys, argv) -> str:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    return err[0]


def test_refusals_are_one_line_and_upload_nothing(runs, tmp_path, capsys, monkeypatch):
    import huggingface_hub

    uploads = []
    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit",
                        lambda self, **k: uploads.append(k))
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo",
                        lambda self, *a, **k: uploads.append(k))
    base = ["--results-repo", "me/r"]
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    line = _one_line_refusal(capsys, ["publish", str(runs / "oracle"), *base])
    assert "hf auth login" in line
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_x")
    # an unknown model repo
    monkeypatch.setattr(huggingface_hub.HfApi, "repo_exists", lambda self, *a, **k: False)
    line = _one_line_refusal(capsys, ["publish", str(runs / "random"), *base, "--model-repo",
                                      "me/nothing", "--benchmark-repo", "me/gwj"])
    assert "me/nothing" in line and "does not exist" in line
    # a results repo holding another benchmark's files
    monkeypatch.setattr(huggingface_hub.HfApi, "list_repo_files",
                        lambda self, *a, **k: ["README.md", "data/vbench.parquet"])
    line = _one_line_refusal(capsys, ["publish", str(runs / "oracle"), *base])
    assert "not a GridWM-Judge results repo" in line
    other_random = _on_another_dataset(runs / "random", tmp_path / "other-random")
    # a run folder without scores
    bare = tmp_path / "bare"
    shutil.copytree(runs / "oracle", bare)
    (bare / "scores.json").unlink()
    line = _one_line_refusal(capsys, ["publish", str(bare), *base])
    assert "no scores.json" in line and "gridwm-judge score" in line
    # scores of another dataset than the run answered
    other = tmp_path / "other"
    shutil.copytree(runs / "oracle", other)
    scores = json.loads((other / "scores.json").read_text())
    scores["dataset_fingerprint"] = "sha256:" + "0" * 64
    (other / "scores.json").write_text(json.dumps(scores))
    line = _one_line_refusal(capsys, ["publish", str(other), *base])
    assert "against another dataset" in line
    # an API judge with no model repo named; the oracle as a model's result
    line = _one_line_refusal(capsys, ["publish", str(runs / "random"), *base,
                                      "--benchmark-repo", "me/gwj"])
    assert "--model-repo" in line
    line = _one_line_refusal(capsys, ["publish", str(runs / "oracle"), *base,
                                      "--model-repo", "me/m", "--benchmark-repo", "me/gwj"])
    assert "reads the gold answer" in line
    # one judge on two datasets into one model repo
    line = _one_line_refusal(capsys, ["publish", str(runs / "random"), str(other_random), *base,
                                      "--model-repo", "me/m", "--benchmark-repo", "me/gwj"])
    assert "2 different datasets" in line
    line = _one_line_refusal(capsys, ["publish", str(runs / "random"), *base, "--dry-run",
                                      "--local", str(tmp_path / "x")])
    assert "choose one" in line
    assert uploads == []


def test_a_foreign_local_results_folder_is_refused(runs, tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "leaderboard.csv").write_text("x\n")
    with pytest.raises(PublishError, match="not a GridWM-Judge results repo"):
        write_local(plan_publish(gather([runs / "oracle"]), "me/r"), tmp_path)
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["leaderboard.csv"]


@pytest.mark.parametrize(("judge", "repo"), [
    ("hf:Qwen/Qwen2.5-VL-7B-Instruct", "Qwen/Qwen2.5-VL-7B-Instruct"),
    ("vllm:OpenGVLab/InternVL3-8B", "OpenGVLab/InternVL3-8B"),
    ("openai:gpt-4o", None), ("baseline:oracle", None), ("hf:/models/local", None),
])
def test_model_repo_defaults_only_for_hub_models(judge, repo):
    assert model_repo_of(judge) == repo


def test_republishing_on_the_hub_replaces_the_runs_earlier_files_only(runs):
    from huggingface_hub import CommitOperationDelete

    entries = gather([runs / "oracle"])
    key = entries[0].key
    earlier = f"data/results/{key}-deadbeef.parquet"
    other = "data/results/openai-gpt-4o-1234abcd--254668cbed9a-0badc0de.parquet"
    api = FakeApi(files=["README.md", MARKER, earlier, other])
    publish_to_hub(plan_publish(entries, "me/r"), token="hf_x", api=api)
    [commit] = api.uploads()
    ops = commit[2]["operations"]
    assert [op.path_in_repo for op in ops if isinstance(op, CommitOperationDelete)] == [earlier]
    card = yaml.safe_load(_ops(commit)["README.md"].path_or_fileobj.decode().split("---")[1])
    [results] = [c for c in card["configs"] if c["config_name"] == "results"]
    listed = results["data_files"][0]["path"]
    assert other in listed and earlier not in listed and len(listed) == 2
