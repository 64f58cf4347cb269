"""The integration files come from the task table: the shipped lmms-eval YAMLs and inspect
tasks are what ``python -m gridwm_judge.integrations.generate`` writes, and a config added to
the table gets its files from it."""

from __future__ import annotations

import yaml
from bridge_helpers import _Loader

from gridwm_judge.integrations import generate
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.task_table import ALL_TASKS, TaskSpec, Verdict

DEMO = TaskSpec("F", "task_f", "demo: reference-aided question answered Yes/No",
                Verdict("Yes", "No"), 64, "reference_aided", "all_groups",
                description="F: demo")


def test_the_shipped_files_are_current():
    """Fails after a table change until the generator is run (it names the stale files)."""
    assert generate.stale() == []
    assert generate.main(["--check"]) == 0


def test_one_yaml_per_config_and_style_and_one_inspect_task_per_config():
    files = generate.files()
    yamls = sorted(p for p in files if p.endswith(".yaml"))
    expected = sorted(f"lmms_eval/gridwm_{t.config}" + (f"_{s}" if s else "") + ".yaml"
                      for t in ALL_TASKS for s in (tuple(t.styles) or ("",)))
    assert yamls == expected
    module = files[generate.INSPECT_FILE]
    compile(module, generate.INSPECT_FILE, "exec")
    assert module.count("@task\n") == len(ALL_TASKS)
    for spec in ALL_TASKS:
        assert f"def {spec.config}(dataset: str" in module


def test_a_new_config_gets_its_files(tmp_path, monkeypatch, capsys):
    specs = (*ALL_TASKS, DEMO)
    monkeypatch.setattr(generate, "HERE", tmp_path)
    written = generate.write(tmp_path, specs)
    assert "lmms_eval/gridwm_task_f.yaml" in written and generate.stale(tmp_path, specs) == []
    doc = yaml.load((tmp_path / "lmms_eval" / "gridwm_task_f.yaml").read_text(), Loader=_Loader)
    assert (doc["task"], doc["dataset_name"]) == ("gridwm_task_f", "task_f")
    assert doc["generation_kwargs"]["max_new_tokens"] == 64
    assert [m["metric"] for m in doc["metric_list"]] == ["accuracy", *utils.FIGURES["D"]]
    module = (tmp_path / generate.INSPECT_FILE).read_text()
    assert 'gridwm_task("task_f", dataset, representation)' in module

    # a hand edit is stale, and so is a file of a config the table no longer has
    (tmp_path / "lmms_eval" / "gridwm_task_c.yaml").write_text("edited\n")
    assert generate.stale(tmp_path, specs) == ["lmms_eval/gridwm_task_c.yaml"]
    assert generate.main(["--check"]) == 1  # the table without task_f: its files are left over
    assert "lmms_eval/gridwm_task_f.yaml" in capsys.readouterr().err
    assert generate.main([]) == 0
    assert not (tmp_path / "lmms_eval" / "gridwm_task_f.yaml").exists()
    assert generate.stale(tmp_path) == []


def test_the_action_controls_are_the_only_lower_is_better_figures():
    doc = yaml.load(generate.files()["lmms_eval/gridwm_task_a.yaml"], Loader=_Loader)
    lower = [m["metric"] for m in doc["metric_list"] if not m["higher_is_better"]]
    assert lower == ["acc_shuffle", "acc_mask"]
