"""inspect_ai end to end with its mock model provider: `gridwm_judge/task_c` resolves through
the package entry point, the eval runs, the metrics it prints equal `gridwm-judge score`'s on
the converted log, and the converter keeps errors as errors. Skipped without the `inspect`
extra (pip install "gridwm-judge[inspect]")."""

from __future__ import annotations

import base64
import json
from importlib.metadata import entry_points

import pytest
from bridge_helpers import mock_model

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

from gridwm_judge.cli import main  # noqa: E402
from gridwm_judge.integrations import inspect_bridge, inspect_tasks, items  # noqa: E402
from gridwm_judge.integrations.inspect_convert import log_records  # noqa: E402
from gridwm_judge.integrations.items import load_items  # noqa: E402
from gridwm_judge.integrations.lmms_eval import utils  # noqa: E402
from gridwm_judge.records import ScoresRecord, read_prediction_file  # noqa: E402
from gridwm_judge.results import MetricResult  # noqa: E402
from gridwm_judge.task_table import ALL_TASKS, TASKS, task_spec  # noqa: E402

FAIL_UID_SHARE = 17  # every 17th item's request errors (nothing comes back)


def test_entry_point_and_one_task_per_config():
    [ep] = [e for e in entry_points(group="inspect_ai") if e.name == "gridwm_judge"]
    assert ep.value == "gridwm_judge.integrations.inspect_tasks"
    for spec in TASKS:
        assert callable(getattr(inspect_tasks, spec.config)), spec.config


def _eval(dataset, model, tmp_path, **kw):
    [log] = inspect_eval("gridwm_judge/task_c", model=model, task_args={"dataset": str(dataset)},
                         log_dir=str(tmp_path / "logs"), display="none", **kw)
    return log


def test_eval_metrics_equal_score_on_the_converted_log(smoke_build, tmp_path, answer):
    model, items, seen = mock_model(smoke_build, "task_c", answer)
    log = _eval(smoke_build, model, tmp_path)
    assert log.status == "success" and len(log.samples) == len(items)
    # images in the dataset's order, the prompt unchanged, greedy with the table's budget
    assert {(s[2], s[3]) for s in seen} == {(0.0, 256)}
    by_uid = {i.uid: i for i in items}
    for sample in read_eval_log(log.location, resolve_attachments=True).samples:
        parts = sample.input[0].content
        assert parts[-1].text == by_uid[sample.id].prompt
        sent = [base64.b64decode(p.image.partition(",")[2]) for p in parts[:-1]]
        assert sent == list(by_uid[sample.id].images)
    printed = {k: m.value for k, m in log.results.scores[0].metrics.items()}

    run, out = tmp_path / "run", tmp_path / "scores"
    assert main(["import-inspect", log.location, "--out", str(run)]) == 0
    assert main(["score", "--dataset", str(smoke_build), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(out), "--n-resamples", "200"]) == 0
    judge = ScoresRecord.read(out / "scores.json").judges["inspect/mockllm/model"]
    res = judge.results
    expected = {"vcc_rep": res.value(task="C", name="vcc_rep")}
    for rep in ("composite", "split"):
        for m in ("idr_raw", "idr_cond", "idr_rev", "p_active"):
            expected[f"{m}_{rep}"] = res.value(task="C", representation=rep, name=m)
        for fam in ("temporal", "visual", "framing"):
            for m in ("ns", "jcr"):
                expected[f"{m}_{fam}_{rep}"] = res.value(task="C", representation=rep,
                                                         probe=fam, name=m)
    expected = {k: v for k, v in expected.items() if v is not None}
    assert {k: printed[k] for k in expected} == pytest.approx(expected)
    assert len(set(expected.values())) > 2  # not a constant judge
    said = {i.item_digest: answer(i.uid, i.audit) for i in reversed(items)}  # first uid wins
    correct = sum(said[i.item_digest] in ("Yes", "No") and
                  (said[i.item_digest] == "Yes") == (i.audit["label"] == 1) for i in items)
    assert printed["accuracy"] == pytest.approx(correct / len(items))

    # the converted run names the dataset it was asked from, and report reads it
    run_json = json.loads((run / "run.json").read_text())
    assert run_json["dataset_fingerprint"].startswith("sha256:")
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0


