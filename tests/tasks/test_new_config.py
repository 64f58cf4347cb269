"""Adding a config is one task-table entry plus its row builder (ARCHITECTURE.md's example).

The config here is not shipped: ``task_f`` asks Task D's reference-aided question with a Yes/No
answer. The test touches no library file: it adds one ``TaskSpec`` (by patching the table's
lookup for the test's duration) and writes a row builder; everything else -- the prompt's
answer line, parsing, eval's budget, structured outputs, the baseline judges (the shortcut
rules too: a verdict answer is theirs), grading, scoring
with CIs, the lmms-eval and inspect files (``python -m gridwm_judge.integrations.generate``)
-- follows the entry.
"""

from __future__ import annotations

import json
import subprocess
import sys

import datasets
import pytest
import yaml

from gridwm_judge import task_table
from gridwm_judge.cli import main
from gridwm_judge.dataset.features import features
from gridwm_judge.integrations import generate
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.parsing import parse_answer
from gridwm_judge.records import ScoresRecord
from gridwm_judge.task_table import TaskSpec, Verdict
from gridwm_judge.tasks import task_d
from gridwm_judge.worlds.minigrid import generate_groups

DEMO = TaskSpec("F", "task_f", "demo: reference-aided question answered Yes/No",
                Verdict("Yes", "No"), 64, "reference_aided", "all_groups",
                description="F: Task D's reference-aided question answered Yes/No (demo)",
                variant_of="D")


def build_rows(groups) -> list[dict]:
    """The demo's row builder: Task D's rows asked with the demo's answer format."""
    rows = []
    for row in task_d.build_rows(groups, conditions=("clean-neutral", "clean-negative"),
                                 variants=("full", "cf")):
        old_line = task_table.task_spec("D").answer.format_line()
        rows.append({
            **row,
            "uid": "F" + row["uid"][1:],
            "item_id": "F" + row["item_id"][1:],
            "task": DEMO.name,
            "prompt": row["prompt"].replace(old_line, DEMO.answer.format_line()),
            "answer": DEMO.answer.success if row["label"] == 1 else DEMO.answer.failure,
        })
    return rows


@pytest.fixture
def demo_table(monkeypatch):
    for key in (DEMO.name, DEMO.name.lower(), DEMO.config):
        monkeypatch.setitem(task_table._BY_KEY, key, DEMO)


def _write(folder, config, rows):
    out = folder / "data" / config
    out.mkdir(parents=True)
    datasets.Dataset.from_list(rows, features=features()).to_parquet(str(out / "t.parquet"))
    (folder / "README.md").write_text(
        f"---\nconfigs:\n- config_name: {config}\n  data_files:\n  - split: test\n"
        f"    path: data/{config}/*.parquet\n---\n", encoding="utf-8")
    return folder


def test_a_new_config_runs_through_eval_and_score(demo_table, tmp_path, capsys):
    groups = generate_groups("lavagap", 3, 830000).groups  # one reference + two queries
    rows = build_rows(groups)
    assert len(rows) == 2 * 2 * 2 and all(r["task"] == "F" for r in rows)
    assert all("Answer with ONLY: Yes or No." in r["prompt"] for r in rows)
    assert "Success or Fail" not in rows[0]["prompt"]
    dataset = _write(tmp_path / "ds", DEMO.config, rows)

    # the table drives parsing and structured outputs of the new config
    assert parse_answer("task_f", "Yes").value == "success"
    assert parse_answer("F", "Verdict: No").value == "failure"
    assert DEMO.structured_output() == {"choice": ["Yes", "No"]}

    for judge in ("oracle", "always-yes", "last-frame"):  # last-frame: a verdict shortcut
        run = tmp_path / judge
        assert main(["eval", "--dataset", str(dataset), "--tasks", "task_f", "--judge",
                     f"baseline:{judge}", "--out", str(run), "--no-progress"]) == 0
        manifest = json.loads((run / "run.json").read_text())
        assert manifest["max_tokens"]["F"] == 64 and manifest["tasks"] == ["F"]
        lines = [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]
        assert len(lines) == len(rows)
        if judge == "always-yes":
            assert {x["raw"] for x in lines} == {"Yes"}
        if judge == "last-frame":  # the table says F is a verdict task: the rule answers it
            assert {x["raw"] for x in lines} <= {"Yes", "No"} and len(lines) == len(rows)
        assert main(["score", "--dataset", str(dataset), "--predictions",
                     str(run / "predictions.jsonl"), "--out", str(run / "scores"),
                     "--n-resamples", "200"]) == 0
    capsys.readouterr()

    def results(judge):
        path = tmp_path / judge / "scores" / "scores.json"
        return ScoresRecord.read(path).judges[f"baseline:{judge}"].results

    oracle = results("oracle")
    assert oracle.one(task="F", name="idr_raw").protocol == "all_groups"
    assert oracle.value(task="F", name="n_pairs") == 2
    assert oracle.value(task="F", name="idr_raw") == 1.0
    yes = results("always-yes")
    assert yes.value(task="F", name="idr_raw") == 0.0
    assert yes.value(task="F", name="acc_cf") == 0.0

    # shipped, the entry is in the table every module reads at import: a fresh process with
    # it there still finds D as Task D's question and reports F in a table of its own
    shipped = f"""
import sys
from gridwm_judge import task_table as tt
from gridwm_judge.task_table import TaskSpec, Verdict
demo = TaskSpec("F", "task_f", "demo", Verdict("Yes", "No"), 64, "reference_aided",
                "all_groups", description="F (demo)", variant_of="D")
tt.ALL_TASKS = (*tt.ALL_TASKS, demo)
tt._BY_KEY.update({{k: demo for k in ("F", "f", "task_f")}})
assert tt.world_task("reference_aided") == "D"
from gridwm_judge.cli import main
sys.exit(main(["report", {str(tmp_path / "oracle")!r}, {str(tmp_path / "always-yes")!r},
               "--out", {str(tmp_path / "report")!r}, "--n-resamples", "50"]))
"""
    done = subprocess.run([sys.executable, "-c", shipped], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / "report" / "tables" / "task_f.md").read_text()
    assert table.startswith("### F (config task_f, a variant of D): demo\n")
    assert "baseline:oracle" in table and "baseline:always-yes" in table


def test_a_new_configs_integration_files_come_from_the_generator(demo_table):
    files = generate.files((*task_table.ALL_TASKS, DEMO))
    assert set(files) - set(generate.files()) == {"lmms_eval/gridwm_task_f.yaml"}
    doc = yaml.load(files["lmms_eval/gridwm_task_f.yaml"].replace("!function", ""),
                    Loader=yaml.SafeLoader)
    assert (doc["task"], doc["dataset_name"]) == ("gridwm_task_f", "task_f")
    assert doc["generation_kwargs"]["max_new_tokens"] == 64
    assert [m["metric"] for m in doc["metric_list"]] == list(utils.metric_names("F"))
    assert utils.metric_names("F") == ("accuracy", *utils.FIGURES["D"])  # its recipe's figures
    assert ('def task_f(dataset: str, representation: str | None = None) -> Task:'
            in files[generate.INSPECT_FILE])
