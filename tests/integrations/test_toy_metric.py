"""A figure added in its three places (its name in the results' registry, the recipe that
computes it, one line of the bridges' list) reaches scores.json, the generated schema that
validates it, and what inspect_ai and lmms-eval print: nothing else is edited."""

from __future__ import annotations

import json

import jsonschema
import pytest
from bridge_helpers import register_figure, score_judge, write_predictions

from gridwm_judge import results
from gridwm_judge.integrations import generate, items
from gridwm_judge.integrations.items import Figures, grade_response, load_items, task_figures
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.scoring import recipes
from gridwm_judge.task_table import task_spec


def _share_answered(rows) -> float:
    return sum(r.status == "ok" and r.parse_mode != "invalid" for r in rows) / len(rows)


@pytest.fixture
def toy(monkeypatch):
    """'toy': Task B's share of parsed answers, added where a contributor adds a figure."""
    spec = task_spec("B")
    register_figure(monkeypatch, "toy")  # 1. the registry
    own = recipes.RECIPES[spec.recipe]

    def score(rows, spec, settings):  # 2. the recipe that computes it
        toy = results.MetricResult(task=spec.name, world=spec.world, name="toy",
                                   value=_share_answered(rows), numerator=None,
                                   denominator=len(rows))
        return results.Results((*own.score(rows, spec, settings), toy))

    monkeypatch.setitem(recipes.RECIPES, spec.recipe, recipes.Recipe(own.grade, score))
    monkeypatch.setitem(items.PRINTED, spec.recipe,  # 3. the bridges' list
                        (*items.PRINTED[spec.recipe], Figures("task_metrics", ("toy",))))
    return spec


def test_a_toy_figure_reaches_scores_json_the_schema_and_both_bridges(toy, smoke_build, answer,
                                                                      tmp_path):
    found = load_items(str(smoke_build), toy.config)
    answers = {i.uid: answer(i.uid, i.audit) for i in found}
    answers[found[0].uid] = json.dumps({"agent": [1, 1], "goal": [2, 2]})  # one that parses
    write_predictions(tmp_path / "predictions.jsonl", smoke_build, toy.config, answers)
    judge = score_judge(smoke_build, tmp_path / "predictions.jsonl", tmp_path / "s", "scripted")

    rows = [grade_response(answers[i.uid], {**i.audit, "uid": i.uid}) for i in found]
    expected = _share_answered(rows)
    assert 0 < expected < 1
    # scores.json holds it, and the schema generated from the registry validates that file
    written = json.loads((tmp_path / "s" / "scores.json").read_text())
    jsonschema.validate(written, json.loads(generate.generated()[generate.SCHEMA_FILE]))
    assert judge.results.value(task="B", name="toy") == expected
    # lmms-eval lists it and aggregates it; inspect prints it in its group
    assert utils.metric_names("B")[-1] == "toy"
    assert utils._figure("toy")([r.to_json() for r in rows]) == expected
    assert task_figures(rows)["toy"] == expected
    inspect_bridge = pytest.importorskip("gridwm_judge.integrations.inspect_bridge")
    toy_result = judge.results.one(task="B", name="toy")
    assert inspect_bridge._printed("task_metrics")(toy_result)