def test_errored_samples_stay_errors_and_bad_logs_are_refused(smoke_build, tmp_path, answer,
                                                               capsys):
    items = load_items(str(smoke_build), "task_c")
    uids = [i.uid for i in items]
    failing = {i.item_digest for i in items[::FAIL_UID_SHARE]}
    fail = {i.uid for i in items if i.item_digest in failing}  # every uid of a failing item
    model, _, _ = mock_model(smoke_build, "task_c", answer, fail=fail)
    log = _eval(smoke_build, model, tmp_path, fail_on_error=False, retry_on_error=0)
    run = tmp_path / "run"
    assert main(["import-inspect", log.location, "--out", str(run)]) == 0
    records = {r.uid: r for r in read_prediction_file(run / "predictions.jsonl")}
    assert {u for u, r in records.items() if r.status == "error"} == fail
    assert all(r.raw is None for u, r in records.items() if u in fail)
    assert main(["score", "--dataset", str(smoke_build), "--predictions",
                 str(run / "predictions.jsonl"), "--out", str(tmp_path / "s"),
                 "--n-resamples", "100", "--no-les"]) == 0
    cov = ScoresRecord.read(tmp_path / "s" / "scores.json").judges[
        "inspect/mockllm/model"].coverage["C"]
    assert (cov.asked, cov.errored, cov.answered) == (len(uids), len(fail), len(uids) - len(fail))

    # a sample whose prompt is not the dataset item's is refused, nothing converted
    full = read_eval_log(log.location, resolve_attachments=True)
    full.samples[3].input[0].content[-1].text += " Think step by step."
    identity = {"judge": "j", "judge_options": {}, "judge_settings": {}}
    with pytest.raises(ValueError, match="differs from the dataset item"):
        log_records(full, "j", identity, 256, "C")

    capsys.readouterr()
    assert main(["import-inspect", log.location, "--out", str(run)]) == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert main(["import-inspect", str(tmp_path / "nope.eval"), "--out", str(tmp_path / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_every_generated_task_prints_metrics_the_bridge_has():
    from gridwm_judge.integrations import inspect_bridge

    for spec in ALL_TASKS:
        assert set(inspect_bridge.inspect_metrics(spec)) <= set(inspect_bridge.METRICS), spec.name
    with pytest.raises(ValueError, match="unknown inspect metric.*'idr_raw'"):
        inspect_bridge.gridwm_task("task_c", "unused", metrics=("idr_raw",))
    with pytest.raises(ValueError, match="task_c prints no figures in task_metrics, stages; "
                                         "its groups are idr, p_active, ns, jcr, vcc_rep"):
        inspect_bridge.gridwm_task("task_c", "unused", metrics=("idr", "task_metrics", "stages"))


def test_a_metric_group_naming_an_unknown_metric_is_an_error(monkeypatch):
    """A metric group prints the figures its task's recipe names: a name outside the results'
    registry would print nothing, silently; the task is refused with a ValueError naming it."""
    spec = task_spec("C")
    monkeypatch.setitem(items.PRINTED, spec.recipe,
                        (items.Figures("idr", ("idr_rwa",)), *items.PRINTED[spec.recipe]))
    with pytest.raises(ValueError, match="unknown metric name 'idr_rwa' in the printed figures "
                                         "of task_c; expected a figure of"):
        inspect_bridge.gridwm_task("task_c", "unused")
    monkeypatch.setitem(items.PRINTED, spec.recipe, (items.Figures("idr", ("les",)),))
    with pytest.raises(ValueError, match="metric 'les' in the printed figures of task_c is not "
                                         "a figure"):
        inspect_bridge.gridwm_task("task_c", "unused")


def test_a_figure_added_to_its_recipes_list_is_printed_in_its_group(monkeypatch):
    """One list (items.PRINTED) says what both bridges print: a figure added there is printed
    by its inspect group, as lmms-eval lists it, and by no other group."""
    spec = task_spec("B")
    monkeypatch.setitem(items.PRINTED, spec.recipe,
                        (*items.PRINTED[spec.recipe], items.Figures("task_metrics", ("idr_raw",))))
    late = MetricResult(task="B", world="minigrid", name="idr_raw", value=0.5)
    assert inspect_bridge.inspect_metrics(spec) == ("accuracy", "stderr", "task_metrics")
    assert inspect_bridge._printed("task_metrics")(late)
    assert not inspect_bridge._printed("idr")(late)
    assert utils.figures_of(spec)[-1] == "idr_raw"
