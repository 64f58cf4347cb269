"""Task A in the framework bridges: the lmms-eval YAML ``gridwm_task_a`` and the
inspect task ``gridwm_judge/task_a`` print accuracy per action condition (``acc_a1`` for orig,
``acc_shuffle``, ``acc_mask``), each over that condition's rows and equal to ``gridwm-judge
score``'s, and no accuracy pooled over the three conditions. (MiniWorld's MA goes through the
same code: tests/integrations/test_miniworld_integrations.py.)"""

from __future__ import annotations

import hashlib
import json

import datasets
import pytest
from bridge_helpers import built, lmms_yaml, mock_model, score_judge, write_predictions

from gridwm_judge.cli import main
from gridwm_judge.integrations.items import CONDITION_FIGURES, pooled_accuracy
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.task_table import ALL_TASKS, task_spec

PER_CONDITION = CONDITION_FIGURES["next_state"]  # figure -> action condition
FIGURES = (*PER_CONDITION, "delta_shuffle", "delta_mask")


@pytest.fixture(scope="module")
def a_build(tmp_path_factory):
    return built(tmp_path_factory, "abridge", "--profile", "quickstart", "--configs", "task_a")


def a_answer(uid: str, audit) -> str:
    """Right on most orig rows, on some shuffle rows, on half the mask rows; a few answers
    that do not parse: the three conditions' accuracies differ, so a pooled figure would
    equal none of them."""
    h = int(hashlib.sha256(uid.encode()).hexdigest(), 16) % 12
    if h == 0:
        return "I cannot tell which one."
    right = {"orig": h < 10, "shuffle": h < 4, "mask": h < 7}[str(audit["action_condition"])]
    gold = str(audit["answer"])
    return gold if right else "ABCD"[("ABCD".index(gold) + 1) % 4]


def expected(judge) -> dict[str, float]:
    return {m: judge.results.value(task="A", name=m) for m in FIGURES}


def test_no_pooled_accuracy_for_the_tasks_asked_under_action_conditions():
    assert set(PER_CONDITION.values()) == {"orig", "shuffle", "mask"}
    for spec in ALL_TASKS:
        assert pooled_accuracy(spec) == (spec.recipe != "next_state"), spec.name
    for config in ("task_a", "miniworld_a"):
        doc = lmms_yaml(f"gridwm_{config}.yaml")
        names = [m["metric"] for m in doc["metric_list"]]
        assert names == list(FIGURES) == list(utils.metric_names(task_spec(config).name))
        assert "accuracy" not in names


def test_lmms_eval_hooks_per_condition_equal_score(a_build, tmp_path):
    docs = datasets.load_dataset(str(a_build), "task_a", split="test")
    per_metric: dict[str, list] = {}
    said = {}
    for doc in docs:
        said[doc["uid"]] = a_answer(doc["uid"], doc)
        results = utils.process_results(doc, [said[doc["uid"]]])
        cond = doc["action_condition"]
        # a row is in its own condition's accuracy and in the deltas, in no other accuracy
        assert sorted(results) == sorted(
            n for n in FIGURES if PER_CONDITION.get(n, cond) == cond)
        for name, value in results.items():
            per_metric.setdefault(name, []).append(json.loads(json.dumps(value)))
    assert sorted(per_metric) == sorted(FIGURES)
    for name, cond in PER_CONDITION.items():
        assert {r["action_condition"] for r in per_metric[name]} == {cond}
        assert len(per_metric[name]) == len(docs) // 3
    write_predictions(tmp_path / "p.jsonl", a_build, "task_a", said)
    want = expected(score_judge(a_build, tmp_path / "p.jsonl", tmp_path / "s", "scripted"))
    aggregated = {n: getattr(utils, f"agg_{n}")(rows) for n, rows in per_metric.items()}
    assert aggregated == pytest.approx(want)
    # each condition's accuracy is the share of its own rows answered right
    for name, cond in PER_CONDITION.items():
        rows = [d for d in docs if d["action_condition"] == cond]
        right = sum(said[d["uid"]] == d["answer"] for d in rows)
        assert aggregated[name] == pytest.approx(right / len(rows))
    assert len({aggregated[n] for n in PER_CONDITION}) == 3  # a pooled figure hides this


def test_inspect_eval_prints_per_condition_accuracy_only(a_build, tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval

    model, items, _ = mock_model(a_build, "task_a", a_answer)
    [log] = inspect_eval("gridwm_judge/task_a", model=model,
                         task_args={"dataset": str(a_build)}, log_dir=str(tmp_path / "logs"),
                         display="none")
    assert log.status == "success" and len(log.samples) == len(items)
    printed = {k: m.value for s in log.results.scores for k, m in s.metrics.items()}
    assert "accuracy" not in printed and "stderr" not in printed
    assert sorted(printed) == sorted([*FIGURES, *(f"{n}_stderr" for n in PER_CONDITION)])

    run, out = tmp_path / "run", tmp_path / "scores"
    assert main(["import-inspect", log.location, "--out", str(run)]) == 0
    want = expected(score_judge(a_build, run / "predictions.jsonl", out,
                                "inspect/mockllm/model"))
    assert {k: printed[k] for k in FIGURES} == pytest.approx(want)
    assert len({printed[n] for n in PER_CONDITION}) == 3
    assert all(printed[f"{n}_stderr"] > 0 for n in PER_CONDITION)
