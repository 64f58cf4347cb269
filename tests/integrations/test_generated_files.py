"""The generated files: the shipped lmms-eval YAMLs and inspect tasks come from the task
table, the scores schema from the results' records; they are what ``python -m
gridwm_judge.integrations.generate`` writes, a config added to the table gets its files from
it, and a metric name added to the registry reaches the schema and the bridges from there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from bridge_helpers import _Loader, register_figure

from gridwm_judge import results
from gridwm_judge.integrations import generate, items, scores_schema
from gridwm_judge.integrations.items import Figures
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.task_table import ALL_TASKS, TaskSpec, Verdict, task_spec

DEMO = TaskSpec("F", "task_f", "demo: reference-aided question answered Yes/No",
                Verdict("Yes", "No"), 64, "reference_aided", "all_groups",
                description="F: demo")


def test_the_shipped_files_are_current():
    """Fails after a table or registry change until the generator is run (it names the stale
    files)."""
    assert generate.stale() == []
    assert generate.main(["--check"]) == 0


def test_the_shipped_scores_schema_is_the_generated_one():
    text = generate.generated()[generate.SCHEMA_FILE]
    assert results.SCORES_SCHEMA == generate.ROOT / generate.SCHEMA_FILE
    assert results.SCORES_SCHEMA.read_text(encoding="utf-8") == text
    assert results.scores_schema() == json.loads(text) == scores_schema.scores_schema()


def test_one_yaml_per_config_and_style_and_one_inspect_task_per_config():
    files = generate.files()
    yamls = sorted(p for p in files if p.endswith(".yaml"))
    expected = sorted(f"lmms_eval/gridwm_{t.config}" + (f"_{s}" if s else "") + ".yaml"
                      for t in ALL_TASKS for s in (tuple(t.styles) or ("",)))
    assert yamls == expected
    assert set(generate.generated()) == {
        *(f"integrations/{p}" for p in files), "schemas/scores.schema.json"}
    module = files[generate.INSPECT_FILE]
    compile(module, generate.INSPECT_FILE, "exec")
    assert module.count("@task\n") == len(ALL_TASKS)
    for spec in ALL_TASKS:
        assert f"def {spec.config}(dataset: str" in module


def test_a_new_config_gets_its_files(tmp_path, monkeypatch, capsys):
    specs = (*ALL_TASKS, DEMO)
    monkeypatch.setattr(generate, "ROOT", tmp_path)
    lmms = tmp_path / "integrations" / "lmms_eval"
    written = generate.write(tmp_path, specs)
    assert "integrations/lmms_eval/gridwm_task_f.yaml" in written
    assert "schemas/scores.schema.json" in written and generate.stale(tmp_path, specs) == []
    doc = yaml.load((lmms / "gridwm_task_f.yaml").read_text(), Loader=_Loader)
    assert (doc["task"], doc["dataset_name"]) == ("gridwm_task_f", "task_f")
    assert doc["generation_kwargs"]["max_new_tokens"] == 64
    assert [m["metric"] for m in doc["metric_list"]] == ["accuracy", *utils.FIGURES["D"]]
    module = (tmp_path / "integrations" / generate.INSPECT_FILE).read_text()
    assert 'gridwm_task("task_f", dataset, representation)' in module

    # a hand edit is stale, and so is a file of a config the table no longer has
    (lmms / "gridwm_task_c.yaml").write_text("edited\n")
    (tmp_path / "schemas" / "scores.schema.json").write_text("{}\n")
    assert generate.stale(tmp_path, specs) == ["integrations/lmms_eval/gridwm_task_c.yaml",
                                               "schemas/scores.schema.json"]
    assert generate.main(["--check"]) == 1  # the table without task_f: its files are left over
    assert "integrations/lmms_eval/gridwm_task_f.yaml" in capsys.readouterr().err
    assert generate.main([]) == 0
    assert not (lmms / "gridwm_task_f.yaml").exists()
    assert generate.stale(tmp_path) == []


def test_a_metric_added_to_the_registry_reaches_the_schema_and_the_bridges(monkeypatch):
    spec = task_spec("B")
    monkeypatch.setitem(items.PRINTED, spec.recipe,
                        (*items.PRINTED[spec.recipe], Figures("task_metrics", ("toy",))))
    # printed by the bridges before the registry has it: an error naming it and where
    with pytest.raises(ValueError, match="unknown metric name 'toy' in the printed figures of "
                                         "task_b; expected a figure of"):
        generate.lmms_yaml(spec)
    assert "toy" not in scores_schema.result_schema()["properties"]["name"]["enum"]

    register_figure(monkeypatch, "toy")
    schema = generate.generated()[generate.SCHEMA_FILE]
    enum = json.loads(schema)["$defs"]["result"]["properties"]["name"]["enum"]
    assert "toy" in enum and enum == list(results.METRIC_NAMES)
    doc = yaml.load(generate.lmms_yaml(spec), Loader=_Loader)
    assert [m["metric"] for m in doc["metric_list"]] == ["accuracy", "b_mean_score",
                                                         "b_acc_090", "toy"]
    assert utils.metric_names("B")[-1] == "toy"
    assert tuple(Figures("ns", ("toy",), representation=("composite", "split")).named("t")) == (
        "toy_composite", "toy_split")
    toy = results.MetricResult(task="B", world="minigrid", name="toy", value=0.5)
    assert results.Results([toy]).one(task="B", name="toy") == toy
    # the shipped files are now stale: --check names the schema and the task's YAML
    assert generate.stale() == ["integrations/lmms_eval/gridwm_task_b.yaml",
                                "schemas/scores.schema.json"]


@pytest.mark.parametrize("config, lower", [
    ("task_a", ["acc_shuffle", "acc_mask"]),  # the action controls
    ("task_d", ["idr_rev"]),  # Full rejected while its CF is accepted
    ("task_c", ["idr_rev_composite", "idr_rev_split"]),
    ("task_b", [])])
def test_only_the_action_controls_and_idr_rev_are_lower_is_better(config, lower):
    doc = yaml.load(generate.files()[f"lmms_eval/gridwm_{config}.yaml"], Loader=_Loader)
    assert [m["metric"] for m in doc["metric_list"] if not m["higher_is_better"]] == lower


def test_a_result_field_type_without_a_schema_rule_is_an_error():
    assert scores_schema.field_schema(float | None) == {"type": ["number", "null"]}
    assert scores_schema.field_schema(int) == {"type": "integer", "minimum": 0}
    assert scores_schema.field_schema(tuple[float, float]) == {
        "type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
    for bad in (list[str], dict[str, float], str | int, tuple[str, float]):
        with pytest.raises(TypeError, match="no JSON Schema rule"):
            scores_schema.field_schema(bad)


def test_the_integrations_doc_names_every_print_group():
    """docs/integrations.md lists the groups inspect prints: a group added to PRINT_GROUPS is
    named there too."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    assert [g for g in items.PRINT_GROUPS if f"`{g}`" not in doc] == []
