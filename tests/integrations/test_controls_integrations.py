"""The controlled analyses in the framework bridges: inspect_ai's ``gridwm_judge/oracle_state``
and ``gridwm_judge/prompt_ablation`` (all three prompt styles in one eval, each row with its
style's budget) and the lmms-eval YAMLs ``gridwm_oracle_state`` and
``gridwm_prompt_ablation_<style>``, on a real smoke build, print what ``gridwm-judge score``
computes for the same answers."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import datasets
import pytest
from bridge_helpers import lmms_yaml, mock_model, score_judge, write_predictions

from gridwm_judge.cli import main
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.item_hash import request_hash
from gridwm_judge.records import read_prediction_file
from gridwm_judge.schema import EVIDENCE
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.prompt_ablation import PAIRS
from gridwm_judge.task_table import task_spec

JUDGE = "inspect/mockllm/model"


@pytest.fixture(scope="module")
def controls_build(smoke_build):
    return smoke_build  # the session's smoke build (conftest.py): it holds both controls


def control_answer(uid: str, audit) -> str:
    """A deterministic answer in the row's own format: mostly right, some wrong verdicts, some
    CF accepted, wrong objectives (OS), and one unparseable NoCue answer."""
    h = int(hashlib.sha256(uid.encode()).hexdigest(), 16) % 10
    gold_ok = audit["label"] == 1
    if h == 1 or (audit["variant"] == "cf" and h < 4):
        gold_ok = not gold_ok
    verdict = "Success" if gold_ok else "Fail"
    if audit["task"] == "OS":
        if h == 0 and audit["variant"] == "nocue":
            return "I cannot tell from this."
        staged = json.loads(audit["answer"])
        if h in (5, 6):
            staged["objective"] = "ball_purple"
        return json.dumps({**staged, "verdict": verdict})
    style = audit["prompt_style"]
    if style == "direct":
        return verdict
    if style == "structured_verdict":
        return json.dumps({"verdict": verdict})
    return json.dumps({"rationale": "the last frame shows it", "verdict": verdict})


def expected_figures(judge, task: str) -> dict[str, float]:
    """score's point estimates under the bridges' flat names."""
    res = judge.results
    out: dict[str, float | None] = {}
    if task == "OS":
        for arm in EVIDENCE:
            for m in ("task_type", "objective", "verdict", "joint"):
                out[f"{m}_{arm}"] = res.value(task="OS", arm=arm, name=m)
            for m in ("idr_raw", "p_active", "acc_full", "acc_cf"):
                out[f"{m}_{arm}"] = res.value(task="OS", arm=arm, name=m)
        for key in ("vcc_oracle", "vcc_pixel_state"):
            out[key] = res.value(task="OS", name=key)
    else:
        for style in task_spec("PA").styles:
            for m in ("idr_raw", "p_active", "acc_full", "acc_cf"):
                out[f"{m}_{style}"] = res.value(task="PA", style=style, name=m)
        for a, b in PAIRS:
            for m in ("idr_raw", "acc_full", "acc_cf"):
                out[f"{m}_{a}-{b}"] = res.value(task="PA", style=a, baseline=b, name=m)
    return {k: v for k, v in out.items() if v is not None}


# --- lmms-eval ------------------------------------------------------------------------------


def _tasks() -> dict[str, tuple[str, str]]:
    """lmms-eval task name -> (FIGURES key, prompt style)."""
    out = {"gridwm_oracle_state": ("OS", "")}
    for style in task_spec("PA").styles:
        out[f"gridwm_prompt_ablation_{style}"] = (f"PA/{style}", style)
    return out


def test_lmms_eval_yamls_of_the_controls_follow_the_task_table():
    for name, (key, style) in _tasks().items():
        doc = lmms_yaml(f"{name}.yaml")
        spec = task_spec(key.split("/")[0])
        assert doc["include"] == "_default_template_yaml"
        assert (doc["task"], doc["dataset_name"]) == (name, spec.config)
        gen = doc["generation_kwargs"]
        assert (gen["max_new_tokens"], gen["temperature"], gen["do_sample"]) == (
            spec.budget(style), 0, False)
        assert [m["metric"] for m in doc["metric_list"]] == ["accuracy", *utils.FIGURES[key]]
        for m in doc["metric_list"]:
            assert m["aggregation"] == ("function", f"utils.agg_{m['metric']}")
            assert callable(getattr(utils, f"agg_{m['metric']}"))
        if style:  # one style's rows, run together under one tag
            assert doc["tag"] == "gridwm_prompt_ablation"
            assert doc["process_docs"] == ("function", f"utils.docs_{style}")
    budgets = {lmms_yaml(f"gridwm_prompt_ablation_{s}.yaml")["generation_kwargs"]["max_new_tokens"]
               for s in ("direct", "structured_rationale")}
    assert budgets == {256, 1024}  # the rationale style has four times the budget


@pytest.mark.parametrize("config", ["oracle_state", "prompt_ablation"])
def test_lmms_eval_hooks_on_control_rows_equal_score(controls_build, tmp_path, config):
    all_docs = datasets.load_dataset(str(controls_build), config, split="test")
    task = task_spec(config).name
    said = {d["uid"]: control_answer(d["uid"], d) for d in all_docs}
    write_predictions(tmp_path / "p.jsonl", controls_build, config, said)
    expected = expected_figures(score_judge(controls_build, tmp_path / "p.jsonl", tmp_path / "s",
                                            "scripted"), task)
    keys = [k for k, _ in _tasks().values() if k.split("/")[0] == task]
    compared = 0
    for key in keys:
        style = key.partition("/")[2]
        docs = getattr(utils, f"docs_{style}")(all_docs) if style else all_docs
        assert len(docs) == (len(all_docs) // 3 if style else len(all_docs))
        per_metric: dict[str, list] = {}
        for doc in docs:
            visuals = utils.doc_to_visual(doc)
            assert len(visuals) == len(doc["images"])  # none for the State arm
            assert utils.doc_to_text(doc) == doc["prompt"]
            for name, value in utils.process_results(doc, [said[doc["uid"]]]).items():
                per_metric.setdefault(name, []).append(json.loads(json.dumps(value)))
        assert sorted(per_metric) == sorted(["accuracy", *utils.FIGURES[key]])
        aggregated = {n: getattr(utils, f"agg_{n}")(rows) for n, rows in per_metric.items()}
        shown = {k: v for k, v in expected.items() if k in utils.FIGURES[key]}
        assert {k: aggregated[k] for k in shown} == pytest.approx(shown)
        assert all(not math.isnan(aggregated[k]) for k in shown)
        compared += len(shown)
    assert compared >= 8 and len(set(expected.values())) >= 2  # not a constant judge


# --- inspect_ai -----------------------------------------------------------------------------


def _inspect(dataset, config, tmp_path, **kw):
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval

    model, items, seen = mock_model(dataset, config, control_answer)
    [log] = inspect_eval(f"gridwm_judge/{config}", model=model,
                         task_args={"dataset": str(dataset)}, log_dir=str(tmp_path / "logs"),
                         display="none", **kw)
    assert log.status == "success" and len(log.samples) == len(items)
    return log, {i.uid: i for i in items}, seen


@pytest.mark.parametrize("config", ["oracle_state", "prompt_ablation"])
def test_inspect_eval_of_a_control_equals_score(controls_build, tmp_path, config):
    log, items, seen = _inspect(controls_build, config, tmp_path)
    spec = task_spec(config)
    # each row sent with its own images (none in the State arm) and its style's budget
    assert {(uid, n, t, budget) for uid, n, t, budget in seen} == {
        (uid, len(i.images), 0.0, spec.budget(str(i.audit["prompt_style"])))
        for uid, i in items.items()}
    if config == "oracle_state":
        assert {n for _, n, _, _ in seen} == {0, 2}
    else:
        assert {b for *_, b in seen} == {256, 1024}
    printed = {k: m.value for s in log.results.scores for k, m in s.metrics.items()}

    run, out = tmp_path / "run", tmp_path / "scores"
    assert main(["import-inspect", log.location, "--out", str(run)]) == 0
    records = read_prediction_file(run / "predictions.jsonl")
    assert {r.parse_mode for r in records} <= {"strict", "invalid"}  # JSON read as JSON
    judge = score_judge(controls_build, run / "predictions.jsonl", out, JUDGE)
    expected = expected_figures(judge, spec.name)
    assert len(expected) >= 8 and len(set(expected.values())) >= 2
    assert {k: printed[k] for k in expected} == pytest.approx(expected)
    correct = sum(r.correct for r in _graded(out))
    assert printed["accuracy"] == pytest.approx(correct / len(items))
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0


def _graded(scores_dir: Path):
    lines = (scores_dir / "rows.jsonl").read_text().splitlines()
    return [GradedRow(**json.loads(line)) for line in lines]


def test_inspect_prompt_ablation_scales_each_style_from_the_eval_budget(controls_build,
                                                                        tmp_path):
    log, items, seen = _inspect(controls_build, "prompt_ablation", tmp_path, max_tokens=100)
    by_style = {}
    for uid, _, _, budget in seen:
        by_style.setdefault(items[uid].audit["prompt_style"], set()).add(budget)
    assert by_style == {"direct": {100}, "structured_verdict": {100},
                        "structured_rationale": {400}}
    # the imported run records the budget the eval ran under, and each row's request hash
    # the budget it was asked with (the model object given here has no max_tokens of its own)
    run = tmp_path / "run"
    assert main(["import-inspect", log.location, "--out", str(run)]) == 0
    meta = json.loads((run / "run.json").read_text())
    assert meta["max_tokens"] == {"PA": 100}
    identity = {k: meta[k] for k in ("judge", "judge_options", "judge_settings")}
    sent = {uid: budget for uid, _, _, budget in seen}
    records = read_prediction_file(run / "predictions.jsonl")
    assert len(records) == len(items)
    for r in records:
        assert r.request_hash == request_hash(identity, sent[r.uid], r.item_digest), r.uid
