"""`eval-many SPEC.yaml`: a bad spec is refused before anything runs, naming the
entry and the field; a good one runs each judge into its own run folder (here with the local
engine; tests/runner/test_ray_engine.py runs it on Ray)."""

from __future__ import annotations

import json

import pytest
import yaml
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.runner.many import plan


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke")


def _spec(smoke, tmp_path, judges, **top) -> dict:
    return {"dataset": str(smoke), "tasks": "c,d", "out": str(tmp_path / "runs"),
            "judges": judges, **top}


@pytest.mark.parametrize(("judges", "top", "message"), [
    ([{"judge": "baseline:always-yes"}, {"judge": "openai:x", "worker": 8}], {},
     "judges[1] (openai:x): unknown field 'worker'"),
    ([{"judge": "baseline:always-yes", "workers": "8"}], {},
     "judges[0] (baseline:always-yes): field 'workers' must be int, got '8'"),
    ([{"judge": "baseline:always-yes", "workers": 0}], {},
     "judges[0] (baseline:always-yes): --workers must be an integer >= 1"),
    ([{"name": "x"}], {}, "judges[0]: missing field 'judge'"),
    ([{"judge": "nope:x"}], {}, "judges[0] (nope:x): "),
    ([{"judge": "baseline:oracle", "max_tokens": {"Q": 3}}], {},
     "judges[0] (baseline:oracle): field 'max_tokens' names unknown task 'Q'"),
    ([{"judge": "baseline:oracle", "tasks": "c,zz"}], {}, "unknown task 'zz'"),
    ([{"judge": "baseline:oracle"}, {"judge": "baseline:oracle"}], {},
     "write the same run folder"),
    ([{"judge": "baseline:oracle", "replicas": 2}], {"engine": "local"},
     "judges[0] (baseline:oracle): 'replicas' / 'pipeline_parallel_size' / 'ray_address' mean "
     "nothing for engine local"),
    ([{"judge": "baseline:oracle", "pipeline_parallel_size": 2}], {},
     "judges[0] (baseline:oracle): --pipeline-parallel-size means nothing for baseline:oracle"),
    ([{"judge": "baseline:oracle"}, {"judge": "vllm:org/m", "structured": True}], {},
     "judges[1] (vllm:org/m): --structured is not supported"),
    ([{"judge": "baseline:oracle"}], {"engine": "spark"}, "field 'engine' must be one of"),
    ([], {}, "field 'judges' lists no judge"),
])
def test_bad_spec_is_refused_before_anything_runs(smoke, tmp_path, capsys, judges, top,
                                                   message):
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(_spec(smoke, tmp_path, judges, **top)))
    assert main(["eval-many", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and message in err[0], err
    assert not (tmp_path / "runs").exists()


def test_top_level_fields_and_yaml_are_checked(smoke, tmp_path):
    with pytest.raises(ValueError, match="spec: missing field 'tasks'"):
        plan({"dataset": str(smoke), "judges": [{"judge": "baseline:oracle"}]})
    with pytest.raises(ValueError, match="spec: unknown field 'judge'"):
        plan({"dataset": str(smoke), "tasks": "c", "judge": "baseline:oracle"})
    bad = tmp_path / "bad.yaml"
    bad.write_text("judges: [\n")
    with pytest.raises(ValueError, match="is not valid YAML"):
        from gridwm_judge.runner.many import load_spec

        load_spec(bad)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("missing.yaml", None, "spec file '{path}' does not exist"),
    ("bad.yaml", "dataset: x\njudges: [\n  - judge: a\n",
     "spec file '{path}' is not valid YAML: line 3, column 3: expected the node content, but "
     "found '-' (while parsing a flow node)"),
    ("tab.yaml", "dataset: x\n\tjudges: []\n",
     "spec file '{path}' is not valid YAML: line 2, column 1: found character '\\t' that "
     "cannot start any token (while scanning for the next token)"),
    ("empty.yaml", "", "spec file '{path}' is empty"),
    ("twice.yaml", "dataset: x\njudges:\n  - judge: a\njudges:\n  - judge: b\n",
     "spec file '{path}' is not valid YAML: line 4, column 1: the key 'judges' is given twice"),
    ("folder", "<dir>", "cannot read spec file '{path}': Is a directory"),
])
def test_an_unreadable_spec_file_is_one_line_naming_it(tmp_path, capsys, name, text, message):
    path = tmp_path / name
    if text == "<dir>":
        path.mkdir()
    elif text is not None:
        path.write_text(text)
    assert main(["eval-many", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Errno" not in err and "Traceback" not in err, err
    assert err.startswith("gridwm-judge eval-many: error: " + message.format(path=path)), err


def test_local_engine_runs_each_judge_into_its_folder(smoke, tmp_path, capsys):
    spec = _spec(smoke, tmp_path, [
        {"judge": "baseline:always-yes"},
        {"judge": "baseline:random", "seed": 3, "name": "rnd"},
        {"judge": "baseline:oracle", "tasks": "e", "max_tokens": {"e": 40}},
    ], engine="local")
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    assert main(["eval-many", str(path), "--dry-run"]) == 0
    assert not (tmp_path / "runs").exists()
    assert main(["eval-many", str(path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "next: gridwm-judge report" in out
    runs = tmp_path / "runs"
    assert sorted(p.name for p in runs.iterdir()) == ["baseline-always-yes", "baseline-oracle",
                                                       "rnd"]
    manifest = json.loads((runs / "rnd" / "run.json").read_text())
    assert manifest["seed"] == 3 and manifest["engine"] == {"name": "local"}
    assert json.loads((runs / "baseline-oracle" / "run.json").read_text())["max_tokens"]["E"] == 40
    lines = (runs / "baseline-always-yes" / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 10
    assert main(["eval-many", str(path), "--no-progress"]) == 0  # resumes: nothing new
    assert capsys.readouterr().out.count("(0 new,") == 3


def test_entries_take_evals_reasoning_options(smoke, tmp_path):
    spec = _spec(smoke, tmp_path, [
        {"judge": "openai:gpt-5", "base_url": "http://127.0.0.1:9/v1", "name": "g5",
         "reasoning_effort": "low", "reasoning_budget": 1024,
         "token_field": "max_completion_tokens"},
        {"judge": "openai:qwen3", "base_url": "http://127.0.0.1:9/v1", "name": "q3",
         "chat_template_kwargs": {"enable_thinking": False}}], engine="local")
    g5, q3 = (r.cfg.options for r in plan(spec).runs)
    assert (g5.reasoning_effort, g5.reasoning_budget, g5.token_field) == (
        "low", 1024, "max_completion_tokens")
    assert q3.chat_template_kwargs == {"enable_thinking": False}
    bad = _spec(smoke, tmp_path, [{"judge": "openai:gpt-5", "base_url": "http://x/v1",
                                   "reasoning_effort": "extreme"}], engine="local")
    with pytest.raises(ValueError, match=r"judges\[0\] \(openai:gpt-5\): .*reasoning"):
        plan(bad)
